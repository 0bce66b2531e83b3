#!/usr/bin/env bash
# Fixture tests of the readers every consumer shares:
# scripts/common/fio-json.py (fio's JSON, guest and host),
# scripts/host/kunit-verdict.py (kunit.py's JSON) and
# scripts/common/stress-plan.sh (config/stress-plan.tsv). Each reads crafted
# input that it must accept with the right figures, and input it must
# refuse: a reader that cannot fail is not a check.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

fio=$TOP/scripts/common/fio-json.py verdict=$TOP/scripts/host/kunit-verdict.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# expect: scripts/host/lib.sh.

# job NAME RIOS WIOS RMS WMS JOBMS CLATNS ERROR: one fio job.
job() {
	printf '{"jobname": "%s", "error": %s, "job_runtime": %s, ' "$1" "$8" "$6"
	printf '"read": {"total_ios": %s, "runtime": %s, "clat_ns": {"max": %s}}, ' "$2" "$4" "$7"
	printf '"write": {"total_ios": %s, "runtime": %s, "clat_ns": {"max": 0}}}' "$3" "$5"
}
{ echo '{"fio version": "fio-3.33", "jobs": ['; job a 1000 3000 2000 1900 2001 5500000 0
  echo ','; job b 500 0 1000 2500 1002 900000 0; echo ']}'; } >"$tmp/two.json"
{ echo 'fio: terminating on signal 15'; echo '{"jobs": ['; job a 10 0 5 0 5 1000 0; echo ']}'; } >"$tmp/prefixed.json"
{ echo '{"jobs": ['; job a 10 0 5 0 5 1000 0; echo ','; job b 10 0 5 0 5 1000 5; echo ']}'; } >"$tmp/error.json"
{ echo '{"jobs": ['; job a 0 0 0 0 0 0 0; echo ']}'; } >"$tmp/idle.json"
echo '{"jobs": [{"jobname": "a", "error": 0}]}' >"$tmp/short.json"
echo '{"jobs": []}' >"$tmp/nojobs.json"
echo 'fio: pid=42, err=5/file:io_u.c' >"$tmp/text.json"

expect "fio: jobs summed" 0 "4500 1500 3000 2500 1800" "$fio" "$tmp/two.json" ios rios wios ms iops
expect "fio: per job" 0 $'a 4000\nb 500' "$fio" --per-job "$tmp/two.json" job ios
expect "fio: one job by name" 0 "500 900" "$fio" --job b "$tmp/two.json" rios rclat_max_us
expect "fio: text before the JSON" 0 "10 2000" "$fio" "$tmp/prefixed.json" ios iops
expect "fio: a job with fio's error" 1 "fio error 5 in job b ($tmp/error.json)" "$fio" "$tmp/error.json" ios
expect "fio: no runtime" 0 "0 0" "$fio" "$tmp/idle.json" ios iops
expect "fio: a job without figures" 1 "fio result in $tmp/short.json lacks 'read'" "$fio" "$tmp/short.json" ios
expect "fio: no job" 1 "no fio job in $tmp/nojobs.json" "$fio" "$tmp/nojobs.json" ios
expect "fio: no JSON" 1 "no fio result in $tmp/text.json (substring not found)" "$fio" "$tmp/text.json" ios
expect "fio: missing file" 1 "no fio result in $tmp/none.json ([Errno 2] No such file or directory: '$tmp/none.json')" \
	"$fio" "$tmp/none.json" ios
expect "fio: missing job" 1 "no job c in $tmp/two.json" "$fio" --job c "$tmp/two.json" ios
expect "fio: unknown field" 2 "usage: fio-json.py [--per-job] [--job NAME] JSON FIELD... (fields: ios rios wios ms iops job rclat_max_us)" \
	"$fio" "$tmp/two.json" iosx

