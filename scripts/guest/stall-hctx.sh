#!/bin/bash
# Two namespaces on one RDMA queue (guest side). The host connects with one
# I/O queue, so both namespaces' hctxs, and connect_q's, sit on the same
# send ring. Job a reads namespace 1 at queue depth 1, job b reads
# namespace 2 at queue depth 32 in batches of 16. On a series built with
# tests/negative-control/small-ring.diff (a 16-slot ring) dispatches of
# both find no credits all the time: the stall list then holds several
# hctxs, and every one must be run again, added and removed while
# namespaces come and go (connect, disconnect). On the strict test rxe a
# post beyond the ring would overflow its send queue.
# What it cannot show: that no hctx is left to blk-mq's delayed run. Job
# a's I/Os of 3 ms or more (column slow) were 155 of 3139 with the fix and
# 81 of 3476 with the last stalled hctx run alone (2026-12-07, ICOUNT=1):
# on a 16-slot ring the wait for credits, not the 3 ms, sets the latency.
# Writes $OUT/stall.tsv: job, namespace, iodepth, ios, slow (>= 3 ms),
# max_us, stalls (the nvme_rdma_send_stall events of the whole run).
# Fails if no dispatch stalled (the run tests nothing) or a job did no I/O.
# Usage: stall-hctx.sh [SECONDS]   (guest side; default 2 s of guest time)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

secs=${1:-2}
slow_ns=3000000
[ "$(nproc)" -ge 2 ] || fail "stall-hctx needs two vCPUs, the guest has $(nproc)"
setup_fabric
NAMESPACES=2 setup_target 1:0
setup_host
[ "$(driver_kind)" = series ] || fail "stall-hctx needs the series (its stall tracepoint)"
echo "driver $(driver_kind) $(modinfo -n nvme_rdma)" >"$OUT/info"

ctrl=$(connect 1 --nr-io-queues 1)
dev1=$(ns_dev "$ctrl" 1)
dev2=$(ns_dev "$ctrl" 2)
for _ in $(seq 50); do
	[ -n "$dev2" ] && break
	sleep 0.2
	dev2=$(ns_dev "$ctrl" 2)
done
if [ -z "$dev1" ] || [ -z "$dev2" ]; then
	fail "$ctrl: namespaces 1 and 2 of $NQN have no block devices ('$dev1' '$dev2')"
fi
tp_arm
phase "stall-hctx: $ctrl, /dev/$dev1 at QD 1 and /dev/$dev2 at QD 32 on one I/O queue, ${secs}s"
json=$OUT/fio-stall.json
step_watched 900 fio --eta=never --output-format=json --output="$json" \
	--direct=1 --rw=randread --bs=4k --time_based --runtime="$secs" \
	--name=a --filename="/dev/$dev1" --cpus_allowed=0 --ioengine=libaio --iodepth=1 \
	--write_lat_log="$OUT/lat" --log_avg_msec=0 \
	--name=b --filename="/dev/$dev2" --cpus_allowed=1 --ioengine=io_uring --iodepth=32 \
	--iodepth_batch_submit=16 --iodepth_batch_complete_min=1 ||
	fail "stall-hctx fio failed"
stalls=$(tp_count nvme_rdma_send_stall)
# fio's per-I/O log of job a (the first job): time, clat in ns, ...
lat=$OUT/lat_clat.1.log
[ -s "$lat" ] || fail "fio wrote no latency log for job a ($lat)"
slow=$(awk -F, -v t=$slow_ns '$2 + 0 >= t { n++ } END { print n + 0 }' "$lat")
printf 'job\tnamespace\tiodepth\tios\tslow\tmax_us\tstalls\n' >"$OUT/stall.tsv"
for row in "a 1 1" "b 2 32"; do
	read -r job ns qd <<<"$row"
	out=$("$FIO_JSON" --job "$job" "$json" rios rclat_max_us) || fail "stall-hctx: $out"
	read -r ios maxus <<<"$out"
	s=-
	[ "$job" != a ] || s=$slow
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$job" "$ns" "$qd" "$ios" "$s" "$maxus" "$stalls" >>"$OUT/stall.tsv"
done
column -t -s $'\t' "$OUT/stall.tsv"
[ "$stalls" -gt 0 ] || fail "stall-hctx: no dispatch stalled on the send credits: the run tests nothing (small-ring.diff missing?)"
for job in a b; do
	ios=$(awk -F'\t' -v j=$job '$1 == j { print $4 }' "$OUT/stall.tsv")
	[ "${ios:-0}" -gt 0 ] || fail "stall-hctx: job $job did no I/O"
done
disconnect "$ctrl"
finish_run
phase finished
