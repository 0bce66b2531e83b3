#!/bin/bash
# The bench (guest side, one boot of make bench): soft-RoCE fabric, nvmet on
# a memory-backed null_blk, nvme connect, then one fio run per row of
# bench_rows. A boot either times or counts, never both:
#   time:  nothing counts while fio runs: no kprobe, no tracepoint enabled,
#          no tracer (no_probes, before every row; a probe left on fails
#          the boot).
#          The host takes IOPS from these boots only.
#   count: the driver's call counters (kprobes, the series' tracepoints)
#          read before and after each row; the host takes the per-command
#          figures from these boots, and their IOPS only to show what
#          counting costs.
# Nothing is verified here (make check does that): the rows measure the
# workload they name, a write row writes and a read row reads. Every run
# is checked for what would make its figures meaningless (a counter that
# cannot count, a command count that does not match the responses, a
# polled row that never polled: count boots; credits not back at idle: both
# kinds), and the dmesg scan runs at the end; any of these fails the boot.
# Usage: bench.sh MODE DRIVER [IOS [ROWS]]   (guest side; init.sh runs it)
#        bench.sh list [ROWS]          (print the rows, any host)
#        bench.sh list-guest VCPUS [ROWS]  (the rows a guest with VCPUS runs)
#   MODE: time or count (above).
#   DRIVER: series or upstream, the driver modprobe must load.
#   IOS: 4k I/Os per row (default 16384; 128k rows do IOS/16), split
#   evenly between the jobs of a row.
#   ROWS: only the rows whose name contains one of these comma-separated
#   strings (for debugging; the host report marks the run partial).
#   A guest with one vCPU runs the polled rows of the plan, a guest with
#   two the others (bench_guest_plan).
# Writes $OUT/bench-raw.tsv (one line per row, raw call counts, see the
# header below), $OUT/wall/ROW.start and .end (created just before fio
# starts and just after it exits: the host reads their mtimes, which are
# the host's clock), $OUT/fio/*.json, $OUT/info, $OUT/guest-seconds.
set -euo pipefail

# bench_rows: one line per row, "name conn rw bs engine iodepth batch jobs",
# from config/bench-rows.tsv (the one table of rows, which the host's
# bench.sh lists through "bench.sh list"; its header names the columns).
# conn: d = port 1 (target default queue size), 2 I/O queues (one per vCPU);
# q1 = port 1 with one I/O queue (--nr-io-queues 1: both vCPUs share it);
# poll = port 1 plus one poll queue (--nr-poll-queues 1, fio --hipri);
# p2 = port 2 (param_max_queue_size 16). iodepth and batch are per job;
# batch is fio's iodepth_batch_submit and iodepth_batch_complete_min.
BENCH_ROWS_TSV=$(dirname "${BASH_SOURCE[0]}")/../../config/bench-rows.tsv
bench_rows() {
	local want='name	conn	rw	bs	engine	iodepth	batch	jobs'
	[ "$(head -1 "$BENCH_ROWS_TSV" 2>/dev/null)" = "$want" ] || {
		echo "bench.sh: $BENCH_ROWS_TSV missing, or its header is not: $want" >&2
		return 1
	}
	awk -F'\t' 'NR > 1 && NF { if (NF != 8) { print "bench.sh: " FILENAME ":" NR ": " NF " columns, not 8" > "/dev/stderr"; exit 1 }
		$1 = $1; print }' "$BENCH_ROWS_TSV"
}
# bench_plan [ROWS]: bench_rows, only those whose name contains one of
# the comma-separated strings ROWS (all without ROWS).
bench_plan() {
	bench_rows | awk -v pat="${1:-}" 'BEGIN { n = split(pat, p, ",") }
		{ if (n == 0) { print; next } for (k = 1; k <= n; k++) if (p[k] != "" && index($1, p[k])) { print; next } }'
}
# bench_guest_plan ROWS VCPUS: the rows a guest with VCPUS vCPUs runs. The
# polled rows run on a guest of their own with one vCPU (host bench.sh),
# the others on two: with two, the vCPU spinning in blk-mq polling and
# the one running rxe and the target share instructions in proportions
# icount does not fix, and a polled row's IOPS spread 3.6-17% across boots;
# on one vCPU they repeat within 1%.
bench_guest_plan() {
	bench_plan "$1" | awk -v one="$([ "$2" = 1 ] && echo 1 || echo 0)" '($2 == "poll") == (one == 1)'
}
if [ "${1:-}" = list ]; then
	bench_plan "${2:-}"
	exit 0
