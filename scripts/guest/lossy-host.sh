#!/bin/bash
# Two-host lossy fabric, host side: nvme connect over rxe to the target
# guest, then verified fio under each netem profile the target applies to
# its egress (ACKs and responses lost: this side's rxe must resend SENDs).
# Writes $OUT/lossy.tsv: profile, port, sqsize, result, verified, rxe
# retries, seconds, note.
# Usage: lossy-host.sh PROFILE...   (netem arguments with '_' for ' ')
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lossy-lib.sh"

ADDR=$TARGET_ADDR
# Whatever happens here, release the target guest.
trap 'echo finished >"$PEER/done"' EXIT
link_up "$HOST_ADDR"
phase "waiting for the target guest"
for _ in $(seq 600); do
	[ -e "$PEER/ready" ] && break
	sleep 0.5
done
[ -e "$PEER/ready" ] || fail "target guest not ready after 300s"
ping -c 3 -W 5 "$TARGET_ADDR" >/dev/null || fail "no ping reply from the target guest"
setup_host
{
	echo "kernel $(uname -r)"
	echo "driver $(driver_kind) $(sha256sum <"$(modinfo -n nvme_rdma)" | cut -c1-12)"
} >"$OUT/info"

# Applied by the target, acknowledged through the shared directory.
netem() {
	local n=$1 args=$2
	echo "$n $args" >"$PEER/netem.req.tmp"
	mv "$PEER/netem.req.tmp" "$PEER/netem.req"
	for _ in $(seq 120); do
		[ "$(cat "$PEER/netem.ack" 2>/dev/null)" = "$n" ] && return 0
		sleep 0.5
	done
	fail "target did not apply netem '$args'"
}

# Requester-side resends on this host: rxe counts a retry in
# completer_retry_err; the target's duplicate_request counts the copies.
retries() { rxe_counters | awk '$1 == "completer_retry_err" { print $2 }'; }

# Error recoveries the host driver started: under loss rxe now and then
# moves a QP to error (every WR flushed), and the controller reconnects.
recoveries() { dmesg | grep -c 'starting error recovery' || true; }

printf 'profile\tport\tsqsize\tresult\tverified\thost_retries\tseconds\tnote\n' >"$OUT/lossy.tsv"
n=0
for profile in "$@"; do
	n=$((n + 1))
	args=${profile//_/ }
	netem "$n" "$args"
	for port in 1 2; do
		phase "netem '$args', port $port"
		t0=$(date +%s) r0=$(retries) e0=$(recoveries)
		ctrl=$(connect "$port" --reconnect-delay=1 --ctrl-loss-tmo=600)
		json=$OUT/fio-$n-p$port.json
		# libaio, not io_uring: a recovery freezes the queues, and
		# io_uring (REQ_NOWAIT) hands the block layer's -EAGAIN to fio.
		step 1800 fio --direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 \
			--eta=never --output-format=json --output="$json" --filename="/dev/${ctrl}n1" \
			--name=4k-libaio --ioengine=libaio --rw=randwrite --bs=4k --size=2M \
			--iodepth=32 --iodepth_batch_submit=16 \
			--name=128k-libaio --stonewall --ioengine=libaio --rw=write --bs=128k \
			--size=4M --offset=8M --iodepth=8 \
			--name=mixed --stonewall --ioengine=libaio --rw=randwrite \
			--bssplit=512/20:4k/40:64k/40 --size=2M --offset=16M --iodepth=16 ||
			fail "fio under netem '$args' on port $port failed (verify or I/O error; $json)"
		c=$(credits_idle "$ctrl")
		case "$c" in full | n/a) ;; *) fail "netem '$args' port $port: credits not full: $c" ;; esac
		sq=$(cat "/sys/class/nvme/$ctrl/sqsize")
		disconnect "$ctrl"
		printf '%s\t%s\t%s\tpass\tyes\t%s\t%s\tcredits %s, recoveries %s\n' "$args" "$port" "$sq" \
			$(($(retries) - r0)) $(($(date +%s) - t0)) "$c" $(($(recoveries) - e0)) >>"$OUT/lossy.tsv"
	done
done
rxe_counters >"$OUT/rxe-after.txt"
phase dmesg-scan
scan_dmesg
phase finished
