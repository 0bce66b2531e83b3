#!/usr/bin/env bash
# The stress report: one table row per scenario and kernel, from the lane
# guests' stress.tsv, the lossy pairs' lossy.tsv and dmesg, and the
# controls' controls.tsv (stress.sh writes them); every cell comes from a
# results file, none is fixed text. The unpatched driver's column holds its
# triage rerun of a scenario the series failed (or every scenario, with
# STRESS_UPSTREAM=all). Writes $LOGS/stress-report.tsv (header line:
# scenario, kernel, series, unpatched, verified, splats, seconds, recovery,
# note) and its rendering $LOGS/stress-report.md; exits non-zero if the
# series failed or missed any scenario.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
S=$LOGS/stress
report=$LOGS/stress-report.md
tsv=$LOGS/stress-report.tsv
[ -d "$S" ] || die "no stress results under $S (run 'make stress' first)"
# The guests' dmesg patterns, from the file guests and host both read.
# shellcheck source=scripts/common/dmesg-policy.sh
. "$TOP/scripts/common/dmesg-policy.sh"
# STRESS_OUTSIDE_ROW: the guest's row for a splat outside the scenarios.
# shellcheck source=scripts/common/stress-plan.sh
. "$TOP/scripts/common/stress-plan.sh"
BAD_RE=$DMESG_BAD REC_RE=$DMESG_RECOVERY

# kernel_of DIR: the kernel a guest booted, from what it left: the variant
# file the lossy pair writes, else its console (KASAN is the debug kernel).
kernel_of() {
	if [ -f "$1/variant" ]; then
		cat "$1/variant"
	elif grep -aq 'KernelAddressSanitizer initialized' "$1/console.log" 2>/dev/null; then
		echo debug
	elif [ -f "$1/console.log" ]; then
		echo normal
	else
		echo unknown
	fi
}

# dmesg_count RE DIR: lines of DIR/dmesg.txt matching RE, "-" without one.
dmesg_count() {
	if [ -f "$2/dmesg.txt" ]; then grep -acE "$1" "$2/dmesg.txt" || true; else echo -; fi
}

last_phase() {
	grep -a '^PHASE: ' "$1/console.log" 2>/dev/null | tail -1 | cut -d' ' -f2- || echo "no console log"
}

# rows DIR KERNEL [PLAN]: "kernel<TAB>scenario<TAB>result<TAB>verified<TAB>
# splats<TAB>seconds<TAB>note<TAB>recovery" of one lane guest; a planned
# scenario with no result row is "missing" (the guest died or hung before
# it).
rows() {
	local dir=$1 kernel=$2 plan=${3:-}
	if [ -n "$plan" ] && [ -f "$plan" ]; then
		awk -v k="$kernel" -v why="not reached: $(last_phase "$dir")" \
			'{ print k "\t" $1 "\tmissing\t-\t-\t-\t" why "\t-" }' "$plan"
	fi
	[ -f "$dir/stress.tsv" ] && tail -n +2 "$dir/stress.tsv" | awk -F'\t' -v OFS='\t' -v k="$kernel" \
		'{ print k, $1, $2, $3, $4, $5, $6, (NF >= 7 ? $7 : "-") }'
	return 0
}

# The lossy pair of a driver: a row per profile and port (its splats are
# the host guest's, over the whole run: rows share one dmesg), and a row
# per guest for its own checks (dmesg, the row checks), from its error file
# and dmesg.
lossy_rows() {
	local d=$1 side f dir k n r note
	dir=$LOGS/lossy-$d-host
	f=$dir/lossy.tsv
	k=$(kernel_of "$dir")
	n=$(dmesg_count "$BAD_RE" "$dir")
	[ -f "$f" ] && tail -n +2 "$f" | awk -F'\t' -v OFS='\t' -v k="$k" -v n="$n" '{
		extra = (NF >= 12) ? ", netem dropped " $9 ", target retries " $10 " (" $11 ")" : ""
		print k, "lossy " $1 " port " $2, $4, $5, n, $7, "sqsize " $3 ", host retries " $6 extra ", " $8, (NF >= 12 ? $12 : "-")
	}'
	for side in host target; do
		dir=$LOGS/lossy-$d-$side
		[ -d "$dir" ] || continue
		n=$(dmesg_count "$BAD_RE" "$dir")
		note="dmesg: $n splat lines, $(dmesg_count "$REC_RE" "$dir") error-recovery lines"
		if [ -f "$dir/error" ]; then
			r=FAIL note="$(head -1 "$dir/error"); $note"
		elif [ "$n" != 0 ]; then
			r=FAIL
		else
			r=pass
		fi
		printf '%s\tlossy pair: %s guest\t%s\t-\t%s\t-\t%s\t%s\n' "$(kernel_of "$dir")" "$side" "$r" "$n" "$note" \
			"$(dmesg_count "$REC_RE" "$dir")"
	done
	return 0
}