fi
if [ "${1:-}" = list-guest ]; then
	bench_guest_plan "${3:-}" "${2:?usage: bench.sh list-guest VCPUS [ROWS]}"
	exit 0
fi

. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/common/row-bounds.sh
. "$(dirname "$0")/../common/row-bounds.sh"
MODE=${1:?usage: bench.sh time|count series|upstream [IOS [ROWS]]}
want=${2:?usage: bench.sh time|count series|upstream [IOS [ROWS]]}
IOS=${3:-16384}
ROWS=${4:-}
case "$MODE" in time | count) ;; *) fail "bench.sh: mode '$MODE' is neither time nor count" ;; esac
case "$want" in series | upstream) ;; *) fail "bench.sh: driver '$want' is neither series nor upstream" ;; esac
if ! [[ $IOS =~ ^[0-9]+$ ]] || [ "$IOS" -lt 64 ]; then
	fail "bench.sh: IOS '$IOS' is not a number of at least 64"
fi
# The 4k rows' random region, and the 128k rows' sequential one (both
# written once before the first row, so reads read written blocks).
REGION4K=64M REGION128K=128M
SQ_SNAPSHOTS=0

{
	echo "kernel $(uname -r)"
	echo "nvme-cli $(nvme version | awk '{print $3; exit}')"
	echo "fio $(fio --version)"
	echo "vcpus $(nproc)"
	echo "ios $IOS"
	echo "rows ${ROWS:-all}"
	echo "mode $MODE"
} >"$OUT/info"

setup_fabric
setup_target 1:0 2:16
setup_host
KIND=$(driver_kind)
[ "$KIND" = "$want" ] || fail "modprobe nvme_rdma loaded the $KIND driver ($(modinfo -n nvme_rdma)), expected $want"
echo "driver $KIND $(modinfo -n nvme_rdma)" >>"$OUT/info"

