# shellcheck shell=bash
# Guest-side helpers: sourced by the guest scripts, which run as root inside
# the test VM (never on the host).

# A script run twice in one boot (the distro test: DKMS, then stock
# module) gives each run its own OUT below /mnt/out.
OUT=${OUT:-/mnt/out}
mkdir -p "$OUT"
# The hardware mode (nvme-rdma-hw.sh) sets its own address, NQN, service
# ports (SVCID_BASE + port) and target backing device.
ADDR=${ADDR:-169.254.77.1}
NQN=${NQN:-nqn.2026-12.io.nvme-rdma-test:null}
SVCID_BASE=${SVCID_BASE:-4419}
T0=$(date +%s)

phase() { echo "PHASE: $* [$(($(date +%s) - T0))s]"; }
fail() {
	echo "FAIL: $*"
	# The first cause wins: a failure inside $(...) reaches the ERR trap too.
	[ -e "$OUT/error" ] || echo "$*" >"$OUT/error"
	dmesg >"$OUT/dmesg.txt" 2>/dev/null
	exit 1
}
set -o errtrace
trap 'fail "${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND failed"' ERR

# Run a step with a time limit so a hang fails the step, not the whole VM.
step() {
	local limit=$1
	shift
	timeout -k 5 "$limit" "$@"
}

# veth pair with carrier, an address on one end, an rxe device on top.
setup_fabric() {
	phase fabric
	# Once per boot: a second run in the same guest reuses it.
	rdma link show 2>/dev/null | grep -q 'rxe0.*ACTIVE' && return
	step 60 modprobe rdma_rxe || fail "modprobe rdma_rxe failed"
	ip link add veth0 type veth peer name veth1 || fail "veth creation failed"
	ip link set veth0 up || fail "veth0 up failed"
	ip link set veth1 up || fail "veth1 up failed"
	ip addr add "$ADDR/16" dev veth0 || fail "address on veth0 failed"
	step 30 rdma link add rxe0 type rxe netdev veth0 || fail "rdma link add rxe0 failed"
	rdma link show | grep -q 'rxe0.*ACTIVE' || fail "rxe0 not ACTIVE: $(rdma link show)"
}

