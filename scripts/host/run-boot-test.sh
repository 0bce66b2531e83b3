#!/usr/bin/env bash
# The boot test (tests/boot/001, through scripts/host/run-scenarios.sh):
# boot the built kernel, run the soft-RoCE nvme-rdma I/O test, print the
# summary table. Exits non-zero on any failure; the guest's logs stay in
# $LOGS/boot-test.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
"$TOP/scripts/host/run-scenarios.sh" boot boot-test || die "boot test failed (logs: $LOGS/boot-test)"
"$TOP/scripts/host/summary.sh" "$LOGS/boot-test"
