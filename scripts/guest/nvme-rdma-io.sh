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
echo "$CNT_INFO" >>"$OUT/info"
KIND=$(driver_kind)
BOUND_FAILS=()

# row_bounds KIND BATCH IODEPTH BS_BYTES RANDOM SQSIZE RQ POSTS SEND RECV
# LOCAL_INV SQ_DELTA: the bounds of one row and its verdict, tab-separated:
# interval rule wrs/rq send/rq send_bound posts/rq posts_bound recv/rq
# recv_bound verdict. Counts are calls over the whole row (counters_delta);
# SQ_DELTA is sq_delta's output for the row (series; empty upstream).
# Per request (queue_rq call), not per fio I/O: sequential 128k I/O merges
# into larger requests, and each request is one command.
#
# recv: every posted request gets exactly one response, so recv CQEs =
#   dispatches - dispatches refused (the series counts them: stalls).
#   Tolerance 2% + 2 (all bounds): the 2 absorb a keepalive or AER crossing
#   a snapshot (the admin queue runs on, fio does not wait for it); the 2%
#   a retried dispatch no counter sees and, for chains, a batch split in two
#   when the submitting thread is preempted mid-batch (its plug is flushed)
#   or moves to the other CPU's queue. A lost or doubled completion on 1 in
#   50 I/Os fails, and so does a series that batches at half the rate.
# upstream: every SEND and every LOCAL_INV is signaled, the REG_MR is
#   chained unsignaled in front of its SEND: one post and one send CQE per
#   request, plus one of each per LOCAL_INV: [0.98, 1.02] x requests +
#   LOCAL_INVs +- 2.
# series: a posted chain's last WR is signaled, and every interval-th WR
#   (interval from debugfs, per queue). Chains hold the requests of one
#   dispatch batch, which is one fio submit batch of BATCH when it fits:
#   BATCH > 1, 4k-class random I/O (no merges; the plug flushes every
#   request of 128 KiB or more by itself, BLK_PLUG_FLUSH_SIZE), and IODEPTH
#   within the usable tags (sqsize - 1: one is reserved for connect). Then
#   posts = requests / BATCH. Otherwise a chain holds 1 to min(BATCH,
#   sqsize) requests (1 when unbatched or 128 KiB and more; up to sqsize
#   after a stall, when blk-mq dispatches its list at once). Admin
#   commands (qid 0: keepalive, AER) and LOCAL_INVs are chains of their own.
#   Send CQEs = signaled WRs: from one per chain up to one per chain plus
#   floor(WRs / interval) per queue; and exactly the driver's own count of
#   signaled WRs (debugfs), +-2. WRs per I/O request between 1 and 3
#   (SEND, REG_MR, LOCAL_INV), and interval = depth / 2 on every queue.
row_bounds() {
	awk -F'\t' -v kind="$1" -v b="$2" -v qd="$3" -v bs="$4" -v rnd="$5" -v sq="$6" \
		-v R="$7" -v P="$8" -v S="$9" -v C="${10}" -v I="${11}" -v sqd="${12}" '
	function bound(name, v, lo, hi) {
		if (v < lo || v > hi)
			why = why sprintf("%s%s/rq %.4f outside %.4f-%.4f", why == "" ? "" : "; ", name, v / R, lo / R, hi / R)
		return sprintf("%.4f-%.4f", (lo > 0 ? lo : 0) / R, hi / R)
	}
	function min(a, c) { return a < c ? a : c }
	BEGIN {
		rel = 0.02; abs = 2; why = ""
		if (R <= 0 || P <= 0 || S <= 0 || C <= 0)
			why = sprintf("a counter read zero: queue_rq %d posts %d send CQEs %d recv CQEs %d", R, P, S, C)
		if (R <= 0) R = 1
		n = split(sqd, lines, "\n")
		stalls = 0; A = 0; sig = 0; N = 0; extra = 0; ivals = ""
		for (k = 1; k <= n; k++) {
			if (split(lines[k], f, " ") < 6) continue
			# qid depth interval signaled unsignaled stalls
			stalls += f[6]; sig += f[4]
			if (f[1] == 0) { A += f[4] + f[5]; continue }
			N += f[4] + f[5]
			extra += int((f[4] + f[5]) / f[3])
			if (f[3] != (f[2] >= 2 ? int(f[2] / 2) : 1))
				why = why (why == "" ? "" : "; ") "qid " f[1] ": interval " f[3] " is not depth " f[2] " / 2"
			if (index(" " ivals " ", " " f[3] " ") == 0) ivals = ivals (ivals == "" ? "" : " ") f[3]
		}
		Rp = R - stalls
		if (kind == "series") {
			if (n == 0 || N == 0)
				why = why (why == "" ? "" : "; ") "no SQ accounting read from debugfs"
			single = (b <= 1 || bs >= 131072)
			fits = (!single && rnd && qd <= sq - 1 && stalls == 0)
			cmax = stalls > 0 ? sq : (single ? 1 : min(b, sq))
			Rio = Rp - A
			if (Rio < 0) Rio = 0
			chlo = Rio / cmax
			chhi = fits ? Rio / b : Rio
			if (fits) rule = "batch " b " fits " sq - 1 " tags: a chain per batch"
			else if (b <= 1) rule = "unbatched: a chain per request"
			else if (bs >= 131072) rule = "bs >= 128k: the plug flushes each request"
			else rule = "batch " b ", iodepth " qd ", " sq - 1 " tags: 1-" cmax " requests a chain"
			plo = chlo * (1 - rel) + A + I - abs
			phi = chhi * (1 + rel) + A + I + abs
			pb = bound("posts", P, plo, phi)
			sb = bound("send", S, plo, phi + extra)
			if (S < sig - abs || S > sig + abs)
				why = why (why == "" ? "" : "; ") sprintf("send CQEs %d, debugfs signaled %d", S, sig)
			if (Rio > 0 && (N < Rio - abs || N > 3 * Rio + I + abs))
				why = why (why == "" ? "" : "; ") sprintf("%.3f WRs per I/O request, not 1 to 3", N / Rio)
			wrs = Rio > 0 ? sprintf("%.3f", N / Rio) : "-"
		} else {
			rule = "every SEND and LOCAL_INV signaled"
			plo = Rp * (1 - rel) + I - abs
			phi = Rp * (1 + rel) + I + abs
			pb = bound("posts", P, plo, phi)
			sb = bound("send", S, plo, phi)
			wrs = "-"; ivals = "-"
		}
		rb = bound("recv", C, Rp * (1 - rel) - abs, Rp * (1 + rel) + abs)
		printf "%s\t%s\t%s\t%.4f\t%s\t%.4f\t%s\t%.4f\t%s\t%s\n", ivals == "" ? "-" : ivals, rule, wrs,
			S / R, sb, P / R, pb, C / R, rb, why == "" ? "ok" : "FAIL: " why
	}'
}

