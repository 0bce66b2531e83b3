#!/usr/bin/env bash
# Fixture tests of the scenario runner (scripts/host/run-scenarios.sh) and
# of the real groups' files: a fixture group with a scenario that passes,
# one that fails, one that skips, one for another kernel and one that dies
# before its verdict must give exactly the results table, KTAP and exit
# status below; broken groups (a header field missing, an unknown name, an
# empty lane) must be refused. Then every real group must list as its
# lanes say (tests/controls: ten in lane check, four in lane negative;
# tests/boot: the boot test; tests/stress: as config/stress-plan.tsv).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

run=$TOP/scripts/host/run-scenarios.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# expect: scripts/host/lib.sh.

# scenario DIR NNN NAME LANES KERNELS BODY: a fixture scenario file.
scenario() {
	mkdir -p "$1"
	cat >"$1/$2" <<SCN
NAME=$3
DESCRIPTION="fixture $3"
LANES="$4"
KERNELS="$5"
TIMEOUT=10
RECOVERY=no
EXPECT=pass
$6
SCN
}
g=$tmp/tests/fx
mkdir -p "$g"
printf '%s\n' GROUP_SIDE=host 'say() { DETAIL="$*"; }' >"$g/rc"
scenario "$g" 001 good "quick all" "$BASE" 'requires() { :; }
test() { say "it worked"; }'
scenario "$g" 002 broken "quick" "$BASE" 'requires() { :; }
test() { say "not caught"; return 1; }'
scenario "$g" 003 needy "slow" "$BASE" 'requires() { SKIP_REASON="no such device"; return 1; }
test() { say "ran anyway"; }'
scenario "$g" 004 other "slow" "linux-0.1" 'requires() { :; }
test() { say "ran on the wrong kernel"; }'
scenario "$g" 005 dies "slow" "$BASE" 'requires() { :; }
test() { exit 3; }'
# A control (must fail) that cannot run, and a file without test(): both
# FAIL.
scenario "$g" 006 control "slow" "$BASE" 'requires() { SKIP_REASON="no device"; return 1; }
test() { say "caught"; }'
sed -i 's/^EXPECT=pass/EXPECT="fail: something"/' "$g/006"
scenario "$g" 007 notest "slow" "$BASE" 'requires() { :; }'
fx() { BUILD=$tmp/build SCENARIO_DIR=$tmp/tests "$run" fx "$@"; }
results() { cut -f1,3,5 "$tmp/build/logs/fx.tsv"; }

expect "runner: exit status with a failure" 1 "" bash -c "$(declare -f fx); tmp=$tmp run=$run; fx >/dev/null"
expect "runner: the results table" 0 "scenario result detail
good pass it worked
broken FAIL not caught
needy skip no such device
other skip not for $BASE (KERNELS: linux-0.1)
dies FAIL the scenario ended before its verdict (an error in tests/fx/005?)
control FAIL a control that must fail did not run: no device
notest FAIL tests/fx/007 defines no requires() or no test()" results
expect "runner: KTAP" 0 "KTAP version 1
1..7
ok 1 good
not ok 2 broken
ok 3 needy # SKIP no such device
ok 4 other # SKIP not for $BASE (KERNELS: linux-0.1)
not ok 5 dies
not ok 6 control
not ok 7 notest" cat "$tmp/build/logs/fx.ktap"
expect "runner: a lane" 0 $'good\nbroken' fx list lane=quick
expect "runner: names, in the order asked" 0 $'dies\ngood' fx list dies good
expect "runner: only passing scenarios" 0 "" bash -c "$(declare -f fx); tmp=$tmp run=$run; fx good >/dev/null"
expect "runner: every scenario skipped" 1 "" bash -c "$(declare -f fx); tmp=$tmp run=$run; fx needy other >/dev/null"
expect "runner: names and a lane" 1 "" fx list good lane=quick
expect "runner: a name no file has" 1 "" fx list nosuch
expect "runner: an empty lane" 1 "" fx list lane=nosuch
sed -i '/^TIMEOUT=/d' "$g/003"
expect "runner: a header field missing" 1 "" fx list
expect "runner: a group without rc" 1 "" bash -c "BUILD=$tmp/build SCENARIO_DIR=$tmp '$run' tests"
# The real groups: their files parse and their lanes hold what the
# Makefile and check-controls.sh ask for; a guest group is refused here.
expect "controls: lane check" 0 "strict retransmit poll stall enomem rxe-unfixed 2017-rule lifetime lifetime-read bounds lifetime-pullup" \
	bash -c "'$run' controls list lane=check | paste -sd' '"
expect "controls: lane negative" 0 "rxe-unfixed 2017-rule lifetime lifetime-read lifetime-pullup" \
	bash -c "'$run' controls list lane=negative | paste -sd' '"
