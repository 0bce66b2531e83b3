#!/bin/bash
# The boot test: soft-RoCE fabric, nvmet-rdma target on null_blk, nvme
# connect over rdma, fio with verification, call counters, dmesg scan.
# Writes $OUT/results.tsv (one line per workload) and $OUT/info.
# Usage: nvme-rdma-io.sh [check]   (guest side; init.sh runs it)
#   check: both ports, a 4k random and a 128k sequential workload each.
#   (make bench has its own guest script, scripts/guest/bench.sh.)
# Every row is checked against bounds derived from the driver's rules, the
# fio batch and the queue's signal interval (row_bounds below); a row out of
# bounds fails the run once every row has run (so both ports always run and
# results.tsv shows each row's measured values beside its bounds).
# Env: EXPECT_DRIVER=series|upstream fails the run if the nvme_rdma that
#      modprobe loaded is not that one; BATCH_MAX_SEND (optional, e.g. 0.1)
#      adds a ceiling on send CQEs and posts per request to the series rows
#      whose batch fits the queue.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
profile=${1:-check}

{
	echo "kernel $(uname -r)"
	echo "nvme-cli $(nvme version | awk '{print $3; exit}')"
	echo "fio $(fio --version)"
} >"$OUT/info"

# TARGET=external: the caller (nvme-rdma-hw.sh) made the fabric and the
# target, and names the ports (PORTS) and the namespace (NSID) to use.
if [ "${TARGET:-local}" = local ]; then
	setup_fabric
	# Port 1: target default queue size; port 2: 16, the size that
	# overflowed the SQ when the 2017 driver signaled every 32nd send.
	setup_target 1:0 2:16
fi
setup_host
if [ -n "${EXPECT_DRIVER:-}" ] && [ "$(driver_kind)" != "$EXPECT_DRIVER" ]; then
	fail "modprobe nvme_rdma loaded the $(driver_kind) driver ($(modinfo -n nvme_rdma)), expected $EXPECT_DRIVER"
