#!/usr/bin/env bash
# Every patch of patches/*/ and fixes/*/ ends its commit message with a trailer block
# that git itself parses (git interpret-trailers --parse, the parser b4
# and the maintainers' scripts rely on): a blank line before it, a
# Signed-off-by in it, and only trailers we mean (a message line such as
# "credits: once per ..." that git would read as a trailer is refused).
# checkpatch does not see either mistake. Before the real patches, made-up
# ones prove the check: two good, three that must fail, each for its reason.
# Usage: check-trailers.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Trailers a patch of ours may carry.
KEYS='Signed-off-by|Fixes|Link|Closes|Reported-by|Suggested-by|Reviewed-by|Acked-by|Tested-by|Co-developed-by|Cc'

# trailer_problem PATCH: why its trailers are wrong, or nothing. The
# message as git takes it from the mail (git mailinfo: the subject, a
# blank line, the body up to the "---").
trailer_problem() {
	local d parsed bad
	d=$(mktemp -d)
	if ! git mailinfo "$d/msg" "$d/patch" <"$1" >"$d/info" 2>/dev/null; then
		echo "git mailinfo cannot read it as a mail"
		rm -rf "$d"
		return
	fi
	parsed=$({ sed -n 's/^Subject: //p' "$d/info"; echo; cat "$d/msg"; } | git interpret-trailers --parse)
	rm -rf "$d"
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
sob="Signed-off-by: A Person <a@person.org>"
mail good "Why, in a paragraph." "" "Fixes: 123456789abc (\"nvme-rdma: y\")" "$sob"
mail only-trailers "$sob"
# Git reads a last paragraph as trailers when a quarter of it is: four
# lines of prose and a Signed-off-by are not.
mail no-blank "Why, in a paragraph" "that goes on" "for three" "more lines." "$sob"
mail no-sob "Why, in a paragraph." "" "Link: https://lore.kernel.org/x"
mail stray-key "Why, in a paragraph." "" "credits: once per refusal" "$sob"
bad=0
# fixture:the reason it must get (empty: none)
for want in good: only-trailers: "no-blank:git finds no Signed-off-by" \
	"no-sob:git finds no Signed-off-by" "stray-key:git reads 'credits: once per refusal'"; do
	f=${want%%:*} want=${want#*:}
	why=$(trailer_problem "$fixture/$f")
	if [ -z "$want" ] && [ -n "$why" ]; then
		echo "FAIL fixture $f: refused a good patch: $why"
		bad=1
	elif [ -n "$want" ] && [[ $why != "$want"* ]]; then
		echo "FAIL fixture $f: want '$want...', got '${why:-no refusal}'"
		bad=1
	fi
done
[ $bad = 0 ] || die "trailers: the check itself is broken (fixtures above)"

n=0
for p in "$TOP"/patches/linux-*/[0-9][0-9][0-9][0-9]-*.patch "$TOP"/fixes/*/[0-9][0-9][0-9][0-9]-*.patch; do
	[ -e "$p" ] || continue
	[ "${p##*/}" != 0000-cover-letter.patch ] || continue
	n=$((n + 1))
	why=$(trailer_problem "$p")
	[ -z "$why" ] && continue
	echo "FAIL ${p#"$TOP"/}: $why"
	bad=1
done
[ $n -gt 0 ] || die "trailers: no patches under patches/"
[ $bad = 0 ] || die "trailers: a patch's trailer block is not what git parses"
log "trailers: $n patches, each with a Signed-off-by git parses and no stray trailer (5 fixtures proved the check)"
