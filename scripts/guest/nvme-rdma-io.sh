#!/bin/bash
# The boot test: soft-RoCE fabric, nvmet-rdma target on null_blk, nvme
# connect over rdma, fio with verification, call counters, dmesg scan.
# Writes $OUT/results.tsv (one line per workload) and $OUT/info.
# Usage: nvme-rdma-io.sh [check|bench]   (guest side; init.sh runs it)
#   check: both ports, a 4k random and a 128k sequential workload each;
#   bench: port 1 only, a queue-depth and batch sweep.
# Env: EXPECT_DRIVER=series|upstream fails the run if the nvme_rdma that
#      modprobe loaded is not that one; BATCH_MAX_SEND (default 0.5) is the
#      most send CQEs and posts per I/O a batched workload may cost.
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

# fio JOBNAME DEV ARGS...: one verified fio run, one results line.
fio_run() {
	local name=$1 dev=$2 ctrl=$3 port=$4 json=$OUT/fio-$1-p$4.json before after ios iops
	shift 4
	phase "fio $name on $dev (port $port)"
	before=$(mktemp) after=$(mktemp)
	counters_read >"$before"
	step 900 fio --eta=never --name="$name" --filename="/dev/$dev" --direct=1 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --output-format=json \
		--output="$json" "$@" || fail "fio $name on port $port failed (verify or I/O error)"
	counters_read >"$after"
	read -r ios iops < <(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
ios = j["read"]["total_ios"] + j["write"]["total_ios"]
ms = max(j["read"]["runtime"], j["write"]["runtime"], j["job_runtime"])
print(ios, int(ios * 1000 / ms) if ms else 0)' "$json")
	[ "$ios" -gt 0 ] || fail "fio $name did no I/O"
	read -r send recv posts qrq < <(counters_per_io "$before" "$after" "$ios")
	credits=$(credits_idle "$ctrl")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$port" \
		"$(cat /sys/class/nvme/"$ctrl"/sqsize)" "$ios" "$iops" "$send" "$recv" \
		"$posts" "$qrq" ok "$credits" >>"$OUT/results.tsv"
	rm -f "$before" "$after"
	# With the series (its debugfs file exists), an idle queue has every
	# credit back, and batched submission must cut send CQEs and posts.
	case "$credits" in
	n/a) return ;;
	full) ;;
	*) fail "$name on port $port: credits not full at idle: $credits" ;;
	esac
	# The claim holds where a batch fits the queue: depth 32 and more.
	[ "$(cat /sys/class/nvme/"$ctrl"/sqsize)" -ge 31 ] || return 0
	case "$name" in *-b[0-9]*)
		awk -v s="$send" -v p="$posts" -v m="${BATCH_MAX_SEND:-0.5}" 'BEGIN { exit !(s < m && p < m) }' ||
			fail "$name on port $port: batched I/O still costs $send send CQEs and $posts posts per I/O"
		;;
	esac
}

printf 'workload\tport\tsqsize\tios\tiops\tsend_cqe/io\trecv_cqe/io\tposts/io\tqueue_rq/io\tverify\tcredits_idle\n' >"$OUT/results.tsv"
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

bench_workloads() {
	local qd b
	fio_run 4k-rand-libaio-qd1 "$@" --ioengine=libaio --rw=randwrite \
		--bs=4k --size=16M --iodepth=1
	fio_run 4k-rand-uring-qd32 "$@" --ioengine=io_uring --rw=randwrite \
		--bs=4k --size=32M --iodepth=32
	for qd in 8 32 128; do
		b=$((qd / 2))
		fio_run "4k-rand-uring-qd$qd-b$b" "$@" --ioengine=io_uring --rw=randwrite \
			--bs=4k --size=32M --iodepth=$qd --iodepth_batch_submit=$b \
			--iodepth_batch_complete_min=$b
	done
	fio_run 128k-seq-uring-qd32-b16 "$@" --ioengine=io_uring --rw=write \
		--bs=128k --size=128M --iodepth=32 --iodepth_batch_submit=16 \
		--iodepth_batch_complete_min=16
}

case "$profile" in
check) ports=${PORTS:-1 2} ;;
bench) ports=${PORTS:-1} ;;
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
phase dmesg-scan
scan_dmesg
phase finished