# The counters: lib.sh's (commands, queue_rq, send posts, send and recv
# CQEs, LOCAL_INVs, and the series' recv posts) and more of the bench's
# own, each required (a function missing from kallsyms fails the boot,
# naming it):
#   bench_post_recv (upstream): nvme_rdma_post_recv, every ib_post_recv
#     the driver makes. It can be inlined (gcc kept it out of line in
#     Debian's builds); an out-of-line copy may still be inlined at a call
#     site, so every row also checks that recv posts equal recv CQEs (each
#     response's buffer is posted again from nvme_rdma_recv_done): a hot
#     call site inlined fails the first row. The series' receive posts are
#     its tracepoint nvme_rdma_post_recv (lib.sh), one per chain of
#     NVME_RDMA_RECV_BATCH (8) buffers: every row checks recv posts =
#     recv CQEs / 8 within a chain per queue.
#   bench_reg_mr: ib_mr_pool_get (ib_core, exported, so never inlined into
#     the driver): one MR taken per REG_MR WR the host posts. The target
#     takes none on rxe: rdma_rw registers MRs only for iWARP, devices with
#     max_sgl_rd, or ib_core.force_mr. Upstream has no other way to count
#     its REG_MRs (chained unsignaled in front of the SEND).
#   bench_poll: nvme_rdma_poll (blk-mq ->poll, called through a pointer).
TRACING=/sys/kernel/tracing
# no_probes: nothing counts: no kprobe, uprobe or dynamic event defined,
# no kprobe registered by anyone (debugfs' kprobes/list), no trace event
# enabled and no tracer set in the top buffer or any instance, no function
# traced. A time boot checks it before every row.
no_probes() {
	local what='' f n
	for f in $TRACING/kprobe_events $TRACING/uprobe_events $TRACING/dynamic_events \
		$TRACING/enabled_functions /sys/kernel/debug/kprobes/list \
		"$TRACING"/set_event "$TRACING"/instances/*/set_event; do
		[ -e "$f" ] || continue
		n=$(grep -c . "$f" || true)
		[ "$n" = 0 ] || what+=" ${f#"$TRACING"/}: $n ($(head -2 "$f" | tr '\n' ' '))"
	done
	for f in "$TRACING"/current_tracer "$TRACING"/instances/*/current_tracer; do
		[ -e "$f" ] || continue
		[ "$(cat "$f")" = nop ] || what+=" ${f#"$TRACING"/}: $(cat "$f")"
	done
	[ -z "$what" ] || fail "time boot: something counts:$what"
}
bench_probe() {
	local name=$1 fn=$2 syms s n=0
	syms=$(kallsyms_copies "$fn")
	[ -n "$syms" ] ||
		fail "counter: $fn, required by the bench with the $KIND driver, is not in /proc/kallsyms (inlined?): its calls cannot be counted"
	for s in $syms; do
		echo "p:benchcnt/$name${n#0} $s" >>$TRACING/kprobe_events || fail "kprobe on $s refused"
		n=__$((${n#__} + 1))
	done
}
if [ "$MODE" = count ]; then
	counters_arm
	[ "$KIND" = series ] || bench_probe bench_post_recv nvme_rdma_post_recv
	bench_probe bench_reg_mr ib_mr_pool_get
	bench_probe bench_poll nvme_rdma_poll
	echo 1 >$TRACING/events/benchcnt/enable || fail "enabling the bench's kprobe counters failed"
	echo "$CNT_INFO; bench: recv posts ($([ "$KIND" = series ] && echo tracepoint nvme_rdma_post_recv || echo nvme_rdma_post_recv)), ib_mr_pool_get (REG_MRs), nvme_rdma_poll" >>"$OUT/info"
else
	no_probes
	echo "counters none: time boot (no kprobe, no trace event)" >>"$OUT/info"
fi

# snap: every counter's calls so far, "name calls" per line.
snap() {
	{
		counters_read
		awk '$1 ~ /^bench_/ { n = $1; sub(/__[0-9]+$/, "", n); c[n] += $2 + $3 }
		     END { for (n in c) print n, c[n] }' $TRACING/kprobe_profile
	}
}
# extra BEFORE AFTER: "post_recv reg_mr poll" calls between two snaps.
extra() {
	awk -v fb="$1" 'BEGIN { while ((getline l < fb) > 0) { split(l, a, " "); b[a[1]] = a[2] } }
	{ d[$1] = $2 - b[$1] }
	END { printf "%d %d %d\n", d["bench_post_recv"], d["bench_reg_mr"], d["bench_poll"] }' "$2"
}

# within A B: A is B within 2% + 2 (a keepalive or an AER may cross a
# snapshot; the same tolerance as the boot test's bounds).
within() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * 0.02 + 2) }'; }

CTRL='' DEV='' MAP=''
conn_open() {
	local conn=$1 port=1 mark
	local opts=()
	case "$conn" in
	d) ;;
	q1) opts=(--nr-io-queues 1) ;;
	poll) opts=(--nr-poll-queues 1) ;;
	p2) port=2 ;;
	*) fail "unknown connection '$conn'" ;;
	esac
	mark=$(dmesg | wc -l)
	CTRL=$(connect "$port" "${opts[@]}")
	DEV=$(ns_dev "$CTRL" 1)
	[ -n "$DEV" ] || fail "no namespace 1 of $NQN on $CTRL"
	# nvme-rdma says how it mapped its queues (default/read/poll).
	MAP=$(dmesg | tail -n +$((mark + 1)) | grep -o "$CTRL: mapped [0-9/]* default/read/poll" | tail -1 | awk '{ print $3 }' || true)
	case "$conn:$MAP" in
	q1:1/0/0 | poll:*/1 | d:*/0 | p2:*/0) ;;
	*) fail "$CTRL ($conn, port $port): queues mapped '${MAP:-?}' default/read/poll, not what the rows need" ;;
	esac
	if [ "$conn" = poll ] && [ "$(sysattr "/sys/block/$DEV/queue/io_poll")" != 1 ]; then
		fail "/dev/$DEV does not poll (io_poll is not 1)"
	fi
	phase "connected $CTRL ($conn) on port $port, sqsize $(cat "/sys/class/nvme/$CTRL/sqsize"), queues $MAP, /dev/$DEV"
	echo "conn $conn port $port ctrl $CTRL sqsize $(cat "/sys/class/nvme/$CTRL/sqsize") queues $MAP" >>"$OUT/info"
}

