#!/usr/bin/env bash
# Export the tree's commits on top of the upstream import back to
# patches/$BASE: stable file names, no commit ids or tool versions, so an
# unchanged patch gives no diff. The cover letter is kept by hand.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
dir=$TOP/patches/$BASE
mkdir -p "$dir"
find "$dir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-cover-letter.patch' -delete
git -C "$TREE" format-patch -q --zero-commit --no-signature --no-numbered \
	-o "$dir" upstream..HEAD
for f in "$dir"/[0-9][0-9][0-9][0-9]-*.patch; do
	[ -e "$f" ] || continue
	case "${f##*/}" in 0000-cover-letter.patch) ;; *) echo "${f##*/}" ;; esac
done >"$dir/series"
# The tree is now what patches/ describes.
tree_stamp >"$TREE/.git/tree-stamp"
log "exported $(wc -l <"$dir/series") patches to patches/$BASE"
