#!/usr/bin/env bash
# Configure $OBJ for $BASE: defconfig + kvm_guest.config + config/base.config,
# config/$BASE.config, config/$VARIANT.config (debug, kasan, mlx5), the KUnit
# fragment once the series adds the suite, and any extra fragments given.
# Fails if an option did not survive olddefconfig.
# Usage: configure-kernel.sh [fragment...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
mkdir -p "$OBJ" "$LOGS"
frags=("$TOP/config/base.config")
[ ! -f "$TOP/config/$BASE.config" ] || frags+=("$TOP/config/$BASE.config")
frags+=("$@")
# kasan.config only takes UBSAN out of debug.config.
[ "$VARIANT" != kasan ] || frags+=("$TOP/config/debug.config")
[ -z "$VARIANT" ] || frags+=("$TOP/config/$VARIANT.config")
grep -qs 'config NVME_RDMA_KUNIT_TEST' "$TREE/drivers/nvme/host/Kconfig" &&
	frags+=("$TOP/config/kunit.config")

# Always re-merge: cheap, and it restores options that a checkout of an
# older commit (check-series, baseline modules) dropped via syncconfig.
# Unchanged options keep their timestamps, so warm builds stay warm.
log "configuring $BASE: defconfig + kvm_guest.config + ${frags[*]##*/}"
kmake defconfig >"$LOGS/config-$SUFFIX.log" 2>&1
(cd "$OBJ" && "$TREE/scripts/kconfig/merge_config.sh" -m .config \
	"$TREE/kernel/configs/kvm_guest.config" "${frags[@]}") >>"$LOGS/config-$SUFFIX.log" 2>&1
kmake olddefconfig >>"$LOGS/config-$SUFFIX.log" 2>&1
"$TOP/scripts/host/check-config.sh" "$OBJ/.config" "${frags[@]}" ||
	die "required kernel options did not stick after olddefconfig (see above)"
