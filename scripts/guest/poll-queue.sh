#!/bin/bash
# Two pollers on one poll queue (guest side): the host connects with one
# I/O queue and one poll queue, and two fio jobs pinned to the two vCPUs
# submit with io_uring --hipri, so both poll the same hardware context at
# once; each verifies its own region. Send completions retire WRs in
# posting order, so pollers that run completions side by side return send
# queue credits for WRs still in the queue (mlx5 rules on the test rxe:
# overflow) or complete requests whose SEND may be retried (retry oracle).
# Both ports: the target's default queue and the 16-deep one.
# Writes $OUT/poll.tsv: port, sqsize, job, ios, verify, credits_idle.
# Usage: poll-queue.sh   (guest side; init.sh runs it)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "$(nproc)" -ge 2 ] || fail "poll-queue needs two vCPUs, the guest has $(nproc)"
setup_fabric
setup_target 1:0 2:16
setup_host
kind=$(driver_kind)
echo "driver $kind $(modinfo -n nvme_rdma)" >"$OUT/info"

printf 'port\tsqsize\tjob\tios\tverify\tcredits_idle\n' >"$OUT/poll.tsv"
for port in 1 2; do
	mark=$(dmesg | wc -l)
	ctrl=$(connect "$port" --nr-io-queues 1 --nr-poll-queues 1)
	dev=$(ns_dev "$ctrl" 1)
	[ -n "$dev" ] || fail "no namespace 1 of $NQN on $ctrl"
	# nvme-rdma says how it mapped its queues: one poll queue, or the
	# scenario tests nothing.
	map=$(dmesg | tail -n +$((mark + 1)) | grep -o "$ctrl: mapped [0-9/]* default/read/poll" | tail -1 || true)
	case "$map" in
	*"/1 default/read/poll") ;;
	*) fail "$ctrl: expected one poll queue, dmesg says '${map:-nothing}'" ;;
	esac
	[ "$(sysattr "/sys/block/$dev/queue/io_poll")" = 1 ] || fail "/dev/$dev does not poll"
	sq=$(cat "/sys/class/nvme/$ctrl/sqsize")
	phase "poll-queue: port $port ($ctrl, sqsize $sq, $map), two pollers"
	json=$OUT/fio-poll-p$port.json
	# Job a: 4k in-capsule writes in batches; job b: 64k writes through an
	# MR (REG_MR + SEND, the target invalidates); both read back to verify.
	step_watched 900 fio --eta=never --output-format=json --output="$json" \
		--filename="/dev/$dev" --direct=1 --ioengine=io_uring --hipri \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--name=a --cpus_allowed=0 --rw=randwrite --bs=4k --offset=0 --size=24M \
		--iodepth=16 --iodepth_batch_submit=8 --iodepth_batch_complete_min=1 \
		--name=b --cpus_allowed=1 --rw=randwrite --bs=64k --offset=64M --size=48M \
		--iodepth=8 ||
		fail "poll-queue fio on port $port failed (verify or I/O error)"
	# A poll queue's completions are reaped only by polling: when the
	# last signaled WR's completion is still in the CQ after fio, one
	# polled 4k read reaps it (up to five tries).
	for _ in 1 2 3 4 5; do
		credits=$(credits_idle "$ctrl")
		if [ "$kind" != series ] || [ "$credits" = idle ]; then
			break
		fi
		reap_polled "$dev" ||
			fail "poll-queue port $port: the polled read that reaps completions failed"
	done
	case "$kind:$credits" in
	series:idle | upstream:skipped:*) ;;
	*) fail "poll-queue port $port: $kind driver, credits at idle: $credits" ;;
	esac
	out=$("$FIO_JSON" --per-job "$json" job ios) || fail "poll-queue port $port: $out"
	while read -r job ios; do
		[ "$ios" -gt 0 ] || fail "poll-queue port $port: job $job did no I/O"
		printf '%s\t%s\t%s\t%s\tok\t%s\n' "$port" "$sq" "$job" "$ios" "$credits" >>"$OUT/poll.tsv"
	done <<<"$out"
	disconnect "$ctrl"
done
finish_run
phase finished
