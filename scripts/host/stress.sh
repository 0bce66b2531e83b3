#!/usr/bin/env bash
# The stress run (make stress), series driver first, in one pass that fits
# the machine (2 cores, TCG):
#   normal kernel:  the full 24-case queue-size matrix;
#   debug kernel:   every fault scenario, delete-ka-60 and the matrix
#                   corners (lane "faults"), rmmod-50 and connect-200
#                   with a kmemleak scan (lane "cycles"), then the
#                   two-host lossy pairs;
#   controls:       check-controls.sh on the normal kernel: the series
#                   and two pollers on one poll queue must pass, the 2017
#                   rule and both lifetime-broken drivers must be caught.
# Every guest runs the test rxe (tests/rxe-strict) with mlx5's send queue
# slot rules and the retry oracle; forced retransmission runs in the
# controls (retransmit.sh: writes, and reads with and without REG_MR).
# Lanes run two at a time (a single-threaded TCG guest takes one core).
# A series scenario that fails is rerun with the unpatched driver on the
# same kernel (triage: is it ours?). Then the report (stress-report.sh).
# Usage: stress.sh [KERNEL:SCENARIO...]   (KERNEL: normal or debug; given
#   scenarios replace the lanes, e.g. debug:reset-5 normal:mx-t16-h32)
# Env: STRESS_UPSTREAM=triage (default) or all (every lane also with the
#      unpatched driver, side by side); NETEM="profile ..." (netem args,
#      '_' for ' '; empty: no lossy pairs); STRESS_BUDGET=SECONDS per lane
#      (scenarios not started by then: "not run"); NEGATIVE=0 skips the
#      controls.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

upstream=${STRESS_UPSTREAM:-triage}
case "$upstream" in triage | all) ;; *) die "STRESS_UPSTREAM must be triage or all, not '$upstream'" ;; esac
netem=${NETEM-loss_1%_delay_1ms loss_5%_delay_1ms}
S=$LOGS/stress
T0=$SECONDS
elapsed() { printf '%dm%02ds' $(((SECONDS - T0) / 60)) $(((SECONDS - T0) % 60)); }

# What runs where. Lane: name|variant|scenarios.
# (config/stress-plan.tsv, read through scripts/common/stress-plan.sh.)
# shellcheck source=scripts/common/stress-plan.sh
. "$TOP/scripts/common/stress-plan.sh"
lanes=()
for lane in $STRESS_LANES; do
	lane_kernel=$(stress_lane_kernel "$lane") ||
		die "the stress plan has no usable lane $lane (config/stress-plan.tsv)"
	lanes+=("$lane|${lane_kernel/normal/}|$(stress_lane "$lane" | paste -sd' ')")
done
# The default plan: the whole matrix on the normal kernel, the corners on
# the debug one.
[ "$(stress_lane matrix | grep -x 'mx-t[0-9]*-h[0-9]*' | sort -u | wc -l)" -eq 24 ] ||
	die "the matrix lane (config/stress-plan.tsv) does not hold 24 distinct queue-size cases"
