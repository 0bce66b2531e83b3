#!/usr/bin/env bash
# Run the series' KUnit suite inside the boot-test kernel and fail if any
# case failed or the suite did not run. Saves the KTAP in $LOGS/kunit/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

module=rdma_send_ring_kunit suite=nvme-rdma-send-ring
release=$(cat "$OBJ/include/config/kernel.release")
find "$MODROOT/lib/modules/$release" -name "$module.ko*" | grep -q . ||
	die "KUnit module $module not built (is NVME_RDMA_KUNIT_TEST in the series?)"
"$TOP/scripts/host/boot.sh" kunit 900 "$TOP/scripts/guest/kunit.sh" "$module" "$suite" ||
	die "KUnit guest failed (logs: $LOGS/kunit)"
ktap=$LOGS/kunit/kunit.ktap
grep -E '^ *(not )?ok [0-9]+ ' "$ktap" | sed 's/^/  /'
total=$(grep -cE '^    (not )?ok [0-9]+ ' "$ktap" || true)
failed=$(grep -cE '^    not ok [0-9]+ ' "$ktap" || true)
[ "$total" -gt 0 ] || die "KUnit: suite $suite ran no test case (see $ktap)"
echo "kunit: $((total - failed)) passed, $failed failed"
if [ "$failed" -ne 0 ] || ! grep -qE "^ok [0-9]+ $suite" "$ktap"; then
	die "KUnit suite $suite failed (see $ktap)"
fi
