#!/usr/bin/env bash
# make bench: one kernel image booted with the upstream module root
# (build-baseline.sh) and with the series', under instruction-counted TCG
# (boot.sh ICOUNT=1: guest time counts instructions, so a row's IOPS repeat
# across boots), BENCH_BOOTS boots per driver, the upstream and the series
# boot of each round side by side (one TCG guest takes about one core).
# Every round boots each driver twice: a 2-vCPU guest runs the rows of
# scripts/guest/bench.sh once (4k random read and write over io_uring at
# QD 1, 8, 32, 128, unbatched and in batches of QD/2, libaio QD 32, one
# and two pinned jobs on one I/O queue, 128k sequential writes, and the
# QD 32 rows again on the 16-deep target port), then a 1-vCPU guest runs
# the polled-queue rows (bench_guest_plan says why: on two vCPUs they do
# not repeat).
# Timing and counting never share a boot: the BENCH_BOOTS time rounds run
# with no kprobe and no tracepoint enabled (the guest checks before every
# row) and give the IOPS; then BENCH_COUNT_BOOTS count rounds run the same
# rows with the kprobe and tracepoint counters on and give the figures per
# NVMe command (and, beside them, the IOPS counting leaves, to show what
# it costs each driver).
# BENCH_AA=1 (make bench-aa): the series against itself, two labels (a, b)
# booted exactly as upstream and series are: the changes it reports are
# the method's own bias and noise.
# Writes $LOGS/bench.tsv (per driver and row: means and the IOPS spread of
# the repeats), $LOGS/bench-runs.tsv (every run), $LOGS/bench.txt (upstream
# against series) and $LOGS/bench.png (an A/A run: bench-aa.*, and it
# leaves the upstream/series run's files alone); each boot's logs in
# $LOGS/bench-DRIVER-N/, $LOGS/bench-DRIVER-N-1cpu/ and, for the count
# rounds, $LOGS/bench-DRIVER-count-N{,-1cpu}/. Exits non-zero if a boot
# failed (the report is still written, the failed boot's rows marked); a
# row whose IOPS spread is 1% or more is flagged in the table, not dropped.
# Env: BENCH_BOOTS (default 3) time boots per driver = repeats per row;
#      BENCH_COUNT_BOOTS (default 1; 0 with BENCH_AA=1) count boots;
#      BENCH_IOS (default 16384) 4k I/Os per row, 128k rows a 16th;
#      BENCH_ROWS (debugging) only rows whose name contains one of these
#      comma-separated strings; BENCH_BOOT_TIMEOUT (default 2400) seconds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

boots=${BENCH_BOOTS:-3} ios=${BENCH_IOS:-16384} rows=${BENCH_ROWS:-}
timeout_s=${BENCH_BOOT_TIMEOUT:-2400}
aa=${BENCH_AA:-0}
case "$aa" in 0) labels=(upstream series) cboots=${BENCH_COUNT_BOOTS:-1} out=bench ;;
1) labels=(a b) cboots=${BENCH_COUNT_BOOTS:-0} out=bench-aa ;;
*) die "BENCH_AA '$aa' is neither 0 nor 1" ;;
esac
[[ $boots =~ ^[1-9][0-9]*$ ]] || die "BENCH_BOOTS '$boots' is not a positive number"
[[ $cboots =~ ^[0-9]+$ ]] || die "BENCH_COUNT_BOOTS '$cboots' is not a number"
[[ $ios =~ ^[1-9][0-9]*$ ]] || die "BENCH_IOS '$ios' is not a number"
[ "$ios" -ge 64 ] || die "BENCH_IOS $ios: at least 64 (the 128k rows do a 16th)"
[[ $rows =~ ^[A-Za-z0-9,._-]*$ ]] || die "BENCH_ROWS '$rows': comma-separated parts of row names, no spaces"
guest=$TOP/scripts/guest/bench.sh
py=/usr/bin/python3 # Debian's, which has python3-matplotlib

