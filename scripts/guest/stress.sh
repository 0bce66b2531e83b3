#!/bin/bash
# The stress matrix (guest side): a queue-size matrix and faults during
# verified I/O, one scenario at a time, each in its own process with a time
# limit, so one failure or hang does not hide the others.
# Usage: stress.sh [budget=SECONDS] [list=FILE | SCENARIO...]   (default: all)
#        stress.sh list-all | list-matrix   (print scenario names, any host)
#   budget: scenarios not started within SECONDS of the first are reported
#   "not run" (a time-boxed run says what it did not do).
#        stress.sh one SCENARIO       (internal: run one scenario)
# Scenario names:
#   mx-tT-hH        target param_max_queue_size T, host --queue-size H,
#                   2 I/O queues and 1 poll queue, the fio workload set;
#   reset-N         N resets (nvme reset and sysfs reset_controller) under I/O;
#   port-readd-N    target port unlinked and relinked N times under I/O;
#   fatal-N         nvmet debugfs ctrl state "fatal", N times under I/O;
#   disconnect-io   nvme disconnect with I/O in flight, then reconnect;
#   rmmod-N         N modprobe/connect/I/O/rmmod cycles of nvme_rdma;
#   connect-N       N connect/disconnect cycles without I/O, then kmemleak;
#   delete-ka-N     N connect/delete cycles with a 1 s keep-alive timeout,
#                   deleting at varied points of the keep-alive period: a
#                   keep-alive failed on delete fails it.
# Writes $OUT/stress.tsv: scenario, result, data verified, splats, seconds,
# note, recovery (error-recovery lines in the scenario's dmesg; a scenario
# that injects no fault fails on any); per scenario $OUT/scn/NAME.{log,dmesg}.
set -euo pipefail

# The target's ports, one per param_max_queue_size (port 1 = 16 ...
# port 6 = 256): the sizes an mx-tT scenario can name.
TARGET_SIZES="16 17 32 64 128 256"
# The scenarios come from config/stress-plan.tsv (scripts/common/stress-plan.sh).
# shellcheck source=scripts/common/stress-plan.sh
. "$(dirname "$0")/../common/stress-plan.sh"
list_matrix() { stress_lane matrix; }
# list_all: every scenario of make stress's lanes, once each, in order.
list_all() {
	local l
	for l in $STRESS_LANES; do stress_lane "$l" || return 1; done | awk '!seen[$0]++'
}
# The names, from config/stress-plan.tsv (no guest needed).
case "${1:-}" in list-matrix | list-all) "${1/-/_}"; exit 0 ;; esac

. "$(dirname "$0")/lib.sh"
SELF=$(readlink -f "$0")
SCN=$OUT/scn
CFG=/sys/kernel/config/nvmet
# Scenario failures go to the scenario's own error file.
ERRFILE=$OUT/error
fail() {
	echo "FAIL: $*"
	[ -e "$ERRFILE" ] || echo "$*" >"$ERRFILE"
	exit 1
}

