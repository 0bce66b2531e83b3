# shellcheck shell=bash
# The boot test's per-row bounds, one definition: the guest's
# nvme-rdma-io.sh and the host's check-row-bounds.sh both source it (and
# the guest's bench.sh, for the receive chain bound).
# Reads $TARGET, $EXPECT_INSTRUMENT and (without the instrument)
# $QUEUE_COUNT, the controller's queues with the admin queue, from the
# environment.

# row_bounds KIND BATCH IODEPTH BS_BYTES RANDOM SQSIZE INCAP WIOS RIOS R
# POSTS SEND RECV LOCAL_INV STALLS RPOSTS TPWRS TPSIG SQ_DELTA: the bounds
# of one row and its verdict,
# tab-separated: interval rule wrs/rq send/rq send_bound posts/rq
# posts_bound recv/rq recv_bound verdict. Counts are calls over the whole
# row (counters_delta): R requests completed (nvme_complete_rq, admin
# included), POSTS ib_post_send calls, SEND send CQEs, RECV recv CQEs,
# RPOSTS ib_post_recv calls, TPWRS the WRs the series' posts carried on
# its I/O queues and TPSIG its signaled WRs on all queues, summed from its
# post tracepoint (TPWRS must equal the I/O queues' rings' advance: the
# admin queue's keep-alives may post between the two snapshots);
# INCAP: the row's writes carry their data in the capsule (4k writes: the
# target's inline data size is a page), WIOS and RIOS its fio write and
# read I/Os (the verify pass reads what was written); SQ_DELTA is sq_delta's output for
# the row (series; empty upstream). Per request, not per fio I/O:
# sequential 128k I/O merges into larger requests, and each request is one
# command.
#
# recv: every request gets exactly one response: recv CQEs = R. Receive
#   posts: upstream one per response; the series one chain of 8 per 8
#   responses, within 7 buffers a queue waiting for their chain at either
#   end of the row.
#   Tolerance 2% + 2 (all bounds): the 2 absorb a keepalive or AER crossing
#   a snapshot (the admin queue runs on, fio does not wait for it); the 2%
#   a batch split in two when the submitting thread is preempted mid-batch
#   (its plug is flushed) or moves to the other CPU's queue. A lost or
#   doubled completion on 1 in 50 I/Os fails, and so does a series that
#   batches at half the rate.
# upstream: every SEND and every LOCAL_INV is signaled, the REG_MR is
#   chained unsignaled in front of its SEND: one post and one send CQE per
#   request, plus one of each per LOCAL_INV: [0.98, 1.02] x requests +
#   LOCAL_INVs +- 2.
# series: every WR takes a send ring slot; per queue, the WRs taken are
#   the debugfs head's advance. A request posts SEND, with REG_MR in front
#   when its data is registered (all but in-capsule writes), so I/O WRs =
#   2 x I/O requests + LOCAL_INVs, or with in-capsule writes WIOS + 2 x
#   RIOS + LOCAL_INVs (4k random I/O: one request per fio I/O); the series
#   has no LOCAL_INV counter: this derives them, and they must be 0..I/O
#   requests (0..the reads with in-capsule writes, whose registered I/O is
#   the verify pass; about 0 against the local nvmet, which invalidates
#   remotely). Admin commands post a SEND each. The WRs its post
#   tracepoint summed equal the rings' heads' advance, and the WRs it
#   marked signaled equal the send CQEs (+-2: nothing is flushed). Chains hold the requests of one dispatch
#   batch, one fio submit batch of BATCH when it fits: BATCH > 1, 4k-class
#   random I/O (no merges; the plug flushes every request of 128 KiB or
#   more by itself, BLK_PLUG_FLUSH_SIZE), and IODEPTH within the usable
#   tags (sqsize - 1: one is reserved for connect). Then posts = requests /
#   BATCH. Otherwise a chain holds 1 to min(BATCH, sqsize) requests (up to
#   sqsize after a stall). Admin commands and LOCAL_INVs are posts of their
#   own. Signaled: every interval-th WR of a queue (floor(WRs / interval)
#   to that + 1 per queue); every LOCAL_INV; and with in-capsule data
#   (INCAP: a page or less, which the series pulls up into a buffer of
#   its own, so the write waits for no SEND) also every P / 2-th
#   pulled-up SEND of a queue, P = 2 x queue size (SQSIZE + 1) rounded up
#   to a power of two: floor(WIOS / (P / 2)) - 1 to that + 1 per queue.
#   A signal of either kind restarts the interval, so the send CQEs are
#   at least the larger of the two counts and at most their sum; with
#   the ring state, whose I/O queues share one interval, the row's
#   phases are counted apart (fio writes, then reads to verify): the
#   writes signal one SEND in min(P / 2, interval) (and one in P / 2
#   besides when the interval is shorter), the reads' WRs one in the
#   interval, +- 1 a queue a phase, then 2%.
#   Without in-capsule data only the interval signals: send CQEs are
#   about 1 / interval WRs. interval = min(depth / 2, depth -
#   2) on every queue. With EXPECT_INSTRUMENT=no (the product module, no
#   ring state) TPWRS stands in for the heads' advance and nothing bounds
#   the interval's signals from below or above (BATCH_MAX_SEND does).
# The receive chain bound, one definition for the boot test's rows (here)
# and the bench's count rows (scripts/guest/bench.sh): the series reposts
# receive buffers in chains of 8, so RPOSTS chains cover RECV responses on
# NQ queues to within 7 buffers a queue waiting for their chain at either
# end of the row, +- 2 (a keep-alive or an AER crossing a snapshot). An
# awk function, for the awk programs that use it.
# shellcheck disable=SC2034 # used by the scripts that source this file
RECV_CHAIN_AWK='function recv_chains_fit(rp, c, nq) { return rp * 8 >= c - 7 * nq - 2 && rp * 8 <= c + 7 * nq + 2 }'

