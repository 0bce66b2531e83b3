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
	rxe_counters >"$OUT/rxe-counters.txt" 2>/dev/null
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

# The test rxe (tests/rxe-strict) takes its switches from the kernel
# command line (rdma_rxe.strict_sq=1 ...; modprobe applies them): each one
# given must have reached the loaded module, or the run would silently test
# stock rxe.
rxe_params_check() {
	local kv name want got
	for kv in $(tr ' ' '\n' </proc/cmdline | grep '^rdma_rxe\.' || true); do
		name=${kv#rdma_rxe.} want=${name#*=} name=${name%%=*}
		got=$(sysattr "/sys/module/rdma_rxe/parameters/$name")
		[ -n "$got" ] || fail "rdma_rxe has no parameter $name: the test rxe is not the one loaded ($(modinfo -n rdma_rxe))"
		case "$want:$got" in 1:Y | 0:N | "$got:$got") ;;
		*) fail "rdma_rxe.$name is $got, the command line asked $want" ;;
		esac
	done
}

# The end of a guest test: the test rxe's counters saved for the host
# (check-controls.sh), then the dmesg scan.
finish_run() {
	rxe_counters >"$OUT/rxe-counters.txt"
	phase dmesg-scan
	scan_dmesg
}

# The test rxe's counters (tests/rxe-strict), "name value" per line; none
# with the stock rxe.
rxe_counters() {
	local f
	for f in strict_overflows oracle_recorded oracle_compared oracle_mismatches acks_dropped retries; do
		[ -r "/sys/module/rdma_rxe/parameters/$f" ] || continue
		echo "$f $(cat "/sys/module/rdma_rxe/parameters/$f")"
	done
}

# step_watched LIMIT CMD...: step, and while CMD runs the kernel log is
# watched: a line matching DMESG_BAD (a post failure, a send queue
# overflow, the retry oracle, a splat) stops CMD at once and fails with
# that line, so a broken driver fails in seconds, not at its time limit.
# WATCH_RE, if set, is the pattern watched instead (e.g. DMESG_BAD and
# DMESG_RECOVERY, where no fault is injected).
step_watched() {
	local limit=$1 mark pid bad rc=0
	shift
	mark=$(dmesg | wc -l)
	timeout -k 5 "$limit" "$@" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		sleep 2
		bad=$(dmesg | tail -n +$((mark + 1)) | grep -m1 -E "${WATCH_RE:-$DMESG_BAD}" || true)
		if [ -n "$bad" ]; then
			kill $pid 2>/dev/null || true
			wait $pid 2>/dev/null || true
			fail "dmesg while running ${1##*/}: $bad"
		fi
	done
	wait $pid || rc=$?
	return $rc
}

# veth pair with carrier, an address on one end, an rxe device on top.
setup_fabric() {
	phase fabric
	# Once per boot: a second run in the same guest reuses it.
	rdma link show 2>/dev/null | grep -q 'rxe0.*ACTIVE' && return
	step 60 modprobe rdma_rxe || fail "modprobe rdma_rxe failed"
	rxe_params_check
	ip link add veth0 type veth peer name veth1 || fail "veth creation failed"
	ip link set veth0 up || fail "veth0 up failed"
	ip link set veth1 up || fail "veth1 up failed"
	ip addr add "$ADDR/16" dev veth0 || fail "address on veth0 failed"
	step 30 rdma link add rxe0 type rxe netdev veth0 || fail "rdma link add rxe0 failed"
	rdma link show | grep -q 'rxe0.*ACTIVE' || fail "rxe0 not ACTIVE: $(rdma link show)"
}

