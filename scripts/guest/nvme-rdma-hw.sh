#!/bin/bash
# Hardware mode: the boot test's I/O check (fio verify, call counters, idle
# credits, dmesg scan) on a machine with a real RDMA device, run as root
# on that machine (a bare CI host with mlx5, or the test VM with rxe).
# It writes only to a namespace it created (loopback: nvmet on a fresh
# null_blk) or to the one named with --scratch-nsid on a remote target,
# and only after checking that nothing on this host uses it.
#
# Usage: nvme-rdma-hw.sh --device DEV --loopback [--out DIR]
#        nvme-rdma-hw.sh --device DEV --remote ADDR --nqn NQN
#                        --scratch-nsid N [--svcid 4420] [--out DIR]
#   DEV: an RDMA device of `rdma link show` (mlx5_0, rxe0), ACTIVE, whose
#   netdev has an IPv4 address (loopback: the target listens there).
# Results: DIR/results.tsv, DIR/info, DIR/dmesg.txt, DIR/error on failure.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
usage() { sed -n 's/^# \{0,1\}//; /^Usage:/,/^Results:/p' "$0" >&2; exit 2; }

dev="" mode="" remote="" rnqn="" nsid="" svcid=4420
OUT=${OUT:-$PWD/nvme-rdma-hw-$(date +%Y%m%d-%H%M%S)}
while [ $# -gt 0 ]; do
	case "$1" in
	--device) dev=$2; shift 2 ;;
	--loopback) mode=loopback; shift ;;
	--remote) mode=remote remote=$2; shift 2 ;;
	--nqn) rnqn=$2; shift 2 ;;
	--scratch-nsid) nsid=$2; shift 2 ;;
	--svcid) svcid=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	*) usage ;;
	esac
done
# Refusals come before anything is created or connected.
refuse() { echo "nvme-rdma-hw: refusing: $*" >&2; exit 2; }
{ [ -n "$dev" ] && [ -n "$mode" ]; } || usage
[ "$(id -u)" -eq 0 ] || refuse "must run as root"
if [ "$mode" = remote ]; then
	[ -n "$rnqn" ] || refuse "--remote needs --nqn"
	[ -n "$nsid" ] || refuse "--remote writes only to a namespace named with --scratch-nsid N"
	case "$nsid$svcid" in *[!0-9]*) refuse "--scratch-nsid and --svcid take numbers" ;; esac
fi
export OUT
. "$here/lib.sh"
DMESG_FROM=$(dmesg | wc -l)
export DMESG_FROM

link=$(rdma link show 2>/dev/null | grep -E "^link $dev/[0-9]+ " | head -1 || true)
[ -n "$link" ] || refuse "no RDMA device $dev (rdma link show: $(rdma link show 2>&1 | paste -sd';'))"
case "$link" in *"state ACTIVE"*) ;; *) refuse "$dev is not ACTIVE: $link" ;; esac
netdev=$(echo "$link" | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
echo "device $link" >"$OUT/hw-info"
cfg=/sys/kernel/config/nvmet

# Undo what this run made: its connections (never a controller that was
# there before it started), and in loopback mode its nvmet ports,
# subsystem and null_blk. Best effort, never fails.
before=" "
for c in /sys/class/nvme/nvme*; do
	[ -e "$c" ] && before+="${c##*/} "
done
cleanup() {
	local c
	trap - ERR
	for c in /sys/class/nvme/nvme*; do
		case "$before" in *" ${c##*/} "*) continue ;; esac
		if [ "$(sysattr "$c/subsysnqn")" = "$NQN" ]; then
			nvme disconnect -d "${c##*/}" >/dev/null 2>&1 || true
		fi
	done
	if [ "$mode" = loopback ] && [ -n "${made:-}" ]; then
		rm -f "$cfg"/ports/{1,2}/subsystems/"$NQN" 2>/dev/null || true
		rmdir "$cfg"/ports/{1,2} 2>/dev/null || true
		rmdir "$cfg/subsystems/$NQN/namespaces/1" "$cfg/subsystems/$NQN" 2>/dev/null || true
		echo 0 >"$nullb/power" 2>/dev/null || true
		rmdir "$nullb" 2>/dev/null || true
		[ -z "${loaded_nullb:-}" ] || rmmod null_blk 2>/dev/null || true
	fi
	return 0
}
trap cleanup EXIT