if [ $# -gt 0 ]; then
	lanes=()
	for k in normal debug; do
		scn=$(printf '%s\n' "$@" | sed -n "s/^$k://p" | paste -sd' ')
		[ -z "$scn" ] || lanes+=("chosen-$k|${k/normal/}|$scn")
	done
	[ ${#lanes[@]} -gt 0 ] || die "scenarios must be named KERNEL:SCENARIO (normal: or debug:), not '$*'"
fi
# Kernel command line of each kernel variant's guests. Every checker of
# config/debug.config stays on except kmemleak, which doubles the cost of
# an I/O under TCG (make bench-debug, README) and runs only in the lane
# that scans for leaks. nvme_rdma's dev_dbg lines (CM and QP events, queue
# sizing: DYNAMIC_DEBUG is in the debug kernel) say why a queue was
# flushed.
# The test rxe: mlx5 slot rules and the retry oracle everywhere (netem
# makes the lossy pairs retransmit).
RXE="rdma_rxe.strict_sq=1 rdma_rxe.retry_oracle=1"
append_of() {
	case "$1:$2" in
	debug:cycles) echo "log_buf_len=16M nvme_rdma.dyndbg=+p $RXE" ;;
	debug:*) echo "log_buf_len=16M nvme_rdma.dyndbg=+p kmemleak=off $RXE" ;;
	*) echo "log_buf_len=16M $RXE" ;;
	esac
}
modroot_of() { # VARIANT DRIVER
	local s=${BASE#linux-}${1:+-$1}
	if [ "$2" = upstream ]; then echo "$BUILD/modroot-$s-upstream"; else echo "$BUILD/modroot-$s"; fi
}

rm -rf "$S"
mkdir -p "$S"
log "phase 1/5: kernels (normal, debug) [$(elapsed)]"
# Only the kernels something runs on.
need=" ${lanes[*]} "
[ -z "$netem" ] || need+=" |debug| "
[ "${NEGATIVE:-1}" = 0 ] || need+=" || "
[[ $need != *"||"* ]] || MODROOT='' VARIANT='' "$TOP/scripts/host/build-kernel.sh"
[[ $need != *"|debug|"* ]] || MODROOT='' VARIANT=debug "$TOP/scripts/host/build-kernel.sh"
if [ "$upstream" = all ]; then
	MODROOT='' VARIANT='' "$TOP/scripts/host/build-baseline.sh"
	MODROOT='' VARIANT=debug "$TOP/scripts/host/build-baseline.sh"
fi

# run_lane NAME VARIANT DRIVER SCENARIO...: one guest, its logs in
# $LOGS/stress-NAME-DRIVER/.
run_lane() {
	local name=$1 variant=$2 driver=$3 args=()
	shift 3
	printf '%s\n' "$@" >"$S/$name-$driver.scenarios"
	[ "${STRESS_BUDGET:-0}" = 0 ] || args=("budget=$STRESS_BUDGET")
	echo "${variant:-normal}" >"$S/$name-$driver.variant"
	VARIANT=$variant MODROOT=$(modroot_of "$variant" "$driver") MEM=2048 \
		APPEND="$(append_of "${variant:-normal}" "$name")" \
		"$TOP/scripts/host/boot.sh" "stress-$name-$driver" "${STRESS_TIMEOUT:-7200}" \
		"$TOP/scripts/guest/stress.sh" ${args[@]+"${args[@]}"} "list=$S/$name-$driver.scenarios" \
		>"$S/$name-$driver.boot.log" 2>&1 || true
}

# Two at a time: the queue of jobs is "lane|variant|driver|scenarios".
jobs_q=()
for l in "${lanes[@]}"; do
	IFS='|' read -r name variant scn <<<"$l"
	jobs_q+=("$name|$variant|series|$scn")
	[ "$upstream" = all ] && jobs_q+=("$name|$variant|upstream|$scn")
done
[ "${NEGATIVE:-1}" = 0 ] || jobs_q+=("controls|||")

# Every 5 minutes: per running guest, scenarios done and the last result.
next_progress=$((SECONDS + 300))
progress() {
	local f n last
	[ $SECONDS -ge $next_progress ] || return 0
	next_progress=$((SECONDS + 300))
	for f in "$LOGS"/stress-*/console.log; do
		if [ ! -f "$f" ] || [ -f "${f%/console.log}/rc" ]; then continue; fi
		n=$(grep -ac '^RESULT: ' "$f" || true)
		last=$(grep -a '^RESULT: ' "$f" | tail -1 || true)
		log "  $(basename "$(dirname "$f")"): ${n:-0} done${last:+, last: ${last#RESULT: }} [$(elapsed)]"
	done
}

log "phase 2/5: lanes, two at a time: ${jobs_q[*]%%|*} [$(elapsed)]"
pids=()
for j in "${jobs_q[@]}"; do
	while [ ${#pids[@]} -ge 2 ]; do
		for k in "${!pids[@]}"; do
			kill -0 "${pids[$k]}" 2>/dev/null && continue
			wait "${pids[$k]}" || true
			unset "pids[$k]"
		done
		pids=(${pids[@]+"${pids[@]}"})
		[ ${#pids[@]} -lt 2 ] || { sleep 20; progress; }
	done
	IFS='|' read -r name variant driver scn <<<"$j"
	log "  start: $name ${variant:-normal} kernel, $driver driver [$(elapsed)]"
	if [ "$name" = controls ]; then
		(RETRANSMIT_SECONDS=20 "$TOP/scripts/host/check-controls.sh" >"$S/controls.log" 2>&1 || true) &
	else
		# shellcheck disable=SC2086 # one scenario per word
		run_lane "$name" "$variant" "$driver" $scn &
	fi
	pids+=($!)
done
while [ ${#pids[@]} -gt 0 ]; do
	kill -0 "${pids[0]}" 2>/dev/null && { sleep 20; progress; continue; }
	wait "${pids[0]}" || true
	pids=("${pids[@]:1}")
done

# The lossy pairs take two guests each (both cores).
if [ -n "$netem" ]; then
	log "phase 3/5: two-host lossy fabric, debug kernel: $netem [$(elapsed)]"
	drivers=series
	[ "$upstream" = all ] && drivers="series upstream"
	for d in $drivers; do
		# shellcheck disable=SC2086 # one profile per word
		VARIANT=debug APPEND="$(append_of debug lossy)" \
			"$TOP/scripts/host/lossy.sh" "lossy-$d" "$(modroot_of debug "$d")" $netem \
			>"$S/lossy-$d.log" 2>&1 || true
	done
fi

# Triage: every series scenario that did not pass, again with the
# unpatched driver on the same kernel, one guest per kernel variant.
log "phase 4/5: triage [$(elapsed)]"
if [ "$upstream" = triage ]; then
	for variant in "" debug; do
		failed=()
		for l in "${lanes[@]}"; do
			IFS='|' read -r name v _ <<<"$l"
			[ "$v" = "$variant" ] || continue
			f=$LOGS/stress-$name-series/stress.tsv
			mapfile -t -O ${#failed[@]} failed < <(
				# planned but without a passing result
				comm -23 <(sort "$S/$name-series.scenarios") \
					<(awk -F'\t' 'NR > 1 && $2 == "pass" { print $1 }' "$f" 2>/dev/null | sort))
		done
		[ ${#failed[@]} -gt 0 ] || continue
		log "  ${variant:-normal} kernel: rerunning ${failed[*]} with the unpatched driver"
		MODROOT='' VARIANT=$variant "$TOP/scripts/host/build-baseline.sh"
		run_lane "triage-${variant:-normal}" "$variant" upstream "${failed[@]}"
	done
	f=$LOGS/lossy-series-host/lossy.tsv
	bad=
	[ ! -f "$f" ] || bad=$(awk -F'\t' 'NR > 1 && $4 != "pass" { print $1 }' "$f" | sort -u | paste -sd' ')
	# A pair that died before its table, or a guest whose own checks
	# (dmesg) failed: every profile again.
	if [ ! -f "$f" ] || [ -f "$LOGS/lossy-series-host/error" ] || [ -f "$LOGS/lossy-series-target/error" ]; then
		bad=$netem
	fi
	if [ -n "$bad" ]; then
		log "  lossy: rerunning $bad with the unpatched driver"
		MODROOT='' VARIANT=debug "$TOP/scripts/host/build-baseline.sh"
		# shellcheck disable=SC2086 # one profile per word
		VARIANT=debug APPEND="$(append_of debug lossy)" \
			"$TOP/scripts/host/lossy.sh" "lossy-upstream" "$(modroot_of debug upstream)" $bad \
			>"$S/lossy-upstream.log" 2>&1 || true
	fi
fi

log "phase 5/5: report [$(elapsed)]"
elapsed >"$S/elapsed"
"$TOP/scripts/host/stress-report.sh"
