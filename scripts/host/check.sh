#!/usr/bin/env bash
# The test stages of `make check` (after deps, the trees and the build):
# each runs even if an earlier one failed, so one run reports everything; a
# table and a closing "N passed, M failed" line, non-zero exit on any
# failure. A stage "linux-6.1:NAME" runs NAME.sh with BASE=linux-6.1.
# A stage that cannot run exits 77 after printing "skipped: WHY" (its last
# such line is the reason); a skip counts as neither passed nor failed.
# Writes, beside the terminal table: $LOGS/check.tsv in the scenario
# runner's schema (scenario: the stage, expect, result: pass, FAIL or
# skip, seconds, detail: why it skipped, or its log), $LOGS/check.ktap
# (KTAP v1) and each stage's output in $LOGS/check/STAGE.log.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# check-identity: the patches' author and Signed-off-by; a placeholder
# identity is a skip here (a CI machine's git config is nobody's), and
# `make submit-check` refuses it.
export SKIP_PLACEHOLDER=1
# The mainline series ($BASE, linux-7.3) is built and booted; the
# backports (linux-6.12, linux-6.1) are checked per patch, by UML KUnit,
# and as the DKMS package on Debian's own kernels, with no build of their own.
stages=(check-shell check-identity check-trailers check-row-bounds check-bench-report check-stress-known check-readers check-runner check-drift
	check-series linux-6.12:check-series linux-6.1:check-series
	linux-6.12:check-kunit-uml linux-6.1:check-kunit-uml check-variant-configs check-dkms check-kunit
	run-boot-test check-controls run-hw-selftest linux-6.12:run-distro-test linux-6.1:run-distro-test check-stress)
passed=0 failed=0 skipped=0 k=0
mkdir -p "$LOGS/check"
tsv=$LOGS/check.tsv ktap=$LOGS/check.ktap
printf 'scenario\texpect\tresult\tseconds\tdetail\n' >"$tsv"
printf 'KTAP version 1\n1..%d\n' ${#stages[@]} >"$ktap"
for s in "${stages[@]}"; do
	base=$BASE name=$s k=$((k + 1))
	case "$s" in *:*) base=${s%%:*} name=${s#*:} ;; esac
	slog=$LOGS/check/$s.log
	log "stage $k/${#stages[@]}: $s (log: $slog)"
	t0=$SECONDS
	BASE=$base "$TOP/scripts/host/$name.sh" 2>&1 | tee "$slog"
	rc=${PIPESTATUS[0]}
	secs=$((SECONDS - t0))
	case $rc in
	0)
		passed=$((passed + 1)) result=pass detail=$slog
		echo "ok $k $s" >>"$ktap"
		;;
	77)
		skipped=$((skipped + 1))
		why=$(sed -n 's/^.*skipped: //p' "$slog" | tail -1)
		result=skip detail=${why:-no reason given}
		echo "ok $k $s # SKIP ${why:-no reason given}" >>"$ktap"
		;;
	*)
		failed=$((failed + 1)) result=FAIL detail=$slog
		echo "not ok $k $s" >>"$ktap"
		;;
	esac
	printf '%s\tpass\t%s\t%s\t%s\n' "$s" "$result" "$secs" "$detail" >>"$tsv"
	log "stage $k/${#stages[@]}: $s $result in ${secs}s"
done
printf '\n== make check (%s)\n' "$(elapsed)"
cut -f1,3- "$tsv" | column -t -s $'\t'
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
