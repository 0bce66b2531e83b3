#!/usr/bin/env bash
# Two guests joined by a QEMU socket link over 127.0.0.1 (UDP, no NIC to
# the outside): the nvmet target with tc netem on its egress in one, the
# host driver in the other, rxe on each side's virtio-net. Both guests boot
# the same image and module set.
# Usage: lossy.sh NAME MODROOT PROFILE...   (netem args, '_' for ' ')
#   Logs: $LOGS/NAME-target/, $LOGS/NAME-host/ (lossy.tsv: a row with loss
#   in its profile passes only if netem dropped packets during it and rxe
#   retransmitted, lossy-host.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -ge 3 ] || die "usage: lossy.sh NAME MODROOT PROFILE..."
name=$1 root=$2
shift 2
peer=$LOGS/$name-peer
rm -rf "$peer"
mkdir -p "$peer"
# A UDP port pair per run, so pairs can run side by side.
base=$((20000 + ($$ % 2000) * 2))
timeout_s=${PAIR_TIMEOUT:-3000}
# The target outlives the host guest by a margin: it scans its dmesg last.
MODROOT=$root PEER=$peer MAC=52:54:00:4e:56:01 \
	NETDEV="socket,id=n0,udp=127.0.0.1:$((base + 1)),localaddr=127.0.0.1:$base" \
	"$TOP/scripts/host/boot.sh" "$name-target" $((timeout_s + 300)) \
	"$TOP/scripts/guest/lossy-target.sh" &
tpid=$!
# Interrupted or not, release the target guest and reap it.
trap 'touch "$peer/done"; wait "$tpid" 2>/dev/null || true' EXIT
hrc=0
MODROOT=$root PEER=$peer MAC=52:54:00:4e:56:02 \
	NETDEV="socket,id=n0,udp=127.0.0.1:$base,localaddr=127.0.0.1:$((base + 1))" \
	"$TOP/scripts/host/boot.sh" "$name-host" "$timeout_s" \
	"$TOP/scripts/guest/lossy-host.sh" "$@" || hrc=$?
touch "$peer/done"
trc=0
wait "$tpid" || trc=$?
trap - EXIT
# A guest that hung or died wrote no error file: say so for the report.
# Which kernel both booted, for the report (boot.sh empties the log
# directories when a guest starts, so after the boots).
for side in host target; do
	mkdir -p "$LOGS/$name-$side"
	echo "${VARIANT:-normal}" >"$LOGS/$name-$side/variant"
	rc=$hrc
	[ $side = target ] && rc=$trc
	[ "$rc" -eq 0 ] || [ -f "$LOGS/$name-$side/error" ] ||
		echo "guest hung or died (boot.sh rc $rc; see console.log)" >"$LOGS/$name-$side/error"
done
[ $hrc -eq 0 ] || die "lossy pair $name: host guest failed (logs: $LOGS/$name-host)"
[ $trc -eq 0 ] || die "lossy pair $name: target guest failed (logs: $LOGS/$name-target)"
log "lossy pair $name passed"
