#!/usr/bin/env bash
# Run the series' KUnit suite for $BASE on UML with kunit.py (no guest, no
# module loading) and fail unless the suite ran and every case passed,
# as kunit.py's JSON results ($LOGS/kunit-uml-$BASE.json) say.
# This is how the backport's suite is proven: 6.1 is never booted from
# our own build. The log stays in $LOGS/kunit-uml-$BASE.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

suite=nvme-rdma-send-ring
log_file=$LOGS/kunit-uml-$BASE.log
[ -f "$TREE/drivers/nvme/host/rdma_send_ring_kunit.c" ] ||
	die "no KUnit suite in $TREE: is patches/$BASE applied? (make tree BASE=$BASE)"
mkdir -p "$LOGS"
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
log "KUnit on UML for $BASE (build dir $KUNIT_UML, log $log_file)"
rc=0
json=$LOGS/kunit-uml-$BASE.json
rm -f "$json"
(cd "$TREE" && CCACHE_BASEDIR=$TOP ./tools/testing/kunit/kunit.py run \
	--kunitconfig=drivers/nvme/host --build_dir="$KUNIT_UML" \
	--jobs="$(nproc)" --make_options "CC=$cc" --json="$json") >"$log_file" 2>&1 || rc=$?
[ -s "$json" ] || die "kunit.py wrote no JSON results for $BASE (exit $rc, see $log_file)"
# The verdict comes from kunit.py's own parse (its JSON), not from the log.
summary=$("$TOP/scripts/host/kunit-verdict.py" "$json" "$suite" "$(kunit_cases "$suite")") || die "KUnit suite $suite did not pass on $BASE: ${summary:-no summary}, kunit.py exit $rc (see $log_file, $json)"
[ "$rc" -eq 0 ] || die "kunit.py exited $rc on $BASE although every case passed (see $log_file)"
log "KUnit on UML ($BASE, kunit.py JSON): $summary"