expect "boot: the boot test" 0 "boot-test" "$run" boot list lane=check
expect "lossy: the quick pair" 0 "lossy-quick" "$run" lossy list lane=quick
# The groups' verdict helpers on made-up guest logs: each must refuse
# what it exists to refuse.
verdict() { # GROUP RC FUNCTION [ARGS]: the helper's exit status and DETAIL's head
	(
		# shellcheck source=/dev/null
		. "$TOP/tests/$1/rc"
		# shellcheck disable=SC2034 # read by the helpers
		NAME=fx RECOVERY=no OUT=$tmp/out RC=$2 DETAIL=''
		shift 2
		"$@"
		echo "$? ${DETAIL%%:*}"
	)
}
mkdir -p "$tmp/out"
printf 'strict_overflows 0\noracle_compared 5\noracle_mismatches 0\n' >"$tmp/out/rxe-counters.txt"
echo '[    9.1] nothing to see' >"$tmp/out/dmesg.txt"
expect "controls: must_pass, a clean guest" 0 "0 no overflow; oracle compared 5 retransmitted SENDs, none changed" verdict controls 0 must_pass retransmit
expect "controls: must_pass, a failed guest" 0 "1 guest failed" verdict controls 1 must_pass
expect "controls: must_fail, a passing guest" 0 "1 NOT CAUGHT" verdict controls 0 must_fail 'never'
expect "controls: must_fail, another cause" 0 "1 FAILED, other cause" verdict controls 1 must_fail 'never'
expect "controls: must_fail, caught" 0 "0 caught" verdict controls 1 must_fail 'nothing to see'
echo '[    9.2] nvme nvme0: starting error recovery' >>"$tmp/out/dmesg.txt"
expect "controls: must_pass, recovery with RECOVERY=no" 0 "1 error recovery where the scenario expects none (RECOVERY=no)" verdict controls 0 must_pass
printf 'strict_overflows 1\noracle_compared 5\noracle_mismatches 0\n' >"$tmp/out/rxe-counters.txt"
echo '[    9.1] nothing' >"$tmp/out/dmesg.txt"
expect "controls: must_pass, an overflow" 0 "1 oracle_mismatches=0 strict_overflows=1" verdict controls 0 must_pass
expect "boot: a guest without results.tsv" 0 "1 the guest passed but wrote no results.tsv ($tmp/out)" verdict boot 0 guest_verdict
printf 'profile\tport\tsqsize\tresult\tverified\th\ts\tnote\tdropped\nloss\t1\t127\tpass\tyes\t0\t1\t-\t9\nloss\t2\t15\tFAIL\tyes\t0\t1\t-\t0\n' >"$tmp/out/lossy.tsv"
expect "lossy: a row that failed" 0 "1 pair failed (rc 0, 2 rows, 1 not passed)" verdict lossy 0 pair_verdict
expect "stress: a guest group, not run here" 1 "" "$run" stress list
# The guest's runner finds an instance's file by its NAME
# (scripts/common/scenario.sh): the longest NAME that is the instance or
# its prefix before "-"; the rest are its parameters.
resolve() { # INSTANCE: "NNN PARAMETERS"
	# shellcheck source=scripts/common/scenario.sh
	(. "$TOP/scripts/common/scenario.sh" && scenario_resolve "$TOP/tests/stress" "$1") | sed 's|^.*/||'
}
expect "stress: reset-20" 0 "002 20" resolve reset-20
expect "stress: mx-t16-h32" 0 "001 t16-h32" resolve mx-t16-h32
expect "stress: disconnect-io, no parameter" 0 "005 " resolve disconnect-io
expect "stress: delete-ka-60" 0 "008 60" resolve delete-ka-60
expect "stress: port-readd-3" 0 "003 3" resolve port-readd-3
expect "stress: an unknown instance" 1 "" resolve nosuch-3
expect "stress: a NAME without its dash" 1 "" resolve resetx
# Every instance of config/stress-plan.tsv has a file whose LANES name
# its lane, and every lane a file names has one of its instances.
plan_check() {
	# shellcheck source=scripts/common/stress-plan.sh
	. "$TOP/scripts/common/stress-plan.sh"
	# shellcheck source=scripts/common/scenario.sh
	. "$TOP/scripts/common/scenario.sh"
	local lane inst file seen='' f l
	for lane in $STRESS_LANES quick; do
		for inst in $(stress_lane "$lane"); do
			file=$(scenario_resolve "$TOP/tests/stress" "$inst" | cut -f1) || return 1
			[[ " $(scenario_header "$file" LANES) " == *" $lane "* ]] ||
				{ echo "${file#"$TOP"/}: instance $inst is in lane $lane, its LANES do not say so"; return 1; }
			seen+=" $file:$lane"
		done
	done
	for f in $(scenario_files "$TOP/tests/stress"); do
		for l in $(scenario_header "$f" LANES); do
			[[ $seen == *" $f:$l"* ]] || { echo "${f#"$TOP"/}: LANES names $l, the plan has no instance of it there"; return 1; }
		done
	done
	echo consistent
}
expect "stress: files and plan agree" 0 consistent plan_check
[ "$FIXTURE_BAD" -eq 0 ] || die "the scenario runner gave the wrong results for its fixtures (above)"
log "runner: the fixture groups' results, KTAP and refusals are as they must be"
