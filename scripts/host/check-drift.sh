#!/usr/bin/env bash
# Each backport must make the same change as the mainline series
# (patches/linux-7.3): the same patches (subjects, in order) and the same
# added and removed lines in drivers/nvme/host/, except for the
# differences written down, with their reasons, in
# config/BACKPORT-delta.diff (linux-6.12, linux-6.1). Reads patches/ only,
# no tree. UPDATE=1 rewrites the delta files from the current series.
# Usage: check-drift.sh [BACKPORT...]   (default: linux-6.12 linux-6.1)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ref=linux-7.3
refdir=$TOP/patches/$ref
[ -f "$refdir/series" ] || die "$refdir/series missing"

subjects() {
	local f
	grep -vE '^(#|$)' "$1/series" | while read -r f; do
		patch_header "$1/$f" Subject | sed 's/^\[PATCH[^]]*\] //'
	done
}

# The +/- lines of every patch, in series order, for drivers/nvme/host/.
changes() {
	local f
	grep -vE '^(#|$)' "$1/series" | while read -r f; do
		awk '/^diff --git / { ours = ($3 ~ /^a\/drivers\/nvme\/host\//); next }
		     /^(\+\+\+|---) / { next }
		     ours && /^[-+]/ { print }
		     /^-- $/ { ours = 0 }' "$1/$f"
	done
}

# label BASE: its version padded to five columns ("7.3  ", "6.12 ").
label() { printf '%-5s' "${1#linux-}"; }

# drift BACKPORT: one backport against the reference series.
drift() {
	local b=$1 dir=$TOP/patches/$1 expected=$TOP/config/$1-delta.diff
	local ref_subjects old_subjects delta only s
	[ -f "$dir/series" ] || die "$dir/series missing"
	# A patch the backport does not need is declared in its delta file,
	# with its reason, as "# 7.3 only: SUBJECT"; its lines then show in
	# the delta.
	only=$(sed -n 's/^# 7\.3 only: //p' "$expected" 2>/dev/null || true)
	ref_subjects=$(subjects "$refdir") old_subjects=$(subjects "$dir")
	while IFS= read -r s; do
		[ -n "$s" ] || continue
		grep -qxF -- "$s" <<<"$ref_subjects" || die "$expected declares '$s' 7.3-only, but patches/$ref has no such patch"
		! grep -qxF -- "$s" <<<"$old_subjects" || die "$expected declares '$s' 7.3-only, but patches/$b has it too"
	done <<<"$only"
	if ! diff <(grep -vxF -f <(printf '%s\n' "$only"; echo '# no such subject') <<<"$ref_subjects") - <<<"$old_subjects" >&2; then
		die "the $b and $ref series have different patches (subjects above; a 7.3-only patch is declared in $expected)"
	fi
	delta=$(diff --unchanged-line-format= --old-line-format="$(label $ref)%L" \
		--new-line-format="$(label "$b")%L" <(changes "$refdir") <(changes "$dir") || true)
	if [ "${UPDATE:-0}" = 1 ]; then
		{
			sed -n '/^#/p' "$expected" 2>/dev/null || true
			printf '%s\n' "$delta"
		} >"$expected.new"
		mv "$expected.new" "$expected"
		log "wrote $expected: $(printf '%s\n' "$delta" | grep -c .) lines"
		return 0
	fi
	[ -f "$expected" ] || die "$expected missing: review the delta, then UPDATE=1 $0 $b"
	if ! diff -u <(grep -v '^#' "$expected") <(printf '%s\n' "$delta") >&2; then
		die "$b and $ref series drifted apart (diff above): port the change, or review and UPDATE=1 $0 $b"
	fi
	log "$b backport matches $ref: $(grep -c . <<<"$old_subjects") patches ($(grep -c . <<<"$only" || true) more 7.3-only), $(grep -vc '^#' "$expected") expected delta lines"
}

[ $# -gt 0 ] || set -- linux-6.12 linux-6.1
for b in "$@"; do drift "$b"; done
