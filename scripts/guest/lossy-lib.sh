# shellcheck shell=bash
# Guest-side helpers of the two-host lossy fabric: sourced after lib.sh.

# shellcheck disable=SC2034 # used by the scripts that source this
TARGET_ADDR=169.254.78.1
HOST_ADDR=169.254.78.2
PEER=/mnt/peer
PAIR_TIMEOUT=${PAIR_TIMEOUT:-3000}
[ -d "$PEER" ] || fail "no /mnt/peer: this script runs in a guest pair (lossy.sh)"

# The virtio-net device on the socket link (the only non-virtual netdev).
link_dev() {
	local d
	for d in /sys/class/net/*; do
		[ -e "$d/device" ] && { echo "${d##*/}"; return; }
	done
	fail "no virtio-net device: was the guest booted with NETDEV?"
}

# Address on the link, an rxe device on top of it.
link_up() {
	local dev
	phase "link $1"
	dev=$(link_dev)
	ip link set "$dev" up || fail "$dev up failed"
	ip addr add "$1/24" dev "$dev" || fail "address $1 on $dev failed"
	step 60 modprobe rdma_rxe || fail "modprobe rdma_rxe failed"
	step 30 rdma link add rxe0 type rxe netdev "$dev" || fail "rdma link add rxe0 failed"
	rdma link show | grep -q 'rxe0.*ACTIVE' || fail "rxe0 not ACTIVE: $(rdma link show)"
}

# rxe's protocol counters (rdma statistic; rxe_hw_counters.c) as "name
# value" lines: retries, duplicates, sequence errors show that packets
# really were lost and resent. (Not lib.sh's rxe_counters: that one reads
# the test rxe's module parameters.)
rxe_stats() {
	rdma statistic show link rxe0/1 | tr ' ' '\n' | awk 'p { print p, $1; p = ""; next }
		/^[a-z_]+$/ && $1 != "link" { p = $1 }'
}

# Retransmissions this side's rxe made so far, and what counted them: the
# test rxe's "retries" parameter (tests/rxe-strict) when it has one, else
# rxe's completer_retry_err (every requester retry, after a timeout or a
# sequence-error NAK, rxe_comp.c). Prints "COUNT SOURCE".
rxe_retrans() {
	local f=/sys/module/rdma_rxe/parameters/retries n
	if [ -r "$f" ]; then
		echo "$(cat "$f") rxe.retries"
		return 0
	fi
	n=$(rxe_stats | awk '$1 == "completer_retry_err" { print $2 }')
	[ -n "$n" ] || fail "rdma statistic shows no completer_retry_err for rxe0/1: $(rxe_stats | paste -sd' ')"
	echo "$n completer_retry_err"
}

# Packets netem dropped on DEV so far (tc -s: "Sent ... (dropped N, ...)").
netem_drops() {
	local n
	n=$(tc -s qdisc show dev "$1" | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -1)
	[ -n "$n" ] || fail "tc -s qdisc show dev $1 has no drop counter: $(tc -s qdisc show dev "$1" | head -2 | paste -sd' ')"
	echo "$n"
}