# Both regions written once, so that every read reads written blocks and
# the measured rows see the same null_blk state in every boot.
fill() {
	phase "fill: $REGION128K sequential 128k writes on /dev/$DEV"
	step 900 fio --eta=never --name=fill --filename="/dev/$DEV" --direct=1 \
		--ioengine=libaio --rw=write --bs=128k --iodepth=8 --size=$REGION128K \
		--output="$OUT/fio/fill.txt" || fail "fill fio failed"
}

# idle_or_fail NAME PORT: the send rings are idle after the row (read
# after fio, outside the timed run, in both modes).
idle_or_fail() {
	local credits
	credits=$(credits_idle "$CTRL")
	case "$credits" in
	idle | skipped:*) ;;
	*) fail "$1 on port $2: send ring not idle: $credits" ;;
	esac
}

# run_row I N NAME CONN RW BS ENGINE QD BATCH JOBS
run_row() {
	local i=$1 total=$2 name=$3 conn=$4 rw=$5 bs=$6 engine=$7 qd=$8 batch=$9 jobs=${10}
	local port=1 json=$OUT/fio/$i-$3.json poll=0 n before after sqb sqa sq ios ms snapfn
	local rq posts send recv inv prc regmr polls stalls wrs credits cmds rposts nq unsignaled
	local args=(--name="$name" --filename="/dev/$DEV" --direct=1 --rw="$rw" --bs="$bs"
		--ioengine="$engine" --iodepth="$qd"
		--iodepth_batch_submit="$batch" --iodepth_batch_complete_min="$batch")
	[ "$conn" = p2 ] && port=2
	if [ "$conn" = poll ]; then
		args+=(--hipri)
		poll=1
	fi
	case "$rw" in rand*) args+=(--randrepeat=1 --norandommap) ;; esac
	# I/Os per job (the 128k rows do a 16th of the 4k rows' count).
	if [ "$bs" = 4k ]; then
		n=$((IOS / jobs))
		args+=(--size="$REGION4K" --io_size="$((n * 4))k")
	else
		n=$((IOS / 16 / jobs))
		args+=(--size="$REGION128K" --io_size="$((n * 128))k")
	fi
	# Pinned: one job on vCPU 0, two jobs one on each vCPU.
	if [ "$jobs" = 1 ]; then
		args+=(--cpus_allowed=0)
	else
		args+=(--numjobs="$jobs" --cpus_allowed=0-$((jobs - 1)) --cpus_allowed_policy=split)
	fi
	sq=$(cat "/sys/class/nvme/$CTRL/sqsize")
	phase "row $i/$total $name (port $port, $conn, $MODE)"
	# Count boots read the counters (snap) around fio; time boots read
	# nothing and check that no probe is on (no_probes).
	snapfn=snap
	if [ "$MODE" != count ]; then
		snapfn=''
		no_probes
	fi
	FM_MARK=$OUT/wall/$i FM_LABEL="fio $name on port $port" fio_measure "$CTRL" "$json" "$snapfn" plain 900 "${args[@]}"
	ios=$FM_IOS ms=$FM_MS
	before=$FM_BEFORE after=$FM_AFTER sqb=$FM_SQB sqa=$FM_SQA
	if [ "$MODE" = time ]; then
		idle_or_fail "$name" "$port"
		# The counts are the count boots': "-" here.
		printf '%s\t' "$i" "$name" "$port" "$conn" "$MAP" "$sq" "$rw" "$bs" "$engine" "$qd" \
			"$batch" "$jobs" "$poll" "$ios" "$ms" - - - - - - - - - - >>"$OUT/bench-raw.tsv"
		printf '%s\n' - >>"$OUT/bench-raw.tsv"
		return 0
	fi
	read -r cmds posts send recv inv rposts rq stalls _ < <(counters_delta "$before" "$after")
	read -r prc regmr polls < <(extra "$before" "$after")
	[ "$KIND" != series ] || prc=$rposts
	# Series: WRs its send rings took, from its debugfs state (every
	# queue, admin included).
	wrs=- nq=0 unsignaled=0
	if [ -s "$sqa" ]; then
		# unsignaled: 1 if no queue took as many WRs as its interval, so
		# that none of them had to be signaled.
		read -r wrs nq unsignaled < <(sq_delta "$sqb" "$sqa" |
			awk '{ w += $4; n++; if ($4 >= $3) sig = 1 } END { print w + 0, n + 0, (n && !sig) ? 1 : 0 }')
	elif [ "$KIND" = series ]; then
		fail "$name: the series is loaded and /sys/kernel/debug/nvme_rdma/$CTRL/send_ring cannot be read"
	fi
	fio_measure_done
	# The series signals one WR per interval: a row whose queues each took
	# fewer WRs than their interval (a small BENCH_IOS) has no send CQE to
	# count. Any other row must have some.
	if [ "$cmds" -le 0 ] || [ "$posts" -le 0 ] || { [ "$send" -le 0 ] && [ "$unsignaled" != 1 ]; } ||
		[ "$recv" -le 0 ] || [ "$prc" -le 0 ]; then
		fail "$name: a counter read zero: commands $cmds send posts $posts send CQEs $send recv CQEs $recv recv posts $prc"
	fi
	if [ "$KIND" = series ]; then
		# Chains of 8, the bound of the boot test (scripts/common/row-bounds.sh).
		awk -v p="$prc" -v c="$recv" -v n="$nq" "$RECV_CHAIN_AWK"' BEGIN { exit !recv_chains_fit(p, c, n) }' ||
			fail "$name: $prc receive chains posted for $recv recv CQEs: not one chain of 8 per 8 responses"
	else
		within "$prc" "$recv" ||
			fail "$name: $prc nvme_rdma_post_recv calls for $recv recv CQEs: a call site inlines it, recv posts cannot be counted"
	fi
	within "$cmds" "$recv" ||
		fail "$name: $cmds commands completed (nvme_complete_rq) for $recv responses: the command count is wrong"
	[ "$poll" = 0 ] || [ "$polls" -gt 0 ] || fail "$name: polled row, nvme_rdma_poll never called"
	idle_or_fail "$name" "$port"
	printf '%s\t' "$i" "$name" "$port" "$conn" "$MAP" "$sq" "$rw" "$bs" "$engine" "$qd" \
		"$batch" "$jobs" "$poll" "$ios" "$ms" "$rq" "$stalls" "$posts" "$send" "$recv" \
		"$prc" "$inv" "$regmr" "$wrs" "$polls" >>"$OUT/bench-raw.tsv"
	printf '%s\n' "$cmds" >>"$OUT/bench-raw.tsv"
}