# Port N of the target exports the subsystem with param_max_queue_size
# from TARGET_SIZES (port 1 = 16 ... port 6 = 256).
port_of_size() {
	local i=1 t
	for t in $TARGET_SIZES; do
		[ "$t" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	fail "no target port with queue size $1"
}

# Waits are deadlines in seconds ($SECONDS), not loop counts: under TCG
# with a debug kernel and fio running, one poll (a fork and a sysfs read)
# can take seconds, and a count of 240 polls once meant 10 minutes.
wait_live() {
	local ctrl=$1 end=$((SECONDS + 120))
	while [ $SECONDS -lt $end ]; do
		[ "$(ctrl_state "$ctrl")" = live ] && return 0
		sleep 0.5
	done
	fail "$ctrl not live after 120s (state $(ctrl_state "$ctrl"))"
}

ctrl_state() { cat "/sys/class/nvme/$1/state" 2>/dev/null || echo gone; }

# A scenario that injects faults declares it before the first one: error
# recovery in its dmesg is then expected, not a failure (lib.sh
# DMESG_RECOVERY). Every other scenario fails on it.
recovery_expected() {
	ALLOW_RECOVERY=1
	: >"$SCN/$NAME.recovery-expected"
}

# Error recoveries the host has started on a controller so far.
recoveries() { dmesg | grep -c "nvme $1: starting error recovery" || true; }

# wait_fault CTRL SECONDS RECOVERIES_BEFORE: a fault must really reach the
# host (or the scenario proves nothing): within SECONDS the controller
# leaves "live" or starts another error recovery. Polling the state alone
# can miss a recovery that ends between two polls on a loaded guest.
wait_fault() {
	local ctrl=$1 end=$((SECONDS + $2)) r0=$3
	while [ $SECONDS -lt $end ]; do
		[ "$(ctrl_state "$ctrl")" != live ] && return 0
		[ "$(recoveries "$ctrl")" -gt "$r0" ] && return 0
		sleep 0.1
	done
	fail "$ctrl still live $2 s after the fault, no error recovery: the fault did not happen"
}

# Every queue's send ring idle: fewer than interval unretired WRs
# (series; the upstream driver has no send ring: "credits skipped: ...").
# credits_idle waits 2 s for a last signaled completion; this allows 10 s
# more after a fault. A poll queue's completions are reaped only by
# polling: from the third try on, one polled 4k read on the controller's
# namespace reaps what its CQ holds (it fails harmlessly where the
# controller has no poll queue).
credits_check() {
	local ctrl=$1 c i
	for i in $(seq 20); do
		c=$(credits_idle "$ctrl")
		case "$c" in idle | skipped:*) echo "credits $c" && return 0 ;; esac
		if [ "$i" -ge 3 ] && [ -b "/dev/${ctrl}n1" ]; then
			reap_polled "${ctrl}n1" || true
		fi
		sleep 0.5
	done
	fail "$ctrl: send ring not idle: $c"
}

# fio_verify NAME DEV ARGS...: one verified fio job set; fails on any I/O
# error or data mismatch. Output in $SCN/NAME.fio.json.
FIO_COMMON=(--direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1
	--eta=never --output-format=json)
fio_verify() {
	local name=$1 dev=$2
	shift 2
	echo "fio $name on $dev: $*"
	step 1200 fio "${FIO_COMMON[@]}" --filename="/dev/$dev" \
		--output="$SCN/$name.fio.json" "$@" ||
		fail "fio $name failed: $(grep -ahE 'verify failed|bad magic|bad header|error' "$SCN/$name.fio.json" 2>/dev/null | head -2 | tr '\n' ' ' || true)"
}

# The workload set of the matrix: 4k random (inline writes, MR reads),
# 128k sequential (MR registration + invalidation both ways), small
# in-capsule writes, mixed sizes, and io_uring polled I/O on the poll queue.
matrix_jobs() {
	local qd=$1
	cat <<JOBS
[global]
size=4M
[4k-rand-uring]
ioengine=io_uring
rw=randwrite
bs=4k
iodepth=$qd
iodepth_batch_submit=$(((qd + 1) / 2))
iodepth_batch_complete_min=1
[128k-seq-libaio]
stonewall
ioengine=libaio
rw=write
bs=128k
size=8M
offset=8M
iodepth=8
[small-inline-uring]
stonewall
ioengine=io_uring
rw=randwrite
bsrange=512-2k
size=1M
offset=16M
iodepth=16
[mixed-libaio]
stonewall
ioengine=libaio
rw=randwrite
bssplit=4k/40:16k/20:64k/20:256k/20
size=8M
offset=24M
iodepth=16
[4k-polled-uring]
stonewall
ioengine=io_uring
hipri=1
rw=randwrite
bs=4k
offset=32M
iodepth=16
JOBS
}

scn_matrix() {
	local t=$1 h=$2 port ctrl sq want
	port=$(port_of_size "$t")
	ctrl=$(connect "$port" --queue-size="$h" --nr-io-queues=2 --nr-poll-queues=1)
	sq=$(cat "/sys/class/nvme/$ctrl/sqsize")
	want=$((t < h ? t : h))
	echo "connected $ctrl: target $t host $h sqsize $sq"
	# sqsize is 0's based; the host clamps to the target's MQES.
	[ $((sq + 1)) -eq "$want" ] || fail "$ctrl: queue size $((sq + 1)), expected min($t,$h)=$want"
	matrix_jobs 64 >"$SCN/$NAME.fio"
	fio_verify "$NAME" "${ctrl}n1" "$SCN/$NAME.fio"
	credits_check "$ctrl"
	NOTE="sqsize $sq"
	VERIFIED=yes
	disconnect "$ctrl"
}

