#!/usr/bin/env bash
# Print the summary table of one boot-test run directory.
# Usage: summary.sh RUN_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dir=$1
[ -f "$dir/results.tsv" ] || die "no results in $dir"
pkg=$(source_pkg "$BASE")
series=$TOP/patches/$BASE/series
n=$(grep -cvE '^(#|$)' "$series" || true)
echo "== nvme-rdma boot test: $dir"
printf '%-16s %s\n' source "$pkg $(dpkg-query -W -f='${Version}' "$pkg")" \
	kernel "$(awk '/^kernel/ {print $2}' "$dir/info")" \
	series "$n patches from patches/$BASE" \
	accel "$(cat "$dir/accel")" \
	tools "$(grep -v '^kernel' "$dir/info" | paste -sd, -)"
echo
column -t -s "$(printf '\t')" "$dir/results.tsv"
