#!/bin/bash
# PID 1 of the test guest. The root is the host's userspace, read-only over
# 9p; pivot into a writable overlay on top of it (so that the kernel's own
# modprobe calls see it too), mount the staged modules at /lib/modules and
# the host's result directory at /mnt/out, run the requested guest script
# and power off.
# Kernel command line: init=.../init.sh -- RELEASE SCRIPT [ARGS...]
set -u
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

release=$1
shift
halt() {
	sync
	echo o >/proc/sysrq-trigger
	sleep 30
}

mount -t proc proc /proc
mount -t tmpfs run /run
mkdir -p /run/ovl/upper /run/ovl/work /run/ovl/root
mount -t overlay overlay -o lowerdir=/,upperdir=/run/ovl/upper,workdir=/run/ovl/work \
	/run/ovl/root || { echo "init: overlay root failed" >&2; halt; }
mkdir -p /run/ovl/root/.oldroot
cd /run/ovl/root || halt
pivot_root . .oldroot || { echo "init: pivot_root failed" >&2; halt; }
cd /
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# /tmp stays the overlay's (writable, backed by the tmpfs upper): a tmpfs
# mounted there would hide a project checked out under the host's /tmp.
mount -t tmpfs run /run
mkdir -p /dev/shm /dev/pts /lib/modules /mnt/out
mount -t tmpfs shm /dev/shm
mount -t devpts devpts /dev/pts
# The staged modules, read-only, under a writable overlay: depmod and a
# DKMS install (the distro test) write into RAM, never into the host's.
mkdir -p /run/mods/lower /run/mods/upper /run/mods/work
mount -t 9p -o trans=virtio,version=9p2000.L,ro modules /run/mods/lower
mount -t overlay overlay -o lowerdir=/run/mods/lower,upperdir=/run/mods/upper,workdir=/run/mods/work \
	/lib/modules || { echo "init: overlay on /lib/modules failed" >&2; halt; }
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /mnt/out
# A guest pair (two-host runs) shares a directory for handshakes.
if grep -qsx peer /sys/bus/virtio/drivers/9pnet_virtio/*/mount_tag; then
	mkdir -p /mnt/peer
	mount -t 9p -o trans=virtio,version=9p2000.L peer /mnt/peer
fi
# configfs is a module in Debian's kernels (the distro test).
[ -d /sys/kernel/config ] || modprobe configfs
mount -t configfs configfs /sys/kernel/config
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
[ -d "/lib/modules/$release" ] || echo "init: no modules for $release" >&2
hostname guest

echo "PHASE: guest-init"
/usr/bin/env -i PATH="$PATH" HOME=/root TERM=dumb "$@" </dev/console >/dev/console 2>&1
rc=$?
echo "$rc" >/mnt/out/rc
echo "PHASE: poweroff (rc $rc)"
halt
