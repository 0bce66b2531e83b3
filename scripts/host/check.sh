#!/usr/bin/env bash
# The test stages of `make check` (after deps, tree and build): each runs
# even if an earlier one failed, so one run reports everything; a table and
# a closing "N passed, M failed" line, non-zero exit on any failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

stages=(check-shell check-series check-kunit run-boot-test check-stress)
passed=0 failed=0 table=""
for s in "${stages[@]}"; do
	log "stage $s"
	if "$TOP/scripts/host/$s.sh"; then
		passed=$((passed + 1)) table+="$s passed\n"
	else
		failed=$((failed + 1)) table+="$s FAILED\n"
	fi
done
printf '\n== make check (%s)\n' "$(elapsed)"
printf "%b" "$table" | column -t
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
