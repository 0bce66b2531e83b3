#!/usr/bin/env bash
# The distro test: Debian's own kernel binary for $BASE (not our build)
# boots with the project's initramfs, installs the DKMS package, runs the
# soft-RoCE I/O check on the DKMS module, removes the package and runs it
# again on the stock module. Prints both result tables.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The guest runs the host's userspace: dpkg -i in the guest needs the
# host's dkms (dh-dkms, which builds the package, does not pull it in).
"$TOP/scripts/host/deps.sh" dkms
deb=$("$TOP/scripts/host/build-dkms-deb.sh")
version=$(cat "$TOP/dkms/VERSION")
kver=$("$TOP/scripts/host/distro-kernel.sh")
dir=$BUILD/distro/$kver
name=distro-$kver
log "distro test on Debian's $kver with $(basename "$deb")"
KERNEL_IMAGE=$dir/vmlinuz KERNEL_RELEASE=$kver INITRD=$dir/initrd.img MODROOT=$dir/root \
	"$TOP/scripts/host/boot.sh" "$name" "${BOOT_TIMEOUT:-2400}" \
	"$TOP/scripts/guest/distro-dkms.sh" "$deb" "$version" ||
	die "distro test on $kver failed (logs: $LOGS/$name)"
out=$LOGS/$name
echo "== distro test: Debian $kver, $(basename "$deb")"
echo "dkms module: $(grep -E '^(filename|version|series):' "$out/modinfo-dkms.txt" | awk '{$1=$1; print}' | paste -sd';')"
for run in dkms stock; do
	echo
	echo "-- $run: $(sed -n 's/^driver //p' "$out/$run/info")"
	column -t -s "$(printf '\t')" "$out/$run/results.tsv"
done
