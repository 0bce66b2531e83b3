#!/bin/busybox sh
# shellcheck shell=sh
# /init of the initramfs for Debian's own kernels (make-initramfs.sh):
# load what a 9p root needs (virtio_pci and 9p are modules there), mount
# the host's userspace read-only and hand over to the init= of the
# command line (scripts/guest/init.sh), with the same arguments.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t devtmpfs dev /dev
while read -r m; do
	insmod "/modules/$m" || echo "initramfs: insmod $m failed"
done </modules/order
mkdir -p /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro /dev/root /newroot ||
	{ echo "initramfs: 9p root mount failed"; exec sh; }
init=$(sed -n 's/.* init=\([^ ]*\).*/\1/p' /proc/cmdline)
umount /proc /dev
exec switch_root /newroot "${init:-/sbin/init}" "$@"
