#!/usr/bin/env bash
# Print the summary table of one boot-test run directory.
# Usage: summary.sh RUN_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dir=$1
[ -f "$dir/results.tsv" ] || die "no results in $dir"
info=$OBJ/build-info
[ -f "$info" ] || die "no $info: was the kernel built with 'make build'?"
echo "== nvme-rdma boot test: $dir"
printf '%-16s %s\n' source "$(sed -n 's/^source //p' "$info")" \
	kernel "$(awk '/^kernel/ {print $2}' "$dir/info")" \
	series "$(sed -n 's/^patches //p' "$info") patches of patches/$BASE (top: $(sed -n 's/^head //p' "$info"))" \
	accel "$(cat "$dir/accel")" \
	tools "$(grep -v '^kernel' "$dir/info" | paste -sd, -)"
echo
tab=$(printf '\t')
# results.tsv: the measured values (columns 1-11), then each row's bounds
# and verdict (columns 12 on, when the run wrote them), two tables.
cut -f1-11 "$dir/results.tsv" | column -t -s "$tab"
if [ "$(head -1 "$dir/results.tsv" | awk -F'\t' '{ print NF }')" -gt 11 ]; then
	echo
	echo "per request (queue_rq call), with the bounds each row was checked against:"
	cut -f1-3,12- "$dir/results.tsv" | column -t -s "$tab"
fi
