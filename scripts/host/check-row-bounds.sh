#!/usr/bin/env bash
# The boot test's per-row bounds for the series (row_bounds in
# scripts/common/row-bounds.sh, which the guest's nvme-rdma-io.sh
# sources too), fed on the host with the counts of a
# measured row (port 2, 4k in-capsule writes in batches of 16, verify
# reads: 2026-12-06) and with the same row broken one way at a time.
# The measured row must pass and every broken one must fail: a bound that
# never fails is not a check. The negative controls in the guest
# (check-controls.sh) cover the upstream branch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# shellcheck source=scripts/common/row-bounds.sh
. "$TOP/scripts/common/row-bounds.sh"
declare -F row_bounds >/dev/null || die "no row_bounds() in scripts/common/row-bounds.sh"

# verdict R POSTS SEND RECV_POSTS TPWRS TPSIG SQ_DELTA: kind series,
# batch 16, iodepth 32, 4k random, sqsize 15, in-capsule, 8192 writes and
# 8192 verify reads, recv CQEs = R, no stall.
verdict() {
	row_bounds series 16 32 4096 1 15 1 8192 8192 "$1" "$2" "$3" "$1" - 0 "$4" "$5" "$6" "$7" |
		awk -F'\t' '{ print $NF }'
}
sqd=$'0 126 63 40\n1 62 31 12000\n2 62 31 12580'
sqd_extra=$'0 126 63 40\n1 62 31 20000\n2 62 31 20580'
# W: the WRs the I/O queues' posts carried (the measured 24620 on all
# queues, less the admin queue's 40).
R=16430 W=24580
bad=0
check() {
	local name=$1 want=$2 got
	shift 2
	got=$(verdict "$@")
	case "$want:$got" in
	ok:ok | fail:FAIL:*) printf '%-28s %-5s %s\n' "$name" ok "$got" ;;
	*)
		printf '%-28s %-5s %s\n' "$name" WRONG "expected $want, got: $got"
		bad=1
		;;
	esac
}
check "measured row" ok $R 7137 4075 2054 $W 4075 "$sqd"
check "signals every SEND" fail $R 7137 $R 2054 $W $R "$sqd"
check "CQEs != signaled WRs" fail $R 7137 4075 2054 $W 3900 "$sqd"
check "posted WRs != ring heads" fail $R 7137 4075 2054 $((W + 50)) 4075 "$sqd"
check "receives unbatched" fail $R 7137 4075 $R $W 4075 "$sqd"
check "trace buffer overrun" fail $R 7137 4075 2054 overrun overrun "$sqd"
check "no tracepoint sums" fail $R 7137 4075 2054 - - "$sqd"
check "an extra WR per request" fail $R 7137 4075 2054 $((W + 16000)) 4075 "$sqd_extra"
check "no send ring state" fail $R 7137 4075 2054 $W 4075 ""
# The product module (EXPECT_INSTRUMENT=no): the tracepoint's WRs stand in.
EXPECT_INSTRUMENT=no QUEUE_COUNT=3 check "product module, no ring" ok $R 7137 4075 2054 $W 4075 ""
EXPECT_INSTRUMENT=no QUEUE_COUNT=3 check "product, an extra WR each" fail $R 7137 4075 2054 $((W + 16000)) 4075 ""
EXPECT_INSTRUMENT=no QUEUE_COUNT=3 check "product, no tracepoint sums" fail $R 7137 4075 2054 - - ""
EXPECT_INSTRUMENT=no check "product, no queue count" fail $R 7137 4075 2054 $W 4075 ""
EXPECT_INSTRUMENT=no QUEUE_COUNT=3 check "product, receives unbatched" fail $R 7137 4075 $R $W 4075 ""
[ $bad = 0 ] || die "row_bounds: a broken row passed or the measured row failed"
log "row_bounds: the measured row passes, every broken one fails"
