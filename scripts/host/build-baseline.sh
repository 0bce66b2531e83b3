#!/usr/bin/env bash
# Build the modules of the upstream import (the unpatched driver) in the
# same object tree and stage them in $UP_MODROOT, so the same kernel image
# boots with either driver. The series only touches modular code, so the
# image and vermagic are the same for both. Skipped when the staged
# modules already match this tree and kernel configuration.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dest=$UP_MODROOT
log_file=$LOGS/build-upstream-$SUFFIX.log
[ -f "$OBJ/.config" ] || die "no configured kernel in $OBJ: run 'make build' first"
# The upstream Kconfig lacks the series' KUnit symbol, so its build drops
# that line from .config (and the next series build adds it back).
stamp="$(git -C "$TREE" rev-parse upstream) $(grep -v NVME_RDMA_KUNIT "$OBJ/.config" | sha256sum | cut -c1-16)"
if [ "$(cat "$dest/stamp" 2>/dev/null)" = "$stamp" ]; then
	log "upstream modules in $dest are current"
	exit 0
fi
cd "$TREE"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit or 'make export' them first"
tip=$(git rev-parse HEAD)
trap 'git -C "$TREE" checkout -q "$tip"' EXIT
git checkout -q upstream
log "building upstream modules (log: $log_file)"
kmake -j"$(nproc)" modules >"$log_file" 2>&1 ||
	die "upstream module build failed (see $log_file)"
rm -rf "$dest"
kmake INSTALL_MOD_PATH="$dest" modules_install >>"$log_file" 2>&1 ||
	die "upstream modules_install failed (see $log_file)"
echo "$stamp" >"$dest/stamp"
log "upstream modules staged in $dest"
