#!/usr/bin/env bash
# Run the series' KUnit suite for $BASE on UML with kunit.py (no guest, no
# module loading) and fail unless the suite ran and every case passed.
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
(cd "$TREE" && CCACHE_BASEDIR=$TOP ./tools/testing/kunit/kunit.py run \
	--kunitconfig=drivers/nvme/host --build_dir="$KUNIT_UML" \
	--jobs="$(nproc)" --make_options "CC=$cc") >"$log_file" 2>&1 || rc=$?
summary=$(grep -o 'Ran [0-9]* tests:.*' "$log_file" | tail -1 || true)
[ -n "$summary" ] || die "kunit.py did not run the suite for $BASE (exit $rc, see $log_file)"
grep -E '\[(PASSED|FAILED|SKIPPED|CRASHED)\] ' "$log_file" | sed 's/^\[[0-9:]*\] /  /'
if [ "$rc" -ne 0 ] || ! grep -qE "\[PASSED\] $suite =" "$log_file" ||
	[[ "$summary" =~ (failed|crashed|skipped): ]]; then
	die "KUnit suite $suite did not pass on $BASE: $summary, kunit.py exit $rc (see $log_file)"
fi
log "KUnit on UML ($BASE): $summary"