# nvmet subsystem on a memory-backed null_blk, exported on one rdma port
# per entry of "PORT:MAX_QUEUE_SIZE" (0 = target default). With
# NAMESPACES=N (default 1, not with BACKING), namespace n is /dev/nullb(n-1).
HOST_QS=()
setup_target() {
	local cfg=/sys/kernel/config/nvmet spec port qs n
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
		step 60 modprobe null_blk nr_devices="${NAMESPACES:-1}" memory_backed=1 gb=1 queue_mode=2 ||
			fail "modprobe null_blk failed"
	fi
	step 60 modprobe nvmet_rdma || fail "modprobe nvmet_rdma failed"
	mkdir "$cfg/subsystems/$NQN" || fail "nvmet subsystem creation failed"
	echo 1 >"$cfg/subsystems/$NQN/attr_allow_any_host"
	mkdir "$cfg/subsystems/$NQN/namespaces/1"
	echo "${BACKING:-/dev/nullb0}" >"$cfg/subsystems/$NQN/namespaces/1/device_path"
	echo 1 >"$cfg/subsystems/$NQN/namespaces/1/enable" || fail "nvmet namespace enable failed"
	for n in $(seq 2 "${NAMESPACES:-1}"); do
		[ -z "${BACKING:-}" ] || fail "NAMESPACES=$NAMESPACES with BACKING: one backing device only"
		mkdir "$cfg/subsystems/$NQN/namespaces/$n"
		echo "/dev/nullb$((n - 1))" >"$cfg/subsystems/$NQN/namespaces/$n/device_path"
		echo 1 >"$cfg/subsystems/$NQN/namespaces/$n/enable" || fail "nvmet namespace $n enable failed"
	done
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

# Which nvme_rdma is loaded: the series (it has ->commit_rqs, called
# through a pointer so never inlined) or the upstream driver.
driver_kind() {
	if grep -qE '[[:space:]]nvme_rdma_commit_rqs([[:space:]]|$)' /proc/kallsyms; then
		echo series
	else
		echo upstream
	fi
}

disconnect() {
	step 120 nvme disconnect -d "$1" >/dev/null || fail "nvme disconnect $1 failed"
}

# DMESG_BAD (what fails every run) and DMESG_RECOVERY (what fails a run
# that injected no fault): the dmesg policy the host scripts read too.
# shellcheck source=scripts/common/dmesg-policy.sh
. "$(dirname "${BASH_SOURCE[0]}")/../common/dmesg-policy.sh"

# The one fio JSON reader (scripts/common/fio-json.py: fields, per job).
# shellcheck disable=SC2034 # used by the scripts that source this file
FIO_JSON=$(dirname "${BASH_SOURCE[0]}")/../common/fio-json.py

# dmesg_verdict FILE: the first lines that fail FILE (a dmesg), empty if
# none: DMESG_BAD always, DMESG_RECOVERY unless ALLOW_RECOVERY=1.
dmesg_verdict() {
	local bad
	bad=$(grep -E "$DMESG_BAD" "$1" | head -3 || true)
	if [ -z "$bad" ] && [ "${ALLOW_RECOVERY:-0}" != 1 ]; then
		bad=$(grep -E "$DMESG_RECOVERY" "$1" | head -3 || true)
		[ -z "$bad" ] || bad="error recovery, no fault was injected: $bad"
	fi
	printf '%s' "$bad"
}

# dmesg must hold none of the above. DMESG_FROM skips that many earlier
# lines (a bare host's history).
scan_dmesg() {
	dmesg | tail -n +$((${DMESG_FROM:-0} + 1)) >"$OUT/dmesg.txt"
	local bad
	# (Reports only: a debug kernel also prints "kmemleak: ... initialized".)
	bad=$(dmesg_verdict "$OUT/dmesg.txt")
	[ -z "$bad" ] || fail "dmesg: $bad"
	if [ "${ALLOW_RECOVERY:-0}" = 1 ]; then
		phase "dmesg: $(grep -cE "$DMESG_RECOVERY" "$OUT/dmesg.txt" || true) error-recovery lines (faults were injected: ALLOW_RECOVERY=1)"
	fi
}

# Call counters: kprobe events whose hit counts (kprobe_profile) count the
# driver's calls, and for the series its tracepoints. Tracing stays off in
# the top buffer. Each driver kind has its required set, and a required
# function or tracepoint missing (inlined, renamed) fails the run naming
# it: a counter that cannot count must never read as 0. What they count:
#   nvme_complete_rq (nvme-core, called from the driver's module, so never
#   inlined): requests completed, the command count of both drivers
#   (dispatches through ->queue_rqs() never enter ->queue_rq());
#   queue_rq: ->queue_rq() dispatches; recv_done: receive CQEs; the
#   send-side done handlers: send CQEs; posts: ib_post_send calls.
# Series: every send completion enters nvme_rdma_send_done (the send
# ring's per-slot ib_cqe), and every ib_post_send, ib_post_recv and
# dispatch refused for want of send credits is a tracepoint,
# nvme_rdma:nvme_rdma_post_send, nvme_rdma_post_recv and
# nvme_rdma_send_stall, counted as the events each writes into a trace
# instance of its own (tp_arm). Upstream: nvme_rdma_post_send (a SEND, with its REG_MR chained
# in front) and nvme_rdma_inv_rkey (LOCAL_INV). The done handlers are
# called through function pointers and cannot be inlined; upstream's
# posting functions can: nvme_rdma_inv_rkey has one caller and is inlined
# by gcc: every LOCAL_INV upstream posts is signaled and completes once,
# so its posts are then the nvme_rdma_inv_rkey_done calls (counters_arm
# says which in its output line). The series has no separate LOCAL_INV
# count: the rows derive it from the WRs its send rings took.
# A function the compiler cloned (FN.isra.0, FN.constprop.0) is probed in
# every copy and counted under FN; FN.cold and FN.part.N are pieces of FN
# (entered by jumps, or only on some paths), not calls of it, and never
# counted.
TRACING=/sys/kernel/tracing
CNT_SERIES="nvme_complete_rq nvme_rdma_queue_rq nvme_rdma_send_done
nvme_rdma_recv_done"
CNT_UPSTREAM="nvme_complete_rq nvme_rdma_queue_rq nvme_rdma_post_send
nvme_rdma_send_done nvme_rdma_memreg_done nvme_rdma_inv_rkey_done
nvme_rdma_async_done nvme_rdma_recv_done"
TP_SERIES="nvme_rdma_post_send nvme_rdma_post_recv nvme_rdma_send_stall"

# kallsyms_copies FN: FN's symbols in /proc/kallsyms (itself and clones).
kallsyms_copies() {
	awk -v f="$1" '$3 == f || (index($3, f ".") == 1 &&
		substr($3, length(f) + 1) ~ /^(\.(isra|constprop)\.[0-9]+)+$/) { print $3 }' /proc/kallsyms | sort -u
}