# nvmet subsystem on a memory-backed null_blk, exported on one rdma port
# per entry of "PORT:MAX_QUEUE_SIZE" (0 = target default).
HOST_QS=()
setup_target() {
	local cfg=/sys/kernel/config/nvmet spec port qs
	phase target "$@"
	if [ -d "$cfg/subsystems/$NQN" ]; then
		# Set up by an earlier run in this boot: only the host side
		# of the queue-size fallback needs redoing.
		for spec in "$@"; do
			port=${spec%%:*} qs=${spec#*:}
			[ "$qs" = 0 ] || [ -e "$cfg/ports/$port/param_max_queue_size" ] ||
				HOST_QS[port]=$qs
		done
		return 0
	fi
	if [ -z "${BACKING:-}" ]; then
		step 60 modprobe null_blk nr_devices=1 memory_backed=1 gb=1 queue_mode=2 ||
			fail "modprobe null_blk failed"
	fi
	step 60 modprobe nvmet_rdma || fail "modprobe nvmet_rdma failed"
	mkdir "$cfg/subsystems/$NQN" || fail "nvmet subsystem creation failed"
	echo 1 >"$cfg/subsystems/$NQN/attr_allow_any_host"
	mkdir "$cfg/subsystems/$NQN/namespaces/1"
	echo "${BACKING:-/dev/nullb0}" >"$cfg/subsystems/$NQN/namespaces/1/device_path"
	echo 1 >"$cfg/subsystems/$NQN/namespaces/1/enable" || fail "nvmet namespace enable failed"
	for spec in "$@"; do
		port=${spec%%:*} qs=${spec#*:}
		mkdir "$cfg/ports/$port"
		echo rdma >"$cfg/ports/$port/addr_trtype"
		echo ipv4 >"$cfg/ports/$port/addr_adrfam"
		echo "$ADDR" >"$cfg/ports/$port/addr_traddr"
		echo $((SVCID_BASE + port)) >"$cfg/ports/$port/addr_trsvcid"
		if [ "$qs" = 0 ]; then
			:
		elif [ -e "$cfg/ports/$port/param_max_queue_size" ]; then
			echo "$qs" >"$cfg/ports/$port/param_max_queue_size" ||
				fail "param_max_queue_size=$qs refused"
		else
			# An nvmet without the knob (Debian's 6.1): the host asks
			# for the small queue instead (connect adds --queue-size).
			HOST_QS[port]=$qs
			phase "nvmet has no param_max_queue_size: port $port gets host --queue-size $qs"
		fi
		ln -s "$cfg/subsystems/$NQN" "$cfg/ports/$port/subsystems/$NQN" ||
			fail "nvmet port $port enable failed"
	done
}

setup_host() {
	phase host
	# A host identity only where there is none (a bare host keeps its own).
	if [ ! -s /etc/nvme/hostnqn ]; then
		mkdir -p /etc/nvme
		uuidgen >/etc/nvme/hostid
		echo "nqn.2014-08.org.nvmexpress:uuid:$(cat /etc/nvme/hostid)" >/etc/nvme/hostnqn
	fi
	step 60 modprobe nvme_rdma || fail "modprobe nvme_rdma failed"
}

# connect PORT [nvme-cli options]: prints the controller name (nvmeN),
# once namespace $NSID (default 1) has its block device. With
# NS_WAIT=0, as soon as the controller exists (the caller looks for
# the namespace itself).
connect() {
	local port=$1 before after dev
	shift
	before=$(ls /sys/class/nvme 2>/dev/null)
	[ -z "${HOST_QS[port]:-}" ] || set -- --queue-size "${HOST_QS[port]}" "$@"
	step 120 nvme connect -t rdma -a "$ADDR" -s $((SVCID_BASE + port)) -n "$NQN" "$@" >&2 ||
		fail "nvme connect to port $port failed"
	for _ in $(seq 50); do
		after=$(ls /sys/class/nvme 2>/dev/null)
		dev=$(comm -13 <(echo "$before") <(echo "$after") | head -1)
		if [ -n "$dev" ] && { [ "${NS_WAIT:-1}" = 0 ] || [ -n "$(ns_dev "$dev" "${NSID:-1}")" ]; }; then
			echo "$dev"
			return
		fi
		sleep 0.2
	done
	fail "connect to port $port: no namespace ${NSID:-1} block device appeared"
}

# ns_dev CTRL NSID: the block device (nvmeXnY) of namespace NSID reached
# through controller CTRL of subsystem $NQN, found by attributes, never by
# name: on a host with other NVMe disks nvmeX need not pair with nvmeXnY.
# Prints nothing if there is none (and never fails: the ERR trap reaches
# into command substitutions).
ns_dev() {
	local ctrl=$1 nsid=$2 b d devpath
	[ "$(sysattr "/sys/class/nvme/$ctrl/subsysnqn")" = "$NQN" ] || return 0
	for b in /sys/block/nvme*n*; do
		d=${b##*/}
		[ -b "/dev/$d" ] || continue
		[ "$(sysattr "$b/nsid")" = "$nsid" ] || continue
		devpath=$(readlink -f "$b/device" || true)
		# Its controller (no multipath) or its subsystem (multipath head).
		if [ "${devpath##*/}" = "$ctrl" ] || [ -e "$devpath/$ctrl" ]; then
			echo "$d"
			return 0
		fi
	done
}

# sysattr FILE: its content, or nothing if it cannot be read.
sysattr() { cat "$1" 2>/dev/null || true; }

# Which nvme_rdma is loaded: the series (it posts through
# nvme_rdma_post_wrs) or the upstream driver.
driver_kind() {
	if grep -qE '[[:space:]]nvme_rdma_post_wrs([[:space:]]|$)' /proc/kallsyms; then
		echo series
	else
		echo upstream
	fi
}

disconnect() {
	step 120 nvme disconnect -d "$1" >/dev/null || fail "nvme disconnect $1 failed"
}

# dmesg must hold no splat and no post_send failure.
# DMESG_FROM skips that many earlier lines (a bare host's history).
scan_dmesg() {
	dmesg | tail -n +$((${DMESG_FROM:-0} + 1)) >"$OUT/dmesg.txt"
	local bad
	# (Reports only: a debug kernel also prints "kmemleak: ... initialized".)
	bad=$(grep -E 'WARNING:|BUG:|Oops|post_send failed|possible circular locking|possible recursive locking|inconsistent lock state|INFO: task .* blocked for more than|BUG: KASAN|UBSAN:|kmemleak: [0-9]+ new suspected|refcount_t:|list_(add|del) corruption' \
		"$OUT/dmesg.txt" | head -3 || true)
	[ -z "$bad" ] || fail "dmesg: $bad"
}

# Call counters: kprobe events whose hit counts (kprobe_profile) count the
# driver's calls. Tracing stays off, so nothing is written to the buffer.
# Every ib_post_send of the series goes through nvme_rdma_post_wrs; the
# unpatched driver posts from nvme_rdma_post_send and nvme_rdma_inv_rkey.
# Send-side CQEs arrive in the four send-side done handlers.
TRACING=/sys/kernel/tracing
CNT_FUNCS="nvme_rdma_queue_rq nvme_rdma_post_wrs nvme_rdma_post_send
nvme_rdma_inv_rkey nvme_rdma_send_done nvme_rdma_memreg_done
nvme_rdma_inv_rkey_done nvme_rdma_async_done nvme_rdma_recv_done"

counters_arm() {
	local f
	echo 0 >$TRACING/tracing_on
	# Probes of an earlier run (on a module since unloaded) go first.
	if [ -d $TRACING/events/nvmecnt ]; then
		echo 0 >$TRACING/events/nvmecnt/enable
		for f in "$TRACING"/events/nvmecnt/nvme_rdma_*; do
			echo "-:nvmecnt/${f##*/}" >>$TRACING/kprobe_events
		done
	fi
	for f in $CNT_FUNCS; do
		grep -qE "[[:space:]]$f([[:space:]]|$)" /proc/kallsyms || continue
		echo "p:nvmecnt/$f $f" >>$TRACING/kprobe_events || fail "kprobe on $f refused"
	done
	echo 1 >$TRACING/events/nvmecnt/enable || fail "enabling kprobe counters failed"
}

# Prints "name hits" for every armed counter.
counters_read() {
	# kprobe_profile: event name (without group), hits, misses
	awk '$1 ~ /^nvme_rdma_/ { print $1, $2 }' $TRACING/kprobe_profile
}

# Per-I/O figures from two counter snapshots and the I/O count:
# prints "send_cqe recv_cqe posts queue_rq" per I/O with 3 decimals.
counters_per_io() {
	local before=$1 after=$2 ios=$3
	awk -v ios="$ios" -v fb="$before" '
	BEGIN { while ((getline l < fb) > 0) { split(l, a, " "); b[a[1]] = a[2] } }
	{ d[$1] = $2 - b[$1] }
	END {
		if ("nvme_rdma_post_wrs" in d)
			post = d["nvme_rdma_post_wrs"]
		else if ("nvme_rdma_inv_rkey" in d)
			post = d["nvme_rdma_post_send"] + d["nvme_rdma_inv_rkey"]
		else
			post = d["nvme_rdma_post_send"] + d["nvme_rdma_inv_rkey_done"]
		send = d["nvme_rdma_send_done"] + d["nvme_rdma_memreg_done"]
		send += d["nvme_rdma_inv_rkey_done"] + d["nvme_rdma_async_done"]
		printf "%.3f %.3f %.3f %.3f\n", send / ios, d["nvme_rdma_recv_done"] / ios, post / ios, d["nvme_rdma_queue_rq"] / ios
	}' "$after"
}

# SQ accounting of controller $1 from the series' debugfs file; prints
# "full" when every queue is idle with all credits back, "n/a" without the
# file (unpatched driver), else the offending lines.
credits_idle() {
	local f=/sys/kernel/debug/nvme_rdma/$1/sq
	[ -r "$f" ] || { echo n/a; return; }
	[ "${SQ_SNAPSHOTS:-1}" = 0 ] || cp "$f" "$OUT/sq-$1-$(date +%s%N).txt"
	awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	     $c["avail"] != $c["depth"] || $c["reserved"] != 0 || $c["inflight"] != 0 { bad = bad $0 ";" }
	     END { print (bad == "" ? "full" : bad) }' "$f"
}
