#!/usr/bin/env bash
# The stress report: one table, scenario by scenario, unpatched vs series,
# from the guests' stress.tsv and lossy.tsv (and blktests, when run).
# Writes $LOGS/stress-report.md; exits non-zero if the series failed or
# missed any scenario.
# Usage: stress-report.sh [DRIVER...]   (default: upstream series)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] || set -- upstream series
report=$LOGS/stress-report.md
tab=$(printf '\t')

# "scenario<TAB>result<TAB>verified<TAB>splats<TAB>seconds<TAB>note" lines of
# one driver: the planned scenarios (a row each, "missing" if the guest
# never reported it), the matrix and faults, then the lossy pair.
rows() {
	local d=$1 f side
	f=$LOGS/stress-$d/scenarios.txt
	[ -f "$f" ] && awk -v why="not reached: $(last_phase "$LOGS/stress-$d")" \
		'{ print $1 "\tmissing\t-\t-\t-\t" why }' "$f"
	f=$LOGS/stress-$d/stress.tsv
	[ -f "$f" ] && tail -n +2 "$f"
	f=$LOGS/lossy-$d-host/lossy.tsv
	if [ -f "$f" ]; then
		tail -n +2 "$f" | awk -F'\t' -v OFS='\t' \
			'{ print "lossy " $1 " port " $2, $4, $5, 0, $7, "sqsize " $3 ", host retries " $6 ", " $8 }'
	fi
	for side in host target; do
		[ -d "$LOGS/lossy-$d-$side" ] || continue
		f=$LOGS/lossy-$d-$side/error
		if [ -f "$f" ]; then
			printf 'lossy pair: %s guest\tFAIL\t-\t-\t-\t%s\n' "$side" "$(head -1 "$f")"
		else
			printf 'lossy pair: %s guest\tpass\t-\t0\t-\tdmesg clean\n' "$side"
		fi
	done
	return 0
}

last_phase() {
	grep -a '^PHASE: ' "$1/console.log" 2>/dev/null | tail -1 | cut -d' ' -f2- || echo "no console log"
}

# Every scenario either driver planned or ran, in first-seen order; a
# later row for the same scenario (its result) replaces "missing".
declare -A res ver spl sec note
order=()
for d in "$@"; do
	k=up
	[ "$d" = series ] && k=series
	while IFS="$tab" read -r s r v n t o; do
		[ -n "${res[$s,up]+x}${res[$s,series]+x}" ] || order+=("$s")
		res[$s,$k]=$r ver[$s,$k]=$v spl[$s,$k]=$n sec[$s,$k]=$t note[$s,$k]=$o
	done < <(rows "$d")
done
[ ${#order[@]} -gt 0 ] || die "no stress results under $LOGS (run 'make stress' first)"

bad=0
{
	echo "# Stress report ($(date -u +%Y-%m-%dT%H:%MZ))"
	echo
	for d in "$@"; do
		[ -f "$LOGS/stress-$d/info" ] && echo "- $d: $(paste -sd';' "$LOGS/stress-$d/info")"
	done
	[ -f "$OBJ/build-info" ] && echo "- build: $(paste -sd';' "$OBJ/build-info")"
	echo
	echo "| scenario | unpatched | series | data verified (series) | splats (unp/series) | seconds (series) | series note |"
	echo "|---|---|---|---|---|---|---|"
	for s in "${order[@]}"; do
		p=${res[$s,series]:-missing}
		[ "$p" = pass ] || bad=$((bad + 1))
		printf '| %s | %s | %s | %s | %s/%s | %s | %s |\n' "$s" "${res[$s,up]:-missing}" "$p" \
			"${ver[$s,series]:--}" "${spl[$s,up]:--}" "${spl[$s,series]:--}" \
			"${sec[$s,series]:--}" "${note[$s,series]:-${note[$s,up]:-}}"
	done
	echo
	up_fail=$(for s in "${order[@]}"; do [ "${res[$s,up]:-}" = pass ] || echo "$s"; done | paste -sd';' | sed 's/;/; /g')
	echo "Series: $((${#order[@]} - bad)) of ${#order[@]} scenarios pass."
	echo "Unpatched not passing: ${up_fail:-none}."
	if [ -f "$LOGS/blktests.txt" ]; then
		echo
		echo "## blktests (make blktests)"
		echo
		echo '```'
		cat "$LOGS/blktests.txt"
		echo '```'
	fi
} >"$report"
cat "$report"
log "report: $report"
[ $bad -eq 0 ] || die "the series failed or missed $bad stress scenario(s) (logs: $LOGS/stress-*/scn/)"
