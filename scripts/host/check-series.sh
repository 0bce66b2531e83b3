#!/usr/bin/env bash
# Series hygiene: every patch passes checkpatch --strict, every file it adds
# is covered by a MAINTAINERS entry, and the nvme host
# driver builds W=1 and sparse clean after each patch (bisectability), and
# sparse proves on a fixture (tests/sparse-fixture) that it really checks.
# Needs a configured, built $OBJ (make build). Leaves the tree at its tip.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$OBJ/.config" ] || die "no configured kernel in $OBJ: run 'make build' first"
[ -x "$(command -v "$SPARSE")" ] || die "no sparse at $SPARSE: run scripts/host/build-sparse.sh (make deps)"
cd "$TREE"
commits=$(git rev-list --reverse upstream..HEAD)
[ -n "$commits" ] || { log "series is empty: nothing to check"; exit 0; }
tip=$(git rev-parse HEAD)
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit or 'make export' them first"
trap 'git -C "$TREE" checkout -q "$tip"' EXIT

# checkpatch's SPDX check wants ply: Debian's python3 has it.
export PATH=/usr/bin:$PATH
bad=0
i=0
for c in $commits; do
	i=$((i + 1))
	subj=$(git log -1 --format=%s "$c")
	log "patch $i: $subj"
	# FILE_PATH_CHANGES only asks whether MAINTAINERS needs updating for
	# a new file; answer it for real below instead of ignoring it.
	if ! git format-patch -1 --stdout "$c" |
		./scripts/checkpatch.pl --strict --quiet --no-summary \
			--ignore FILE_PATH_CHANGES - >"$LOGS/checkpatch-$SUFFIX-$i.log" 2>&1; then
		sed 's/^/    /' "$LOGS/checkpatch-$SUFFIX-$i.log" | head -20
		echo "error: patch $i ($subj): checkpatch --strict not clean" >&2
		bad=1
	fi
	git checkout -q "$c"
	for f in $(git diff --name-only --diff-filter=A "$c~1" "$c"); do
		./scripts/get_maintainer.pl --no-git --no-git-fallback -f "$f" 2>/dev/null |
			grep -E '\((maintainer|supporter|odd fixer):' | grep -qv 'THE REST' && continue
		echo "error: patch $i ($subj): no MAINTAINERS entry covers new file $f" >&2
		bad=1
	done
	if ! kmake -j"$(nproc)" W=1 C=2 drivers/nvme/host/ >"$LOGS/build-patch-$SUFFIX-$i.log" 2>&1; then
		grep -E 'error' "$LOGS/build-patch-$SUFFIX-$i.log" | head -5 >&2
		echo "error: patch $i ($subj): drivers/nvme/host does not build" >&2
		bad=1
	elif grep -E '^[^ ]*drivers/nvme/host/.*(warning|error):' "$LOGS/build-patch-$SUFFIX-$i.log" >&2; then
		echo "error: patch $i ($subj): W=1/sparse warnings in drivers/nvme/host" >&2
		bad=1
	fi
done
# sparse must really check: a fixture with one known warning, built with
# C=2 against this tree after the patches (which prepared it). A sparse
# that cannot parse the tree's headers (Debian 12's 0.6.4 on 7.x) reports
# nothing, and every patch would read as sparse clean.
fx=$BUILD/sparse-fixture-$SUFFIX
rm -rf "$fx"
cp -a "$TOP/tests/sparse-fixture" "$fx"
kmake C=2 M="$fx" sparse_fixture.o >"$LOGS/sparse-fixture-$SUFFIX.log" 2>&1 || true
if grep -q 'sparse_fixture\.c:[0-9]*:[0-9]*: warning: incorrect type in assignment (different address spaces)' \
	"$LOGS/sparse-fixture-$SUFFIX.log"; then
	log "sparse checks: it reported tests/sparse-fixture's address-space mix"
else
	echo "error: sparse did not report tests/sparse-fixture's address-space mix: it checks nothing in this tree (see $LOGS/sparse-fixture-$SUFFIX.log)" >&2
	bad=1
fi
[ $bad -eq 0 ] || die "series hygiene failed (logs: $LOGS/checkpatch-$SUFFIX-*.log, $LOGS/build-patch-$SUFFIX-*.log)"
log "series hygiene: $i patches checkpatch --strict clean, build W=1/sparse clean after each"
