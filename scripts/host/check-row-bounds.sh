#!/usr/bin/env bash
# The boot test's per-row bounds for the series (row_bounds in
# scripts/common/row-bounds.sh, which the guest's nvme-rdma-io.sh
# sources too), fed on the host with the counts of a
# measured row (port 2, 4k in-capsule writes in batches of 16, verify
# reads: the boot test of 2026-12-06; its send CQEs and posts those of
# the boot test of 2026-12-08, once the series pulled such writes up,
# from its results.tsv: send/rq 0.0633, posts/rq 0.4735) and with the
# same row broken one way at a time.
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
P=7779 S=1040
check "measured row" ok $R $P $S 2054 $W $S "$sqd"
check "signals every SEND" fail $R $P $R 2054 $W $R "$sqd"
# The writes waiting for their SENDs again (the 2026-12-06 row: 4075).
check "every write chain signaled" fail $R $P 4075 2054 $W 4075 "$sqd"
# Only the interval signals (about 24580 / 31): no pull-up signal.
check "no pull-up signal" fail $R $P 793 2054 $W 793 "$sqd"
check "CQEs != signaled WRs" fail $R $P $S 2054 $W $((S - 100)) "$sqd"
check "posted WRs != ring heads" fail $R $P $S 2054 $((W + 50)) $S "$sqd"
check "receives unbatched" fail $R $P $S $R $W $S "$sqd"
check "trace buffer overrun" fail $R $P $S 2054 overrun overrun "$sqd"
check "no tracepoint sums" fail $R $P $S 2054 - - "$sqd"
check "an extra WR per request" fail $R $P $S 2054 $((W + 16000)) $S "$sqd_extra"
check "no send ring state" fail $R $P $S 2054 $W $S ""
# The product module (EXPECT_INSTRUMENT=no): the tracepoint's WRs stand in.
EXPECT_INSTRUMENT=no QUEUE_COUNT=3 check "product module, no ring" ok $R $P $S 2054 $W $S ""
EXPECT_INSTRUMENT=no QUEUE_COUNT=3 check "product, an extra WR each" fail $R $P $S 2054 $((W + 16000)) $S ""
EXPECT_INSTRUMENT=no QUEUE_COUNT=3 check "product, no tracepoint sums" fail $R $P $S 2054 - - ""
EXPECT_INSTRUMENT=no check "product, no queue count" fail $R $P $S 2054 $W $S ""
EXPECT_INSTRUMENT=no QUEUE_COUNT=3 check "product, receives unbatched" fail $R $P $S $R $W $S ""
EXPECT_INSTRUMENT=no QUEUE_COUNT=3 check "product, no pull-up signal" fail $R $P 400 2054 $W 400 ""
[ $bad = 0 ] || die "row_bounds: a broken row passed or the measured row failed"
log "row_bounds: the measured row passes, every broken one fails"
