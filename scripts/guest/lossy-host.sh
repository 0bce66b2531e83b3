#!/bin/bash
# Two-host lossy fabric, host side: nvme connect over rxe to the target
# guest, then verified fio under each netem profile the target applies to
# its egress (ACKs and responses lost: this side's rxe must resend SENDs).
# Writes $OUT/lossy.tsv: profile, port, sqsize, result, verified, host
# retransmissions, seconds, note, netem drops, target retransmissions,
# retransmission counter, error recoveries. A row with loss in its profile
# passes only if netem dropped packets during it and the rxe on either side
# retransmitted (else the row proves nothing about loss); a row that fails
# so fails the run once every row has run.
# Lossy links are a fault: error recovery is expected (ALLOW_RECOVERY=1).
# Usage: lossy-host.sh PROFILE...   (netem arguments with '_' for ' ')
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lossy-lib.sh"

ADDR=$TARGET_ADDR
ALLOW_RECOVERY=1
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

# Requester-side resends on this host (lossy-lib.sh rxe_retrans: the test
# rxe's retries parameter, else completer_retry_err).
retries() { rxe_retrans | cut -d' ' -f1; }

# target_stats N: the target's "dropped D" and "retrans R SOURCE" lines
# now (lossy-target.sh answers stats.req through the shared directory).
target_stats() {
	local n=$1
	echo "$n" >"$PEER/stats.req.tmp"
	mv "$PEER/stats.req.tmp" "$PEER/stats.req"
	for _ in $(seq 120); do
		[ -e "$PEER/stats.$n" ] && { cat "$PEER/stats.$n"; return 0; }
		sleep 0.5
	done
	fail "the target did not answer stats request $n within 60 s"
}
stat_of() { awk -v k="$1" '$1 == k { print $2 }' <<<"$2"; }

# Error recoveries the host driver started: under loss rxe now and then
# moves a QP to error (every WR flushed), and the controller reconnects.
recoveries() { dmesg | grep -c 'starting error recovery' || true; }

printf 'profile\tport\tsqsize\tresult\tverified\thost_retries\tseconds\tnote\tnetem_dropped\ttarget_retries\tretrans_counter\trecoveries\n' >"$OUT/lossy.tsv"
n=0 q=0
row_fails=()
for profile in "$@"; do
	n=$((n + 1))
	args=${profile//_/ }
	netem "$n" "$args"
	for port in 1 2; do
		phase "netem '$args', port $port"
		q=$((q + 1))
		ts0=$(target_stats $q)
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
		case "$c" in idle | skipped:*) ;; *) fail "netem '$args' port $port: send ring not idle: $c" ;; esac
		sq=$(cat "/sys/class/nvme/$ctrl/sqsize")
		disconnect "$ctrl"
		q=$((q + 1))
		ts1=$(target_stats $q)
		hr=$(($(retries) - r0)) rec=$(($(recoveries) - e0))
		drops=$(($(stat_of dropped "$ts1") - $(stat_of dropped "$ts0")))
		tret=$(($(stat_of retrans "$ts1") - $(stat_of retrans "$ts0")))
		src="host $(rxe_retrans | cut -d' ' -f2), target $(awk '$1 == "retrans" { print $3 }' <<<"$ts1")"
		result=pass note="credits $c, recoveries $rec"
		case "$args" in
		*loss*)
			why=""
			[ "$drops" -gt 0 ] || why="netem dropped no packet"
			[ $((hr + tret)) -gt 0 ] || why+="${why:+; }no retransmission on either side ($src)"
			if [ -n "$why" ]; then
				result=FAIL note="$why: the row proves nothing about loss; $note"
				row_fails+=("netem '$args' port $port: $why")
			fi
			;;
		*) note+=", loss checks skipped: the profile has no loss" ;;
		esac
		printf '%s\t%s\t%s\t%s\tyes\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$args" "$port" "$sq" "$result" \
			"$hr" $(($(date +%s) - t0)) "$note" "$drops" "$tret" "$src" "$rec" >>"$OUT/lossy.tsv"
	done
done
rxe_stats >"$OUT/rxe-after.txt"
phase dmesg-scan
scan_dmesg
[ ${#row_fails[@]} -eq 0 ] || fail "${#row_fails[@]} lossy row(s) without loss: ${row_fails[0]}"
phase finished
