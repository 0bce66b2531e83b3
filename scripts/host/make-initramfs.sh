#!/usr/bin/env bash
# An initramfs for booting a Debian kernel binary on the 9p root: busybox,
# scripts/guest/initramfs-init.sh as /init, and the modules a 9p root and
# init.sh's overlays need, with their dependencies, decompressed.
# Usage: make-initramfs.sh MODROOT KERNELVER OUTPUT
set -euo pipefail
. "$(dirname "$0")/lib.sh"
root=$1 kver=$2 output=$3
busybox=/bin/busybox
file "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	die "$busybox is not the static busybox: apt-get install busybox-static"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/modules" "$tmp/proc" "$tmp/dev" "$tmp/newroot"
cp "$busybox" "$tmp/bin/busybox"
cp "$TOP/scripts/guest/initramfs-init.sh" "$tmp/init"
# Dependencies first, in modprobe's order; "builtin" lines need nothing.
modprobe -d "$root" -S "$kver" -a --show-depends virtio_pci 9pnet_virtio 9p overlay \
	>"$tmp/deps" || die "modprobe --show-depends failed for $kver in $root"
awk '$1 == "insmod" { print $2 }' "$tmp/deps" | while read -r ko; do
	name=$(basename "$ko")
	case "$name" in
	*.ko.xz) xz -dc "$ko" >"$tmp/modules/${name%.xz}" ;;
	*.ko.zst) zstd -qdc "$ko" >"$tmp/modules/${name%.zst}" ;;
	*.ko) cp "$ko" "$tmp/modules/" ;;
	*) die "unexpected module file $ko" ;;
	esac
	# Each once: modprobe lists a shared dependency again.
	grep -qx "${name%.ko*}.ko" "$tmp/modules/order" 2>/dev/null ||
		echo "${name%.ko*}.ko" >>"$tmp/modules/order"
done
[ -s "$tmp/modules/order" ] || die "no modules for the initramfs (deps: $(cat "$tmp/deps"))"
(cd "$tmp" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$output"
log "initramfs $output: $(paste -sd' ' "$tmp/modules/order")"