row_bounds() {
	awk -F'\t' -v kind="$1" -v b="$2" -v qd="$3" -v bs="$4" -v rnd="$5" -v sq="$6" -v incap="$7" \
		-v W="$8" -v Rd="$9" -v R="${10}" -v P="${11}" -v S="${12}" -v C="${13}" -v I="${14}" \
		-v st="${15}" -v RP="${16}" -v TW="${17}" -v TS="${18}" -v sqd="${19}" -v local="${TARGET:-local}" \
		-v instr="${EXPECT_INSTRUMENT:-yes}" -v qc="${QUEUE_COUNT:-0}" "$RECV_CHAIN_AWK"'
	function bound(name, v, lo, hi) {
		if (v < lo || v > hi)
			why = why sprintf("%s%s/rq %.4f outside %.4f-%.4f", why == "" ? "" : "; ", name, v / R, lo / R, hi / R)
		return sprintf("%.4f-%.4f", (lo > 0 ? lo : 0) / R, hi / R)
	}
	function min(a, c) { return a < c ? a : c }
	function interval(d) { return d > 2 ? min(int(d / 2), d - 2) : 1 }
	function pow2up(x,  p) { for (p = 1; p < x; p *= 2); return p }
	function fail(m) { why = why (why == "" ? "" : "; ") m }
	BEGIN {
		rel = 0.02; abs = 2; why = ""
		if (R <= 0 || P <= 0 || C <= 0 || (kind != "series" && S <= 0))
			why = sprintf("a counter read zero: requests %d posts %d send CQEs %d recv CQEs %d", R, P, S, C)
		if (R <= 0) R = 1
		n = split(sqd, lines, "\n")
		stalls = st + 0; A = 0; N = 0; nq = 0; lo_int = 0; hi_int = 0; ivals = ""; aiv = 0
		for (k = 1; k <= n; k++) {
			if (split(lines[k], f, " ") < 4) continue
			# qid depth interval wrs
			nq++
			lo_int += int(f[4] / f[3]); hi_int += int(f[4] / f[3]) + 1
			if (f[3] != interval(f[2]))
				why = why (why == "" ? "" : "; ") "qid " f[1] ": interval " f[3] " is not min(depth / 2, depth - 2) of depth " f[2]
			if (f[1] == 0) { A += f[4]; aiv = f[3]; continue }
			N += f[4]
			if (index(" " ivals " ", " " f[3] " ") == 0) ivals = ivals (ivals == "" ? "" : " ") f[3]
		}
		if (kind == "series") {
			noring = 0
			if (instr == "no" && n == 0 && TW ~ /^[0-9]+$/) {
				# The product module: the WRs of the post tracepoint stand
				# in for the heads of the rings; no interval is known.
				N = TW + 0; noring = 1; hi_int = N; ivals = "-"; nq = qc + 0
				if (nq <= 0)
					fail("no ring state and no QUEUE_COUNT: the receive chain bound needs the queues")
			} else if (n == 0 || N == 0)
				why = why (why == "" ? "" : "; ") "no send ring state read from the test instrument (debugfs)"
			Rio = R - A
			if (Rio < 0) Rio = 0
			E = incap ? W + 2 * Rd : 2 * Rio
			I = N - E
			Imax = incap ? Rd * (1 + rel) + abs : Rio * (1 + rel) + abs
			if (local == "local") Imax = Rio * rel + abs
			if (Rio > 0 && (I < -(Rio * rel + abs) || I > Imax))
				fail(sprintf("%d I/O WRs for %d requests, %d expected without LOCAL_INVs: %d LOCAL_INVs (at most %d)", N, Rio, E, I, Imax))
			if (I < 0) I = 0
			if (TW == "overrun" || TS == "overrun")
				fail("post tracepoint events were overwritten: no WR or signal sums")
			else if (TW == "-" || TS == "-")
				fail("no WR or signal sums from the post tracepoint (TP_SUMS)")
			else {
				if (TW < N - abs || TW > N + abs)
					fail(sprintf("the posts on the I/O queues carried %d WRs, their rings took %d", TW, N))
				if (S < TS - abs || S > TS + abs)
					fail(sprintf("send CQEs %d, signaled WRs posted %d", S, TS))
			}
			if (!recv_chains_fit(RP, C, nq))
				fail(sprintf("%d receive chains for %d responses: not one chain of 8 per 8", RP, C))
			single = (b <= 1 || bs >= 131072)
			fits = (!single && rnd && qd <= sq - 1 && stalls == 0)
			cmax = stalls > 0 ? sq : (single ? 1 : min(b, sq))
			chlo = Rio / cmax
			chhi = fits ? Rio / b : Rio
			if (fits) rule = "batch " b " fits " sq - 1 " tags: a chain per batch"
			else if (b <= 1) rule = "unbatched: a chain per request"
			else if (bs >= 131072) rule = "bs >= 128k: the plug flushes each request"
			else rule = "batch " b ", iodepth " qd ", " sq - 1 " tags: 1-" cmax " requests a chain"
			pu = pow2up(2 * (sq + 1)) / 2
			rule = rule (incap ? "; in-capsule, pulled up: the interval and every " pu "-th pull-up signal" : "; no in-capsule data: the interval signals")
			if (noring) rule = rule "; no ring state (no test instrument): interval and signal count unchecked"
			plo = chlo * (1 - rel) + A + I - abs
			phi = chhi * (1 + rel) + A + I + abs
			pb = bound("posts", P, plo, phi)
			nio = nq - (aiv > 0)
			if (incap && !noring && ivals ~ /^[0-9]+$/ && nio > 0) {
				# The writes, then the verify reads: while only pulled-up
				# SENDs go out, one in every min(P / 2, interval) is
				# signaled (both when the interval is shorter); the WRs
				# of the reads and the LOCAL_INVs then signal by the
				# interval; the admin queue by its own.
				iv = ivals + 0
				wlo = int(W / (pu <= iv ? pu : iv)) - nio
				whi = int(W / (pu <= iv ? pu : iv)) + (pu <= iv ? 0 : int(W / pu)) + nio
				rlo = int((N - W) / iv) - nio
				rhi = int((N - W) / iv) + nio
				ahi = aiv > 0 ? int(A / aiv) + 1 : 0
				sb = bound("send", S, (wlo + rlo) * (1 - rel) - abs, (whi + rhi + ahi) * (1 + rel) + I + abs)
			} else if (incap) {
				slo = int(W / pu) - nq
				if (slo < lo_int - nq) slo = lo_int - nq
				sb = bound("send", S, slo - abs, hi_int + int(W / pu) + nq + I + abs)
			} else
				sb = bound("send", S, lo_int - nq - abs, hi_int + I + abs)
			wrs = Rio > 0 ? sprintf("%.3f", N / Rio) : "-"
		} else {
			rule = "every SEND and LOCAL_INV signaled"
			if (RP < C * (1 - rel) - abs || RP > C * (1 + rel) + abs)
				fail(sprintf("%d receive posts for %d responses: not one each", RP, C))
			plo = R * (1 - rel) + I - abs
			phi = R * (1 + rel) + I + abs
			pb = bound("posts", P, plo, phi)
			sb = bound("send", S, plo, phi)
			wrs = "-"; ivals = "-"
		}
		rb = bound("recv", C, R * (1 - rel) - abs, R * (1 + rel) + abs)
		printf "%s\t%s\t%s\t%.4f\t%s\t%.4f\t%s\t%.4f\t%s\t%s\n", ivals == "" ? "-" : ivals, rule, wrs,
			S / R, sb, P / R, pb, C / R, rb, why == "" ? "ok" : "FAIL: " why
	}'
}
