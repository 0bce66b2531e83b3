#!/usr/bin/env bash
# The quick stress subset of `make check` (series only, on the normal
# kernel): queue-size clamps both ways, resets, a port removal, a target
# fatal error, module cycles, connect cycles, and a
# two-host pair at 1% loss, all on the test rxe with mlx5's send queue
# slot rules and the retry oracle (netem makes the pair retransmit).
# `make stress` runs the full matrix, the faults and cycles on the debug
# kernel, and the controls.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The scenarios: lane "quick" of config/stress-plan.tsv.
# shellcheck source=scripts/common/stress-plan.sh
. "$TOP/scripts/common/stress-plan.sh"
[ "$(stress_lane_kernel quick)" = normal ] || die "config/stress-plan.tsv: lane quick must run on the normal kernel"
mapfile -t quick < <(stress_lane quick)
[ ${#quick[@]} -gt 0 ] || die "config/stress-plan.tsv: lane quick has no scenario"
rc=0
export APPEND="rdma_rxe.strict_sq=1 rdma_rxe.retry_oracle=1"
"$TOP/scripts/host/boot.sh" stress-quick "${BOOT_TIMEOUT:-2400}" "$TOP/scripts/guest/stress.sh" \
	"${quick[@]}" || rc=1
# The pair: tests/lossy, lane quick (lossy-quick).
"$TOP/scripts/host/run-scenarios.sh" lossy lane=quick || rc=1
{
	cat "$LOGS/stress-quick/stress.tsv" 2>/dev/null
	tail -n +2 "$LOGS/lossy-quick-host/lossy.tsv" 2>/dev/null |
		awk -F'\t' -v OFS='\t' '{ print "lossy " $1 " port " $2, $4, $5, "-", $7,
			"netem dropped " $9 ", retransmissions: host " $6 ", target " $10 " (" $11 "); " $8, $12 }'
} | column -t -s "$(printf '\t')"
[ $rc -eq 0 ] || die "quick stress failed (logs: $LOGS/stress-quick, $LOGS/lossy-quick-*)"
log "quick stress: every scenario passed"