if [ "$mode" = loopback ]; then
	ADDR=$(ip -4 -o addr show dev "$netdev" 2>/dev/null | awk '{print $4; exit}' | cut -d/ -f1)
	[ -n "$ADDR" ] || refuse "$dev's netdev ${netdev:-?} has no IPv4 address for the loopback target"
	NQN=nqn.2026-12.io.nvme-rdma-test:hw-$$
	step 60 modprobe nvmet_rdma || fail "modprobe nvmet_rdma failed"
	if [ -e "$cfg/ports/1" ] || [ -e "$cfg/ports/2" ]; then
		refuse "nvmet ports 1/2 exist on this host: use --remote against that target"
	fi
	# A null_blk of our own, beside any the host has (configfs, not
	# modprobe parameters): the only thing this run writes to.
	if ! lsmod | grep -q '^null_blk '; then
		step 60 modprobe null_blk nr_devices=0 || fail "modprobe null_blk failed"
		loaded_nullb=1
	fi
	# The disk is named after the configfs item (older kernels: nullbN).
	nullb=/sys/kernel/config/nullb/nullb-hw-$$
	mkdir "$nullb" || fail "null_blk configfs device creation failed"
	made=1
	echo 1024 >"$nullb/size"
	echo 1 >"$nullb/memory_backed"
	echo 1 >"$nullb/power" || fail "null_blk power-on failed"
	BACKING=/dev/${nullb##*/}
	[ -b "$BACKING" ] || BACKING=/dev/nullb$(cat "$nullb/index")
	[ -b "$BACKING" ] || fail "no $BACKING after null_blk power-on"
	export BACKING
	SVCID_BASE=4419 PORTS="1 2" NSID=1
	setup_target 1:0 2:16
else
	ADDR=$remote NQN=$rnqn SVCID_BASE=$((svcid - 1)) PORTS=1 NSID=$nsid
	step 60 modprobe nvme_rdma || fail "modprobe nvme_rdma failed"
	# Connect once to look at the namespace before anything writes to it.
	ctrl=$(NS_WAIT=0 connect 1)
	d=""
	for _ in $(seq 25); do
		d=$(ns_dev "$ctrl" "$nsid")
		[ -z "$d" ] || break
		sleep 0.2
	done
	[ -n "$d" ] || refuse "$NQN on $ADDR:$svcid has no namespace $nsid"
	use=$(grep -E "^/dev/$d(p[0-9]+)? " /proc/mounts || true)
	use+=$(ls "/sys/block/$d/holders" 2>/dev/null || true)
	use+=$(ls -d "/sys/block/$d/$d"p* 2>/dev/null || true)
	[ -z "$use" ] || refuse "namespace $nsid (/dev/$d) is in use here (mounts, holders or partitions): $use"
	disconnect "$ctrl"
fi
echo "target $mode $ADDR nqn $NQN" >>"$OUT/hw-info"
# The command counter (nvme_complete_rq) counts every NVMe controller's
# completions: other controllers' I/O during a row inflates its command
# count, and beyond the bounds' 2% + 2 its responses no longer match and
# the row fails; within them, every per-command figure moves by 2% at
# most, far less than what the bounds tell a broken driver by.
if [ -n "${before// /}" ]; then
	echo "other NVMe controllers:$before(their completions during a row count as commands)" >>"$OUT/hw-info"
	phase "note: NVMe controllers$before were here before the run; I/O on them during a row can fail that row's response count"
fi
export ADDR NQN SVCID_BASE PORTS NSID
phase "hardware mode: $mode target $ADDR, $dev"
TARGET=external "$here/nvme-rdma-io.sh" check
