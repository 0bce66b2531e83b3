#!/usr/bin/env bash
# Every patch of patches/*/ ends its commit message with a trailer block
# that git itself parses (git interpret-trailers --parse, the parser b4
# and the maintainers' scripts rely on): a blank line before it, a
# Signed-off-by in it, and only trailers we mean (a message line such as
# "credits: once per ..." that git would read as a trailer is refused).
# checkpatch does not see either mistake. Before the real patches, made-up
# ones prove the check: one good, three that must fail.
# Usage: check-trailers.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Trailers a patch of ours may carry.
KEYS='Signed-off-by|Fixes|Link|Closes|Reported-by|Suggested-by|Reviewed-by|Acked-by|Tested-by|Co-developed-by|Cc'

# trailer_problem PATCH: why its trailers are wrong, or nothing.
trailer_problem() {
	local msg parsed bad
	# The commit message: the mail body up to the diffstat's "---".
	msg=$(awk 'b && /^---$/ { exit } b { print } /^$/ { b = 1 }' "$1")
	parsed=$(printf '%s\n' "$msg" | git interpret-trailers --parse)
	if ! grep -q '^Signed-off-by: ' <<<"$parsed"; then
		echo "git finds no Signed-off-by trailer (no blank line before the trailer block?)"
		return
	fi
	bad=$(grep -vE "^($KEYS): " <<<"$parsed" | head -1 || true)
	[ -z "$bad" ] || echo "git reads '$bad' as a trailer"
}

fixture=$(mktemp -d)
trap 'rm -rf "$fixture"' EXIT
mail() { # NAME BODY...
	local f=$fixture/$1
	shift
	printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nFrom: A Person <a@person.org>\nSubject: [PATCH] nvme-rdma: x\n\n' >"$f"
	printf '%s\n' "$@" >>"$f"
	printf -- '---\n drivers/nvme/host/rdma.c | 1 +\n' >>"$f"
}
mail good "Why, in a paragraph." "" "Fixes: 123456789abc (\"nvme-rdma: y\")" "Signed-off-by: A Person <a@person.org>"
mail no-blank "Why, in a paragraph." "Signed-off-by: A Person <a@person.org>"
mail no-sob "Why, in a paragraph." "" "Link: https://lore.kernel.org/x"
mail stray-key "Why, in a paragraph." "" "credits: once per refusal" "Signed-off-by: A Person <a@person.org>"
bad=0
for f in good no-blank no-sob stray-key; do
	why=$(trailer_problem "$fixture/$f")
	case "$f:$why" in
	good:) ;;
	good:*) echo "FAIL fixture good: $why" && bad=1 ;;
	*:) echo "FAIL fixture $f: the check passed a patch it must refuse" && bad=1 ;;
	*) ;;
	esac
done
[ $bad = 0 ] || die "trailers: the check itself is broken (fixtures above)"

n=0
for p in "$TOP"/patches/linux-*/[0-9][0-9][0-9][0-9]-*.patch; do
	[ "${p##*/}" != 0000-cover-letter.patch ] || continue
	n=$((n + 1))
	why=$(trailer_problem "$p")
	[ -z "$why" ] && continue
	echo "FAIL ${p#"$TOP"/}: $why"
	bad=1
done
[ $n -gt 0 ] || die "trailers: no patches under patches/"
[ $bad = 0 ] || die "trailers: a patch's trailer block is not what git parses"
log "trailers: $n patches, each with a Signed-off-by git parses and no stray trailer (4 fixtures proved the check)"