# Verified fio runs in a loop until $SCN/NAME.stop exists; every run that
# fails is counted in $SCN/NAME.fiofail, every clean one in .fiook.
# A fault makes I/O wait (requeue) but must not fail it or corrupt data.
# libaio, not io_uring: io_uring submits with REQ_NOWAIT and hands the
# block layer's -EAGAIN (queue frozen for the reset) to the application,
# whatever the driver does.
io_loop_start() {
	local dev=$1 i=0
	: >"$SCN/$NAME.fiook"
	: >"$SCN/$NAME.fiofail"
	(
		trap - ERR
		set +e
		while [ ! -e "$SCN/$NAME.stop" ]; do
			i=$((i + 1))
			if timeout 600 fio "${FIO_COMMON[@]}" --filename="/dev/$dev" \
				--output="$SCN/$NAME.loop$i.json" --name=loop$i --ioengine=libaio \
				--rw=randwrite --bs=4k --size=2M --offset=$(((i % 8) * 4))M \
				--iodepth=32 --iodepth_batch_submit=8; then
				echo $i >>"$SCN/$NAME.fiook"
			else
				echo $i >>"$SCN/$NAME.fiofail"
			fi
		done
	) &
	IO_PID=$!
}

io_loop_stop() {
	touch "$SCN/$NAME.stop"
	wait "$IO_PID" || true
	local ok bad
	ok=$(wc -l <"$SCN/$NAME.fiook") bad=$(wc -l <"$SCN/$NAME.fiofail")
	echo "fio loop: $ok verified runs, $bad failed"
	if [ "$bad" -gt 0 ]; then
		fail "$bad of $((ok + bad)) verified fio runs failed during the faults (first: $SCN/$NAME.loop$(head -1 "$SCN/$NAME.fiofail").json)"
	fi
	[ "$ok" -gt 0 ] || fail "no fio run completed during the faults"
	VERIFIED="yes ($ok runs)"
}

# Wait for at least one clean fio run after the last fault.
io_loop_settle() {
	local before end=$((SECONDS + 300))
	before=$(wc -l <"$SCN/$NAME.fiook")
	while [ $SECONDS -lt $end ]; do
		[ "$(wc -l <"$SCN/$NAME.fiook")" -gt "$before" ] && return 0
		[ -s "$SCN/$NAME.fiofail" ] && return 0
		sleep 0.5
	done
	fail "I/O made no progress for 300s after the faults"
}

# After the last fault: I/O flowed again, no fio run failed, the
# controller is live with every credit back; then disconnect.
faults_done() {
	io_loop_settle
	io_loop_stop
	wait_live "$1"
	credits_check "$1"
	NOTE=$2
	disconnect "$1"
}

connect_recoverable() {
	connect "$1" --reconnect-delay=1 --ctrl-loss-tmo=600 --keep-alive-tmo=5
}

scn_reset() {
	local n=$1 ctrl i
	recovery_expected
	ctrl=$(connect_recoverable 2)
	io_loop_start "${ctrl}n1"
	sleep 2
	for i in $(seq "$n"); do
		if [ $((i % 2)) = 1 ]; then
			step 60 nvme reset "/dev/$ctrl" || fail "nvme reset $ctrl ($i) failed"
		else
			echo 1 >"/sys/class/nvme/$ctrl/reset_controller" || fail "reset_controller ($i) failed"
		fi
		wait_live "$ctrl"
		sleep 1
	done
	faults_done "$ctrl" "$n resets"
}

scn_port_readd() {
	local n=$1 port=1 ctrl i link r0
	recovery_expected
	ctrl=$(connect_recoverable $port)
	link=$CFG/ports/$port/subsystems/$NQN
	io_loop_start "${ctrl}n1"
	sleep 2
	for i in $(seq "$n"); do
		r0=$(recoveries "$ctrl")
		rm "$link" || fail "unlinking the subsystem from port $port failed"
		# The host notices (error recovery); give it a few failed reconnect
		# attempts before the port comes back.
		wait_fault "$ctrl" 60 "$r0"
		sleep 4
		ln -s "$CFG/subsystems/$NQN" "$link" || fail "relinking port $port failed"
		wait_live "$ctrl"
		sleep 1
	done
	faults_done "$ctrl" "$n port removals"
}

# The nvmet controllers in debugfs, for the log.
target_ctrls() {
	local d
	for d in "/sys/kernel/debug/nvmet/$NQN"/ctrl*; do printf '%s ' "${d##*/}"; done
}

