#!/usr/bin/env bash
# The test stages of `make check` (after deps, the trees and the build):
# each runs even if an earlier one failed, so one run reports everything; a
# table and a closing "N passed, M failed" line, non-zero exit on any
# failure. A stage "linux-6.1:NAME" runs NAME.sh with BASE=linux-6.1.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

stages=(check-shell check-drift check-series linux-6.1:check-series
	linux-6.1:check-kunit-uml check-variant-configs check-dkms check-kunit
	run-boot-test run-hw-selftest linux-6.1:run-distro-test check-stress)
passed=0 failed=0 table=""
for s in "${stages[@]}"; do
	base=$BASE name=$s
	case "$s" in *:*) base=${s%%:*} name=${s#*:} ;; esac
	log "stage $s"
	if BASE=$base "$TOP/scripts/host/$name.sh"; then
		passed=$((passed + 1)) table+="$s passed\n"
	else
		failed=$((failed + 1)) table+="$s FAILED\n"
	fi
done
printf '\n== make check (%s)\n' "$(elapsed)"
printf "%b" "$table" | column -t
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
