#!/usr/bin/env bash
# The stress matrix (make stress): on the kernel of $VARIANT (debug: KASAN,
# lockdep, DMA-API debug, kmemleak ...), with the unpatched driver and with
# the series: the queue-size matrix and the faults (one guest per driver,
# side by side), then the two-host lossy fabric (one guest pair per
# driver, one after the other), then the report. Fails if the series
# fails or misses anything.
# Usage: stress.sh [SCENARIO...]  (default: all; see scripts/guest/stress.sh)
# Env: NETEM="profile ..." (netem args, '_' for ' '; empty: no lossy pairs),
#      DRIVERS="upstream series",
#      STRESS_BUDGET=SECONDS (scenarios not started by then: "not run").
set -euo pipefail
. "$(dirname "$0")/lib.sh"

drivers=${DRIVERS:-upstream series}
netem=${NETEM-delay_1ms loss_1%_delay_1ms loss_5%_delay_1ms}
"$TOP/scripts/host/build-baseline.sh"
root_of() { if [ "$1" = upstream ]; then echo "$UP_MODROOT"; else echo "$MODROOT"; fi; }
# Lockdep, KASAN and kmemleak need memory; a big log buffer keeps every
# scenario's dmesg.
export MEM=${MEM:-2048} APPEND="log_buf_len=16M"

# The scenario names go in a file the guest reads over the 9p root: the
# kernel command line carries at most 32 arguments to init.
args=()
[ "${STRESS_BUDGET:-0}" = 0 ] || args=("budget=$STRESS_BUDGET")
if [ $# -gt 0 ]; then
	printf '%s\n' "$@" >"$LOGS/stress-scenarios.txt"
	args+=("list=$LOGS/stress-scenarios.txt")
fi
log "queue-size matrix and faults ($drivers side by side)"
pids=()
for d in $drivers; do
	MODROOT=$(root_of "$d") "$TOP/scripts/host/boot.sh" "stress-$d" "${STRESS_TIMEOUT:-14400}" \
		"$TOP/scripts/guest/stress.sh" ${args[@]+"${args[@]}"} &
	pids+=($!)
done
# Progress while the guests run: scenarios done and the last one's result.
while sleep 60; do
	running=0
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && running=$((running + 1)); done
	[ $running -gt 0 ] || break
	for d in $drivers; do
		last=$(grep -a '^RESULT: ' "$LOGS/stress-$d/console.log" 2>/dev/null | tail -1 || true)
		n=$(grep -ac '^RESULT: ' "$LOGS/stress-$d/console.log" 2>/dev/null || true)
		log "  $d: ${n:-0} scenarios done${last:+, last: ${last#RESULT: }}"
	done
done
for p in "${pids[@]}"; do wait "$p" || true; done

# The lossy pairs take two guests each: one driver after the other, the
# series first (its pair is what the run must prove).
lossy_order=
for d in $drivers; do
	if [ "$d" = series ]; then lossy_order="$d $lossy_order"; else lossy_order+=" $d"; fi
done
if [ -n "$netem" ]; then
	for d in $lossy_order; do
		log "two-host lossy fabric, $d driver: $netem"
		# shellcheck disable=SC2086 # one profile per word
		"$TOP/scripts/host/lossy.sh" "lossy-$d" "$(root_of "$d")" $netem || true
	done
fi
# shellcheck disable=SC2086 # one driver per word
"$TOP/scripts/host/stress-report.sh" $drivers
