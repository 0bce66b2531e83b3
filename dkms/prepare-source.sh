#!/bin/sh
# DKMS PRE_BUILD: fill src/ with the target kernel's own rdma.c, nvme.h and
# fabrics.h, taken from the installed linux-source-X.Y of exactly the
# target kernel's Debian version, with the series for that base applied
# (which adds rdma_send_ring.h and rdma_trace.h).
# Anything else is refused: src/REFUSED holds the one-line cause, which
# the Makefile prints and fails on (dkms ignores PRE_BUILD's status).
# Usage: prepare-source.sh KERNELVER   (run in the dkms build directory)
set -eu
kver=$1
here=$(pwd)
name=nvme-rdma-sq
ver=$(cat VERSION)

rm -rf src
mkdir src
refuse() {
	echo "$name: refusing to build for $kver: $*" | tee src/REFUSED >&2
	exit 0
}

# The target kernel's Debian version: from its headers package (the
# headers dkms builds against), else from its image package.
kpkg_ver=
for p in "linux-headers-$kver" "linux-image-$kver" "linux-image-$kver-unsigned"; do
	kpkg_ver=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null) && [ -n "$kpkg_ver" ] && break
	kpkg_ver=
done
[ -n "$kpkg_ver" ] || refuse "no Debian package linux-headers-$kver or linux-image-$kver is installed"

# 6.1.0-57-amd64 -> 6.1, 6.12.118+deb12-amd64 -> 6.12
base=$(echo "$kver" | sed -n 's/^\([0-9]*\.[0-9]*\)[.-].*/\1/p')
[ -n "$base" ] && [ -f "patches/linux-$base/series" ] ||
	refuse "no series for Linux ${base:-?} in this package (it carries: $(ls patches | paste -sd' '))"

spkg=linux-source-$base
tarball=/usr/src/$spkg.tar.xz
src_ver=$(dpkg-query -W -f='${Version}' "$spkg" 2>/dev/null) || src_ver=
[ -n "$src_ver" ] && [ -f "$tarball" ] ||
	refuse "$spkg is not installed (apt-get install $spkg=$kpkg_ver)"
[ "$src_ver" = "$kpkg_ver" ] ||
	refuse "kernel is Debian $kpkg_ver but $spkg is $src_ver (apt-get install $spkg=$kpkg_ver)"

# Only the files the series touches, plus the private headers rdma.c
# includes; --occurrence stops reading the tarball once all are found.
top=$spkg/drivers/nvme/host
cd src
tar -xJf "$tarball" --occurrence=1 --strip-components=4 \
	"$top/rdma.c" "$top/nvme.h" "$top/fabrics.h" "$top/Kconfig" "$top/Makefile" ||
	refuse "$tarball lacks drivers/nvme/host/{rdma.c,nvme.h,fabrics.h}"
mkdir -p drivers/nvme/host
mv rdma.c nvme.h fabrics.h Kconfig Makefile drivers/nvme/host/
n=0
while read -r p; do
	case "$p" in "" | "#"*) continue ;; esac
	patch -p1 -N -s --no-backup-if-mismatch <"$here/patches/linux-$base/$p" >patch.log 2>&1 ||
		refuse "patch $p does not apply to $spkg $src_ver: $(head -1 patch.log)"
	n=$((n + 1))
done <"$here/patches/linux-$base/series"
mv drivers/nvme/host/rdma.c drivers/nvme/host/rdma_send_ring.h \
	drivers/nvme/host/rdma_trace.h drivers/nvme/host/nvme.h \
	drivers/nvme/host/fabrics.h .
rm -rf drivers patch.log
cp "$here/Kbuild" "$here/version.c" .
{
	echo "#define NVME_RDMA_SQ_VERSION \"$ver\""
	echo "#define NVME_RDMA_SQ_SERIES \"linux-$base $n patches on $spkg $src_ver\""
} >version.h
echo "$name: $n patches of linux-$base applied to $spkg $src_ver for $kver"
