#!/bin/bash
# The stress runner (guest side): the scenarios of tests/stress (one file
# each, blktests' shape: a header, requires(), test(); tests/stress/rc has
# their helpers), one at a time, each in its own process with its time
# limit (its TIMEOUT), so one failure or hang does not hide the others.
# Usage: stress.sh [budget=SECONDS] [list=FILE | INSTANCE...]   (default: all)
#        stress.sh list-all | list-matrix   (print instance names, any host)
#   budget: scenarios not started within SECONDS of the first are reported
#   "not run" (a time-boxed run says what it did not do).
#        stress.sh one INSTANCE       (internal: run one scenario)
# An instance is a scenario's NAME and its parameters (reset-20: NAME reset,
# 20 resets; mx-t16-h32: NAME mx, target 16, host 32); the plan of
# instances per lane is config/stress-plan.tsv.
# A planned instance that skips (its requires() says it cannot run here)
# fails the run as FAIL does: the plan must not ask for what cannot run.
# Writes $OUT/stress.tsv: scenario, result (pass, FAIL, skip, not run),
# data verified, splats, seconds, note, recovery (error-recovery lines in
# the scenario's dmesg; a scenario with RECOVERY=no fails on any); per
# scenario $OUT/scn/INSTANCE.{log,dmesg}.
set -euo pipefail

# The scenarios come from config/stress-plan.tsv (scripts/common/stress-plan.sh).
# shellcheck source=scripts/common/stress-plan.sh
. "$(dirname "$0")/../common/stress-plan.sh"
list_matrix() { stress_lane matrix; }
# list_all: every scenario of make stress's lanes, once each, in order.
list_all() {
	local l
	for l in $STRESS_LANES; do stress_lane "$l" || return 1; done | awk '!seen[$0]++'
}
# The names, from config/stress-plan.tsv (no guest needed).
case "${1:-}" in list-matrix | list-all) "${1/-/_}"; exit 0 ;; esac

. "$(dirname "$0")/lib.sh"
# scenario_resolve, scenario_header: scripts/common/scenario.sh.
# shellcheck source=scripts/common/scenario.sh
. "$(dirname "$0")/../common/scenario.sh"
STRESS_DIR=$(readlink -f "$(dirname "$0")/../../tests/stress")
# shellcheck source=tests/stress/rc
. "$STRESS_DIR/rc"
SELF=$(readlink -f "$0")
SCN=$OUT/scn
# Scenario failures go to the scenario's own error file.
ERRFILE=$OUT/error
fail() {
	echo "FAIL: $*"
	[ -e "$ERRFILE" ] || echo "$*" >"$ERRFILE"
	exit 1
}

# A scenario whose header says RECOVERY=yes injects faults: error
# recovery in its dmesg is then expected, not a failure (lib.sh
# DMESG_RECOVERY). Every other scenario fails on it.
recovery_expected() {
	ALLOW_RECOVERY=1
	: >"$SCN/$INSTANCE.recovery-expected"
}

# SIGTERM to this shell's background jobs, if any are left.
stop_jobs() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
}

# One scenario, in its own process: writes "verified<TAB>note", or
# "skip<TAB>reason" when its requires() says it cannot run here, to
# $SCN/INSTANCE.result.
run_one() {
	local file params base
	INSTANCE=$1 VERIFIED=n/a NOTE=""
	ERRFILE=$SCN/$INSTANCE.error
	# Whatever happens, stop this scenario's I/O loop and relink every
	# target port, so that the next scenario starts clean.
	# A failed scenario also stops its own background readers and loops.
	trap 'touch "$SCN/$INSTANCE.stop"; stop_jobs; relink_ports' EXIT
	IFS=$'\t' read -r file params < <(scenario_resolve "$STRESS_DIR" "$INSTANCE") ||
		fail "unknown scenario '$INSTANCE' (no file of tests/stress has its NAME)"
	# shellcheck source=/dev/null
	. "$file"
	# Without its own test(), "test" would be the shell's builtin.
	declare -F requires test >/dev/null || fail "${file##*/tests/}: defines no requires() or no test()"
	base=linux-$(uname -r | cut -d. -f1,2)
	if [[ " $KERNELS " != *" $base "* ]]; then
		printf 'skip\tnot for %s (KERNELS: %s)\n' "$base" "$KERNELS" >"$SCN/$INSTANCE.result"
		return 0
	fi
	SKIP_REASON=''
	if ! requires; then
		printf 'skip\t%s\n' "${SKIP_REASON:-requires() failed and gave no reason}" >"$SCN/$INSTANCE.result"
		return 0
	fi
	# shellcheck disable=SC2153 # RECOVERY: the scenario file's header
	[ "$RECOVERY" != yes ] || recovery_expected
	# shellcheck disable=SC2086 # the parameters, one per word (none: no argument)
	test $params
	printf '%s\t%s\n' "$VERIFIED" "$NOTE" >"$SCN/$INSTANCE.result"
}

