#!/usr/bin/env bash
# Every patch of patches/*/ and fixes/*/ ends its commit message with a trailer block
# that git itself parses (git interpret-trailers --parse, the parser b4
# and the maintainers' scripts rely on): a blank line before it, a
# Signed-off-by in it, and only trailers we mean (a message line such as
# "credits: once per ..." that git would read as a trailer is refused).
# checkpatch does not see either mistake. Every upstream commit a message
# or a cover letter names, in a Fixes: trailer or as 'commit ID
# ("SUBJECT")', must be in config/upstream-commits.tsv with that subject
# and where it was verified (checkpatch looks ids up in the tree's
# history, which the generated trees do not have, and warns on any). Before the real patches, made-up ones prove the check: two good,
# five that must fail, each for its reason.
# Usage: check-trailers.sh   (Env: UPSTREAM_COMMITS, the table to check against)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Trailers a patch of ours may carry.
KEYS='Signed-off-by|Fixes|Link|Closes|Reported-by|Suggested-by|Reviewed-by|Acked-by|Tested-by|Co-developed-by|Cc'

commits=${UPSTREAM_COMMITS:-$TOP/config/upstream-commits.tsv}

# commit_problem MSG: the first upstream commit MSG names ('Fixes: ID
# ("SUBJECT")' or 'commit ID ("SUBJECT")', wrapped or not) that the
# commits table does not list with that subject, or nothing.
commit_problem() {
	/usr/bin/python3 - "$1" "$commits" <<'PY'
import re, sys
msg = " ".join(open(sys.argv[1]).read().split())
try:
    rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])][1:]
except OSError as e:
    print(f"no table of verified upstream commits ({e})")
    sys.exit()
known = {r[0]: r[1] for r in rows if len(r) == 3 and r[2].strip()}
for m in re.finditer(r'(?:^|\s)(?:Fixes:|commit) ([0-9a-f]{6,40})\b(?: \("(.*?)"\))?', msg):
    cid, subj = m.group(1), m.group(2)
    if len(cid) < 12:
        print(f"commit {cid}: give at least 12 characters of the id")
    elif cid[:12] not in known:
        print(f"commit {cid} is not in {sys.argv[2]} (verify it, then list it)")
    elif subj is None:
        print(f"commit {cid} is named without its subject")
    elif subj != known[cid[:12]]:
        print(f"commit {cid}: subject \"{subj}\" is not \"{known[cid[:12]]}\"")
    else:
        continue
    break
PY
}

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
	bad=$(commit_problem "$d/msg")
	rm -rf "$d"
	if [ -n "$bad" ]; then
		echo "$bad"
		return
	fi
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
mail unknown-id "Why, in a paragraph." "" "Fixes: 0123456789ab (\"nvme-rdma: y\")" "$sob"
mail wrong-subject "Since commit 123456789abc (\"nvme-rdma:" "z\") the core ..." "" "$sob"
printf 'id\tsubject\tverified\n123456789abc\tnvme-rdma: y\ta made-up fixture\n' >"$fixture/commits.tsv"
bad=0
# fixture:the reason it must get (empty: none)
for want in good: only-trailers: "no-blank:git finds no Signed-off-by" \
	"no-sob:git finds no Signed-off-by" "stray-key:git reads 'credits: once per refusal'" \
	"unknown-id:commit 0123456789ab is not in" "wrong-subject:commit 123456789abc: subject \"nvme-rdma: z\""; do
	f=${want%%:*} want=${want#*:}
	why=$(commits=$fixture/commits.tsv trailer_problem "$fixture/$f")
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
	if [ "${p##*/}" = 0000-cover-letter.patch ]; then
		# A cover letter has no trailers, but the commits it names count.
		why=$(commit_problem "$p")
		[ -z "$why" ] || { echo "FAIL ${p#"$TOP"/}: $why"; bad=1; }
		continue
	fi
	n=$((n + 1))
	why=$(trailer_problem "$p")
	[ -z "$why" ] && continue
	echo "FAIL ${p#"$TOP"/}: $why"
	bad=1
done
[ $n -gt 0 ] || die "trailers: no patches under patches/"
[ $bad = 0 ] || die "trailers: a patch's trailer block is not what git parses"
log "trailers: $n patches, each with a Signed-off-by git parses, no stray trailer, every upstream commit named verified in config/upstream-commits.tsv (7 fixtures proved the check)"
