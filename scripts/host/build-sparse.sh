#!/usr/bin/env bash
# Build sparse from Debian sid's source package into $BUILD/tools (bin/sparse):
# Debian 12's sparse 0.6.4 does not parse Linux 7.x's headers
# (__typeof_unqual__) and then reports nothing. The source comes through a
# private deb-src list (apt-get source), so the system installs nothing
# from sid; it builds with Debian 12's compiler. Rebuilt only when missing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tools=$BUILD/tools
[ -x "$tools/bin/sparse" ] && exit 0
command -v dpkg-source >/dev/null || die "dpkg-source missing: install dpkg-dev (make deps)"
mkdir -p "$LOGS"
log "fetching sparse's source from Debian sid (private deb-src list in $BUILD/apt-sid)"
private_apt deb-src sid
apt=$APT_DIR opts=("${APT_OPTS[@]}")
src=$apt/src
rm -rf "$src"
mkdir -p "$src"
(cd "$src" && apt-get "${opts[@]}" source sparse) >"$apt/source.log" 2>&1 ||
	die "apt-get source sparse from sid failed (see $apt/source.log)"
dir=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name 'sparse-*' | head -1)
[ -n "$dir" ] || die "apt-get source sparse unpacked nothing (see $apt/source.log)"
log "building ${dir##*/} into $tools"
make -C "$dir" -j"$(nproc)" CC=gcc PREFIX="$tools" sparse >"$LOGS/build-sparse.log" 2>&1 ||
	die "sparse does not build (see $LOGS/build-sparse.log)"
mkdir -p "$tools/bin"
install -m 0755 "$dir/sparse" "$tools/bin/sparse"
log "sparse from Debian ${dir##*/} (it reports $("$tools/bin/sparse" --version)) in $tools/bin"
