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

# row_bounds: the per-row bounds and verdict (scripts/common/row-bounds.sh,
# which check-row-bounds.sh feeds with broken rows on the host).
# shellcheck source=scripts/common/row-bounds.sh
. "$(dirname "$0")/../common/row-bounds.sh"

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
	# counters_read: the driver's call counters (counters_arm).
	FM_LABEL="fio $name on port $port" fio_measure "$ctrl" "$json" counters_read watch 900 --name="$name" --filename="/dev/$dev" \
		--direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 "$@"
	ios=$FM_IOS iops=$FM_IOPS rios=$FM_RIOS wios=$FM_WIOS
	before=$FM_BEFORE after=$FM_AFTER sqb=$FM_SQB sqa=$FM_SQA
	read -r send recv posts qrq < <(counters_per_io "$before" "$after" "$ios")
	read -r rq posts_c send_c recv_c inv rposts _ stalls tpwrs tpsig < <(counters_delta "$before" "$after")
	bounds=$(QUEUE_COUNT=$(cat /sys/class/nvme/"$ctrl"/queue_count) row_bounds "$KIND" "$b" "$qd" "$bs" "$rnd" "$sq" "$incap" "$wios" "$rios" "$rq" "$posts_c" "$send_c" \
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
	fio_measure_done
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
