#!/usr/bin/env bash
# The checks that can fail, with the controls that prove it: the scenarios
# of tests/controls (one file each; tests/controls/rc has their helpers),
# run by scripts/host/run-scenarios.sh on one kernel image with the test
# rxe (tests/rxe-strict). Five must pass (strict, retransmit, poll, stall,
# enomem), six must fail for the reason they name (rxe-unfixed,
# 2017-rule, lifetime, lifetime-read, bounds, lifetime-pullup): a control
# that does not fail fails this check. Writes $LOGS/controls.tsv and $LOGS/controls.ktap.
# Usage: check-controls.sh [NAME... | lane=LANE]   (default: lane=check,
#        all eleven; lane=negative: the controls that must fail on the test
#        rxe's verdicts)
# Env: RETRANSMIT_SECONDS, the length of each read phase under drops
#      (default 8; make stress runs 20).
set -euo pipefail
[ $# -gt 0 ] || set -- lane=check
exec "$(dirname "$0")/run-scenarios.sh" controls "$@"
