#!/bin/bash
# Two-host lossy fabric, target side: nvmet-rdma on null_blk over rxe on the
# virtio-net link to the other guest, and tc netem on this side's egress, so
# ACKs and responses to the host are lost, delayed and reordered. Obeys the
# host guest through /mnt/peer: netem.req ("N netem-args") is applied and
# acknowledged in netem.ack ("N"); stats.req ("N") is answered with
# stats.N: "dropped D" (netem, this side's egress) and "retrans R SOURCE"
# (this side's rxe retransmissions); "done" ends the run.
# Usage: lossy-target.sh   (guest side; init.sh runs it)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lossy-lib.sh"

ADDR=$TARGET_ADDR
link_up "$ADDR"
setup_target 1:0 2:16
dev=$(link_dev)
rxe_stats >"$OUT/rxe-before.txt"
echo ready >"$PEER/ready"
phase "target ready on $ADDR, waiting for the host"
applied=0 answered=0
for _ in $(seq $((PAIR_TIMEOUT * 2))); do
	[ -e "$PEER/done" ] && break
	if [ -e "$PEER/netem.req" ]; then
		read -r n args <"$PEER/netem.req"
		if [ "$n" != "$applied" ]; then
			# shellcheck disable=SC2086 # netem arguments, one per word
			tc qdisc replace dev "$dev" root netem $args || fail "netem '$args' refused"
			tc qdisc show dev "$dev" >>"$OUT/netem.txt"
			applied=$n
			echo "$n" >"$PEER/netem.ack"
			phase "netem $n: $args"
		fi
	fi
	if [ -e "$PEER/stats.req" ]; then
		read -r n <"$PEER/stats.req"
		if [ "$n" != "$answered" ]; then
			{
				echo "dropped $(netem_drops "$dev")"
				echo "retrans $(rxe_retrans)"
			} >"$PEER/stats.$n.tmp"
			mv "$PEER/stats.$n.tmp" "$PEER/stats.$n"
			answered=$n
		fi
	fi
	sleep 0.5
done
[ -e "$PEER/done" ] || fail "host guest never finished"
rxe_stats >"$OUT/rxe-after.txt"
phase dmesg-scan
scan_dmesg
phase finished
