#!/usr/bin/env bash
# Fetch Debian's own kernel binary for $BASE (the linux-image-*-amd64
# package whose version equals the installed linux-source's), unpack it
# without installing it, install its headers (what DKMS builds against)
# and make an initramfs for it. Prints the kernel release.
# Result: $BUILD/distro/KVER/{vmlinuz,initrd.img,root/lib/modules/KVER}
set -euo pipefail
. "$(dirname "$0")/lib.sh"

spkg=$(source_pkg "$BASE")
mm=${BASE#linux-}
"$TOP/scripts/host/deps.sh" "$spkg" busybox-static cpio file
want=$(dpkg-query -W -f='${Version}' "$spkg")
# Candidates: linux-image-6.1.0-57-amd64, linux-image-6.12.118+deb12-amd64.
img=
while read -r p _; do
	v=$(apt-cache show --no-all-versions "$p" 2>/dev/null | sed -n 's/^Version: //p')
	[ "$v" = "$want" ] && { img=$p; break; }
done < <(apt-cache search --names-only "^linux-image-${mm//./\\.}[.0-9]*(-[0-9]+)?(\+deb[0-9]+)?-amd64\$" | sort -rV)
[ -n "$img" ] || die "no linux-image-*-amd64 package of version $want ($spkg) in apt: run apt-get update"
kver=${img#linux-image-}
dir=$BUILD/distro/$kver
"$TOP/scripts/host/deps.sh" "linux-headers-$kver"

if [ ! -f "$dir/stamp" ] || [ "$(cat "$dir/stamp")" != "$img $want" ]; then
	log "fetching $img $want (apt-get download), unpacking into $dir"
	rm -rf "$dir"
	mkdir -p "$dir/root"
	(cd "$dir" && apt-get download -q "$img=$want" >download.log 2>&1) ||
		die "apt-get download $img=$want failed (see $dir/download.log)"
	dpkg-deb -x "$dir"/*.deb "$dir/root"
	cp "$dir/root/boot/vmlinuz-$kver" "$dir/vmlinuz"
	# Debian keeps modules under /lib (6.1) or /usr/lib (6.12).
	mods=$dir/root/lib/modules
	[ -d "$mods/$kver" ] || mods=$dir/root/usr/lib/modules
	[ -d "$mods/$kver" ] || die "$img has no modules directory for $kver"
	if [ "$mods" != "$dir/root/lib/modules" ]; then
		mkdir -p "$dir/root/lib"
		mv "$mods" "$dir/root/lib/modules"
	fi
	depmod -b "$dir/root" "$kver"
	# What dkms builds against, as the headers package links it.
	ln -sfn "/usr/src/linux-headers-$kver" "$dir/root/lib/modules/$kver/build"
	rm -f "$dir"/*.deb
	echo "$img $want" >"$dir/stamp"
fi
if [ ! "$dir/initrd.img" -nt "$TOP/scripts/guest/initramfs-init.sh" ]; then
	"$TOP/scripts/host/make-initramfs.sh" "$dir/root" "$kver" "$dir/initrd.img"
fi
echo "$kver"
