#!/usr/bin/env bash
# Boot the built kernel and prove the hardware mode script with rxe0
# standing in for the RDMA device (scripts/guest/hw-selftest.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
name=hw-selftest
"$TOP/scripts/host/boot.sh" "$name" "${BOOT_TIMEOUT:-1800}" "$TOP/scripts/guest/hw-selftest.sh" ||
	die "hardware mode self-test failed (logs: $LOGS/$name)"
for m in loopback remote; do
	echo "== hardware mode, $m (rxe0): $(sed -n 's/^target //p' "$LOGS/$name/$m/hw-info")"
	column -t -s "$(printf '\t')" "$LOGS/$name/$m/results.tsv"
done
