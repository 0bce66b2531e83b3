#!/usr/bin/env bash
# Benchmark: the same kernel booted with the upstream driver and with the
# series, under instruction-counted TCG (-icount: guest time counts
# instructions, so IOPS repeat across boots), fio sweep on one port.
# Prints a comparison table and keeps both runs' logs.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/host/build-baseline.sh"
up=$UP_MODROOT
for v in upstream series; do
	root=$MODROOT
	[ $v = upstream ] && root=$up
	MODROOT=$root ICOUNT=1 "$TOP/scripts/host/boot.sh" "bench-$v" 2400 \
		"$TOP/scripts/guest/nvme-rdma-io.sh" bench || die "bench boot ($v) failed (logs: $LOGS/bench-$v)"
done
echo "== make bench: $(source_pkg "$BASE") $(dpkg-query -W -f='${Version}' "$(source_pkg "$BASE")"), $(cat "$LOGS/bench-series/accel")"
join -t "$(printf '\t')" <(tail -n +2 "$LOGS/bench-upstream/results.tsv" | cut -f1,5,6,8 | sort) \
	<(tail -n +2 "$LOGS/bench-series/results.tsv" | cut -f1,5,6,8,11 | sort) |
	awk -F'\t' 'BEGIN { OFS = "\t"; print "workload", "IOPS up", "IOPS series", "change",
		"sendCQE/io up", "sendCQE/io series", "posts/io up", "posts/io series", "credits idle" }
	{ printf "%s\t%d\t%d\t%+.1f%%\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $5, ($5 / $2 - 1) * 100, $3, $6, $4, $7, $8 }' |
	column -t -s "$(printf '\t')" | tee "$LOGS/bench.txt"
