#!/usr/bin/env bash
# Configure and build the guest kernel for $BASE, then stage its modules in
# $MODROOT (the host has no /lib/modules; the guest mounts this instead).
# Usage: build-kernel.sh [fragment...]   (see configure-kernel.sh)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/host/configure-kernel.sh" "$@"

log "building bzImage and modules (-j$(nproc)), log: $LOGS/build-$SUFFIX.log"
# Progress: objects written since the build started.
mark=$LOGS/.build-start-$SUFFIX
touch "$mark"
objects() { echo "$(find "$OBJ" -name '*.o' -newer "$mark" | wc -l) objects compiled"; }
kmake -j"$(nproc)" bzImage modules >"$LOGS/build-$SUFFIX.log" 2>&1 &
pid=$!
progress_while $pid "building $SUFFIX" objects
if ! wait $pid; then
	grep -E 'error:|Error [0-9]' "$LOGS/build-$SUFFIX.log" | head -5 >&2
	die "kernel build failed (see $LOGS/build-$SUFFIX.log)"
fi
rm -rf "$MODROOT"
kmake INSTALL_MOD_PATH="$MODROOT" modules_install >"$LOGS/modules_install-$SUFFIX.log" 2>&1 ||
	die "modules_install failed (see $LOGS/modules_install-$SUFFIX.log)"
# The test-only rxe (off unless its module parameters are set) rides along.
RXE_FIXES=1 "$TOP/scripts/host/build-rxe-strict.sh" "$MODROOT"
# What this build is made of, for the summaries.
{
	echo "source $(cut -d' ' -f1-2 "$TREE/.git/tree-stamp")"
	echo "patches $(git -C "$TREE" rev-list --count upstream..HEAD)"
	echo "head $(git -C "$TREE" log -1 --format='%h %s')"
} >"$OBJ/build-info"
log "kernel $(kmake -s kernelrelease) built"
