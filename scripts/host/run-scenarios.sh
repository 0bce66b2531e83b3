#!/usr/bin/env bash
# The scenario runner for the host's groups: tests/GROUP/NNN, one scenario
# a file, in the shape blktests uses. A scenario file sets
#   NAME         its short name (what a caller or a lane asks for);
#   DESCRIPTION  one line: what it shows;
#   LANES        the lanes that run it (space-separated; "all" runs every
#                scenario of the group);
#   KERNELS      the bases it runs on (today linux-7.3, the booted one);
#   TIMEOUT      the guest's time limit in seconds;
#   RECOVERY     yes if error recovery is expected in its guest, no if
#                the guest's dmesg scan must fail on any;
#   EXPECT       pass, or "fail: WHAT" for a control that must fail;
# and defines requires() (return non-zero with SKIP_REASON set to skip)
# and test() (return 0 when the outcome is the one EXPECT names, setting
# DETAIL to what shows it). test() runs as a condition, so set -e does not
# stop it: it checks its own commands. A group's shared helpers live in
# tests/GROUP/rc, sourced before each scenario. Each scenario runs in a
# subshell of its own. A control (EXPECT "fail: ...") that skips, and a
# run in which every scenario skipped, fail: what did not run proves
# nothing.
# The runner alone writes the results: $LOGS/GROUP.tsv (scenario, expect,
# result, seconds, detail; result pass, FAIL or skip) and $LOGS/GROUP.ktap
# (KTAP v1), and prints the table.
# Usage: run-scenarios.sh GROUP [NAME... | lane=LANE]   (default: lane=all)
#        run-scenarios.sh GROUP list [lane=LANE]   (names, one per line)
# scripts/host/check-runner.sh holds it to fixture groups.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

group=${1:?usage: run-scenarios.sh GROUP [NAME... | lane=LANE]}
shift
# SCENARIO_DIR: another tests/ (check-runner.sh's fixture groups).
dir=${SCENARIO_DIR:-$TOP/tests}/$group
[ -d "$dir" ] || die "no scenario group tests/$group"
[ -f "$dir/rc" ] || die "tests/$group has no rc (the group's helpers)"
# A group's rc says where its scenarios run: GROUP_SIDE=host (this
# runner) or guest (tests/stress: scripts/guest/stress.sh, in the guests
# that scripts/host/stress.sh and check-stress.sh boot).
side=$(sed -nE 's/^GROUP_SIDE=([a-z]+).*/\1/p' "$dir/rc")
[ "$side" = host ] || die "tests/$group runs on the ${side:-unnamed} side (its rc's GROUP_SIDE=), not in this host runner"

# scenario_header, scenario_files: scripts/common/scenario.sh.
# shellcheck source=scripts/common/scenario.sh
. "$TOP/scripts/common/scenario.sh"
# The scenario files, in order; every one must name itself and its lanes.
mapfile -t files < <(scenario_files "$dir" || echo FAIL)
[ "${files[*]: -1}" != FAIL ] || die "tests/$group: a scenario file is malformed (above), or there is none"

list=0 lane=all want=()
for a in "$@"; do
	case "$a" in
	list) list=1 ;;
	lane=*) lane=${a#lane=} ;;
	*) want+=("$a") ;;
	esac
done
[ "$lane" = all ] || [ ${#want[@]} -eq 0 ] || die "run-scenarios.sh: name scenarios or a lane, not both"
# The plan: the named scenarios (each must exist) or those of the lane.
plan=()
if [ ${#want[@]} -gt 0 ]; then
	for w in "${want[@]}"; do
		hit=''
		for f in "${files[@]}"; do [ "$(scenario_header "$f" NAME)" = "$w" ] && hit=$f; done
		[ -n "$hit" ] || die "tests/$group has no scenario named '$w' (have: $(for f in "${files[@]}"; do printf '%s ' "$(scenario_header "$f" NAME)"; done))"
		plan+=("$hit")
	done
else
	for f in "${files[@]}"; do
		[ "$lane" = all ] || [[ " $(scenario_header "$f" LANES) " == *" $lane "* ]] && plan+=("$f")
	done
	[ ${#plan[@]} -gt 0 ] || die "tests/$group: no scenario is in lane '$lane'"
fi
if [ $list = 1 ]; then
	for f in "${plan[@]}"; do scenario_header "$f" NAME; done
	exit 0
fi

mkdir -p "$LOGS"
tsv=$LOGS/$group.tsv ktap=$LOGS/$group.ktap
printf 'scenario\texpect\tresult\tseconds\tdetail\n' >"$tsv"
printf 'KTAP version 1\n1..%d\n' ${#plan[@]} >"$ktap"
bad=0 k=0 ran=0
for f in "${plan[@]}"; do
	k=$((k + 1))
	name=$(scenario_header "$f" NAME) expect=$(scenario_header "$f" EXPECT)
	log "$group $k/${#plan[@]}: $name ($(scenario_header "$f" DESCRIPTION))"
	t0=$SECONDS
	res=$LOGS/$group-$name.result
	rm -f "$res"
	# The scenario's verdict comes back through $res: "result<TAB>detail".
	(
		readonly res
		# shellcheck source=/dev/null
		. "$dir/rc"
		# shellcheck source=/dev/null
		. "$f"
		SKIP_REASON='' DETAIL=''
		if ! declare -F requires test >/dev/null; then
			printf 'FAIL\t%s defines no requires() or no test()\n' "tests/$group/${f##*/}" >"$res"
		elif [[ " $KERNELS " != *" $BASE "* ]]; then
			printf 'skip\tnot for %s (KERNELS: %s)\n' "$BASE" "$KERNELS" >"$res"
		elif ! requires; then
			printf 'skip\t%s\n' "${SKIP_REASON:-requires() failed and gave no reason}" >"$res"
		elif test; then
			printf 'pass\t%s\n' "${DETAIL//$'\n'/ }" >"$res"
		else
			DETAIL=${DETAIL:-test() failed and gave no detail}
			printf 'FAIL\t%s\n' "${DETAIL//$'\n'/ }" >"$res"
		fi
	) || true
	secs=$((SECONDS - t0))
	result=FAIL detail="the scenario ended before its verdict (an error in tests/$group/${f##*/}?)"
	[ ! -s "$res" ] || IFS=$'\t' read -r result detail <"$res"
	if [ "$result" = skip ] && [ "$expect" != pass ]; then
		result=FAIL detail="a control that must fail did not run: $detail"
	fi
	[ "$result" = skip ] || ran=$((ran + 1))
	printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$expect" "$result" "$secs" "$detail" >>"$tsv"
	case "$result" in
	pass) echo "ok $k $name" >>"$ktap" ;;
	skip) echo "ok $k $name # SKIP $detail" >>"$ktap" ;;
	*)
		echo "not ok $k $name" >>"$ktap"
		bad=1
		;;
	esac
	log "$group $k/${#plan[@]}: $name $result in ${secs}s"
done
column -t -s $'\t' "$tsv"
[ $ran -gt 0 ] || die "$group: every scenario skipped, none ran (table: $tsv)"
[ $bad = 0 ] || die "$group: a scenario failed (table: $tsv, KTAP: $ktap)"
log "$group: ${#plan[@]} scenarios, none failed"