fi
echo "driver $(driver_kind) $(modinfo -n nvme_rdma)" >>"$OUT/info"
counters_arm
# The series' WR and signal sums from its post tracepoint, per row.
export TP_SUMS=1
echo "$CNT_INFO" >>"$OUT/info"
KIND=$(driver_kind)
BOUND_FAILS=()

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
#   to that + 1 per queue), and with in-capsule data also the last WR of
#   every chain that holds a write (that chain's SEND is waited on): at
#   most one a write chain (one a batch when it fits), never more than
#   one a post; and every LOCAL_INV.
#   Without in-capsule data nothing else is signaled: send CQEs are the
#   interval's, about 1 / interval WRs; the verify pass of an in-capsule
#   row is such a part (reads), so only the write chains are counted on
#   to be signaled. interval = min(depth / 2, depth -
#   2) on every queue.
row_bounds() {
	awk -F'\t' -v kind="$1" -v b="$2" -v qd="$3" -v bs="$4" -v rnd="$5" -v sq="$6" -v incap="$7" \
		-v W="$8" -v Rd="$9" -v R="${10}" -v P="${11}" -v S="${12}" -v C="${13}" -v I="${14}" \
		-v st="${15}" -v RP="${16}" -v TW="${17}" -v TS="${18}" -v sqd="${19}" -v local="${TARGET:-local}" '
	function bound(name, v, lo, hi) {
		if (v < lo || v > hi)
			why = why sprintf("%s%s/rq %.4f outside %.4f-%.4f", why == "" ? "" : "; ", name, v / R, lo / R, hi / R)
		return sprintf("%.4f-%.4f", (lo > 0 ? lo : 0) / R, hi / R)
	}
	function min(a, c) { return a < c ? a : c }
	function interval(d) { return d > 2 ? min(int(d / 2), d - 2) : 1 }
	function fail(m) { why = why (why == "" ? "" : "; ") m }
	BEGIN {
		rel = 0.02; abs = 2; why = ""
		if (R <= 0 || P <= 0 || C <= 0 || (kind != "series" && S <= 0))
			why = sprintf("a counter read zero: requests %d posts %d send CQEs %d recv CQEs %d", R, P, S, C)
		if (R <= 0) R = 1
		n = split(sqd, lines, "\n")
		stalls = st + 0; A = 0; N = 0; nq = 0; lo_int = 0; hi_int = 0; ivals = ""
		for (k = 1; k <= n; k++) {
			if (split(lines[k], f, " ") < 4) continue
			# qid depth interval wrs
			nq++
			lo_int += int(f[4] / f[3]); hi_int += int(f[4] / f[3]) + 1
			if (f[3] != interval(f[2]))
				why = why (why == "" ? "" : "; ") "qid " f[1] ": interval " f[3] " is not min(depth / 2, depth - 2) of depth " f[2]
			if (f[1] == 0) { A += f[4]; continue }
			N += f[4]
			if (index(" " ivals " ", " " f[3] " ") == 0) ivals = ivals (ivals == "" ? "" : " ") f[3]
		}
		if (kind == "series") {
			if (n == 0 || N == 0)
				why = why (why == "" ? "" : "; ") "no send ring state read from debugfs"
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
			if (RP * 8 < C - 7 * nq - abs || RP * 8 > C + 7 * nq + abs)
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
			rule = rule (incap ? "; in-capsule: each chain signaled" : "; no in-capsule data: the interval signals")
			plo = chlo * (1 - rel) + A + I - abs
			phi = chhi * (1 + rel) + A + I + abs
			pb = bound("posts", P, plo, phi)
			wch = fits ? W / b : W
			if (wch > P - A - I) wch = P - A - I
			if (incap)
				sb = bound("send", S, (Rio > 0 ? chlo * W / Rio : 0) * (1 - rel) - abs, wch * (1 + rel) + hi_int + I + abs)
			else
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

# fio JOBNAME DEV ARGS...: one verified fio run, one results line.
fio_run() {
	local name=$1 dev=$2 ctrl=$3 port=$4 json=$OUT/fio-$1-p$4.json before after ios iops
	local a b=1 qd=1 bs='' rnd=0 wr=0 incap=0 sq sqb sqa rq posts send_c recv_c inv stalls bounds verdict rios wios
	local rposts tpwrs tpsig
	shift 4
	# What the bounds depend on, from the fio arguments.
	for a in "$@"; do
		case "$a" in
		--iodepth=*) qd=${a#*=} ;;
		--iodepth_batch_submit=* | --iodepth_batch=*) b=${a#*=} ;;
		--bs=*) bs=$(awk -v v="${a#*=}" 'BEGIN { n = v + 0; u = tolower(substr(v, length(n "") + 1, 1))
			print n * (u == "k" ? 1024 : u == "m" ? 1048576 : u == "g" ? 1073741824 : 1) }') ;;
		--rw=rand*) rnd=1 ;;
		esac
		case "$a" in --rw=*write) wr=1 ;; esac
	done
	[ -n "$bs" ] || fail "fio_run $name: no --bs= (the bounds need the block size)"
	[ "$wr" = 1 ] && [ "$bs" -le 4096 ] && incap=1
	sq=$(cat /sys/class/nvme/"$ctrl"/sqsize)
	phase "fio $name on $dev (port $port)"
	before=$(mktemp) after=$(mktemp) sqb=$(mktemp) sqa=$(mktemp)
	sq_read "$ctrl" >"$sqb"
	counters_read >"$before"
	step_watched 900 fio --eta=never --name="$name" --filename="/dev/$dev" --direct=1 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --output-format=json \
		--output="$json" "$@" || fail "fio $name on port $port failed (verify or I/O error)"
	counters_read >"$after"
	sq_read "$ctrl" >"$sqa"
	read -r ios iops rios wios < <(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
ios = j["read"]["total_ios"] + j["write"]["total_ios"]
ms = max(j["read"]["runtime"], j["write"]["runtime"], j["job_runtime"])
print(ios, int(ios * 1000 / ms) if ms else 0, j["read"]["total_ios"], j["write"]["total_ios"])' "$json")
	[ "$ios" -gt 0 ] || fail "fio $name did no I/O"
	read -r send recv posts qrq < <(counters_per_io "$before" "$after" "$ios")
	read -r rq posts_c send_c recv_c inv rposts _ stalls tpwrs tpsig < <(counters_delta "$before" "$after")
	bounds=$(row_bounds "$KIND" "$b" "$qd" "$bs" "$rnd" "$sq" "$incap" "$wios" "$rios" "$rq" "$posts_c" "$send_c" \
		"$recv_c" "$inv" "${stalls/-/0}" "$rposts" "$tpwrs" "$tpsig" "$(sq_delta "$sqb" "$sqa")")
	verdict=${bounds##*$'\t'}
	# The optional extra ceiling (BATCH_MAX_SEND), on the rows whose batch fits.
	if [ -n "${BATCH_MAX_SEND:-}" ] && [ "$verdict" = ok ] && [[ $bounds == *" fits "* ]] &&
		! awk -v s="$send_c" -v p="$posts_c" -v r="$rq" -v m="$BATCH_MAX_SEND" 'BEGIN { exit !(s / r < m && p / r < m) }'; then
		verdict="FAIL: send CQEs or posts per request not under BATCH_MAX_SEND=$BATCH_MAX_SEND"
		bounds=${bounds%$'\t'*}$'\t'$verdict
	fi
	credits=$(credits_idle "$ctrl")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$port" \
		"$sq" "$ios" "$iops" "$send" "$recv" "$posts" "$qrq" ok "$credits" "$b" "$bounds" >>"$OUT/results.tsv"
	rm -f "$before" "$after" "$sqb" "$sqa"
	# With the series an idle queue holds fewer than interval unretired
	# WRs; its debugfs file missing is a failure (credits_idle says
	# "missing: ...").
	case "$credits" in
	idle | skipped:*) ;;
	*) fail "$name on port $port: send ring not idle: $credits" ;;
	esac
	if [ "$verdict" != ok ]; then
		echo "OUT OF BOUNDS: $name on port $port (sqsize $sq): ${verdict#FAIL: }"
		BOUND_FAILS+=("$name on port $port (sqsize $sq): ${verdict#FAIL: }")
	fi
}

