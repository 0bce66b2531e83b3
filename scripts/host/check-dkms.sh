#!/usr/bin/env bash
# The DKMS package: it builds, carries no kernel source, and its source
# preparation refuses every kernel it must not build for, each with a
# one-line cause (dpkg-query answers are faked on PATH), and prepares and
# builds against the installed headers when the versions match.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

deb=$("$TOP/scripts/host/build-dkms-deb.sh")
ver=$(cat "$TOP/dkms/VERSION")
work=$BUILD/dkms/check
rm -rf "$work"
mkdir -p "$work/bin"
dpkg-deb -x "$deb" "$work/pkg"
src=$work/pkg/usr/src/nvme-rdma-sq-$ver
fake=$work/bin/dpkg-query
# The fake answers "PKG=VERSION" pairs from $FAKE_PKGS, else not installed.
cat >"$fake" <<'FAKE'
#!/bin/sh
for a; do pkg=$a; done
for pv in $FAKE_PKGS; do
	[ "${pv%%=*}" = "$pkg" ] && { printf '%s' "${pv#*=}"; exit 0; }
done
exit 1
FAKE
chmod +x "$fake"

# case NAME KVER FAKE_PKGS EXPECTED: the prepared tree must be refused
# with a cause matching EXPECTED, or prepared (EXPECTED "ok").
failures=0
case_() {
	local name=$1 kver=$2 pkgs=$3 want=$4 d=$work/$1 got
	cp -r "$src" "$d"
	(cd "$d" && PATH=$work/bin:$PATH FAKE_PKGS=$pkgs ./prepare-source.sh "$kver") >"$d.log" 2>&1 || true
	if [ "$want" = ok ]; then
		[ -f "$d/src/rdma.c" ] && [ -f "$d/src/rdma_send_ring.h" ] && [ -f "$d/src/rdma_trace.h" ] && [ ! -e "$d/src/REFUSED" ] &&
			got=ok || got="not prepared: $(cat "$d.log")"
	elif [ -e "$d/src/REFUSED" ] && grep -q -- "$want" "$d/src/REFUSED" &&
		[ "$(wc -l <"$d/src/REFUSED")" = 1 ] &&
		! make -s -C "$d" KDIR=/nonexistent >"$d.make.log" 2>&1 &&
		grep -q -- "$want" "$d.make.log"; then
		got=$want
	else
		got="not refused as expected: $(cat "$d/src/REFUSED" "$d.log" 2>/dev/null | head -2)"
	fi
	if [ "$got" = "$want" ]; then
		printf '%-22s ok   %s\n' "$name" "$(cat "$d/src/REFUSED" 2>/dev/null || echo prepared)"
	else
		printf '%-22s FAIL %s\n' "$name" "$got"
		failures=$((failures + 1))
	fi
}

v61=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo 6.1.192-3)
k61=6.1.0-99-amd64
case_ no-kernel-package "$k61" "" "no Debian package linux-headers-$k61"
case_ no-series-for-base 5.10.0-30-amd64 "linux-headers-5.10.0-30-amd64=5.10.220-1" "no series for Linux 5.10"
case_ no-source-package "$k61" "linux-headers-$k61=$v61" "linux-source-6.1 is not installed"
case_ source-version-differs "$k61" "linux-headers-$k61=$v61+x1 linux-source-6.1=$v61" \
	"kernel is Debian $v61+x1 but linux-source-6.1 is $v61"
if [ -f /usr/src/linux-source-6.1.tar.xz ]; then
	case_ versions-match "$k61" "linux-headers-$k61=$v61 linux-source-6.1=$v61" ok
fi

# headers_kver BASE: the Debian kernel whose headers package has exactly
# the installed linux-source-X.Y's version (what prepare-source.sh demands),
# e.g. 6.1.0-57-amd64 or 6.12.118+deb12-amd64; empty if apt has none.
headers_kver() {
	local mm=${1#linux-} want p v
	want=$(dpkg-query -W -f='${Version}' "$(source_pkg "$1")" 2>/dev/null) || return 0
	while read -r p _; do
		v=$(apt-cache show --no-all-versions "$p" 2>/dev/null | sed -n 's/^Version: //p')
		[ "$v" = "$want" ] && { echo "${p#linux-headers-}"; return 0; }
	done < <(apt-cache search --names-only "^linux-headers-${mm//./\\.}[.0-9]*(-[0-9]+)?(\+deb[0-9]+)?-amd64\$" | sort -rV)
	return 0
}

# The real thing, for every base we carry a series for: the Debian headers
# of the kernel matching the installed linux-source (installed here, so a
# fresh machine builds too), W=1, no warnings, and our modinfo fields. A
# base whose headers cannot be found or installed fails; so does a run
# that built nothing.
built=0
for base in linux-6.12 linux-6.1; do
	[ -f "$TOP/patches/$base/series" ] || continue
	kver=$(headers_kver "$base")
	if [ -z "$kver" ]; then
		# A fresh machine may have stale package lists: once more after an update.
		apt-get update -qq >/dev/null 2>&1 || true
		kver=$(headers_kver "$base")
	fi
	if [ -z "$kver" ]; then
		printf '%-22s FAIL %s\n' "build-$base" "no linux-headers-*-amd64 of version $(dpkg-query -W -f='${Version}' "$(source_pkg "$base")" 2>/dev/null || echo '?') ($(source_pkg "$base")) in apt"
		failures=$((failures + 1))
		continue
	fi
	if ! "$TOP/scripts/host/deps.sh" "linux-headers-$kver"; then
		printf '%-22s FAIL %s\n' "build-$kver" "installing linux-headers-$kver failed"
		failures=$((failures + 1))
		continue
	fi
	b=/usr/src/linux-headers-$kver
	d=$work/build-$kver
	cp -r "$src" "$d"
	(cd "$d" && ./prepare-source.sh "$kver" && make KDIR="$b" W=1) >"$d.log" 2>&1 || true
	if [ -f "$d/src/nvme-rdma.ko" ] && ! grep -q 'warning:' "$d.log" &&
		[ "$(modinfo -F version "$d/src/nvme-rdma.ko")" = "$ver" ] &&
		[ "$(modinfo -F vermagic "$d/src/nvme-rdma.ko" | cut -d' ' -f1)" = "$kver" ]; then
		printf '%-22s ok   %s\n' "build-$kver" "$(modinfo -F series "$d/src/nvme-rdma.ko")"
		built=$((built + 1))
	else
		printf '%-22s FAIL %s\n' "build-$kver" "see $d.log: $(grep -m1 -E 'warning:|error|refusing' "$d.log" || true)"
		failures=$((failures + 1))
	fi
done
[ "$built" -gt 0 ] || { echo "check-dkms: no module was built (no base with a series and Debian headers)"; failures=$((failures + 1)); }
[ "$failures" -eq 0 ] || die "check-dkms: $failures case(s) failed (logs: $work)"
log "check-dkms: package $(basename "$deb") passed, module built for $built kernel(s)"
