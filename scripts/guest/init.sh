#!/bin/bash
# PID 1 of the test guest. The root is the host's userspace, read-only over
# 9p; build a writable overlay on top of it, mount the staged modules at
# /lib/modules and the host's result directory at /mnt/out, then run the
# requested guest script inside it and power off.
# Kernel command line: init=.../init.sh -- RELEASE SCRIPT [ARGS...]
set -u
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

release=$1
shift
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run
mkdir -p /run/ovl/upper /run/ovl/work /run/ovl/root
if ! mount -t overlay overlay \
	-o lowerdir=/,upperdir=/run/ovl/upper,workdir=/run/ovl/work /run/ovl/root; then
	echo "init: overlay root failed" >&2
	echo o >/proc/sysrq-trigger
fi
r=/run/ovl/root
for d in proc sys dev; do mount --rbind /$d $r/$d; done
mount -t tmpfs tmp $r/tmp
mount -t tmpfs run $r/run
mkdir -p $r/dev/shm $r/dev/pts $r/lib/modules $r/mnt/out
mount -t tmpfs shm $r/dev/shm
mount -t devpts devpts $r/dev/pts
mount -t 9p -o trans=virtio,version=9p2000.L,ro modules $r/lib/modules
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out $r/mnt/out
mount -t configfs configfs $r/sys/kernel/config
mount -t debugfs debugfs $r/sys/kernel/debug
mount -t tracefs tracefs $r/sys/kernel/tracing 2>/dev/null
ln -sf /proc/self/fd $r/dev/fd
ln -sf /proc/self/fd/0 $r/dev/stdin
ln -sf /proc/self/fd/1 $r/dev/stdout
ln -sf /proc/self/fd/2 $r/dev/stderr
[ -d "$r/lib/modules/$release" ] || echo "init: no modules for $release" >&2
hostname guest

echo "PHASE: guest-init"
chroot $r /usr/bin/env -i PATH="$PATH" HOME=/root TERM=dumb \
	SYSTEMD_IGNORE_CHROOT=1 "$@" </dev/console >/dev/console 2>&1
rc=$?
echo "$rc" >$r/mnt/out/rc
sync
echo "PHASE: poweroff (rc $rc)"
echo o >/proc/sysrq-trigger
sleep 10
