#!/bin/bash
# Forced retransmission with the retry oracle (guest side; the test rxe of
# tests/rxe-strict, loaded with rdma_rxe.retry_oracle=1): on each port, 4k
# in-capsule random writes (io_uring, batches of 16) run while the test rxe
# drops every DROP-th ACK the host's send queue gets (and its successors
# until the host retransmits), so SENDs are retransmitted after the target
# has answered them. The oracle compares each retransmitted SEND's payload
# with what went out first: a driver that reuses a capsule or a data page
# before its SEND is retired shows up as "payload changed". Then drops stop
# and every block written is read back and verified.
# Forced drops stay on SEND-only queues (tests/rxe-strict) and this runs
# writes only: with forced drops under reads through a registered MR, rxe
# flushed the host QP with no error completion on either side, for the
# upstream driver too (2026-12-05), so reads are verified after the drops.
# Writes $OUT/retransmit.tsv: port, sqsize, ios, retries, compared,
# mismatches. Usage: retransmit.sh [DROP]   (default 64)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

drop=${1:-64}
P=/sys/module/rdma_rxe/parameters
setup_fabric
[ "$(sysattr $P/retry_oracle)" = Y ] || fail "the test rxe's retry oracle is off (boot with rdma_rxe.retry_oracle=1)"
setup_target 1:0 2:16
setup_host
echo "driver $(driver_kind) $(modinfo -n nvme_rdma)" >"$OUT/info"
printf 'port\tsqsize\tios\tretries\tcompared\tmismatches\n' >"$OUT/retransmit.tsv"
for port in 1 2; do
	ctrl=$(connect "$port")
	dev=$(ns_dev "$ctrl" 1)
	[ -n "$dev" ] || fail "no namespace 1 of $NQN on $ctrl"
	sq=$(cat "/sys/class/nvme/$ctrl/sqsize")
	r0=$(cat $P/retries) c0=$(cat $P/oracle_compared) m0=$(cat $P/oracle_mismatches)
	phase "retransmit: port $port ($ctrl, sqsize $sq), every ${drop}th ACK dropped"
	echo "$drop" >$P/drop_ack_every
	step_watched 900 fio --eta=never --name=w --filename="/dev/$dev" --direct=1 \
		--ioengine=io_uring --rw=randwrite --bs=512 --size=8M --iodepth=32 \
		--iodepth_batch_submit=16 --iodepth_batch_complete_min=16 \
		--verify=crc32c --do_verify=0 --output-format=json \
		--output="$OUT/fio-retransmit-p$port.json" ||
		fail "retransmit: fio writes on port $port failed"
	echo 0 >$P/drop_ack_every
	r=$(($(cat $P/retries) - r0)) c=$(($(cat $P/oracle_compared) - c0))
	m=$(($(cat $P/oracle_mismatches) - m0))
	phase "retransmit: port $port, verifying what was written (drops off)"
	step_watched 900 fio --eta=never --name=w --filename="/dev/$dev" --direct=1 \
		--ioengine=io_uring --rw=randwrite --bs=512 --size=8M --iodepth=32 \
		--verify=crc32c --verify_only=1 --verify_fatal=1 ||
		fail "retransmit: verify on port $port failed"
	ios=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["write"]["total_ios"])' \
		"$OUT/fio-retransmit-p$port.json")
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$port" "$sq" "$ios" "$r" "$c" "$m" >>"$OUT/retransmit.tsv"
	# Forced drops that caused no retransmission would prove nothing.
	[ "$c" -gt 0 ] || fail "retransmit: port $port: the oracle compared no retransmitted SEND ($r retries)"
	disconnect "$ctrl"
done
finish_run
phase finished