printf 'workload\tport\tsqsize\tios\tiops\tsend_cqe/io\trecv_cqe/io\tposts/io\tcmds/io\tverify\tring_idle\tbatch\tinterval\trule\twrs/rq\tsend_cqe/rq\tsend_bound/rq\tposts/rq\tposts_bound/rq\trecv_cqe/rq\trecv_bound/rq\tbounds\n' >"$OUT/results.tsv"
# Inline 4k writes, MR-registered 4k reads; io_uring batches of 16 (fio
# reaps 16 completions before it refills, or it would submit one by one).
check_workloads() {
	fio_run 4k-rand-uring-b16 "$@" --ioengine=io_uring --rw=randwrite \
		--bs=4k --size=32M --iodepth=32 --iodepth_batch_submit=16 \
		--iodepth_batch_complete_min=16
	# MR registration + invalidation both ways.
	fio_run 128k-seq-libaio "$@" --ioengine=libaio --rw=write \
		--bs=128k --size=64M --iodepth=8
}

case "$profile" in
check) ports=${PORTS:-1 2} ;;
*) fail "unknown profile '$profile'" ;;
esac
for port in $ports; do
	ctrl=$(connect "$port")
	dev=$(ns_dev "$ctrl" "${NSID:-1}")
	[ -n "$dev" ] || fail "no namespace ${NSID:-1} of $NQN on $ctrl"
	phase "connected $ctrl on port $port, sqsize $(cat /sys/class/nvme/"$ctrl"/sqsize), /dev/$dev"
	"${profile}_workloads" "$dev" "$ctrl" "$port"
	disconnect "$ctrl"
done
finish_run
[ ${#BOUND_FAILS[@]} -eq 0 ] ||
	fail "${#BOUND_FAILS[@]} row(s) out of bounds (results.tsv), first: ${BOUND_FAILS[0]}"
phase finished
