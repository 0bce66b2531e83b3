#!/usr/bin/env bash
# Build the modules of the upstream import (the unpatched driver) in the
# same object tree and stage them in $BUILD/modroot-<ver>-upstream, so the
# same kernel image boots with either driver. The series only touches
# modular code, so the image and vermagic are the same for both.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dest=$BUILD/modroot-${BASE#linux-}-upstream
[ -f "$OBJ/.config" ] || die "no configured kernel in $OBJ: run 'make build' first"
cd "$TREE"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit or 'make export' them first"
tip=$(git rev-parse HEAD)
trap 'git -C "$TREE" checkout -q "$tip"' EXIT
git checkout -q upstream
log "building upstream modules (log: $LOGS/build-upstream.log)"
kmake -j"$(nproc)" modules >"$LOGS/build-upstream.log" 2>&1 ||
	die "upstream module build failed (see $LOGS/build-upstream.log)"
rm -rf "$dest"
kmake INSTALL_MOD_PATH="$dest" modules_install >>"$LOGS/build-upstream.log" 2>&1 ||
	die "upstream modules_install failed (see $LOGS/build-upstream.log)"
log "upstream modules staged in $dest"
