#!/usr/bin/env bash
# The stress report: one table row per scenario and kernel, from the lane
# guests' stress.tsv, the lossy pairs' lossy.tsv and the negative control
# (stress.sh writes them). The unpatched driver's column holds its triage
# rerun of a scenario the series failed (or every scenario, with
# STRESS_UPSTREAM=all). Writes $LOGS/stress-report.md; exits non-zero if
# the series failed or missed any scenario.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
S=$LOGS/stress
report=$LOGS/stress-report.md
[ -d "$S" ] || die "no stress results under $S (run 'make stress' first)"

last_phase() {
	grep -a '^PHASE: ' "$1/console.log" 2>/dev/null | tail -1 | cut -d' ' -f2- || echo "no console log"
}

# rows DIR KERNEL [PLAN]: "kernel<TAB>scenario<TAB>result<TAB>verified<TAB>
# splats<TAB>seconds<TAB>note" of one lane guest; a planned scenario with
# no result row is "missing" (the guest died or hung before it).
rows() {
	local dir=$1 kernel=$2 plan=${3:-}
	if [ -n "$plan" ] && [ -f "$plan" ]; then
		awk -v k="$kernel" -v why="not reached: $(last_phase "$dir")" \
			'{ print k "\t" $1 "\tmissing\t-\t-\t-\t" why }' "$plan"
	fi
	[ -f "$dir/stress.tsv" ] && tail -n +2 "$dir/stress.tsv" | sed "s/^/$kernel\t/"
	return 0
}

# The lossy pair of a driver: a row per profile and port, and one per
# guest whose own checks (dmesg) failed.
lossy_rows() {
	local d=$1 side f
	f=$LOGS/lossy-$d-host/lossy.tsv
	[ -f "$f" ] && tail -n +2 "$f" | awk -F'\t' -v OFS='\t' \
		'{ print "debug", "lossy " $1 " port " $2, $4, $5, 0, $7, "sqsize " $3 ", host retries " $6 ", " $8 }'
	for side in host target; do
		[ -d "$LOGS/lossy-$d-$side" ] || continue
		if [ -f "$LOGS/lossy-$d-$side/error" ]; then
			printf 'debug\tlossy pair: %s guest\tFAIL\t-\t-\t-\t%s\n' "$side" "$(head -1 "$LOGS/lossy-$d-$side/error")"
		else
			printf 'debug\tlossy pair: %s guest\tpass\t-\t0\t-\tdmesg clean\n' "$side"
		fi
	done
	return 0
}

declare -A res ver spl sec note up
order=()
add() { # DRIVER < rows
	local d=$1 k s r v n t o
	while IFS=$'\t' read -r k s r v n t o; do
		if [ "$d" = series ]; then
			[ -n "${res[$k|$s]+x}" ] || order+=("$k|$s")
			res[$k|$s]=$r ver[$k|$s]=$v spl[$k|$s]=$n sec[$k|$s]=$t note[$k|$s]=$o
		elif [ "$r" != missing ] || [ -z "${up[$k|$s]:-}" ]; then
			up[$k|$s]=$r
		fi
	done
}
for plan in "$S"/*-series.scenarios; do
	[ -f "$plan" ] || continue
	lane=$(basename "$plan" -series.scenarios)
	kernel=$(cat "$S/$lane-series.variant")
	add series < <(rows "$LOGS/stress-$lane-series" "$kernel" "$plan")
	[ ! -f "$S/$lane-upstream.scenarios" ] ||
		add upstream < <(rows "$LOGS/stress-$lane-upstream" "$kernel" "$S/$lane-upstream.scenarios")
done
for kernel in normal debug; do
	add upstream < <(rows "$LOGS/stress-triage-$kernel-upstream" "$kernel" "$S/triage-$kernel-upstream.scenarios")
done
[ -f "$S/lossy-series.log" ] && add series < <(lossy_rows series)
[ -f "$S/lossy-upstream.log" ] && add upstream < <(lossy_rows upstream)
if [ -f "$S/negative.log" ]; then
	f=$LOGS/negative-control.tsv
	if [ -f "$f" ]; then
		r=$(awk -F'\t' 'NR > 1 && $2 == "FAIL" { bad = 1 } END { print bad ? "FAIL" : "pass" }' "$f")
		o=$(awk -F'\t' 'NR == 2 { printf "%s: %s", $2, $3 } NR > 2 { printf "; %s: %s (%s)", $1, $2, $3 }' "$f")
	else
		r=FAIL o="no result: $(tail -1 "$S/negative.log")"
	fi
	add series < <(printf 'normal\tnegative control: 2017 rule (unpatched driver + tests/negative-control/2017-rule.diff)\t%s\t-\t-\t-\t%s\n' "$r" "$o")
fi
[ ${#order[@]} -gt 0 ] || die "no stress results under $LOGS"

bad=0
{
	echo "# Stress report ($(date -u +%Y-%m-%dT%H:%MZ)$([ -f "$S/elapsed" ] && echo ", make stress took $(cat "$S/elapsed")"))"
	echo
	for f in "$LOGS"/stress-*-series/info; do
		[ -f "$f" ] && echo "- $(basename "$(dirname "$f")"): $(paste -sd';' "$f" | sed 's/;/; /g')"
	done
	echo
	echo "Unpatched: the upstream driver's rerun of a scenario the series did not pass (triage), '-' where none was needed."
	echo
	echo "| scenario | kernel | series | unpatched | data verified | splats | seconds | note |"
	echo "|---|---|---|---|---|---|---|---|"
	for key in "${order[@]}"; do
		p=${res[$key]}
		[ "$p" = pass ] || bad=$((bad + 1))
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "${key#*|}" "${key%%|*}" "$p" \
			"${up[$key]:--}" "${ver[$key]}" "${spl[$key]}" "${sec[$key]}" "${note[$key]}"
	done
	echo
	echo "Series: $((${#order[@]} - bad)) of ${#order[@]} rows pass."
} >"$report"
cat "$report"
log "report: $report"
[ $bad -eq 0 ] || die "the series failed or missed $bad stress scenario(s) (logs: $LOGS/stress-*/scn/)"