scn_fatal() {
	local n=$1 ctrl i f r0
	recovery_expected
	ctrl=$(connect_recoverable 1)
	io_loop_start "${ctrl}n1"
	sleep 2
	for i in $(seq "$n"); do
		# The target controller of this connection: same controller ID.
		f=/sys/kernel/debug/nvmet/$NQN/ctrl$(cat "/sys/class/nvme/$ctrl/cntlid")/state
		[ -e "$f" ] || fail "no nvmet debugfs state file $f (target controllers: $(target_ctrls))"
		echo "fatal $i: writing $f (target controllers: $(target_ctrls))"
		r0=$(recoveries "$ctrl")
		echo fatal >"$f" || fail "writing fatal to $f failed"
		wait_fault "$ctrl" 30 "$r0"
		wait_live "$ctrl"
		echo "fatal $i: $ctrl live again, cntlid $(cat "/sys/class/nvme/$ctrl/cntlid")"
		sleep 1
	done
	faults_done "$ctrl" "$n fatal errors"
}

# Disconnect with I/O in flight. What must hold is what a user relies on:
# I/O in flight fails or completes, never hangs, and no read or write
# lands anywhere but where it was aimed. So: a stable region A is written
# and verified, and read back once as the reference; then, while readers
# loop over A and a fio writes region B (what lands there is undefined),
# the controller is deleted. Every byte a reader got must equal the
# reference, the writer and readers must end, and after a reconnect A
# must verify in full (fio crc32c): a misdirected write or a read
# completed with another buffer's data shows up.
# The readers are dd, not fio --verify_only: once the last path is gone
# the multipath disk has size 0 and a read returns 0 bytes (EOF), which
# fio 3.33 verifies against the stale buffer as if it had succeeded
# ("bad header offset"); dd stops at EOF and tells how much it read.
DIO_A=(--name=stable --ioengine=libaio --rw=write --bs=4k --size=8M --offset=0 --iodepth=32)
DIO_A_BYTES=$((8 << 20))
DIO_B=(--name=scratch --ioengine=libaio --rw=randwrite --bs=4k --size=256M --offset=16M
	--iodepth=32 --iodepth_batch_submit=8 --time_based --runtime=300)

