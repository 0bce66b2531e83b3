#!/usr/bin/env bash
# Build the modules of the upstream import (the unpatched driver) in the
# same object tree and stage them in $BUILD/modroot-$SUFFIX-NAME, so the
# same kernel image boots with either driver. The series only touches
# modular code, so the image and vermagic are the same for both. With a
# DIFF, the upstream import plus that diff (a throwaway variant, e.g. the
# negative control); with "series" after the DIFF, the series' tip plus
# the test instrument (tests/instrument) plus that diff (a control that
# breaks the series itself). Skipped when the
# staged modules already match this tree, diff and kernel configuration.
# Usage: build-baseline.sh [NAME DIFF [series]]   (default: upstream, no diff)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=${1:-upstream} diff=${2:-} on=${3:-upstream}
case "$on" in upstream | series) ;; *) die "build-baseline.sh: the variant's base is upstream or series, not '$on'" ;; esac
dest=$BUILD/modroot-$SUFFIX-$name
log_file=$LOGS/build-$name-$SUFFIX.log
[ -f "$OBJ/.config" ] || die "no configured kernel in $OBJ: run 'make build' first"
[ -z "$diff" ] || [ -f "$diff" ] || die "no diff at $diff"
[ -z "$diff" ] || diff=$(readlink -f "$diff")
# The upstream Kconfig lacks the series' KUnit symbol, so its build drops
# that line from .config (and the next series build adds it back).
rev=upstream
[ "$on" = upstream ] || rev=HEAD
stamp="$(git -C "$TREE" rev-parse "$rev") $(grep -v NVME_RDMA_KUNIT "$OBJ/.config" | sha256sum | cut -c1-16)"
[ -z "$diff" ] || stamp+=" $(sha256sum <"$diff" | cut -c1-16)"
# A series variant carries the test instrument, as the guest kernel does.
[ "$on" = upstream ] || stamp+=" instrument $(sha256sum <"$(instrument_diff)" | cut -c1-16)"
# The test rxe it carries, with our rxe fixes (build-rxe-strict.sh).
stamp+=" rxe $(cat "$TOP"/fixes/rxe/[0-9][0-9][0-9][0-9]-*.patch "$TOP/tests/rxe-strict/rxe-strict.patch" | sha256sum | cut -c1-16)"
if [ "$(cat "$dest/stamp" 2>/dev/null)" = "$stamp" ]; then
	log "$name modules in $dest are current"
	exit 0
fi
cd "$TREE"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit or 'make export' them first"
tip=$(git rev-parse HEAD)
trap 'git -C "$TREE" checkout -q -f "$tip"' EXIT
[ "$on" = series ] || git checkout -q upstream
[ "$on" = upstream ] || apply_instrument
if [ -n "$diff" ]; then
	git apply "$diff" || die "$diff does not apply to the $on of $BASE"
fi
log "building $name modules (log: $log_file)"
kmake -j"$(nproc)" modules >"$log_file" 2>&1 ||
	die "$name module build failed (see $log_file)"
rm -rf "$dest"
kmake INSTALL_MOD_PATH="$dest" modules_install >>"$log_file" 2>&1 ||
	die "$name modules_install failed (see $log_file)"
git -C "$TREE" checkout -q -f "$tip"
trap - EXIT
RXE_FIXES=1 "$TOP/scripts/host/build-rxe-strict.sh" "$dest"
echo "$stamp" >"$dest/stamp"
log "$name modules staged in $dest"
