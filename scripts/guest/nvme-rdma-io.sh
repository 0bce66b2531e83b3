#!/bin/bash
# The boot test: soft-RoCE fabric, nvmet-rdma target on null_blk, nvme
# connect over rdma, fio with verification, call counters, dmesg scan.
# Writes $OUT/results.tsv (one line per workload) and $OUT/info.
# Usage: nvme-rdma-io.sh [RUNTIME_S]   (guest side; init.sh runs it)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runtime=${1:-0}

{
	echo "kernel $(uname -r)"
	echo "nvme-cli $(nvme version | awk '{print $3; exit}')"
	echo "fio $(fio --version)"
} >"$OUT/info"

setup_fabric
# Port 1: target default queue size; port 2: 16, the size that overflowed
# the SQ when the 2017 driver signaled every 32nd send.
setup_target 1:0 2:16
setup_host
counters_arm

# fio JOBNAME DEV ARGS...: one verified fio run, one results line.
fio_run() {
	local name=$1 dev=$2 ctrl=$3 port=$4 json=$OUT/fio-$1-p$4.json before after ios iops limit
	shift 4
	phase "fio $name on $dev (port $port)"
	before=$(mktemp) after=$(mktemp)
	counters_read >"$before"
	limit=$((runtime > 0 ? runtime + 300 : 600))
	[ "$runtime" -gt 0 ] && set -- "$@" --time_based=0 --runtime="$runtime"
	step "$limit" fio --name="$name" --filename="/dev/$dev" --direct=1 \
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
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$port" \
		"$(cat /sys/class/nvme/"$ctrl"/sqsize)" "$ios" "$iops" "$send" "$recv" \
		"$posts" "$qrq" ok "$(credits_idle "$ctrl")" >>"$OUT/results.tsv"
	rm -f "$before" "$after"
}

printf 'workload\tport\tsqsize\tios\tiops\tsend_cqe/io\trecv_cqe/io\tposts/io\tqueue_rq/io\tverify\tcredits_idle\n' >"$OUT/results.tsv"
for port in 1 2; do
	ctrl=$(connect "$port")
	dev=${ctrl}n1
	phase "connected $ctrl on port $port, sqsize $(cat /sys/class/nvme/"$ctrl"/sqsize)"
	# Inline 4k writes, MR-registered 4k reads; io_uring batches of 16.
	fio_run 4k-rand-uring "$dev" "$ctrl" "$port" --ioengine=io_uring --rw=randwrite \
		--bs=4k --size=32M --iodepth=32 --iodepth_batch_submit=16 \
		--iodepth_batch_complete_min=1
	# MR registration + invalidation both ways.
	fio_run 128k-seq-libaio "$dev" "$ctrl" "$port" --ioengine=libaio --rw=write \
		--bs=128k --size=64M --iodepth=8
	disconnect "$ctrl"
done
phase dmesg-scan
scan_dmesg
phase finished