# kunit.py's JSON: a suite with a parameterized case and a plain one.
kjson() {
	printf '{"name": "main", "sub_groups": [{"name": "s", "test_cases": [{"name": "plain", "status": "%s"}],' "$1"
	printf ' "sub_groups": [{"name": "param", "test_cases": [{"name": "p1", "status": "PASS"}, {"name": "p2", "status": "%s"}]}]}]}' "$2"
}
kjson PASS PASS >"$tmp/pass.json"
kjson PASS FAIL >"$tmp/fail.json"
kjson SKIP PASS >"$tmp/skip.json"
echo '{"name": "main", "sub_groups": [{"name": "s"}]}' >"$tmp/empty.json"
expect "kunit: all pass" 0 "3 test cases: PASS 3" "$verdict" "$tmp/pass.json" s
expect "kunit: all pass, as many as pinned" 0 "3 test cases: PASS 3" "$verdict" "$tmp/pass.json" s 3
expect "kunit: a case missing" 1 "3 test cases: PASS 3 (expected 4 cases)" "$verdict" "$tmp/pass.json" s 4
expect "kunit: a parameter fails" 1 "3 test cases: FAIL 1, PASS 2" "$verdict" "$tmp/fail.json" s
expect "kunit: a case skipped" 1 "3 test cases: PASS 2, SKIP 1" "$verdict" "$tmp/skip.json" s
expect "kunit: suite without cases" 1 "0 test cases: " "$verdict" "$tmp/empty.json" s
expect "kunit: suite missing" 1 "no suite other in the results" "$verdict" "$tmp/pass.json" other
expect "kunit: not JSON" 1 "cannot read $tmp/text.json: Expecting value: line 1 column 1 (char 0)" \
	"$verdict" "$tmp/text.json" s
# The stress plan (scripts/common/stress-plan.sh): the real table has
# every lane make stress and make check run; broken tables are refused.
plan() { # TABLE LANE: the lane's kernel and scenarios, on one line
	# shellcheck source=scripts/common/stress-plan.sh
	(. "$TOP/scripts/common/stress-plan.sh" && STRESS_PLAN=$1 && stress_plan_row "$2")
}
# lane_size LANE: the scenarios of the real table's LANE.
lane_size() { plan "$TOP/config/stress-plan.tsv" "$1" | wc -w | awk '{ print $1 - 1 }'; }
expect "plan: lane faults" 0 9 lane_size faults
expect "plan: lane cycles" 0 2 lane_size cycles
expect "plan: lane matrix, 24 cases" 0 24 lane_size matrix
expect "plan: lane quick" 0 8 lane_size quick
printf 'lane\tkernel\tscenarios\nquick\tnormal\treset-1\n' >"$tmp/plan-ok.tsv"
printf 'lane\tkernels\tscenarios\nquick\tnormal\treset-1\n' >"$tmp/plan-header.tsv"
printf 'lane\tkernel\tscenarios\nquick\tkasan\treset-1\n' >"$tmp/plan-kernel.tsv"
printf 'lane\tkernel\tscenarios\nquick normal reset-1\n' >"$tmp/plan-tabs.tsv"
expect "plan: a lane" 0 "normal reset-1" plan "$tmp/plan-ok.tsv" quick
expect "plan: missing lane" 2 "" plan "$tmp/plan-ok.tsv" faults
expect "plan: wrong header" 2 "" plan "$tmp/plan-header.tsv" quick
expect "plan: unknown kernel" 2 "" plan "$tmp/plan-kernel.tsv" quick
expect "plan: not tab-separated" 2 "" plan "$tmp/plan-tabs.tsv" quick
expect "plan: no table" 2 "" plan "$tmp/none.tsv" quick
printf 'lane\tkernel\tscenarios\nquick\tnormal\treset-1\nquick\tdebug\tfatal-1\n' >"$tmp/plan-twice.tsv"
expect "plan: a lane twice" 2 "normal reset-1" plan "$tmp/plan-twice.tsv" quick
# What the consumers call: the scenarios one per line, and the kernel.
lane_fn() { # TABLE FUNCTION LANE
	# shellcheck source=scripts/common/stress-plan.sh
	(. "$TOP/scripts/common/stress-plan.sh" && STRESS_PLAN=$1 && "$2" "$3")
}
printf 'lane\tkernel\tscenarios\nfaults\tdebug\treset-1 fatal-2\n' >"$tmp/plan-two.tsv"
expect "plan: stress_lane" 0 $'reset-1\nfatal-2' lane_fn "$tmp/plan-two.tsv" stress_lane faults
expect "plan: stress_lane_kernel" 0 debug lane_fn "$tmp/plan-two.tsv" stress_lane_kernel faults
expect "plan: stress_lane, no lane" 1 "" lane_fn "$tmp/plan-two.tsv" stress_lane quick
# The bench rows (config/bench-rows.tsv), as the guest's bench.sh lists them.
expect "bench rows: 29, 8 fields each" 0 "29 8" bash -c "'$TOP/scripts/guest/bench.sh' list | awk '{ n++; if (NF != 8) bad = 1 } END { print n, bad ? \"bad\" : 8 }'"
[ "$FIXTURE_BAD" -eq 0 ] || die "a reader accepted or refused the wrong input (above)"
log "readers: fio-json.py, kunit-verdict.py and the stress plan read and refuse their fixtures as they must"
