#!/usr/bin/env bash
# Fetch the linux-source package of a base that the system's apt does not
# carry (linux-7.3: Debian trixie-backports) into $BUILD/src/PKG, with a
# private sources list, package lists and cache under $BUILD/apt-SUITE:
# apt-get download + dpkg-deb -x, so the Debian 12 system installs nothing.
# Usage: fetch-source.sh BASE
set -euo pipefail
. "$(dirname "$0")/lib.sh"

base=${1:?usage: fetch-source.sh BASE}
pkg=$(source_pkg "$base")
suite=$(source_suite "$base")
[ -n "$suite" ] || die "$base comes from the system's apt (make deps), not from fetch-source.sh"
dest=$BUILD/src/$pkg
[ -f "$dest/version" ] && [ -f "$(source_tarball "$base")" ] && exit 0

log "fetching $pkg from Debian $suite (private apt lists in $BUILD/apt-$suite)"
private_apt deb "$suite"
apt=$APT_DIR opts=("${APT_OPTS[@]}")
rm -f "$apt"/*.deb
(cd "$apt" && apt-get "${opts[@]}" download "$pkg") >"$apt/download.log" 2>&1 ||
	die "apt-get download $pkg from $suite failed (see $apt/download.log)"
deb=$(ls "$apt"/"$pkg"_*.deb)
rm -rf "$dest"
mkdir -p "$dest"
dpkg-deb -x "$deb" "$dest" || die "dpkg-deb -x $deb failed"
dpkg-deb -f "$deb" Version >"$dest/version"
[ -f "$(source_tarball "$base")" ] || die "$deb holds no $(source_tarball "$base")"
rm -f "$deb"
log "$pkg $(cat "$dest/version") in $dest"
