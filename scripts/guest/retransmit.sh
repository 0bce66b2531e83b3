#!/bin/bash
# Forced retransmission with the retry oracle (guest side; the test rxe of
# tests/rxe-strict, loaded with rdma_rxe.retry_oracle=1): while the test
# rxe drops every DROP-th ACK the host's send queue gets (and its
# successors until the host retransmits), SENDs are retransmitted after
# the target has answered them. The oracle compares each retransmitted
# SEND's payload with what went out first: a driver that reuses a capsule
# or a data page before its SEND is retired shows up as "payload changed".
# Phases, on the 128-deep port 1 and the 16-deep port 2:
#   writes: 512-byte in-capsule random writes (io_uring, batches of 16),
#           then every block written is read back and verified (drops off);
#           the series copies such data into a pull-up buffer, and the
#           request completes on its response: the copy must stay put
#           until its SEND is retired;
#   reads:  4k random reads at QD1, QD32 and QD32 in submit batches of 16,
#           with nvme_rdma register_always=Y (REG_MR + SEND) and =N (a
#           single-segment read goes out with the PD's global rkey), over a
#           crc32c pattern written first; fio verifies every block it reads,
#           in passes over the pattern until the phase's SECONDS are up, and
#           the whole pattern is verified after. A read
#           completes on its response while its SEND may be unretired: its
#           capsule must stay put in the send ring.
# Every phase must retransmit (retries > 0) and have the oracle compare
# SENDs (compared > 0), with no mismatch, no I/O error reaching fio and no
# error recovery (none is injected: an ACK drop only delays).
# Writes $OUT/retransmit.tsv: kind, register_always, port, sqsize, mode,
# fio passes, ios, retries, compared, mismatches.
# Usage: retransmit.sh [SECONDS [DROP]]   (read phase length, default 10;
#   default DROP 64)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

secs=${1:-10} drop=${2:-64}
P=/sys/module/rdma_rxe/parameters
READ_SIZE=8M
setup_fabric
[ "$(sysattr $P/retry_oracle)" = Y ] || fail "the test rxe's retry oracle is off (boot with rdma_rxe.retry_oracle=1)"
setup_target 1:0 2:16
setup_host
echo "driver $(driver_kind) $(modinfo -n nvme_rdma)" >"$OUT/info"
printf 'kind\tregister_always\tport\tsqsize\tmode\tpasses\tios\tretries\tcompared\tmismatches\n' >"$OUT/retransmit.tsv"

# fio_ios JSON KIND: the I/Os of the run's direction KIND (read or
# write); on an error of fio's, or no JSON, prints why and fails.
fio_ios() {
	"$FIO_JSON" "$1" "${2:0:1}ios"
}

# nvme_rdma with register_always=$1 (Y or N), no controller connected.
load_host() {
	modprobe -r nvme_rdma 2>/dev/null || true
	step 60 modprobe nvme_rdma register_always="$1" || fail "modprobe nvme_rdma register_always=$1 failed"
	[ "$(sysattr /sys/module/nvme_rdma/parameters/register_always)" = "$1" ] ||
		fail "nvme_rdma register_always is not $1"
}

