#!/usr/bin/env bash
# Run the series' KUnit suite inside the boot-test kernel and fail if any
# case failed or the suite did not run, as kunit.py's parse of the KTAP
# says. Saves the KTAP and the JSON in $LOGS/kunit/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

module=rdma_send_ring_kunit suite=nvme-rdma-send-ring
release=$(cat "$OBJ/include/config/kernel.release")
find "$MODROOT/lib/modules/$release" -name "$module.ko*" | grep -q . ||
	die "KUnit module $module not built (is NVME_RDMA_KUNIT_TEST in the series?)"
"$TOP/scripts/host/boot.sh" kunit 900 "$TOP/scripts/guest/kunit.sh" "$module" "$suite" ||
	die "KUnit guest failed (logs: $LOGS/kunit)"
ktap=$LOGS/kunit/kunit.ktap json=$LOGS/kunit/kunit.json
[ -s "$ktap" ] || die "the KUnit guest wrote no KTAP (see $LOGS/kunit)"
# The verdict comes from kunit.py's own parse of the guest's KTAP (its
# JSON), as for UML; its exit status only says whether a case failed.
rm -f "$json"
rc=0
"$TREE/tools/testing/kunit/kunit.py" parse --json="$json" "$ktap" >"$LOGS/kunit/parse.log" 2>&1 || rc=$?
[ -s "$json" ] || die "kunit.py parse wrote no JSON (exit $rc, see $LOGS/kunit/parse.log)"
summary=$("$TOP/scripts/host/kunit-verdict.py" "$json" "$suite" "$(kunit_cases "$suite")") ||
	die "KUnit suite $suite failed in the guest: ${summary:-no summary} (see $ktap, $json)"
[ "$rc" -eq 0 ] || die "kunit.py parse exited $rc although every case passed (see $LOGS/kunit/parse.log)"
log "KUnit in the guest (kunit.py parse): $summary"
