#!/usr/bin/env bash
# Boot the built kernel, run the soft-RoCE nvme-rdma I/O test, print the
# summary table. Exits non-zero on any failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
name=${1:-boot-test}
"$TOP/scripts/host/boot.sh" "$name" "${BOOT_TIMEOUT:-1500}" "$TOP/scripts/guest/nvme-rdma-io.sh" check ||
	die "boot test failed (logs: $LOGS/$name)"
"$TOP/scripts/host/summary.sh" "$LOGS/$name"