# Where a task sits if it outlives the device: its stacks, for the log
# (a task may end while this reads).
task_stacks() {
	local t
	for t in /proc/"$1"/task/*; do
		[ -e "$t" ] || continue
		echo "== $t: $(cat "$t/comm" 2>/dev/null || true)"
		cat "$t/stack" 2>/dev/null || true
	done
}

# Completed reads and writes of a block device: "READS WRITES".
block_ios() { awk '{ print $1, $5 }' "/sys/block/$1/stat"; }

# io_started DEV "READS0 WRITES0" MIN_READS MIN_WRITES: wait (300 s at
# most) until DEV completed that many more reads and writes.
io_started() {
	local dev=$1 r0=${2% *} w0=${2#* } r w end=$((SECONDS + 300))
	while [ $SECONDS -lt $end ]; do
		read -r r w < <(block_ios "$dev")
		[ $((r - r0)) -ge "$3" ] && [ $((w - w0)) -ge "$4" ] && return 0
		sleep 0.5
	done
	return 1
}

# dio_reader DEV BS LOG: O_DIRECT passes over region A until a pass comes
# back short (device gone) or fails (I/O error); the bytes of every pass,
# short or not, must equal the reference. Logs "pass N BYTES ok|MISMATCH
# dd-rc R".
dio_reader() {
	local dev=$1 bs=$2 log=$3 out n=0 got rc
	out=$(mktemp)
	while :; do
		n=$((n + 1)) rc=0
		dd if="/dev/$dev" of="$out" bs="$bs" count=$((DIO_A_BYTES / bs)) iflag=direct \
			status=none 2>/dev/null || rc=$?
		got=$(stat -c %s "$out")
		if [ "$got" -gt 0 ] && ! cmp -s -n "$got" "$out" "$DIO_REF"; then
			echo "pass $n $got MISMATCH dd-rc $rc: $(cmp -n "$got" "$out" "$DIO_REF" 2>&1 | head -1 || true)" >>"$log"
			break
		fi
		echo "pass $n $got ok dd-rc $rc" >>"$log"
		if [ "$rc" != 0 ] || [ "$got" -ne "$DIO_A_BYTES" ]; then break; fi
	done
	rm -f "$out"
}

scn_disconnect_io() {
	local ctrl wpid i r p pids bytes ios0
	recovery_expected
	ctrl=$(connect 1)
	fio_verify "$NAME.write-a" "${ctrl}n1" "${DIO_A[@]}"
	DIO_REF=$SCN/$NAME.ref
	dd if="/dev/${ctrl}n1" of="$DIO_REF" bs=1M count=8 iflag=direct status=none ||
		fail "reading the reference copy of region A failed"
	for i in 1 2 3; do
		[ "$i" = 1 ] || ctrl=$(connect 1)
		ios0=$(block_ios "${ctrl}n1")
		pids=()
		for r in 1 2 3 4; do
			# Two 4k readers (inline-size transfers) and two 128k ones (MRs).
			dio_reader "${ctrl}n1" $((r % 2 ? 4096 : 131072)) "$SCN/$NAME.read$i-$r.log" &
			pids+=($!)
		done
		fio --direct=1 --eta=never --output-format=json --output="$SCN/$NAME.write$i.json" \
			--filename="/dev/${ctrl}n1" "${DIO_B[@]}" 2>"$SCN/$NAME.write$i.err" &
		wpid=$!
		# Pull the plug only once reads and writes are flowing (fio takes
		# seconds to start on a debug kernel under TCG). Not a full pass
		# of region A: a debug guest under TCG, sharing the host with
		# another, can do as little as 15 writes a second here.
		io_started "${ctrl}n1" "$ios0" 64 16 || fail "I/O did not start within 300 s before disconnect $i"
		kill -0 "$wpid" 2>/dev/null || fail "the writer ended before disconnect $i: $(head -c 300 "$SCN/$NAME.write$i.json")"
		disconnect "$ctrl"
		for p in "${pids[@]}" "$wpid"; do
			if ! step 180 tail --pid="$p" -f /dev/null; then
				task_stacks "$p" >"$SCN/$NAME.stacks$i" 2>&1
				fail "I/O still running 180 s after disconnect $i (stacks: $SCN/$NAME.stacks$i)"
			fi
		done
		wait "$wpid" || true
		! grep -h MISMATCH "$SCN/$NAME.read$i-"*.log ||
			fail "a read around disconnect $i returned data that is not region A's"
		bytes=$(cat "$SCN/$NAME.read$i-"*.log | awk '{ b += $3 } END { print b + 0 }')
		[ "$bytes" -gt 0 ] || fail "no byte of region A was read back around disconnect $i"
		echo "disconnect $i: $bytes bytes of region A read back and equal to the reference"
	done
	ctrl=$(connect 1)
	fio_verify "$NAME.check-a" "${ctrl}n1" "${DIO_A[@]}" --verify_only
	fio_verify "$NAME.after" "${ctrl}n1" --name=after --ioengine=libaio --rw=randwrite \
		--bs=4k --size=4M --offset=16M --iodepth=32
	credits_check "$ctrl"
	VERIFIED="yes (region A intact after 3 disconnects)" NOTE="3 disconnects under read+write I/O"
	disconnect "$ctrl"
}

# modprobe, connect, verified I/O, rmmod: odd cycles disconnect first,
# even cycles unload with the controller still connected (module exit
# tears it down).
scn_rmmod() {
	local n=$1 ctrl i
	disconnect_all
	step 60 rmmod nvme_rdma || fail "initial rmmod nvme_rdma failed"
	for i in $(seq "$n"); do
		step 60 modprobe nvme_rdma || fail "modprobe nvme_rdma ($i) failed"
		ctrl=$(connect 2)
		step 120 fio "${FIO_COMMON[@]}" --filename="/dev/${ctrl}n1" --output="$SCN/$NAME.fio.json" \
			--name=cycle --ioengine=libaio --rw=randwrite --bs=4k --size=256k \
			--offset=$(((i % 16) * 256))k --iodepth=16 || fail "fio in cycle $i failed"
		credits_check "$ctrl" >/dev/null
		[ $((i % 2)) = 0 ] || disconnect "$ctrl"
		step 120 rmmod nvme_rdma || fail "rmmod nvme_rdma ($i) failed"
		[ ! -e "/sys/class/nvme/$ctrl" ] || fail "$ctrl still present after rmmod ($i)"
	done
	step 60 modprobe nvme_rdma || fail "final modprobe nvme_rdma failed"
	VERIFIED="yes ($n runs)" NOTE="$n module cycles"
}

relink_ports() {
	local p
	for p in "$CFG"/ports/*; do
		[ -e "$p/subsystems/$NQN" ] || ln -s "$CFG/subsystems/$NQN" "$p/subsystems/$NQN"
	done
}

disconnect_all() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c" ] && disconnect "${c##*/}"
	done
	return 0
}

