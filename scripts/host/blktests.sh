#!/usr/bin/env bash
# blktests nvme group over rxe, with the upstream driver and with the
# series, on the same kernel image (one guest each, side by side); prints a
# comparison table and fails if the series fails a test that upstream did
# not fail (passed, not run, or no verdict). Only a test that fails for
# both is excused, with its reason from config/blktests-known.tsv (or
# "unexplained", which also fails). blktests resets, disconnects and
# removes ports: error recovery is expected there, but the series guest's
# dmesg must show no splat, post failure or test-rxe verdict (DMESG_BAD,
# scripts/common/dmesg-policy.sh).
# Usage: blktests.sh [TEST...]   (default: the whole nvme group)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

blk=${BLKTESTS:-$TOP/../shared/blktests}
[ -x "$blk/check" ] || die "blktests not found at $blk (set BLKTESTS=)"
blk=$(cd "$blk" && pwd)
# Log and report names: BLKTESTS_NAME=blktests-061 keeps a rerun of one
# test apart from the full run's logs.
name=${BLKTESTS_NAME:-blktests}
# BLKTESTS_REPORT_ONLY=1: compare the logs of the last run again.
if [ "${BLKTESTS_REPORT_ONLY:-0}" = 0 ]; then
	"$TOP/scripts/host/build-baseline.sh"
	pids=()
	for v in upstream series; do
		root=$MODROOT
		[ $v = upstream ] && root=$UP_MODROOT
		MODROOT=$root "$TOP/scripts/host/boot.sh" "$name-$v" "${BLKTESTS_BOOT_TIMEOUT:-7200}" \
			"$TOP/scripts/guest/blktests.sh" "$blk" "$@" &
		pids+=($!)
	done
	failed=""
	for v in upstream series; do
		wait "${pids[0]}" || failed+=" $v"
		pids=("${pids[@]:1}")
	done
	[ -z "$failed" ] || die "blktests boot failed for:$failed (logs: $LOGS/$name-*)"
fi
for v in upstream series; do
	[ ! -f "$LOGS/$name-$v/timeout" ] || die "blktests ($v): $(cat "$LOGS/$name-$v/timeout")"
done

# One line per test run: name (with its condition, e.g. "(tr=rdma
# bd=file)", when a test runs once per condition), verdict, and blktests'
# skip reason if not run (the indented lines after the verdict). A test
# printed twice (start, then end) keeps its final verdict.
verdicts() {
	sed 's/\x1b\[[0-9;]*m//g' "$1" | awk -F'\t' '
		function flush() { if (t != "") { v[t] = s; r[t] = why } t = "" }
		/^[a-z]+\/[0-9]+ .*\[(passed|failed|not run)\]/ {
			flush(); split($0, w, " "); t = w[1]; why = ""
			if (match($0, /^[a-z]+\/[0-9]+ \([a-z_]+=[^)]*\)/)) t = substr($0, 1, RLENGTH)
			match($0, /\[(passed|failed|not run)\]/); s = substr($0, RSTART + 1, RLENGTH - 2)
			next
		}
		/^    .*\.\.\./ { next }
		t != "" && s == "not run" && /^    [^ ]/ {
			sub(/^ +/, ""); why = why (why == "" ? "" : "; ") $0; next
		}
		{ flush() }
		END { flush(); for (k in v) print k "\t" v[k] "\t" r[k] }' | LC_ALL=C sort -t "$(printf '\t')" -k1,1
}
tab=$(printf '\t')
for v in upstream series; do
	verdicts "$LOGS/$name-$v/blktests.log" >"$LOGS/$name-$v/verdicts.tsv"
	[ -s "$LOGS/$name-$v/verdicts.tsv" ] || die "blktests ($v) printed no verdicts (see $LOGS/$name-$v)"
done
report=$LOGS/$name.txt
known=$TOP/config/blktests-known.tsv
LC_ALL=C join -t "$tab" -a1 -a2 -e - -o 0,1.2,2.2,2.3 \
	"$LOGS/$name-upstream/verdicts.tsv" "$LOGS/$name-series/verdicts.tsv" |
	awk -F'\t' -v OFS='\t' -v known="$known" '
	BEGIN { while ((getline l < known) > 0) if (l !~ /^#/) { split(l, a, "\t"); k[a[1]] = a[2] } }
	{
		# Known reasons are per test, whatever the condition (bd=...).
		note = ($4 == "-") ? "" : $4
		split($1, w, " ")
		if ($2 == "passed" && $3 != "passed") note = "REGRESSION"
		else if ($2 == "failed" && $3 == "failed") note = (w[1] in k) ? "fails upstream too: " k[w[1]] : "unexplained failure"
		else if ($3 == "failed") note = "REGRESSION: upstream " ($2 == "not run" ? "did not run it" : "has no verdict")
		print $1, $2, $3, note
	}' >"$LOGS/$name-compare.tsv"
{
	printf 'test\tupstream\tseries\tnote\n'
	cat "$LOGS/$name-compare.tsv"
} | column -t -s "$tab" | tee "$report"
for v in upstream series; do
	printf '%s: %s\n' "$v" "$(cut -f2 "$LOGS/$name-$v/verdicts.tsv" | sort | uniq -c |
		awk '{ n = $1; $1 = ""; printf "%s%s %d", sep, substr($0, 2), n; sep = ", " }')"
done | tee -a "$report"
# Splats in either guest's dmesg over the whole run: the guests' own
# pattern (DMESG_BAD, scripts/common/dmesg-policy.sh).
# shellcheck source=scripts/common/dmesg-policy.sh
. "$TOP/scripts/common/dmesg-policy.sh"
splat=$DMESG_BAD
for v in upstream series; do
	printf 'dmesg %s: %s splat lines\n' "$v" "$(grep -cE "$splat" "$LOGS/$name-$v/dmesg.txt" || true)"
done | tee -a "$report"
bad=$(awk -F'\t' '$4 ~ /^REGRESSION/ || $4 == "unexplained failure" { print $1 }' \
	"$LOGS/$name-compare.tsv" | paste -sd' ')
[ -z "$bad" ] || die "blktests: regressions or unexplained failures: $bad (report: $report)"
! grep -qE "$splat" "$LOGS/$name-series/dmesg.txt" ||
	die "blktests: splat in the series guest's dmesg: $(grep -m1 -E "$splat" "$LOGS/$name-series/dmesg.txt")"
log "blktests: the series passes every test upstream passes (report: $report)"
