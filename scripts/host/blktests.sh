#!/usr/bin/env bash
# blktests nvme group over rxe, with the upstream driver and with the
# series, on the same kernel image (one guest each, side by side); prints a
# comparison table and fails if the series fails a test that upstream
# passes. A test that fails for both gets its reason from
# config/blktests-known.tsv (or "unexplained", which also fails).
# Usage: blktests.sh [TEST...]   (default: the whole nvme group)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

blk=${BLKTESTS:-$TOP/../shared/blktests}
[ -x "$blk/check" ] || die "blktests not found at $blk (set BLKTESTS=)"
blk=$(cd "$blk" && pwd)
"$TOP/scripts/host/build-baseline.sh"
pids=()
for v in upstream series; do
	root=$MODROOT
	[ $v = upstream ] && root=$UP_MODROOT
	MODROOT=$root "$TOP/scripts/host/boot.sh" "blktests-$v" "${BLKTESTS_BOOT_TIMEOUT:-7200}" \
		"$TOP/scripts/guest/blktests.sh" "$blk" "$@" &
	pids+=($!)
done
failed=""
for v in upstream series; do
	wait "${pids[0]}" || failed+=" $v"
	pids=("${pids[@]:1}")
done
[ -z "$failed" ] || die "blktests boot failed for:$failed (logs: $LOGS/blktests-*)"

tab=$(printf '\t')
report=$LOGS/blktests.txt
known=$TOP/config/blktests-known.tsv
join -t "$tab" -a1 -a2 -e missing -o 0,1.2,2.2,2.3 \
	"$LOGS/blktests-upstream/blktests.tsv" "$LOGS/blktests-series/blktests.tsv" |
	awk -F'\t' -v OFS='\t' -v known="$known" '
	BEGIN { while ((getline l < known) > 0) if (l !~ /^#/) { split(l, a, "\t"); k[a[1]] = a[2] } }
	{
		note = $4
		if ($2 == "passed" && $3 != "passed") note = "REGRESSION"
		else if ($2 != "passed" && $3 == "failed") note = ($1 in k) ? "fails upstream too: " k[$1] : "unexplained failure"
		print $1, $2, $3, note
	}' >"$LOGS/blktests-compare.tsv"
{
	printf 'test\tupstream\tseries\tnote\n'
	cat "$LOGS/blktests-compare.tsv"
} | column -t -s "$tab" | tee "$report"
for v in upstream series; do
	printf '%s: %s\n' "$v" "$(cut -f2 "$LOGS/blktests-$v/blktests.tsv" | sort | uniq -c |
		awk '{ n = $1; $1 = ""; printf "%s%s %d", sep, substr($0, 2), n; sep = ", " }')"
done | tee -a "$report"
bad=$(awk -F'\t' '$4 == "REGRESSION" || $4 == "unexplained failure" { print $1 }' \
	"$LOGS/blktests-compare.tsv" | paste -sd' ')
[ -z "$bad" ] || die "blktests: regressions or unexplained failures: $bad (report: $report)"
log "blktests: the series passes every test upstream passes (report: $report)"
