#!/bin/bash
# What a kernel's debug checkers cost (guest side, under icount TCG, so
# guest seconds count instructions): verified fio on one soft-RoCE port,
# connect/disconnect cycles, and, where kmemleak runs, one full scan.
# The periodic kmemleak scan is stopped at once, as make stress does; one
# scan is timed on its own.
# Writes $OUT/cost.tsv: metric, value.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

k=/sys/kernel/debug/kmemleak
kmemleak=absent
if [ -e $k ]; then
	kmemleak=on
	echo scan=off >$k 2>/dev/null || kmemleak=off
fi
echo "kernel $(uname -r) cmdline $(cat /proc/cmdline)" >"$OUT/info"

setup_fabric
setup_target 1:0
setup_host
printf 'metric\tvalue\n' >"$OUT/cost.tsv"
put() { printf '%s\t%s\n' "$1" "$2" >>"$OUT/cost.tsv"; }
put kmemleak "$kmemleak"
# The switches as the kernel took them (a misspelt one is ignored).
put prove_locking "$(cat /sys/module/lockdep/parameters/prove_locking 2>/dev/null || echo -)"
put "dma-api disabled" "$(cat /sys/kernel/debug/dma-api/disabled 2>/dev/null || echo -)"
put "debug objects pool used" "$(awk -F: '/^pool_used/ { gsub(/ /, "", $2); print $2 }' /sys/kernel/debug/debug_objects/stats 2>/dev/null || echo -)"
put checkers "$(zcat /proc/config.gz | sed -nE 's/^CONFIG_(KASAN|UBSAN|PROVE_LOCKING|DMA_API_DEBUG|DEBUG_KMEMLEAK|DEBUG_OBJECTS)=y/\1/p' | paste -sd, | grep . || echo none)"

# Guest seconds (instructions under icount) of a command, 3 decimals.
gsec() {
	local t0 t1
	t0=$(date +%s%N)
	"$@"
	t1=$(date +%s%N)
	awk -v d=$((t1 - t0)) 'BEGIN { printf "%.3f", d / 1e9 }'
}

cycle() {
	local c
	c=$(connect 1)
	disconnect "$c"
}
phase "connect cycles"
put "connect+disconnect s" "$(gsec cycle)"
put "connect+disconnect s (2nd)" "$(gsec cycle)"

ctrl=$(connect 1)
# IOPS of one verified fio job: writes, then the verify reads.
fio_iops() {
	local name=$1
	shift
	phase "fio $name" >&2
	FM_LABEL="fio $name" fio_measure "$ctrl" "$OUT/fio-$name.json" "" plain 1800 --name="$name" --filename="/dev/${ctrl}n1" \
		--direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 "$@" >&2
	echo "$FM_IOPS"
}
put "4k randwrite qd16 IOPS" "$(fio_iops 4k --ioengine=libaio --rw=randwrite --bs=4k --size=4M --iodepth=16)"
put "128k write qd8 IOPS" "$(fio_iops 128k --ioengine=libaio --rw=write --bs=128k --size=16M --iodepth=8)"
disconnect "$ctrl"
if [ "$kmemleak" = on ]; then
	phase "kmemleak scan"
	put "kmemleak scan s" "$(gsec sh -c "echo scan >$k")"
fi
scan_dmesg
phase finished