"$TOP/scripts/host/deps.sh" python3-matplotlib
"$TOP/scripts/host/build-baseline.sh"
release=$(cat "$OBJ/include/config/kernel.release")
mkdir -p "$LOGS"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Before any guest time is spent: each module root's nvme-rdma.ko defines
# every function the guest counts (the guest checks again in kallsyms and
# fails naming the one missing), and the series root holds the series.
# FN.isra.N / FN.constprop.N clones count as FN, as in the guest.
module_syms() {
	local ko
	ko=$(find "$1/lib/modules/$release" -name 'nvme-rdma.ko*' | head -1)
	[ -n "$ko" ] || die "no nvme-rdma.ko under $1/lib/modules/$release"
	case "$ko" in
	*.ko) cat "$ko" ;;
	*.ko.xz) xz -dc "$ko" ;;
	*.ko.zst) zstd -dc "$ko" ;;
	*.ko.gz) gzip -dc "$ko" ;;
	*) die "$ko: unknown module compression" ;;
	esac >"$tmp/m.ko" || die "cannot read $ko"
	nm --defined-only "$tmp/m.ko" | awk '{ print $3 }' |
		sed -E 's/(\.(isra|constprop)\.[0-9]+)+$//' | sort -u
}
need="nvme_rdma_queue_rq nvme_rdma_send_done nvme_rdma_recv_done nvme_rdma_poll"
for d in upstream series; do
	root=$MODROOT
	[ $d = upstream ] && root=$UP_MODROOT
	module_syms "$root" >"$tmp/$d.syms"
	if [ $d = upstream ] && grep -qx nvme_rdma_commit_rqs "$tmp/$d.syms"; then
		die "$root holds the series' nvme-rdma.ko, not the upstream driver"
	fi
	# Upstream's posts and send-side completions have functions of their
	# own; the series' are its tracepoints and nvme_rdma_send_done.
	want="$need nvme_rdma_post_send nvme_rdma_post_recv nvme_rdma_memreg_done nvme_rdma_inv_rkey_done nvme_rdma_async_done"
	[ $d = upstream ] || want="$need nvme_rdma_commit_rqs __tracepoint_nvme_rdma_post_send __tracepoint_nvme_rdma_post_recv __tracepoint_nvme_rdma_send_stall"
	for f in $want; do
		grep -qx "$f" "$tmp/$d.syms" ||
			die "$d driver ($root): $f is not in nvme-rdma.ko (inlined?): the bench cannot count its calls"
	done
done

