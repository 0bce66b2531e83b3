#!/usr/bin/env bash
# The 6.1 backport must make the same change as the 6.12 series: the same
# patches (subjects, in order) and the same added and removed lines in
# drivers/nvme/host/, except for the differences written down, with their
# reasons, in config/linux-6.1-delta.diff. Reads patches/ only, no tree.
# UPDATE=1 rewrites the delta file from the current series.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

expected=$TOP/config/linux-6.1-delta.diff
new=$TOP/patches/linux-6.12 old=$TOP/patches/linux-6.1

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

# A fix that 6.1 does not need is declared in the delta file, with its
# reason, as "# 6.12 only: SUBJECT"; its lines then show in the delta.
only_612() { sed -n 's/^# 6\.12 only: //p' "$expected" 2>/dev/null || true; }

for d in "$new" "$old"; do [ -f "$d/series" ] || die "$d/series missing"; done
new_subjects=$(subjects "$new") old_subjects=$(subjects "$old")
while IFS= read -r s; do
	[ -n "$s" ] || continue
	grep -qxF -- "$s" <<<"$new_subjects" || die "delta file declares '$s' 6.12-only, but patches/linux-6.12 has no such patch"
	! grep -qxF -- "$s" <<<"$old_subjects" || die "delta file declares '$s' 6.12-only, but patches/linux-6.1 has it too"
done < <(only_612)
if ! diff <(grep -vxF -f <(only_612; echo '# no such subject') <<<"$new_subjects") - <<<"$old_subjects" >&2; then
	die "the 6.1 and 6.12 series have different patches (subjects above; a 6.12-only fix is declared in $expected)"
fi
delta=$(diff --unchanged-line-format= --old-line-format='6.12 %L' \
	--new-line-format='6.1  %L' <(changes "$new") <(changes "$old") || true)
if [ "${UPDATE:-0}" = 1 ]; then
	{
		sed -n '/^#/p' "$expected" 2>/dev/null || true
		printf '%s\n' "$delta"
	} >"$expected.new"
	mv "$expected.new" "$expected"
	log "wrote $expected: $(printf '%s\n' "$delta" | grep -c .) lines"
	exit 0
fi
[ -f "$expected" ] || die "$expected missing: review the delta, then UPDATE=1 $0"
if ! diff -u <(grep -v '^#' "$expected") <(printf '%s\n' "$delta") >&2; then
	die "6.1 and 6.12 series drifted apart (diff above): port the change, or review and UPDATE=1 $0"
fi
log "6.1 backport matches 6.12: $(wc -l <<<"$old_subjects") patches ($(only_612 | grep -c . || true) more 6.12-only), $(grep -vc '^#' "$expected") expected delta lines"
