#!/usr/bin/env bash
# Benchmark (make bench-debug): what each debug checker of
# config/debug.config costs under TCG. On the debug kernel the checkers that
# have a boot switch (lockdep's prove_locking, DMA-API debug, debug objects,
# kmemleak) are turned off or on one at a time on the kernel command line;
# KASAN and UBSAN have no switch: they are measured together (the debug
# kernel) and KASAN alone (VARIANT=kasan, the debug kernel without UBSAN),
# against the normal kernel. Every guest runs under icount (guest time
# counts instructions, so the figures repeat across boots whatever the host
# is doing); two run side by side. Prints a table and writes
# $LOGS/debug-cost.md.
# Needs the kernels built: make build; VARIANT=debug (and kasan) make build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"


# Boot switches of the debug kernel's checkers. kmemleak's periodic scan
# (DEBUG_KMEMLEAK_AUTO_SCAN: one full scan every 10 minutes) is priced by
# timing one scan.
off_all="lockdep.prove_locking=0 dma_debug=off no_debug_objects kmemleak=off"
# label|variant|kernel command line
cases=(
	"normal kernel||"
	"debug: KASAN+UBSAN only (every switch off)|debug|$off_all"
	"debug: KASAN+UBSAN + lockdep|debug|${off_all/lockdep.prove_locking=0 /}"
	"debug: KASAN+UBSAN + DMA-API debug|debug|${off_all/dma_debug=off /}"
	"debug: KASAN+UBSAN + DEBUG_OBJECTS|debug|${off_all/no_debug_objects /}"
	"debug: KASAN+UBSAN + kmemleak (scan off)|debug|${off_all/ kmemleak=off/}"
	"debug: all on, kmemleak scan off|debug|"
	"debug without UBSAN: KASAN only (every switch off)|kasan|$off_all"
)
# CASES="0 3": run only those (the table shows every case with results).

run_case() {
	local i=$1 label variant append
	IFS='|' read -r label variant append <<<"${cases[$i]}"
	local t0=$SECONDS
	VARIANT=$variant ICOUNT=1 MEM=2048 APPEND="$append" \
		MODROOT=$BUILD/modroot-${BASE#linux-}${variant:+-$variant} \
		"$TOP/scripts/host/boot.sh" "debug-cost-$i" 3600 \
		"$TOP/scripts/guest/debug-cost.sh" >"$LOGS/debug-cost-$i.log" 2>&1 ||
		log "case $i ($label) failed: $(cat "$LOGS/debug-cost-$i/error" 2>/dev/null || tail -1 "$LOGS/debug-cost-$i.log")"
	echo $((SECONDS - t0)) >"$LOGS/debug-cost-$i.wall"
}

mkdir -p "$LOGS"
run=${CASES:-${!cases[*]}}
for i in $run; do
	IFS='|' read -r _ variant _ <<<"${cases[$i]}"
	o=$BUILD/obj-${BASE#linux-}${variant:+-$variant}
	[ -f "$o/arch/x86/boot/bzImage" ] || die "no kernel in $o: run '${variant:+VARIANT=$variant }make build'"
done
log "boots ($run), two at a time (icount TCG)"
pids=()
for i in $run; do
	if [ ${#pids[@]} -ge 2 ]; then
		wait "${pids[0]}" || true
		pids=("${pids[@]:1}")
	fi
	log "case $i: ${cases[$i]%%|*}"
	run_case "$i" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done

# metric value of case $1, or "-".
val() { awk -F'\t' -v m="$2" '$1 == m { print $2; f = 1 } END { if (!f) print "-" }' "$LOGS/debug-cost-$1/cost.tsv" 2>/dev/null || echo -; }
base4k=$(val 0 "4k randwrite qd16 IOPS")
base128k=$(val 0 "128k write qd8 IOPS")
rel() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", b / a; else print "-" }'; }
{
	echo "# Debug checker cost under TCG icount ($(date -u +%Y-%m-%dT%H:%MZ), $(source_pkg "$BASE"))"
	echo
	echo "Guest time counts instructions (-icount shift=0): IOPS are a CPU cost, not a wall-clock rate."
	echo "Slowdown = normal kernel IOPS / case IOPS. Command line switches: $off_all."
	echo
	echo "| case | kernel command line | 4k randwrite IOPS | slowdown | 128k write IOPS | slowdown | connect+disconnect s | kmemleak scan s | seen: prove_locking, dma-api disabled, debugobj pool, kmemleak | host wall s |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for i in "${!cases[@]}"; do
		IFS='|' read -r label _ append <<<"${cases[$i]}"
		a=$(val "$i" "4k randwrite qd16 IOPS") b=$(val "$i" "128k write qd8 IOPS")
		[ -f "$LOGS/debug-cost-$i/error" ] && label="$label (FAILED: $(head -1 "$LOGS/debug-cost-$i/error"))"
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "${append:-(none)}" \
			"$a" "$(rel "$a" "$base4k")" "$b" "$(rel "$b" "$base128k")" \
			"$(val "$i" "connect+disconnect s (2nd)")" "$(val "$i" "kmemleak scan s")" \
			"$(val "$i" prove_locking), $(val "$i" "dma-api disabled"), $(val "$i" "debug objects pool used"), $(val "$i" kmemleak)" \
			"$(cat "$LOGS/debug-cost-$i.wall" 2>/dev/null || echo -)"
	done
} >"$LOGS/debug-cost.md"
cat "$LOGS/debug-cost.md"
! grep -q FAILED "$LOGS/debug-cost.md" || die "a debug-cost boot failed (logs: $LOGS/debug-cost-*)"