# counters_arm: arms the required counters of the loaded driver; sets
# CNT_INFO, a line for the run's info file: which functions count what.
counters_arm() {
	local f kind req syms s n
	kind=$(driver_kind)
	echo 0 >$TRACING/tracing_on
	# Probes of an earlier run (on a module since unloaded) go first.
	if [ -d $TRACING/events/nvmecnt ]; then
		echo 0 >$TRACING/events/nvmecnt/enable
		for f in "$TRACING"/events/nvmecnt/nvme_*; do
			[ -e "$f" ] || continue
			echo "-:nvmecnt/${f##*/}" >>$TRACING/kprobe_events
		done
	fi
	req=$CNT_SERIES
	[ "$kind" = series ] || req=$CNT_UPSTREAM
	# The optional one, upstream only: see above.
	[ "$kind" = series ] || [ -z "$(kallsyms_copies nvme_rdma_inv_rkey)" ] ||
		req+=" nvme_rdma_inv_rkey"
	for f in $req; do
		syms=$(kallsyms_copies "$f")
		[ -n "$syms" ] ||
			fail "counter: $f, required with the $kind driver, is not in /proc/kallsyms (inlined?): its calls cannot be counted"
		n=0
		for s in $syms; do
			# Events FN, FN__1, FN__2...: counters_read adds them up.
			echo "p:nvmecnt/$f${n#0} $s" >>$TRACING/kprobe_events || fail "kprobe on $s refused"
			n=__$((${n#__} + 1))
		done
	done
	echo 1 >$TRACING/events/nvmecnt/enable || fail "enabling kprobe counters failed"
	[ "$kind" != series ] || tp_arm
	CNT_INFO="counters $kind driver: ${req//$'\n'/ }; "
	if [ "$kind" = series ]; then
		CNT_INFO+="tracepoints $TP_SERIES; LOCAL_INVs: from the WRs taken"
	elif [[ $req == *" nvme_rdma_inv_rkey" ]]; then
		CNT_INFO+="LOCAL_INV posts: nvme_rdma_inv_rkey"
	else
		CNT_INFO+="LOCAL_INV posts: nvme_rdma_inv_rkey_done (nvme_rdma_inv_rkey is not in kallsyms: inlined)"
	fi
}

# tp_arm: one trace instance per series tracepoint (instances/cnt_EVENT),
# that event alone enabled in it, a buffer big enough for a run; a
# tracepoint missing fails the run.
tp_arm() {
	local e d
	for e in $TP_SERIES; do
		[ -d "$TRACING/events/nvme_rdma/$e" ] ||
			fail "counter: tracepoint nvme_rdma:$e, required with the series, does not exist"
		d=$TRACING/instances/cnt_$e
		[ -d "$d" ] || mkdir "$d" || fail "cannot create trace instance $d"
		echo 0 >"$d/tracing_on"
		echo 2048 >"$d/buffer_size_kb" || fail "cannot size $d"
		echo >"$d/trace"
		echo 1 >"$d/events/nvme_rdma/$e/enable" || fail "cannot enable $e in $d"
		echo 1 >"$d/tracing_on"
	done
}

# tp_count EVENT: events EVENT wrote into its instance since tp_arm (the
# entries held plus those overwritten).
tp_count() {
	cat "$TRACING/instances/cnt_$1"/per_cpu/cpu*/stats |
		awk '$1 == "entries:" || $1 == "overrun:" { n += $2 } END { print n + 0 }'
}

# tp_sum EVENT FIELD...: the sum of each FIELD (name=value) over the
# events of EVENT's instance, one "tpsum:FIELD N" line each, or
# "tpsum:overrun N" when events were overwritten (the sums are then
# incomplete: the callers fail on it). FIELD_io sums FIELD over the
# events of I/O queues only (qid != 0): the admin queue's keep-alives
# and AERs may post between two snapshots of the tracepoint and of the
# send rings, which are not taken at the same instant.
tp_sum() {
	local e=$1 o
	shift
	o=$(cat "$TRACING/instances/cnt_$e"/per_cpu/cpu*/stats | awk '$1 == "overrun:" { n += $2 } END { print n + 0 }')
	if [ "$o" != 0 ]; then
		echo "tpsum:overrun $o"
		return 0
	fi
	awk -v fields="$*" '
		BEGIN { n = split(fields, f, " "); for (i = 1; i <= n; i++) s[f[i]] = 0 }
		{
			split("", v)
			for (k = 1; k <= NF; k++) if (split($k, kv, "=") == 2) v[kv[1]] = kv[2]
			for (i = 1; i <= n; i++) {
				name = f[i]
				if (sub(/_io$/, "", name)) { if (("qid" in v) && v["qid"] != 0) s[f[i]] += v[name] }
				else if (name in v) s[f[i]] += v[name]
			}
		}
		END { for (i = 1; i <= n; i++) print "tpsum:" f[i], s[f[i]] }' "$TRACING/instances/cnt_$e/trace"
}

# Prints "name calls" for every armed counter (hits plus misses: a miss is
# a call whose probe handler did not run, e.g. nested in an interrupt),
# "tp:EVENT events" for the series' tracepoints, and with TP_SUMS=1 the
# sums of the series' posts' "wrs" on the I/O queues and "signaled" on all
# queues (tp_sum).
counters_read() {
	local e
	# kprobe_profile: event name (without group), hits, misses
	awk '$1 ~ /^nvme_/ { n = $1; sub(/__[0-9]+$/, "", n); c[n] += $2 + $3 }
	     END { for (n in c) print n, c[n] }' $TRACING/kprobe_profile
	if [ -d $TRACING/instances/cnt_nvme_rdma_post_send ] && [ "$(driver_kind)" = series ]; then
		for e in $TP_SERIES; do
			echo "tp:$e $(tp_count "$e")"
		done
		[ "${TP_SUMS:-0}" = 0 ] || tp_sum nvme_rdma_post_send wrs_io signaled
	fi
}

# counters_delta BEFORE AFTER: what the driver did between two
# counters_read snapshots, in calls: "cmds posts send_cqes recv_cqes
# local_inv recv_posts queue_rq stalls wrs signaled" (stalls: the series'
# stall events, one per ->queue_rq() dispatch refused for want of credits;
# wrs: the WRs its posts carried on the I/O queues, signaled: the
# signaled ones on all queues, both from its post tracepoint, with
# TP_SUMS=1, "-" otherwise and upstream, "overrun" if events were lost).
# Upstream posts every LOCAL_INV alone and
# signaled, so nvme_rdma_inv_rkey_done counts them, and reposts each
# receive buffer by itself (recv_posts = recv CQEs); the series' LOCAL_INVs
# read "-" (see above).
counters_delta() {
	awk -v fb="$1" '
	BEGIN { while ((getline l < fb) > 0) { split(l, a, " "); b[a[1]] = a[2] } }
	{ d[$1] = $2 - b[$1] }
	END {
		if ("tp:nvme_rdma_post_send" in d) {
			post = d["tp:nvme_rdma_post_send"]
			rpost = d["tp:nvme_rdma_post_recv"]
			send = d["nvme_rdma_send_done"]
			inv = "-"
			stalls = d["tp:nvme_rdma_send_stall"]
			if ("tpsum:overrun" in d) { wrs = "overrun"; sig = "overrun" }
			else if ("tpsum:wrs_io" in d) { wrs = d["tpsum:wrs_io"]; sig = d["tpsum:signaled"] }
			else { wrs = "-"; sig = "-" }
		} else {
			stalls = "-"; wrs = "-"; sig = "-"
			inv = d["nvme_rdma_inv_rkey_done"]
			post = d["nvme_rdma_post_send"] + ("nvme_rdma_inv_rkey" in d ? d["nvme_rdma_inv_rkey"] : inv)
			send = d["nvme_rdma_send_done"] + d["nvme_rdma_memreg_done"] + inv + d["nvme_rdma_async_done"]
			rpost = d["nvme_rdma_recv_done"]
		}
		printf "%d %d %d %d %s %d %d %s %s %s\n", d["nvme_complete_rq"], post, send, d["nvme_rdma_recv_done"], inv, rpost, d["nvme_rdma_queue_rq"], stalls, wrs, sig
	}' "$2"
}

# Per-I/O figures from two counter snapshots and the I/O count:
# prints "send_cqe recv_cqe posts cmds" per I/O with 3 decimals.
counters_per_io() {
	local rq post send recv
	read -r rq post send recv _ < <(counters_delta "$1" "$2")
	awk -v ios="$3" -v s="$send" -v c="$recv" -v p="$post" -v r="$rq" \
		'BEGIN { printf "%.3f %.3f %.3f %.3f\n", s / ios, c / ios, p / ios, r / ios }'
}

# The send rings' state is a test-only debugfs file: the guest kernel's
# series build carries tests/instrument/BASE.diff, the product series has
# no debugfs. EXPECT_INSTRUMENT=no says the series module loaded is the
# product's (the DKMS package): its ring checks are skipped, and say so.
#
# sq_read CTRL: the instrument's send ring state of CTRL (a header
# line, then per queue: qid depth interval head tail unretired), or
# nothing without the file.
sq_read() { cat "/sys/kernel/debug/nvme_rdma/$1/send_ring" 2>/dev/null || true; }

# sq_delta BEFORE AFTER: per queue of two sq_read snapshots, "qid depth
# interval wrs": the WRs its send ring took in between (head, a u32). A
# queue created in between (a reconnect restarts head at 0, a delta of
# 2^31 or more unsigned) counts from 0. A header without the columns
# prints "bad header: ..." (callers fail on a line that is not 4 numbers).
sq_delta() {
	awk -v fb="$1" '
	BEGIN {
		while ((getline l < fb) > 0) {
			n = split(l, a, " ")
			if (!hb) { for (i = 1; i <= n; i++) h[a[i]] = i; hb = 1; continue }
			b[a[h["qid"]]] = a[h["head"]]
		}
	}
	NR == 1 {
		for (i = 1; i <= NF; i++) c[$i] = i
		if (!("qid" in c) || !("depth" in c) || !("interval" in c) || !("head" in c)) { print "bad header: " $0; exit }
		next
	}
	{
		w = $c["head"] - (($c["qid"] in b) ? b[$c["qid"]] : 0)
		if (w < 0) w += 4294967296
		if (w >= 2147483648) w = $c["head"]
		print $c["qid"], $c["depth"], $c["interval"], w
	}' "$2"
}

# fio_measure CTRL JSON SNAP WATCH LIMIT FIO_ARGS...: the one measured fio
# run of the boot test's rows (nvme-rdma-io.sh) and the bench's
# (bench.sh). With SNAP (a snapshot function that prints the counters:
# counters_read, or bench.sh's snap) the driver's counters and CTRL's send
# rings (sq_read) are read just before and just after fio, into the files
# $FM_BEFORE, $FM_AFTER,
# $FM_SQB and $FM_SQA (fio_measure_done removes them); SNAP "" reads
# nothing (a timed run: nothing counts). WATCH "watch" runs fio under
# step_watched (a DMESG_BAD line stops it at once); "plain" under step,
# which forks nothing while fio runs (the bench's timed boots). With
# FM_MARK set, FM_MARK.start and FM_MARK.end are created right before and
# right after fio (the bench's host reads their mtimes). fio writes JSON
# to JSON; fio-json.py's figures land in FM_IOS, FM_IOPS, FM_MS, FM_RIOS
# and FM_WIOS. Fails on a failed fio, naming its I/O or verify error, on
# a result it cannot read and on a run that did no I/O; FM_LABEL (e.g.
# "fio NAME on port 2") names the run in those messages.
fio_measure() {
	local ctrl=$1 json=$2 snap=$3 watch=$4 limit=$5 out run=step what
	what=${FM_LABEL:-fio ${json##*/}}
	shift 5
	[ "$watch" = plain ] || run=step_watched
	FM_BEFORE='' FM_AFTER='' FM_SQB='' FM_SQA=''
	if [ -n "$snap" ]; then
		FM_BEFORE=$(mktemp) FM_AFTER=$(mktemp) FM_SQB=$(mktemp) FM_SQA=$(mktemp)
		sq_read "$ctrl" >"$FM_SQB"
		"$snap" >"$FM_BEFORE"
	fi
	[ -z "${FM_MARK:-}" ] || : >"$FM_MARK.start"
	$run "$limit" fio --eta=never --output-format=json --output="$json" "$@" ||
		fail "$what failed (I/O or verify error): $(grep -ahoE 'verify failed.*|bad (magic|header).*|err=[ 0-9]+/[^"]*' "$json" 2>/dev/null | head -1 || true)"
	[ -z "${FM_MARK:-}" ] || : >"$FM_MARK.end"
	if [ -n "$snap" ]; then
		"$snap" >"$FM_AFTER"
		sq_read "$ctrl" >"$FM_SQA"
	fi
	out=$("$FIO_JSON" "$json" ios iops ms rios wios) || fail "$what: $out"
	# shellcheck disable=SC2034 # FM_IOPS, FM_RIOS, FM_WIOS: for the callers
	read -r FM_IOS FM_IOPS FM_MS FM_RIOS FM_WIOS <<<"$out"
	if [ "$FM_IOS" -le 0 ] || [ "$FM_MS" -le 0 ]; then
		fail "$what did no I/O ($FM_IOS I/Os in $FM_MS ms)"
	fi
}
fio_measure_done() { rm -f "$FM_BEFORE" "$FM_AFTER" "$FM_SQB" "$FM_SQA"; }

# reap_polled DEV: one polled 4k read on DEV. A poll queue's completions
# are reaped only by polling: after fio, its CQ may still hold the last
# signaled send completion. Fails (returns 1) where DEV cannot poll.
reap_polled() {
	fio --name=reap --filename="/dev/$1" --direct=1 --ioengine=io_uring \
		--hipri --rw=read --bs=4k --size=4k >/dev/null 2>&1
}

# The send rings of controller $1 from the instrument's debugfs file;
# prints "idle" when every queue holds fewer than interval unretired WRs
# (an idle queue waits for no completion: the WRs left are unsignaled ones
# of completed requests, retired by the next signaled WR or the drain),
# "skipped: ..." without the file with the upstream driver (it has none)
# or with EXPECT_INSTRUMENT=no, else what is wrong (the offending lines,
# "missing: ..." when the series is loaded and its file is not there,
# "unexpected: ..." when EXPECT_INSTRUMENT=no and it is): callers fail on
# anything but idle and skipped.
credits_idle() {
	local f=/sys/kernel/debug/nvme_rdma/$1/send_ring
	if [ "${EXPECT_INSTRUMENT:-yes}" = no ]; then
		if [ -e "$f" ]; then
			echo "unexpected: EXPECT_INSTRUMENT=no and the test instrument's $f exists"
		else
			echo "skipped: the product module has no test instrument (tests/instrument)"
		fi
		return 0
	fi
	if [ ! -r "$f" ]; then
		if [ "$(driver_kind)" = series ]; then
			echo "missing: the series is loaded and $f (tests/instrument) does not exist"
		else
			echo "skipped: upstream driver has no send ring"
		fi
		return 0
	fi
	# The last signaled WR's completion may still be on its way when the
	# workload ends: a queue gets 2 s to reach idle.
	local v _
	for _ in $(seq 20); do
		v=$(awk 'NR == 1 {
			     for (i = 1; i <= NF; i++) c[$i] = i
			     if (!("interval" in c) || !("unretired" in c)) { print "bad header: " $0; exit }
			     next }
		     $c["unretired"] >= $c["interval"] { bad = bad $0 ";" }
		     END { if (!("interval" in c) || !("unretired" in c)) exit; print (bad == "" ? "idle" : bad) }' "$f")
		[ "$v" = idle ] && break
		sleep 0.1
	done
	[ "${SQ_SNAPSHOTS:-1}" = 0 ] || cp "$f" "$OUT/send_ring-$1-$(date +%s%N).txt"
	echo "$v"
}
