#!/usr/bin/env bash
# Install the Debian packages the build, the guest and the checks need,
# plus any named on the command line (the DKMS and distro-kernel scripts).
# Usage: deps.sh [EXTRA_PACKAGE...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(
	# kernel build and checks
	build-essential flex bison bc libelf-dev libssl-dev cpio kmod ccache
	sparse python3-ply rsync xz-utils git shellcheck
	# the VM and what runs inside it (host userspace is the guest's root)
	qemu-system-x86 nvme-cli fio iproute2 uuid-runtime gawk util-linux
	procps xfsprogs liburing-dev udev iputils-ping
)
# Sources from the system's apt; linux-7.3 is fetched at the end.
for b in linux-7.3 linux-6.12 linux-6.1; do
	[ -d "$TOP/patches/$b" ] && [ -z "$(source_suite "$b")" ] && pkgs+=("$(source_pkg "$b")")
done
pkgs+=("$@")

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
fetch_sources() {
	local b
	for b in linux-7.3 linux-6.12 linux-6.1; do
		if [ -d "$TOP/patches/$b" ] && [ -n "$(source_suite "$b")" ]; then
			"$TOP/scripts/host/fetch-source.sh" "$b"
		fi
	done
}
# install_missing: the Debian packages of $missing, with the system's apt.
install_missing() {
	command -v apt-get >/dev/null || die "packages missing and no apt-get: ${missing[*]}"
	[ "$(id -u)" -eq 0 ] || die "packages missing, need root for apt-get: ${missing[*]}"
	log "apt-get install ${missing[*]}"
	apt-get update -qq >"$BUILD/apt.log" 2>&1 || die "apt-get update failed (see $BUILD/apt.log)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >>"$BUILD/apt.log" 2>&1 ||
		die "apt-get install failed for: ${missing[*]} (see $BUILD/apt.log)"
}

mkdir -p "$BUILD"
[ ${#missing[@]} -eq 0 ] || install_missing
fetch_sources
"$TOP/scripts/host/build-sparse.sh"
