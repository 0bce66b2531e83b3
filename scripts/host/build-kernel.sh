#!/usr/bin/env bash
# Configure and build the guest kernel for $BASE, then stage its modules in
# $MODROOT (the host has no /lib/modules; the guest mounts this instead).
# Usage: build-kernel.sh [fragment...]   (extra fragments: config/debug.config)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
mkdir -p "$OBJ" "$LOGS"
frags=("$TOP/config/base.config" "$@")
[ "$VARIANT" != debug ] || frags+=("$TOP/config/debug.config")
# The KUnit suite exists only once the series adds it.
grep -qs 'config NVME_RDMA_KUNIT_TEST' "$TREE/drivers/nvme/host/Kconfig" &&
	frags+=("$TOP/config/kunit.config")

# Always re-merge: cheap, and it restores options that a checkout of an
# older commit (check-series, baseline modules) dropped via syncconfig.
# Unchanged options keep their timestamps, so warm builds stay warm.
log "configuring: defconfig + kvm_guest.config + ${frags[*]##*/}"
kmake defconfig >"$LOGS/config-$SUFFIX.log" 2>&1
(cd "$OBJ" && "$TREE/scripts/kconfig/merge_config.sh" -m .config \
	"$TREE/kernel/configs/kvm_guest.config" "${frags[@]}") >>"$LOGS/config-$SUFFIX.log" 2>&1
kmake olddefconfig >>"$LOGS/config-$SUFFIX.log" 2>&1
"$TOP/scripts/host/check-config.sh" "$OBJ/.config" "${frags[@]}" ||
	die "required kernel options did not stick after olddefconfig (see above)"

log "building bzImage and modules (-j$(nproc)), log: $LOGS/build-$SUFFIX.log"
if ! kmake -j"$(nproc)" bzImage modules >"$LOGS/build-$SUFFIX.log" 2>&1; then
	grep -E 'error:|Error [0-9]' "$LOGS/build-$SUFFIX.log" | head -5 >&2
	die "kernel build failed (see $LOGS/build-$SUFFIX.log)"
fi
rm -rf "$MODROOT"
kmake INSTALL_MOD_PATH="$MODROOT" modules_install >"$LOGS/modules_install-$SUFFIX.log" 2>&1 ||
	die "modules_install failed (see $LOGS/modules_install-$SUFFIX.log)"
# What this build is made of, for the summaries.
{
	echo "source $(cut -d' ' -f1-2 "$TREE/.git/tree-stamp")"
	echo "patches $(git -C "$TREE" rev-list --count upstream..HEAD)"
	echo "head $(git -C "$TREE" log -1 --format='%h %s')"
} >"$OBJ/build-info"
log "kernel $(kmake -s kernelrelease) built"
