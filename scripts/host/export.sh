#!/usr/bin/env bash
# Export the tree's commits on top of the upstream import back to
# patches/$BASE: stable file names, no commit ids or tool versions, so an
# unchanged patch gives no diff. The cover letter's subject and text are
# kept by hand in 0000-cover-letter.patch; its shortlog and diffstat are
# regenerated. Author and Signed-off-by are the identity of git config
# (user.name, user.email), whoever committed in the generated tree:
# check-identity.sh refuses to pass a placeholder for sending.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
name=$(git -C "$TOP" config user.name || true)
email=$(git -C "$TOP" config user.email || true)
if [ -z "$name" ] || [ -z "$email" ]; then
	die "git config user.name and user.email are not set: the patches need an author and a Signed-off-by"
fi
ident="$name <$email>"
dir=$TOP/patches/$BASE
mkdir -p "$dir"
cover=$dir/0000-cover-letter.patch
subject="*** SUBJECT HERE ***"
blurb=$(mktemp) subjects=$(mktemp)
trap 'rm -f "$blurb" "$subjects"' EXIT
echo "*** BLURB HERE ***" >"$blurb"
if [ -f "$cover" ]; then
	subject=$(patch_header "$cover" Subject | sed 's/^\[PATCH[^]]*\] //')
	# The text between the mail headers and the shortlog ("Name (N):").
	awk 'body && /^[^ ].* \([0-9]+\):$/ { exit }
	     body { print }
	     !body && /^$/ { body = 1 }' "$cover" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$blurb"
fi
find "$dir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
git -C "$TREE" format-patch -q --zero-commit --no-signature --cover-letter \
	-o "$dir" upstream..HEAD
# Stable cover letter: the tip's date, the kept subject and text, and
# one shortlog under the exporting identity (every patch gets it below),
# whoever committed in the tree.
date=$(git -C "$TREE" log -1 --format='%aD' HEAD)
git -C "$TREE" log --reverse --format='  %s' upstream..HEAD >"$subjects"
awk -v subj="$subject" -v date="$date" -v bf="$blurb" -v sf="$subjects" -v name="$name" \
	-v n="$(wc -l <"$subjects")" '
	/^Date: / && !hdr { print "Date: " date; next }
	/^$/ { hdr = 1 }
	hdr && !sl && /^[^ ].* \([0-9]+\):$/ {
		print name " (" n "):"
		while ((getline l < sf) > 0) print l
		print ""
		sl = 1; skip = 1; next
	}
	skip && (/^[^ ].* \([0-9]+\):$/ || /^  / || /^$/) { next }
	{ skip = 0 }
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
	/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline l < bf) > 0) print l; next }
	{ print }' "$cover" >"$cover.new"
mv "$cover.new" "$cover"
# The identity: the From: header, and the Signed-off-by of whoever authored
# the commit in the tree (replaced, or added when missing).
for f in "$dir"/[0-9][0-9][0-9][0-9]-*.patch; do
	old=$(patch_header "$f" From)
	awk -v id="$ident" -v old="$old" -v cover="$([ "${f##*/}" = 0000-cover-letter.patch ] && echo 1)" '
		!hdr && /^From: / { print "From: " id; from = 1; next }
		!hdr && from && /^[ \t]/ { next }
		{ from = 0 }
		!hdr && /^$/ { hdr = 1 }
		hdr && !done && ($0 == "Signed-off-by: " old || $0 == "Signed-off-by: " id) { if (!sob) print "Signed-off-by: " id; sob = 1; next }
		hdr && !done && /^---$/ { if (!sob && !cover) print "Signed-off-by: " id; done = 1 }
		{ print }' "$f" >"$f.new"
	mv "$f.new" "$f"
done
for f in "$dir"/[0-9][0-9][0-9][0-9]-*.patch; do
	[ -e "$f" ] || continue
	case "${f##*/}" in 0000-cover-letter.patch) ;; *) echo "${f##*/}" ;; esac
done >"$dir/series"
# The tree is now what patches/ describes.
tree_stamp >"$TREE/.git/tree-stamp"
log "exported $(wc -l <"$dir/series") patches to patches/$BASE"
