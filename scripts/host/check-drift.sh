#!/usr/bin/env bash
# Each backport must make the same change as the mainline series
# (patches/linux-7.3): the same patches (subjects, in order) and, patch by
# patch and file by file, the same added and removed lines, except for the
# differences written down, with their reasons, in
# config/BACKPORT-delta.diff (linux-6.12, linux-6.1). Reads patches/ only,
# no tree. UPDATE=1 rewrites the delta files from the current series.
# Before the real check, a self-test: a copy of the series with one hunk
# of the first backport moved into its next patch must fail.
# Usage: check-drift.sh [BACKPORT...]   (default: linux-6.12 linux-6.1)
# Env (the self-test): DRIFT_PATCHES, DRIFT_CONFIG instead of patches/, config/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ref=linux-7.3
patches=${DRIFT_PATCHES:-$TOP/patches} config=${DRIFT_CONFIG:-$TOP/config}
refdir=$patches/$ref
[ -f "$refdir/series" ] || die "$refdir/series missing"

# patch_files DIR: the series' patch files, each checked to exist (this
# runs in a command substitution, where a failure would not stop us).
patch_files() {
	local f
	grep -vE '^(#|$)' "$1/series" | while read -r f; do
		[ -f "$1/$f" ] || { echo "error: $1/series names $f, which does not exist" >&2; exit 1; }
		echo "$f"
	done
}

subjects() {
	local f
	patch_files "$1" | while read -r f; do
		patch_header "$1/$f" Subject | sed 's/^\[PATCH[^]]*\] //'
	done
}

# The +/- lines of every patch, in series order: a "== SUBJECT" line where
# a patch starts, and each changed line behind its file's path, so that a
# hunk moved to another patch or file is a difference too.
changes() {
	local f
	patch_files "$1" | while read -r f; do
		echo "== $(patch_header "$1/$f" Subject | sed 's/^\[PATCH[^]]*\] //')"
		awk '/^diff --git / { file = $3; sub(/^a\//, "", file); hunk = 0; next }
		     /^@@ / { hunk = 1; next }
		     hunk && /^[-+]/ { print file ": " $0 }' "$1/$f"
	done
}

# label BASE: its version padded to five columns ("7.3  ", "6.12 ").
label() { printf '%-5s' "${1#linux-}"; }

# drift BACKPORT: one backport against the reference series.
drift() {
	local b=$1 dir=$patches/$1 expected=$config/$1-delta.diff
	local ref_subjects old_subjects delta only own s
	[ -f "$dir/series" ] || die "$dir/series missing"
	# A patch the backport does not need is declared in its delta file,
	# with its reason, as "# 7.3 only: SUBJECT"; a patch only the backport
	# needs (a fix its base lacks) as "# 6.1 only: SUBJECT" (its version).
	# Their lines then show in the delta.
	only=$(sed -n 's/^# 7\.3 only: //p' "$expected" 2>/dev/null || true)
	own=$(sed -n "s/^# ${b#linux-} only: //p" "$expected" 2>/dev/null || true)
	ref_subjects=$(subjects "$refdir")
	old_subjects=$(subjects "$dir")
	while IFS= read -r s; do
		[ -n "$s" ] || continue
		grep -qxF -- "$s" <<<"$ref_subjects" || die "$expected declares '$s' 7.3-only, but patches/$ref has no such patch"
		! grep -qxF -- "$s" <<<"$old_subjects" || die "$expected declares '$s' 7.3-only, but patches/$b has it too"
	done <<<"$only"
	while IFS= read -r s; do
		[ -n "$s" ] || continue
		grep -qxF -- "$s" <<<"$old_subjects" || die "$expected declares '$s' ${b#linux-}-only, but patches/$b has no such patch"
		! grep -qxF -- "$s" <<<"$ref_subjects" || die "$expected declares '$s' ${b#linux-}-only, but patches/$ref has it too"
	done <<<"$own"
	if ! diff <(grep -vxF -f <(printf '%s\n' ${only:+"$only"}; echo '# no such subject') <<<"$ref_subjects") \
		<(grep -vxF -f <(printf '%s\n' ${own:+"$own"}; echo '# no such subject') <<<"$old_subjects") >&2; then
		die "the $b and $ref series have different patches (subjects above; a patch of one series only is declared in $expected)"
	fi
	changes "$refdir" >"$tmp/ref" || die "cannot read the $ref series"
	changes "$dir" >"$tmp/old" || die "cannot read the $b series"
	delta=$(diff --unchanged-line-format= --old-line-format="$(label $ref)%L" \
		--new-line-format="$(label "$b")%L" "$tmp/ref" "$tmp/old" || true)
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
	log "$b backport matches $ref: $(grep -c . <<<"$old_subjects") patches, $(grep -c . <<<"$own" || true) of them ${b#linux-}-only ($(grep -c . <<<"$only" || true) 7.3-only not ported), $(grep -vc '^#' "$expected") expected delta lines"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ $# -gt 0 ] || set -- linux-6.12 linux-6.1

# selftest BACKPORT: move the first added line of the backport's
# second-to-last patch into its last patch; the check must then fail.
selftest() {
	local st=$tmp/selftest from to
	mkdir -p "$st"
	cp -a "$patches" "$st/patches"
	cp -a "$config" "$st/config"
	from=$(patch_files "$st/patches/$1" | tail -2 | head -1)
	to=$(patch_files "$st/patches/$1" | tail -1)
	/usr/bin/python3 - "$st/patches/$1/$from" "$st/patches/$1/$to" <<'PY' || die "self-test: cannot move a hunk line"
import sys
a, b = sys.argv[1], sys.argv[2]
s = open(a).read()
i = s.index("\n+", s.index("\n@@ ")) + 1
line = s[i:s.index("\n", i) + 1]
open(a, "w").write(s[:i] + s[i + len(line):])
t = open(b).read()
j = t.index("\n+", t.index("\n@@ ")) + 1
open(b, "w").write(t[:j] + line + t[j:])
PY
	if DRIFT_PATCHES=$st/patches DRIFT_CONFIG=$st/config UPDATE=0 DRIFT_SELFTEST=0 \
		"$0" "$1" >"$st/log" 2>&1; then
		die "self-test: a line moved from $from to $to in patches/$1 passed the check"
	fi
	grep -q 'drifted apart' "$st/log" || die "self-test failed for another reason: $(tail -1 "$st/log")"
	log "self-test: a line moved between two patches of $1 is caught"
}
[ "${DRIFT_SELFTEST:-1}" = 0 ] || [ "${UPDATE:-0}" = 1 ] || selftest "$1"
for b in "$@"; do drift "$b"; done