declare -A res ver spl sec note rec up sdir udir
order=()
add() { # DRIVER [GUEST_DIR] < rows
	local d=$1 dir=${2:-} k s r v n t o c
	while IFS=$'\t' read -r k s r v n t o c; do
		if [ "$d" = series ]; then
			[ -n "${res[$k|$s]+x}" ] || order+=("$k|$s")
			res[$k|$s]=$r ver[$k|$s]=$v spl[$k|$s]=$n sec[$k|$s]=$t note[$k|$s]=$o rec[$k|$s]=${c:--}
			sdir[$k|$s]=$dir
		elif [ "$r" != missing ] || [ -z "${up[$k|$s]:-}" ]; then
			up[$k|$s]=$r udir[$k|$s]=$dir
		fi
	done
}
for plan in "$S"/*-series.scenarios; do
	[ -f "$plan" ] || continue
	lane=$(basename "$plan" -series.scenarios)
	kernel=$(cat "$S/$lane-series.variant")
	add series "$LOGS/stress-$lane-series" < <(rows "$LOGS/stress-$lane-series" "$kernel" "$plan")
	[ ! -f "$S/$lane-upstream.scenarios" ] ||
		add upstream "$LOGS/stress-$lane-upstream" < <(rows "$LOGS/stress-$lane-upstream" "$kernel" "$S/$lane-upstream.scenarios")
done
# Triage guests of this run only (stress.sh writes their plans): a
# triage directory left by an earlier run has no plan in $S.
for kernel in normal debug; do
	[ -f "$S/triage-$kernel-upstream.scenarios" ] || continue
	add upstream "$LOGS/stress-triage-$kernel-upstream" < <(rows "$LOGS/stress-triage-$kernel-upstream" \
		"$kernel" "$S/triage-$kernel-upstream.scenarios")
done
[ -f "$S/lossy-series.log" ] && add series < <(lossy_rows series)
[ -f "$S/lossy-upstream.log" ] && add upstream < <(lossy_rows upstream)
# The controls (check-controls.sh): a row per scenario of controls.tsv
# (scenario, expect, result, seconds, detail, as run-scenarios.sh writes
# it); a control passes when its result is "pass" (a must-fail control
# passes when it was caught). Its guest's dmesg gives the splat count.
if [ -f "$S/controls.log" ]; then
	f=$LOGS/controls.tsv
	if [ -f "$f" ] && [ "$(wc -l <"$f")" -gt 1 ]; then
		while IFS=$'\t' read -r c e r _ o; do
			dir=$LOGS/controls-$c
			case "$r" in pass) p=pass ;; *) p=FAIL ;; esac
			add series < <(printf '%s\tcontrol %s (expect %s)\t%s\t-\t%s\t-\t%s\t%s\n' "$(kernel_of "$dir")" \
				"$c" "$e" "$p" "$(dmesg_count "$BAD_RE" "$dir")" "$o" "$(dmesg_count "$REC_RE" "$dir")")
		done < <(tail -n +2 "$f")
	else
		add series < <(printf 'unknown\tcontrols\tFAIL\t-\t-\t-\tno result: %s\t-\n' "$(tail -1 "$S/controls.log")")
	fi
fi
[ ${#order[@]} -gt 0 ] || die "no stress results under $LOGS"

# Known upstream failures (config/stress-known.tsv: scenario, kernel, the
# lock classes of a lockdep chain, reason): a series row that failed on
# one lockdep report alone, with no nvme host module in it, its data
# verified and no unexpected error recovery, as the last scenario of its
# guest (lockdep turns itself off after its first report: a later
# scenario would run unchecked), is "known" only if the unpatched
# driver's guest of this run (its plan lists the scenario) failed the
# same scenario on the same kernel with a report of the same lock
# classes. Anything else fails.
known_file=$TOP/config/stress-known.tsv
# lock_classes DMESG: the lock classes of its lockdep chains ("-> #N
# (class){...}" lines), sorted, space-separated; empty without a chain.
lock_classes() {
	[ -f "$1" ] || return 0
	# greedy to the last "){": a class name may hold parentheses,
	# e.g. ((wq_completion)nvme-wq)
	sed -nE 's/^[[:space:]]*(\[[^]]*\])?[[:space:]]*-> #[0-9]+ \((.*)\)\{[^{}]*\}-\{[0-9:]+\}:?[[:space:]]*$/\2/p' "$1" |
		LC_ALL=C sort -u | paste -sd' '
}
# lockdep_only DMESG: exactly one DMESG_BAD line, it is lockdep's, and no
# frame of an nvme host module is in the dmesg.
lockdep_only() {
	[ -f "$1" ] && [ "$(grep -acE "$BAD_RE" "$1")" = 1 ] &&
		grep -aqE 'possible circular locking dependency' "$1" &&
		! grep -aqE '\[(nvme_rdma|nvme_fabrics|nvme_core|nvme)\]' "$1"
}
# last_in DIR SCENARIO: SCENARIO is the last scenario row of DIR/stress.tsv.
last_in() {
	[ -f "$1/stress.tsv" ] && [ "$(tail -n +2 "$1/stress.tsv" | cut -f1 | grep -vxF "$STRESS_OUTSIDE_ROW" | tail -1)" = "$2" ]
}
# planned PLAN SCENARIO
planned() { [ -f "$1" ] && grep -qxF -- "$2" "$1"; }
known_reason() { # KEY: prints the reason if the row is a known upstream failure
	local key=$1 k=${1%%|*} s=${1#*|} ks kk locks why sd ud
	[ -f "$known_file" ] && [ "${res[$key]}" = FAIL ] && [ "${up[$key]:-}" = FAIL ] || return 1
	case "${note[$key]}" in splat:*) ;; *) return 1 ;; esac
	case "${ver[$key]}" in yes*) ;; *) return 1 ;; esac
	case "${rec[$key]}" in "0 "* | *"(faults injected)") ;; *) return 1 ;; esac
	[ -n "${sdir[$key]}" ] && [ -n "${udir[$key]:-}" ] && last_in "${sdir[$key]}" "$s" || return 1
	planned "$S/$(basename "${udir[$key]}" | sed 's/^stress-//').scenarios" "$s" || return 1
	sd=${sdir[$key]}/scn/$s.dmesg ud=${udir[$key]}/scn/$s.dmesg
	lockdep_only "$sd" && lockdep_only "$ud" || return 1
	while IFS=$'\t' read -r ks kk locks why; do
		if [ "$ks" = "$s" ] && [ "$kk" = "$k" ] && [ -n "$locks" ] &&
			[ "$(lock_classes "$sd")" = "$locks" ] && [ "$(lock_classes "$ud")" = "$locks" ]; then
			echo "$why"
			return 0
		fi
	done < <(grep -v '^#' "$known_file")
	return 1
}
for key in "${order[@]}"; do
	if why=$(known_reason "$key"); then
		res[$key]=known note[$key]="known upstream failure, the unpatched driver's report has the same lock classes: $why; ${note[$key]}"
	fi
done

bad=0 known=0
{
	printf 'scenario\tkernel\tseries\tunpatched\tverified\tsplats\tseconds\trecovery\tnote\n'
	for key in "${order[@]}"; do
		p=${res[$key]}
		if [ "$p" = known ]; then
			known=$((known + 1))
		elif [ "$p" != pass ]; then
			bad=$((bad + 1))
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${key#*|}" "${key%%|*}" "$p" \
			"${up[$key]:--}" "${ver[$key]}" "${spl[$key]}" "${sec[$key]}" "${rec[$key]}" "${note[$key]}"
	done
} >"$tsv"
{
	echo "# Stress report ($(date -u +%Y-%m-%dT%H:%MZ)$([ -f "$S/elapsed" ] && echo ", make stress took $(cat "$S/elapsed")"))"
	echo
	for f in "$LOGS"/stress-*-series/info; do
		[ -f "$f" ] && echo "- $(basename "$(dirname "$f")"): $(paste -sd';' "$f" | sed 's/;/; /g')"
	done
	echo
	echo "Unpatched: the upstream driver's rerun of a scenario the series did not pass (triage), '-' where none was needed."
	echo "Known: a series failure the unpatched driver showed the same way in this run (config/stress-known.tsv); it does not fail the run."
	echo "Recovery: error-recovery lines in the scenario's dmesg (allowed only where faults were injected)."
	echo
	# The TSV, rendered: its header names the columns.
	awk -F'\t' 'NR == 1 { printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; printf "\n|"
		for (i = 1; i <= NF; i++) printf "---|"; printf "\n"; next }
		{ printf "|"; for (i = 1; i <= NF; i++) { gsub(/\|/, "\\|", $i); printf " %s |", $i }; printf "\n" }' "$tsv"
	echo
	echo "Series: $((${#order[@]} - bad - known)) of ${#order[@]} rows pass$([ $known = 0 ] ||
		echo ", $known known upstream failure(s) (the unpatched driver failed them the same way in this run; config/stress-known.tsv)")."
} >"$report"
cat "$report"
log "report: $report (table: $tsv)"
[ $bad -eq 0 ] || die "the series failed or missed $bad stress scenario(s) (logs: $LOGS/stress-*/scn/)"
