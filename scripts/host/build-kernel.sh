#!/usr/bin/env bash
# Configure and build the guest kernel for $BASE, then stage its modules in
# $MODROOT (the host has no /lib/modules; the guest mounts this instead).
# Usage: build-kernel.sh [fragment...]   (see configure-kernel.sh)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/host/configure-kernel.sh" "$@"

# The series' tip plus the test instrument (debugfs ring state for the
# guest scripts), restored to the tip whatever happens.
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit or 'make export' them first"
tip=$(git -C "$TREE" rev-parse HEAD)
trap 'git -C "$TREE" checkout -q -f "$tip"' EXIT
apply_instrument

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
git -C "$TREE" checkout -q -f "$tip"
trap - EXIT
# The test-only rxe (off unless its module parameters are set) rides along.
RXE_FIXES=1 "$TOP/scripts/host/build-rxe-strict.sh" "$MODROOT"
# What this build is made of, for the summaries.
{
	echo "source $(cut -d' ' -f1-2 "$TREE/.git/tree-stamp")"
	echo "patches $(git -C "$TREE" rev-list --count upstream..HEAD)"
	echo "head $(git -C "$TREE" log -1 --format='%h %s')"
	echo "instrument tests/instrument/$BASE.diff $(sha256sum <"$(instrument_diff)" | cut -c1-16)"
} >"$OBJ/build-info"
log "kernel $(kmake -s kernelrelease) built"