# timeout_of INSTANCE: its scenario's TIMEOUT (SCENARIO_TIMEOUT, if set,
# overrides every scenario's); 2400 for an instance no file has, which
# run_one then fails at once.
timeout_of() {
	local file
	[ -z "${SCENARIO_TIMEOUT:-}" ] || { echo "$SCENARIO_TIMEOUT"; return 0; }
	file=$(scenario_resolve "$STRESS_DIR" "$1" 2>/dev/null | cut -f1) || true
	if [ -n "$file" ]; then scenario_header "$file" TIMEOUT; else echo 2400; fi
}

# Splats: any of these in a scenario's dmesg fails it (DMESG_BAD in
# scripts/common/dmesg-policy.sh: splats, lockdep, hung tasks, post
# failures of any nvme_rdma function, the
# test rxe's overflow and retry-oracle lines; DMA-API debug and
# debugobjects report through WARN), but for kmemleak's own report, which
# connect-N reads for nvme/rdma objects; and so does error recovery
# (DMESG_RECOVERY) in a scenario that injected no fault.
SPLAT=${DMESG_BAD//'|kmemleak: [0-9]+ new suspected'/}
[ "$SPLAT" != "$DMESG_BAD" ] || fail "stress.sh: DMESG_BAD (scripts/common/dmesg-policy.sh) changed, the kmemleak exception no longer applies"

WHY='QP event|: (disconnected|device removal|rejected|connect error|unreachable|address change|timewait exit|established) \(|CM error event|disconnect received|failed with status|starting error recovery'

if [ "${1:-}" = one ]; then
	run_one "$2"
	exit 0
fi

mkdir -p "$SCN"
budget=0
case "${1:-}" in budget=*) budget=${1#budget=} && shift ;; esac
# list=FILE: scenario names in a file (the kernel passes init at most 32
# arguments).
case "${1:-}" in list=*) mapfile -t scn_list <"${1#list=}" && set -- "${scn_list[@]}" ;; esac
# shellcheck disable=SC2046 # one scenario name per word
[ $# -gt 0 ] || set -- $(list_all)
# The plan, so the report can tell a scenario that never ran (guest died).
printf '%s\n' "$@" >"$OUT/scenarios.txt"
setup_fabric
ports=()
i=1
for t in $TARGET_SIZES; do
	ports+=("$i:$t")
	i=$((i + 1))
done
setup_target "${ports[@]}"
setup_host
{
	echo "kernel $(uname -r)"
	echo "checkers: $(zcat /proc/config.gz | sed -nE 's/^CONFIG_(KASAN|UBSAN|PROVE_LOCKING|DMA_API_DEBUG|DEBUG_KMEMLEAK|DEBUG_OBJECTS)=y/\1/p' | paste -sd' ' | grep . || echo none)"
	echo "driver $(driver_kind) $(sha256sum <"$(modinfo -n nvme_rdma)" | cut -c1-12)"
	echo "nvme_rdma dyndbg: $(grep -c '\[nvme_rdma\][^"]*=p' /sys/kernel/debug/dynamic_debug/control 2>/dev/null || echo 0) sites on"
	echo "cmdline: $(sed 's/.* init=[^ ]* //; s/ -- .*//' /proc/cmdline)"
} >"$OUT/info"
printf 'scenario\tresult\tverified\tsplats\tseconds\tnote\trecovery\n' >"$OUT/stress.tsv"
# kmemleak's periodic scan of all memory is slow under TCG; connect-N
# scans on demand. Built in but off (kmemleak=off): it refuses the write.
KMEMLEAK=0
echo scan=off 2>/dev/null >/sys/kernel/debug/kmemleak && KMEMLEAK=1
export KMEMLEAK
echo "kmemleak: $([ $KMEMLEAK = 1 ] && echo on || echo off)" >>"$OUT/info"
trap - ERR
set +e
start=$(date +%s)
for s in "$@"; do
	if [ "$budget" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$budget" ]; then
		printf '%s\tnot run\tn/a\t0\t0\ttime budget of %ss used up\t-\n' "$s" "$budget" >>"$OUT/stress.tsv"
		continue
	fi
	phase "scenario $s"
	lines=$(dmesg | wc -l)
	rm -f "$SCN/$s.recovery-expected" "$SCN/$s.result"
	t0=$(date +%s)
	step "$(timeout_of "$s")" "$SELF" one "$s" >"$SCN/$s.log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	dmesg | tail -n +$((lines + 1)) >"$SCN/$s.dmesg"
	splats=$(grep -cE "$SPLAT" "$SCN/$s.dmesg")
	allow=0
	[ ! -e "$SCN/$s.recovery-expected" ] || allow=1
	nrec=$(grep -cE "$DMESG_RECOVERY" "$SCN/$s.dmesg")
	recovery="$nrec (no fault injected)"
	[ $allow = 0 ] || recovery="$nrec (faults injected)"
	bad=""
	[ $allow = 1 ] || bad=$(grep -m1 -E "$DMESG_RECOVERY" "$SCN/$s.dmesg")
	result=pass verified=n/a note=""
	if [ -f "$SCN/$s.result" ]; then
		IFS=$'\t' read -r verified note <"$SCN/$s.result"
	fi
	# requires() said it cannot run here: "skip", and why.
	[ "$verified" != skip ] || result=skip verified=n/a
	# Why queues were torn down: nvme_rdma's CM and QP event lines
	# (dev_dbg, on through nvme_rdma.dyndbg), failed completions and
	# the error recoveries they started.
	grep -E "$WHY" "$SCN/$s.dmesg" >"$SCN/$s.why" || true
	if [ $rc -ne 0 ]; then
		result=FAIL
		note=$(cat "$SCN/$s.error" 2>/dev/null || echo "exit $rc")
		[ $rc -ne 124 ] && [ $rc -ne 137 ] || note="hung: killed after ${secs}s; $note"
	elif [ "$splats" -gt 0 ]; then
		result=FAIL note="splat: $(grep -m1 -E "$SPLAT" "$SCN/$s.dmesg" | cut -c1-120)"
	elif [ -n "$bad" ]; then
		result=FAIL note="error recovery, no fault was injected: $(cut -c1-140 <<<"$bad")"
	fi
	if [ "$result" = FAIL ] && [ -s "$SCN/$s.why" ]; then
		note+="; first teardown cause: $(grep -m1 -vE 'established|resolved' "$SCN/$s.why" | sed 's/^\[[^]]*\] //' | cut -c1-100)"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$result" "$verified" "$splats" "$secs" "$note" "$recovery" >>"$OUT/stress.tsv"
	echo "RESULT: $s $result ($secs s) $note"
	# Leave no I/O and no controller behind for the next scenario (a
	# scenario killed by its time limit could not clean up itself).
	touch "$SCN/$s.stop"
	if pkill -x fio; then
		sleep 2
		pkill -9 -x fio && sleep 5
		! pgrep -x fio >/dev/null || echo "cleanup after $s: fio still running (stuck in the kernel?)"
	fi
	relink_ports 2>/dev/null
	(disconnect_all) >/dev/null 2>&1 || echo "cleanup after $s: disconnect failed"
	lsmod | grep -q '^nvme_rdma' || modprobe nvme_rdma
done
dmesg >"$OUT/dmesg.txt"
# What no scenario's window holds (set-up, the clean-ups between
# scenarios) is checked too: a splat there fails the run as a row of its own.
outside=$(($(grep -cE "$SPLAT" "$OUT/dmesg.txt") - $(cat "$SCN"/*.dmesg 2>/dev/null | grep -cE "$SPLAT")))
if [ "$outside" -gt 0 ]; then
	printf '%s\tFAIL\tn/a\t%s\t0\t%s\t-\n' "$STRESS_OUTSIDE_ROW" "$outside" \
		"splat outside every scenario's window (set-up or clean-up): $(grep -m1 -E "$SPLAT" "$OUT/dmesg.txt" | cut -c1-120)" >>"$OUT/stress.tsv"
fi
# The verdicts as KTAP too (the runner writes both; a skip is "ok # SKIP").
awk -F'\t' 'NR > 1 { n++; r[n] = $2; s[n] = $1; w[n] = $6 }
	END { print "KTAP version 1"; print "1.." n
	      for (i = 1; i <= n; i++) {
		if (r[i] == "pass") print "ok " i " " s[i]
		else if (r[i] == "skip") print "ok " i " " s[i] " # SKIP " w[i]
		else print "not ok " i " " s[i] }
	}' "$OUT/stress.tsv" >"$OUT/stress.ktap"
phase finished
! grep -qE 'FAIL|not run|skip' <(cut -f2 "$OUT/stress.tsv")
