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
# not repeat). Figures are per NVMe command, from kprobe counters.
# Writes $LOGS/bench.tsv (per driver and row: means and the IOPS spread of
# the repeats), $LOGS/bench-runs.tsv (every run), $LOGS/bench.txt (upstream
# against series) and $LOGS/bench.png; each boot's logs in
# $LOGS/bench-DRIVER-N/ and $LOGS/bench-DRIVER-N-1cpu/. Exits non-zero if a boot failed (the report is
# still written, the failed boot's rows marked); a row whose IOPS spread
# is 1% or more is flagged in the table, not dropped.
# Env: BENCH_BOOTS (default 3) boots per driver = repeats per row;
#      BENCH_IOS (default 16384) 4k I/Os per row, 128k rows a 16th;
#      BENCH_ROWS (debugging) only rows whose name contains one of these
#      comma-separated strings; BENCH_BOOT_TIMEOUT (default 2400) seconds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

boots=${BENCH_BOOTS:-3} ios=${BENCH_IOS:-16384} rows=${BENCH_ROWS:-}
timeout_s=${BENCH_BOOT_TIMEOUT:-2400}
[[ $boots =~ ^[1-9][0-9]*$ ]] || die "BENCH_BOOTS '$boots' is not a positive number"
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

"$guest" list "$rows" >"$LOGS/bench-plan.txt"
nrows=$(wc -l <"$LOGS/bench-plan.txt")
[ "$nrows" -gt 0 ] || die "BENCH_ROWS '$rows' matches no row ('$guest list' shows them)"
rm -rf "$LOGS"/bench-upstream "$LOGS"/bench-series "$LOGS"/bench-upstream-[0-9]* "$LOGS"/bench-series-[0-9]* \
	"$LOGS"/bench.tsv "$LOGS"/bench-runs.tsv "$LOGS"/bench.txt "$LOGS"/bench.png
# The guests a round boots per driver: "2" (2 vCPUs) and "1cpu" (1 vCPU),
# as far as the plan has rows for them; which rows run where is the
# guest's rule (bench.sh list-guest).
kinds=()
[ -z "$("$guest" list-guest 2 "$rows")" ] || kinds+=(2)
[ -z "$("$guest" list-guest 1 "$rows")" ] || kinds+=(1cpu)
[ ${#kinds[@]} -gt 0 ] || die "'$guest list-guest' gives no guest any of the $nrows planned rows"

# run_boot DRIVER N KIND: boot N of DRIVER, a 2-vCPU guest (KIND 2, in
# $LOGS/bench-DRIVER-N) or a 1-vCPU one (1cpu, in bench-DRIVER-N-1cpu);
# its host wall seconds in that directory's name + .wall. The guest's
# progress (row i/n) shows on the terminal every minute (boot.sh).
run_boot() {
	local d=$1 n=$2 name=bench-$1-$2 smp=2 root=$MODROOT t0=$SECONDS rc=0
	[ "$d" = upstream ] && root=$UP_MODROOT
	[ "$3" = 2 ] || name+=-1cpu smp=1
	SMP=$smp MODROOT=$root ICOUNT=1 "$TOP/scripts/host/boot.sh" "$name" "$timeout_s" \
		"$guest" "$d" "$ios" ${rows:+"$rows"} || rc=$?
	echo $((SECONDS - t0)) >"$LOGS/$name.wall"
	return $rc
}

log "bench: $nrows rows x $boots rounds, ${#kinds[@]} guest(s) per driver and round (2 vCPUs; polled rows: 1), $ios 4k I/Os per row${rows:+ (BENCH_ROWS=$rows: partial)}"
failed=()
for n in $(seq "$boots"); do
	t0=$SECONDS
	log "bench round $n/$boots: upstream and series side by side"
	for k in "${kinds[@]}"; do
		sfx=''
		[ "$k" = 2 ] || sfx=-$k
		run_boot upstream "$n" "$k" &
		pu=$!
		run_boot series "$n" "$k" &
		ps=$!
		wait $pu || failed+=("upstream-$n$sfx")
		wait $ps || failed+=("series-$n$sfx")
		log "bench round $n/$boots, $([ -n "$sfx" ] && echo 1-vCPU || echo 2-vCPU) guests done (guest s: upstream $(cat "$LOGS/bench-upstream-$n$sfx/guest-seconds" 2>/dev/null || echo -), series $(cat "$LOGS/bench-series-$n$sfx/guest-seconds" 2>/dev/null || echo -))"
		[ ${#failed[@]} -eq 0 ] || break
	done
	log "bench round $n/$boots done in $(((SECONDS - t0) / 60))m$(((SECONDS - t0) % 60))s"
	if [ "$n" = 1 ] && [ "$boots" -gt 1 ]; then
		log "bench: at this pace all $boots rounds take about $(((SECONDS - t0) * boots / 60)) minutes"
	fi
	if [ ${#failed[@]} -gt 0 ]; then
		log "bench: boot ${failed[*]} failed: no further rounds"
		break
	fi
done

pkg=$(source_pkg "$BASE")
title="make bench $(date -u +%Y-%m-%d): $pkg $(dpkg-query -W -f='${Version}' "$pkg"), kernel $release, $boots rounds (polled rows on 1 vCPU), $ios 4k I/Os per row${rows:+, partial: BENCH_ROWS=$rows}"
"$py" "$TOP/scripts/host/bench-report.py" "$LOGS" "$boots" "$LOGS/bench-plan.txt" "$title" >/dev/null ||
	die "bench-report.py failed"
cat "$LOGS/bench.txt"
"$py" "$TOP/scripts/host/bench-plot.py" "$LOGS/bench.tsv" "$LOGS/bench.png" "$title" ||
	failed+=("plot (bench-plot.py)")
echo
echo "make bench: files"
echo "  comparison table  $LOGS/bench.txt"
echo "  per driver x row  $LOGS/bench.tsv (header line; columns in README.md, section Bench)"
echo "  every run         $LOGS/bench-runs.tsv"
echo "  plot              $LOGS/bench.png"
echo "  boots             $LOGS/bench-{upstream,series}-{1..$boots}{,-1cpu}/ (console.log, bench-raw.tsv, fio/, info)"
[ ${#failed[@]} -eq 0 ] || die "bench failed: ${failed[*]} (boot logs: $LOGS/bench-<driver>-<n>/)"
