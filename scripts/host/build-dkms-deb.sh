#!/usr/bin/env bash
# Build the DKMS Debian package: dkms/ (dkms.conf, the kbuild glue, the
# source preparation script, debian/) plus the series of every base, no
# kernel source. Output: $BUILD/dkms/nvme-rdma-sq-dkms_VERSION_all.deb
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/host/deps.sh" debhelper dh-dkms dpkg-dev
ver=$(cat "$TOP/dkms/VERSION")
out=$BUILD/dkms
stage=$out/nvme-rdma-sq-$ver
rm -rf "$out"
mkdir -p "$stage"
cp -r "$TOP"/dkms/. "$stage/"
for d in "$TOP"/patches/linux-*; do
	b=${d##*/}
	mkdir -p "$stage/patches/$b"
	cp "$d/series" "$stage/patches/$b/"
	BASE=$b series_patches | while read -r p; do cp "$d/$p" "$stage/patches/$b/"; done
done
# The changelog names the series each base carries.
{
	echo "nvme-rdma-sq ($ver) unstable; urgency=medium"
	echo
	for d in "$stage"/patches/linux-*; do
		echo "  * ${d##*/}: $(grep -cvE '^(#|$)' "$d/series") patches, series $(cat "$d"/*.patch | sha256sum | cut -c1-12)"
	done
	echo
	# Reproducible: the date of the last commit that touched dkms/ or patches/.
	echo " -- NVMe-RDMA Team <nvme-rdma@localhost>  $(git -C "$TOP" log -1 --format=%aD -- dkms patches 2>/dev/null || date -R)"
} >"$stage/debian/changelog"

log "building the DKMS package nvme-rdma-sq-dkms $ver, log: $out/build.log"
(cd "$stage" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1 ||
	die "dpkg-buildpackage failed (see $out/build.log)"
deb=$out/nvme-rdma-sq-dkms_${ver}_all.deb
[ -f "$deb" ] || die "dpkg-buildpackage made no $deb (see $out/build.log)"
dpkg-deb -c "$deb" | awk '{print $6}' >"$out/contents.txt"
grep -q "usr/src/nvme-rdma-sq-$ver/dkms.conf" "$out/contents.txt" ||
	die "$deb has no usr/src/nvme-rdma-sq-$ver/dkms.conf"
if grep -E '\.(c|h)$' "$out/contents.txt" | grep -v '/version\.c$'; then
	die "$deb carries kernel source files (listed above): it must carry patches only"
fi
log "package: $deb ($(du -k "$deb" | cut -f1) KiB)"
echo "$deb"