# fio JOBNAME DEV ARGS...: one verified fio run, one results line.
fio_run() {
	local name=$1 dev=$2 ctrl=$3 port=$4 json=$OUT/fio-$1-p$4.json before after ios iops
	local a b=1 qd=1 bs='' rnd=0 sq sqb sqa rq posts send_c recv_c inv bounds verdict
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
	done
	[ -n "$bs" ] || fail "fio_run $name: no --bs= (the bounds need the block size)"
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
	read -r ios iops < <(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
ios = j["read"]["total_ios"] + j["write"]["total_ios"]
ms = max(j["read"]["runtime"], j["write"]["runtime"], j["job_runtime"])
print(ios, int(ios * 1000 / ms) if ms else 0)' "$json")
	[ "$ios" -gt 0 ] || fail "fio $name did no I/O"
	read -r send recv posts qrq < <(counters_per_io "$before" "$after" "$ios")
	read -r rq posts_c send_c recv_c inv < <(counters_delta "$before" "$after")
	bounds=$(row_bounds "$KIND" "$b" "$qd" "$bs" "$rnd" "$sq" "$rq" "$posts_c" "$send_c" \
		"$recv_c" "$inv" "$(sq_delta "$sqb" "$sqa")")
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
	# With the series an idle queue has every credit back; its debugfs
	# file missing is a failure (credits_idle says "missing: ...").
	case "$credits" in
	full | skipped:*) ;;
	*) fail "$name on port $port: credits not full at idle: $credits" ;;
	esac
	if [ "$verdict" != ok ]; then
		echo "OUT OF BOUNDS: $name on port $port (sqsize $sq): ${verdict#FAIL: }"
		BOUND_FAILS+=("$name on port $port (sqsize $sq): ${verdict#FAIL: }")
	fi
}

printf 'workload\tport\tsqsize\tios\tiops\tsend_cqe/io\trecv_cqe/io\tposts/io\tqueue_rq/io\tverify\tcredits_idle\tbatch\tsq_interval\trule\twrs/rq\tsend_cqe/rq\tsend_bound/rq\tposts/rq\tposts_bound/rq\trecv_cqe/rq\trecv_bound/rq\tbounds\n' >"$OUT/results.tsv"
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
