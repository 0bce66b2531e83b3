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
# The verdict comes from kunit.py's own parse (its JSON), not from the log:
# every test case of the suite, at any depth, must be PASS.
summary=$(/usr/bin/python3 - "$json" "$suite" <<'PY'
import json, sys
from collections import Counter
root, suite = json.load(open(sys.argv[1])), sys.argv[2]
def find(g):
    if g.get("name") == suite:
        return g
    for s in g.get("sub_groups", []):
        f = find(s)
        if f:
            return f
    return None
def cases(g, path):
    for c in g.get("test_cases", []):
        yield path + [c["name"]], c["status"]
    for s in g.get("sub_groups", []):
        yield from cases(s, path + [s["name"]])
g = find(root)
if g is None:
    print(f"no suite {suite} in the results")
    sys.exit(1)
res = list(cases(g, []))
n = Counter(st for _, st in res)
for p, st in res:
    if st != "PASS":
        print(f"  {st}: {'.'.join(p)}", file=sys.stderr)
print(f"{len(res)} test cases: " + ", ".join(f"{k} {v}" for k, v in sorted(n.items())))
sys.exit(0 if res and set(n) == {"PASS"} else 1)
PY
) || die "KUnit suite $suite did not pass on $BASE: ${summary:-no summary}, kunit.py exit $rc (see $log_file, $json)"
[ "$rc" -eq 0 ] || die "kunit.py exited $rc on $BASE although every case passed (see $log_file)"
log "KUnit on UML ($BASE, kunit.py JSON): $summary"
