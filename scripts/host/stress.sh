#!/usr/bin/env bash
# The stress matrix (make stress): on the kernel of $VARIANT (debug: KASAN,
# lockdep, DMA-API debug, kmemleak ...), with the unpatched driver and with
# the series, run the queue-size matrix and the faults (one guest per
# driver, side by side), then the two-host lossy fabric (one guest pair per
# driver), and write the report. Fails if the series fails anything.
# Usage: stress.sh [SCENARIO...]  (default: all; see scripts/guest/stress.sh)
# Env: NETEM="profile ..." (netem args, '_' for ' '), DRIVERS="upstream series"
set -euo pipefail
. "$(dirname "$0")/lib.sh"

drivers=${DRIVERS:-upstream series}
netem=${NETEM:-delay_1ms loss_1%_delay_1ms loss_5%_delay_1ms_reorder_25%_50%}
"$TOP/scripts/host/build-baseline.sh"
root_of() { if [ "$1" = upstream ]; then echo "$UP_MODROOT"; else echo "$MODROOT"; fi; }

# Lockdep, KASAN and kmemleak need memory; a big log buffer keeps every
# scenario's dmesg.
log "phase 1: queue-size matrix and faults ($drivers side by side)"
pids=()
for d in $drivers; do
	MODROOT=$(root_of "$d") MEM=3072 APPEND="log_buf_len=16M" \
		"$TOP/scripts/host/boot.sh" "stress-$d" "${STRESS_TIMEOUT:-9000}" \
		"$TOP/scripts/guest/stress.sh" "$@" &
	pids+=($!)
done
# Progress while the guests run: the last finished scenario of each.
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

if [ $# -eq 0 ] && [ -n "$netem" ]; then
	log "phase 2: two-host lossy fabric ($netem)"
	for d in $drivers; do
		# shellcheck disable=SC2086 # one profile per word
		MEM=3072 APPEND="log_buf_len=16M" "$TOP/scripts/host/lossy.sh" "lossy-$d" \
			"$(root_of "$d")" $netem || true
	done
fi
# shellcheck disable=SC2086 # one driver per word
"$TOP/scripts/host/stress-report.sh" $drivers