# kmemleak_ours FILE_SUFFIX: scan (twice: an object the first scan finds
# may be referenced again by the second), keep the report in
# $SCN/$NAME.SUFFIX, print how many unreferenced objects were allocated
# by nvme, rdma, rxe or ib code ("[<addr>] func" in the backtrace) or by
# a module since unloaded (an address with no symbol left).
kmemleak_ours() {
	local k=/sys/kernel/debug/kmemleak f=$SCN/$NAME.$1
	echo scan >$k
	sleep 6
	echo scan >$k
	cp $k "$f"
	awk 'function end() { if (hit) n++; hit = 0 }
	     /^unreferenced object/ { end() }
	     /\[<[0-9a-f]+>\] .*(nvme|rdma|rxe|ib_)/ || /\[<[0-9a-f]+>\] 0xffffffff[a-f]/ { hit = 1 }
	     END { end(); print n + 0 }' "$f"
}

# connect/disconnect without nvme-cli (what it writes, minus its start-up
# cost, which dominates a cycle under TCG): prints the controller name.
connect_raw() { # PORT [,OPTION=VALUE...]
	local port=$1 fd out n
	exec {fd}<>/dev/nvme-fabrics
	echo "transport=rdma,traddr=$ADDR,trsvcid=$((4419 + port)),nqn=$NQN,hostnqn=$(cat /etc/nvme/hostnqn),hostid=$(cat /etc/nvme/hostid)${2:-}" >&"$fd" ||
		fail "connect to port $port via /dev/nvme-fabrics failed"
	read -r out <&"$fd"
	exec {fd}>&-
	n=${out#instance=}
	n=${n%%,*}
	# The namespace scan runs asynchronously: let it finish first.
	for _ in $(seq 400); do
		[ -b "/dev/nvme${n}n1" ] && { echo "nvme$n"; return; }
		sleep 0.05
	done
	fail "nvme$n: no namespace 20s after connect"
}

scn_connect() {
	local n=$1 ctrl i leaks before=n/a k=/sys/kernel/debug/kmemleak
	SQ_SNAPSHOTS=0
	# What the boot and earlier scenarios (rmmod-N) left: counted, then
	# cleared, so the scan after the cycles sees only theirs.
	if [ "${KMEMLEAK:-0}" = 1 ]; then
		before=$(kmemleak_ours kmemleak-before)
		echo clear >$k
	fi
	for i in $(seq "$n"); do
		ctrl=$(connect_raw $((1 + i % 6)))
		credits_check "$ctrl" >/dev/null
		echo 1 >"/sys/class/nvme/$ctrl/delete_controller" || fail "deleting $ctrl failed"
	done
	NOTE="$n cycles over all 6 ports"
	if [ "${KMEMLEAK:-0}" = 1 ]; then
		leaks=$(kmemleak_ours kmemleak)
		NOTE+=", kmemleak: $before nvme/rdma objects before, $leaks after"
		[ "$before" = 0 ] || fail "kmemleak: $before unreferenced nvme/rdma/ib objects before the cycles (earlier scenarios: $SCN/$NAME.kmemleak-before)"
		[ "$leaks" = 0 ] || fail "kmemleak: $leaks unreferenced nvme/rdma/ib objects after $n cycles"
	else
		NOTE+=", kmemleak scan skipped: kmemleak is off in this guest (not built, or kmemleak=off)"
	fi
}

# The core stops keep-alive only when it removes the admin tag set: a
# keep-alive queued after a deletion quiesced the admin queue is failed as
# not ready ("failed nvme_keep_alive_end_io error=4", DMESG_RECOVERY).
# With kato 1 s the work runs every 250 ms (kato / 4: nvmet reports
# traffic-based keep-alive); each delete comes 0-450 ms (in 50 ms steps)
# after the namespace appeared, so the cycles sweep that period.
scn_delete_ka() {
	local n=$1 ctrl i
	SQ_SNAPSHOTS=0
	for i in $(seq "$n"); do
		ctrl=$(connect_raw $((1 + i % 6)) ",keep_alive_tmo=1")
		sleep "$(printf "0.%02d" $(((i % 10) * 5)))"
		echo 1 >"/sys/class/nvme/$ctrl/delete_controller" || fail "deleting $ctrl failed"
	done
	NOTE="$n cycles over all 6 ports, kato 1 s"
}

# SIGTERM to this shell's background jobs, if any are left.
stop_jobs() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
}