plan=$LOGS/$out-plan.txt
"$guest" list "$rows" >"$plan"
nrows=$(wc -l <"$plan")
[ "$nrows" -gt 0 ] || die "BENCH_ROWS '$rows' matches no row ('$guest list' shows them)"
# Only this kind of run's boots and files: an A/A run keeps the last
# upstream/series run, and the other way round.
for l in "${labels[@]}"; do rm -rf "$LOGS/bench-$l-"[0-9]* "$LOGS/bench-$l-count-"[0-9]*; done
rm -f "$LOGS/$out.tsv" "$LOGS/$out-runs.tsv" "$LOGS/$out.txt" "$LOGS/$out.png"
# The guests a round boots per driver: "2" (2 vCPUs) and "1cpu" (1 vCPU),
# as far as the plan has rows for them; which rows run where is the
# guest's rule (bench.sh list-guest).
kinds=()
[ -z "$("$guest" list-guest 2 "$rows")" ] || kinds+=(2)
[ -z "$("$guest" list-guest 1 "$rows")" ] || kinds+=(1cpu)
[ ${#kinds[@]} -gt 0 ] || die "'$guest list-guest' gives no guest any of the $nrows planned rows"

# run_boot MODE LABEL N KIND: boot N of LABEL in MODE (time or count), a
# 2-vCPU guest (KIND 2, in $LOGS/bench-LABEL-N, count rounds
# bench-LABEL-count-N) or a 1-vCPU one (1cpu: that name + -1cpu); its host
# wall seconds in that directory's name + .wall. LABEL upstream boots the
# upstream module root, every other label the series'. The guest's
# progress (row i/n) shows on the terminal every minute (boot.sh).
run_boot() {
	local mode=$1 d=$2 n=$3 name smp=2 root=$MODROOT drv=series t0=$SECONDS rc=0
	name=bench-$d-$([ "$mode" = time ] || echo count-)$n
	[ "$d" = upstream ] && root=$UP_MODROOT drv=upstream
	[ "$4" = 2 ] || name+=-1cpu smp=1
	# APPEND empty: nothing on the kernel command line (ftrace=,
	# trace_event=, kprobe_event=) may count in a time boot.
	APPEND='' SMP=$smp MODROOT=$root ICOUNT=1 "$TOP/scripts/host/boot.sh" "$name" "$timeout_s" \
		"$guest" "$mode" "$drv" "$ios" ${rows:+"$rows"} || rc=$?
	echo $((SECONDS - t0)) >"$LOGS/$name.wall"
	return $rc
}

# round MODE N TOTAL: one round, the two labels side by side per guest kind.
round() {
	local mode=$1 n=$2 total=$3 k sfx pa pb t0=$SECONDS a=${labels[0]} b=${labels[1]} dir
	log "bench $mode round $n/$total: $a and $b side by side"
	for k in "${kinds[@]}"; do
		sfx=''
		[ "$k" = 2 ] || sfx=-$k
		dir=$([ "$mode" = time ] || echo count-)$n$sfx
		run_boot "$mode" "$a" "$n" "$k" &
		pa=$!
		run_boot "$mode" "$b" "$n" "$k" &
		pb=$!
		wait $pa || failed+=("$a-$dir")
		wait $pb || failed+=("$b-$dir")
		log "bench $mode round $n/$total, $([ -n "$sfx" ] && echo 1-vCPU || echo 2-vCPU) guests done (guest s: $a $(cat "$LOGS/bench-$a-$dir/guest-seconds" 2>/dev/null || echo -), $b $(cat "$LOGS/bench-$b-$dir/guest-seconds" 2>/dev/null || echo -))"
		[ ${#failed[@]} -eq 0 ] || break
	done
	log "bench $mode round $n/$total done in $(((SECONDS - t0) / 60))m$(((SECONDS - t0) % 60))s"
	if [ "$n" = 1 ] && [ "$mode" = time ]; then
		log "bench: at this pace all $((boots + cboots)) rounds take about $(((SECONDS - t0) * (boots + cboots) / 60)) minutes"
	fi
}

log "bench: $nrows rows x $boots time rounds + $cboots count rounds, ${#kinds[@]} guest(s) per label and round (2 vCPUs; polled rows: 1), $ios 4k I/Os per row, ${labels[0]} against ${labels[1]}${rows:+ (BENCH_ROWS=$rows: partial)}"
failed=()
for mode in time count; do
	total=$boots
	[ $mode = time ] || total=$cboots
	for n in $(seq "$total"); do
		round $mode "$n" "$total"
		if [ ${#failed[@]} -gt 0 ]; then
			log "bench: boot ${failed[*]} failed: no further rounds"
			break 2
		fi
	done
done

pkg=$(source_pkg "$BASE")
title="make bench$([ "$aa" = 0 ] || echo "-aa (A/A: the series twice)") $(date -u +%Y-%m-%d): $pkg $(source_version "$BASE"), kernel $release, $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo '?'), $boots time rounds (nothing counting) + $cboots count rounds (polled rows on 1 vCPU), $ios 4k I/Os per row${rows:+, partial: BENCH_ROWS=$rows}"
"$py" "$TOP/scripts/host/bench-report.py" --labels "${labels[0]},${labels[1]}" --count-boots "$cboots" \
	--out "$out" "$LOGS" "$boots" "$plan" "$title" >/dev/null ||
	die "bench-report.py failed"
cat "$LOGS/$out.txt"
"$py" "$TOP/scripts/host/bench-plot.py" "$LOGS/$out.tsv" "$LOGS/$out.png" "$title" ||
	failed+=("plot (bench-plot.py)")
echo
echo "make bench: files"
echo "  comparison table  $LOGS/$out.txt"
echo "  per label x row   $LOGS/$out.tsv (header line; bench-report.py --columns says what each column is)"
echo "  every run         $LOGS/$out-runs.tsv"
echo "  plot              $LOGS/$out.png"
echo "  boots             $LOGS/bench-{${labels[0]},${labels[1]}}-{1..$boots}{,-1cpu}/ (time), bench-*-count-N*/ (count): console.log, bench-raw.tsv, fio/, info"
[ ${#failed[@]} -eq 0 ] || die "bench failed: ${failed[*]} (boot logs: $LOGS/bench-<driver>-<n>/)"