mkdir -p "$OUT/fio" "$OUT/wall"
printf 'row\tworkload\tport\tconn\tqueues\tsqsize\trw\tbs\tengine\tiodepth\tbatch\tjobs\tpoll\tios\truntime_ms\tqueue_rq\tstalls\tsend_posts\tsend_cqes\trecv_cqes\trecv_posts\tlocal_inv\treg_mr\twrs\tpolls\tcmds\n' >"$OUT/bench-raw.tsv"
mapfile -t rows < <(bench_guest_plan "$ROWS" "$(nproc)")
[ ${#rows[@]} -gt 0 ] || fail "no row matches '$ROWS' on a guest with $(nproc) vCPUs (polled rows: 1, others: 2)"
for r in "${rows[@]}"; do
	read -r name _ _ _ _ _ _ jobs <<<"$r"
	[ "$jobs" -le "$(nproc)" ] || fail "$name: $jobs pinned jobs, the guest has $(nproc) vCPUs"
done
cur='' filled=0 i=0
for r in "${rows[@]}"; do
	read -r name conn rw bs engine qd batch jobs <<<"$r"
	i=$((i + 1))
	if [ "$conn" != "$cur" ]; then
		[ -z "$cur" ] || disconnect "$CTRL"
		conn_open "$conn"
		cur=$conn
		if [ $filled = 0 ]; then
			fill
			filled=1
		fi
	fi
	run_row "$i" "${#rows[@]}" "$name" "$conn" "$rw" "$bs" "$engine" "$qd" "$batch" "$jobs"
done
disconnect "$CTRL"
phase dmesg-scan
scan_dmesg
awk '{ print $1 }' /proc/uptime >"$OUT/guest-seconds"
phase finished