# One scenario, in its own process: prints "result<TAB>verified<TAB>note".
run_one() {
	NAME=$1 VERIFIED=n/a NOTE=""
	ERRFILE=$SCN/$NAME.error
	# Whatever happens, stop this scenario's I/O loop and relink every
	# target port, so that the next scenario starts clean.
	# A failed scenario also stops its own background readers and loops.
	trap 'touch "$SCN/$NAME.stop"; stop_jobs; relink_ports' EXIT
	case "$NAME" in
	mx-t*-h*)
		local t=${NAME#mx-t}
		scn_matrix "${t%%-*}" "${t#*-h}"
		;;
	reset-*) scn_reset "${NAME#reset-}" ;;
	port-readd-*) scn_port_readd "${NAME#port-readd-}" ;;
	fatal-*) scn_fatal "${NAME#fatal-}" ;;
	disconnect-io) scn_disconnect_io ;;
	rmmod-*) scn_rmmod "${NAME#rmmod-}" ;;
	connect-*) scn_connect "${NAME#connect-}" ;;
	delete-ka-*) scn_delete_ka "${NAME#delete-ka-}" ;;
	*) fail "unknown scenario '$NAME'" ;;
	esac
	printf '%s\t%s\n' "$VERIFIED" "$NOTE" >"$SCN/$NAME.result"
}

