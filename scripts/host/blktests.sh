#!/usr/bin/env bash
# blktests nvme group over rxe, with the upstream driver and with the
# series, on the same kernel image; prints a comparison table and fails if
# the series fails a test that upstream passes.
# Usage: blktests.sh [TEST...]   (default: the whole nvme group)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

blk=${BLKTESTS:-$TOP/../shared/blktests}
[ -x "$blk/check" ] || die "blktests not found at $blk (set BLKTESTS=)"
blk=$(cd "$blk" && pwd)
"$TOP/scripts/host/build-baseline.sh"
up=$BUILD/modroot-${BASE#linux-}-upstream
for v in upstream series; do
	root=$MODROOT
	[ $v = upstream ] && root=$up
	MODROOT=$root "$TOP/scripts/host/boot.sh" "blktests-$v" 3600 \
		"$TOP/scripts/guest/blktests.sh" "$blk" "$@" ||
		die "blktests boot ($v) failed (logs: $LOGS/blktests-$v)"
done
report=$LOGS/blktests.txt
join -t "$(printf '\t')" -a1 -a2 -e missing -o 0,1.2,2.2 \
	"$LOGS/blktests-upstream/blktests.tsv" "$LOGS/blktests-series/blktests.tsv" |
	awk -F'\t' 'BEGIN { OFS = "\t"; print "test", "upstream", "series" } { print }' |
	column -t -s "$(printf '\t')" | tee "$report"
regressions=$(join -t "$(printf '\t')" "$LOGS/blktests-upstream/blktests.tsv" \
	"$LOGS/blktests-series/blktests.tsv" | awk -F'\t' '$2 == "passed" && $3 != "passed" { print $1 }')
[ -z "$regressions" ] || die "series fails what upstream passes: $(echo "$regressions" | paste -sd' ')"
log "blktests: the series passes every test upstream passes (report: $report)"