# dropped KIND REG PORT SQ MODE SECS JSON FIO...: runs FIO (a fio
# command, its JSON written to JSON) with ACK drops on, again and again
# until SECS seconds are up (once for 0), then checks and records the
# phase. (fio 3.33 ends a read job that verifies after one pass over its
# region, time_based or not.)
dropped() {
	local kind=$1 reg=$2 port=$3 sq=$4 mode=$5 end=$((SECONDS + $6)) json=$7 r0 c0 m0 mark r c m
	local ios=0 n=0 one why rec what="$1 $5 register_always=$2 port $3"
	shift 7
	r0=$(cat $P/retries) c0=$(cat $P/oracle_compared) m0=$(cat $P/oracle_mismatches)
	mark=$(dmesg | wc -l)
	phase "retransmit: $kind $mode, register_always=$reg, port $port (sqsize $sq), every ${drop}th ACK dropped"
	echo "$drop" >$P/drop_ack_every
	while :; do
		# No fault is injected: error recovery fails the phase at once.
		WATCH_RE="$DMESG_BAD|$DMESG_RECOVERY" step_watched 900 "$@" --output="$json" || {
			echo 0 >$P/drop_ack_every
			why=$(fio_ios "$json" "$kind") || true
			fail "retransmit: $what: fio failed ($why)"
		}
		one=$(fio_ios "$json" "$kind") || fail "retransmit: $what: $one"
		ios=$((ios + one)) n=$((n + 1))
		[ $SECONDS -lt $end ] || break
	done
	echo 0 >$P/drop_ack_every
	r=$(($(cat $P/retries) - r0)) c=$(($(cat $P/oracle_compared) - c0))
	m=$(($(cat $P/oracle_mismatches) - m0))
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$reg" "$port" "$sq" "$mode" "$n" "$ios" "$r" "$c" "$m" >>"$OUT/retransmit.tsv"
	rec=$(dmesg | tail -n +$((mark + 1)) | grep -m1 -E "$DMESG_RECOVERY" || true)
	[ -z "$rec" ] || fail "retransmit: $what: error recovery, no fault was injected: $rec"
	[ "$m" = 0 ] || fail "retransmit: $what: the oracle saw $m changed payloads"
	# Forced drops that caused no retransmission would prove nothing.
	# (The counters are the module's: the admin queue's keep-alives count
	# too, but they are a few SENDs against thousands of I/Os.)
	[ "$ios" -gt 0 ] && [ "$r" -gt 0 ] && [ "$c" -gt 0 ] && return
	fail "retransmit: $what: $ios I/Os, $r retries, the oracle compared $c retransmitted SENDs (need all > 0)"
}

FIO=(fio --eta=never --name=r --direct=1 --ioengine=io_uring --output-format=json)
for reg in Y N; do
	load_host "$reg"
	for port in 1 2; do
		ctrl=$(connect "$port")
		dev=$(ns_dev "$ctrl" 1)
		[ -n "$dev" ] || fail "no namespace 1 of $NQN on $ctrl"
		sq=$(cat "/sys/class/nvme/$ctrl/sqsize")
		if [ "$reg" = Y ]; then
			dropped write "$reg" "$port" "$sq" qd32-b16 0 "$OUT/fio-retransmit-write-p$port.json" \
				"${FIO[@]}" --filename="/dev/$dev" --rw=randwrite --bs=512 --size=8M \
				--iodepth=32 --iodepth_batch_submit=16 --iodepth_batch_complete_min=16 \
				--verify=crc32c --do_verify=0
			phase "retransmit: port $port, verifying what was written (drops off)"
			step_watched 900 "${FIO[@]}" --filename="/dev/$dev" --rw=randwrite --bs=512 \
				--size=8M --iodepth=32 --verify=crc32c --verify_only=1 --verify_fatal=1 \
				--output="$OUT/fio-verify-write-p$port.json" ||
				fail "retransmit: verify of the writes on port $port failed"
		fi
		# The read pattern: 4k blocks past the writes' 8M.
		phase "retransmit: port $port, writing the read pattern (drops off)"
		step_watched 900 "${FIO[@]}" --filename="/dev/$dev" --offset=8M --size=$READ_SIZE \
			--rw=write --bs=4k --iodepth=16 --verify=crc32c --do_verify=0 \
			--output="$OUT/fio-pattern-$reg-p$port.json" ||
			fail "retransmit: writing the read pattern on port $port failed"
		for mode in qd1 qd32 qd32-b16; do
			case $mode in
			qd1) q=(--iodepth=1) ;;
			qd32) q=(--iodepth=32) ;;
			qd32-b16) q=(--iodepth=32 --iodepth_batch_submit=16 --iodepth_batch_complete_min=16) ;;
			esac
			dropped read "$reg" "$port" "$sq" "$mode" "$secs" \
				"$OUT/fio-retransmit-read-$reg-p$port-$mode.json" \
				"${FIO[@]}" --filename="/dev/$dev" --offset=8M --size=$READ_SIZE \
				--rw=randread --bs=4k "${q[@]}" --verify=crc32c --verify_fatal=1
		done
		phase "retransmit: port $port, verifying the read pattern (drops off)"
		step_watched 900 "${FIO[@]}" --filename="/dev/$dev" --offset=8M --size=$READ_SIZE \
			--rw=write --bs=4k --iodepth=16 --verify=crc32c --verify_only=1 --verify_fatal=1 \
			--output="$OUT/fio-verify-read-$reg-p$port.json" ||
			fail "retransmit: verify of the read pattern on port $port failed"
		disconnect "$ctrl"
	done
done
column -t -s $'\t' "$OUT/retransmit.tsv"
finish_run
phase finished