# Splats: any of these in a scenario's dmesg fails it (DMESG_BAD in
# scripts/common/dmesg-policy.sh: splats, lockdep, hung tasks, post
# failures of any nvme_rdma function, the
# test rxe's overflow and retry-oracle lines; DMA-API debug and
# debugobjects report through WARN), but for kmemleak's own report, which
# connect-N reads for nvme/rdma objects; and so does error recovery
# (DMESG_RECOVERY) in a scenario that injected no fault.
SPLAT=${DMESG_BAD//'|kmemleak: [0-9]+ new suspected'/}
[ "$SPLAT" != "$DMESG_BAD" ] || fail "stress.sh: DMESG_BAD (scripts/common/dmesg-policy.sh) changed, the kmemleak exception no longer applies"

WHY='QP event|: (disconnected|device removal|rejected|connect error|unreachable|address change|timewait exit|established) \(|CM error event|disconnect received|failed with status|starting error recovery'

if [ "${1:-}" = one ]; then
	run_one "$2"
	exit 0
fi

mkdir -p "$SCN"
budget=0
case "${1:-}" in budget=*) budget=${1#budget=} && shift ;; esac
# list=FILE: scenario names in a file (the kernel passes init at most 32
# arguments).
case "${1:-}" in list=*) mapfile -t scn_list <"${1#list=}" && set -- "${scn_list[@]}" ;; esac
# shellcheck disable=SC2046 # one scenario name per word
[ $# -gt 0 ] || set -- $(list_all)
# The plan, so the report can tell a scenario that never ran (guest died).
printf '%s\n' "$@" >"$OUT/scenarios.txt"
setup_fabric
ports=()
i=1
for t in $TARGET_SIZES; do
	ports+=("$i:$t")
	i=$((i + 1))
done
setup_target "${ports[@]}"
setup_host
{
	echo "kernel $(uname -r)"
	echo "checkers: $(zcat /proc/config.gz | sed -nE 's/^CONFIG_(KASAN|UBSAN|PROVE_LOCKING|DMA_API_DEBUG|DEBUG_KMEMLEAK|DEBUG_OBJECTS)=y/\1/p' | paste -sd' ' | grep . || echo none)"
	echo "driver $(driver_kind) $(sha256sum <"$(modinfo -n nvme_rdma)" | cut -c1-12)"
	echo "nvme_rdma dyndbg: $(grep -c '\[nvme_rdma\][^"]*=p' /sys/kernel/debug/dynamic_debug/control 2>/dev/null || echo 0) sites on"
	echo "cmdline: $(sed 's/.* init=[^ ]* //; s/ -- .*//' /proc/cmdline)"
} >"$OUT/info"
printf 'scenario\tresult\tverified\tsplats\tseconds\tnote\trecovery\n' >"$OUT/stress.tsv"
# kmemleak's periodic scan of all memory is slow under TCG; connect-N
# scans on demand. Built in but off (kmemleak=off): it refuses the write.
KMEMLEAK=0
echo scan=off 2>/dev/null >/sys/kernel/debug/kmemleak && KMEMLEAK=1
export KMEMLEAK
echo "kmemleak: $([ $KMEMLEAK = 1 ] && echo on || echo off)" >>"$OUT/info"
trap - ERR
set +e
start=$(date +%s)
for s in "$@"; do
	if [ "$budget" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$budget" ]; then
		printf '%s\tnot run\tn/a\t0\t0\ttime budget of %ss used up\t-\n' "$s" "$budget" >>"$OUT/stress.tsv"
		continue
	fi
	phase "scenario $s"
	lines=$(dmesg | wc -l)
	rm -f "$SCN/$s.recovery-expected"
	t0=$(date +%s)
	step "${SCENARIO_TIMEOUT:-2400}" "$SELF" one "$s" >"$SCN/$s.log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	dmesg | tail -n +$((lines + 1)) >"$SCN/$s.dmesg"
	splats=$(grep -cE "$SPLAT" "$SCN/$s.dmesg")
	allow=0
	[ ! -e "$SCN/$s.recovery-expected" ] || allow=1
	nrec=$(grep -cE "$DMESG_RECOVERY" "$SCN/$s.dmesg")
	recovery="$nrec (no fault injected)"
	[ $allow = 0 ] || recovery="$nrec (faults injected)"
	bad=""
	[ $allow = 1 ] || bad=$(grep -m1 -E "$DMESG_RECOVERY" "$SCN/$s.dmesg")
	result=pass verified=n/a note=""
	if [ -f "$SCN/$s.result" ]; then
		IFS=$'\t' read -r verified note <"$SCN/$s.result"
	fi
	# Why queues were torn down: nvme_rdma's CM and QP event lines
	# (dev_dbg, on through nvme_rdma.dyndbg), failed completions and
	# the error recoveries they started.
	grep -E "$WHY" "$SCN/$s.dmesg" >"$SCN/$s.why" || true
	if [ $rc -ne 0 ]; then
		result=FAIL
		note=$(cat "$SCN/$s.error" 2>/dev/null || echo "exit $rc")
		[ $rc -ne 124 ] && [ $rc -ne 137 ] || note="hung: killed after ${secs}s; $note"
	elif [ "$splats" -gt 0 ]; then
		result=FAIL note="splat: $(grep -m1 -E "$SPLAT" "$SCN/$s.dmesg" | cut -c1-120)"
	elif [ -n "$bad" ]; then
		result=FAIL note="error recovery, no fault was injected: $(cut -c1-140 <<<"$bad")"
	fi
	if [ "$result" = FAIL ] && [ -s "$SCN/$s.why" ]; then
		note+="; first teardown cause: $(grep -m1 -vE 'established|resolved' "$SCN/$s.why" | sed 's/^\[[^]]*\] //' | cut -c1-100)"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$result" "$verified" "$splats" "$secs" "$note" "$recovery" >>"$OUT/stress.tsv"
	echo "RESULT: $s $result ($secs s) $note"
	# Leave no I/O and no controller behind for the next scenario (a
	# scenario killed by its time limit could not clean up itself).
	touch "$SCN/$s.stop"
	if pkill -x fio; then
		sleep 2
		pkill -9 -x fio && sleep 5
		! pgrep -x fio >/dev/null || echo "cleanup after $s: fio still running (stuck in the kernel?)"
	fi
	relink_ports 2>/dev/null
	(disconnect_all) >/dev/null 2>&1 || echo "cleanup after $s: disconnect failed"
	lsmod | grep -q '^nvme_rdma' || modprobe nvme_rdma
done
dmesg >"$OUT/dmesg.txt"
# What no scenario's window holds (set-up, the clean-ups between
# scenarios) is checked too: a splat there fails the run as a row of its own.
outside=$(($(grep -cE "$SPLAT" "$OUT/dmesg.txt") - $(cat "$SCN"/*.dmesg 2>/dev/null | grep -cE "$SPLAT")))
if [ "$outside" -gt 0 ]; then
	printf 'dmesg outside scenarios\tFAIL\tn/a\t%s\t0\t%s\t-\n' "$outside" \
		"splat outside every scenario's window (set-up or clean-up): $(grep -m1 -E "$SPLAT" "$OUT/dmesg.txt" | cut -c1-120)" >>"$OUT/stress.tsv"
fi
phase finished
! grep -qE 'FAIL|not run' <(cut -f2 "$OUT/stress.tsv")
