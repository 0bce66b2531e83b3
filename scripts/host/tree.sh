#!/usr/bin/env bash
# Create $BUILD/$BASE: a git tree holding one upstream import commit (the
# Debian linux-source tarball) with our series applied on top by git am.
# An existing tree is recreated only if the tarball or the series changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkg=$(source_pkg "$BASE")
tarball=$(source_tarball "$BASE")
[ -f "$tarball" ] || die "$tarball missing: fetch Debian package $pkg (make deps)"
version=$(source_version "$BASE")
series_dir=$TOP/patches/$BASE
[ -f "$series_dir/series" ] || die "$series_dir/series missing"

# What the tree is made of: the source version and the series' contents.
stamp=$(tree_stamp)
if [ -f "$TREE/.git/tree-stamp" ] && [ "$(cat "$TREE/.git/tree-stamp")" = "$stamp" ] &&
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
	log "tree $TREE is current ($stamp)"
	exit 0
fi
if [ -d "$TREE/.git" ] && [ -n "$(git -C "$TREE" log --oneline upstream..HEAD 2>/dev/null)" ] &&
	[ "${FORCE:-0}" != 1 ]; then
	# Protect unexported work: compare the tree's commits with patches/.
	tmp=$(mktemp -d)
	git -C "$TREE" format-patch -q --zero-commit --no-signature --cover-letter \
		-o "$tmp" upstream..HEAD
	rm -f "$tmp/0000-cover-letter.patch"
	if ! diff -q <(cat "$tmp"/*.patch) <(series_patches | while read -r f; do
		cat "$series_dir/$f"; done) >/dev/null; then
		rm -rf "$tmp"
		die "$TREE has commits not in patches/$BASE: run 'make export' first (or FORCE=1)"
	fi
	rm -rf "$tmp"
fi

log "importing $pkg $version into $TREE"
rm -rf "$TREE"
mkdir -p "$TREE"
tar -xf "$tarball" -C "$TREE" --strip-components=1
cd "$TREE"
# Debian's tarball ignores everything at the top level ("/*"): drop that
# rule so new files in the series are tracked like in any kernel tree.
sed -i '/^# Debian packaging: ignore everything/,$d' .gitignore
git init -q -b master
git config user.name "NVMe-RDMA Team"
git config user.email "nvme-rdma@localhost"
git config core.bigFileThreshold 1m
git add -f -A .
git commit -q -m "Linux $version (Debian $pkg)"
files=$(git ls-files | wc -l)
[ "$files" -gt 50000 ] || die "import tracked only $files files: .gitignore ate the tree"
git tag upstream

n=0
while read -r p; do
	if ! git am -q --keep-cr "$series_dir/$p" >"$BUILD/git-am.log" 2>&1; then
		hunk=$(grep -m1 -E '^error: patch failed|^error: .*does not (exist|apply)' "$BUILD/git-am.log" || true)
		git am --abort >/dev/null 2>&1 || true
		die "patch $p does not apply to $pkg $version: ${hunk:-see $BUILD/git-am.log}"
	fi
	n=$((n + 1))
done < <(series_patches)
echo "$stamp" >.git/tree-stamp
log "tree ready: $pkg $version + $n patches ($files files imported)"
