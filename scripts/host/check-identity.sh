#!/usr/bin/env bash
# The submission check: every patch of patches/*/ is authored and
# Signed-off-by the same real person, the identity `make export` took
# from git config. A placeholder identity (no name, "team"-style names, a
# localhost/example/invalid/test domain, noreply addresses) is refused:
# the DCO needs a person. Exit 1 on a refusal; with SKIP_PLACEHOLDER=1
# (make check), a placeholder identity is a skip (exit 77) that says so,
# since a CI machine's git config is nobody's, and a patch whose author
# and Signed-off-by differ still fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# placeholder "Name <email>": why it is one, or nothing.
placeholder() {
	local id=$1 name email domain
	name=${id% <*} email=${id##*<} email=${email%>}
	domain=${email##*@}
	[[ $id =~ ^[^\<]+\ \<[^@\>]+@[^\>]+\>$ ]] || { echo "not 'Name <user@domain>'"; return; }
	case "${domain,,}" in
	localhost | localdomain | *.localhost | *.localdomain | example | *.example | \
		example.com | example.org | example.net | *.invalid | invalid | *.test | test | *.local)
		echo "the domain $domain is reserved, not a mailbox"
		return
		;;
	esac
	case "${email,,}" in *noreply* | *no-reply*) echo "$email takes no replies" && return ;; esac
	case "${name,,}" in
	*team* | *maintainers* | *seed* | *bot* | *"***"* | root | user | nobody)
		echo "'$name' is not a person's name"
		return
		;;
	esac
}

bad=0 skip=''
for dir in "$TOP"/patches/linux-*; do
	for p in "$dir"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -e "$p" ] || continue
		f=${p#"$TOP"/}
		author=$(sed -n 's/^From: //p' "$p" | head -1)
		[ "${p##*/}" = 0000-cover-letter.patch ] && sob=$author ||
			sob=$(sed -n 's/^Signed-off-by: //p' "$p" | tail -1)
		if [ -z "$sob" ]; then
			echo "FAIL $f: no Signed-off-by"
			bad=1
		elif [ "$sob" != "$author" ]; then
			echo "FAIL $f: author '$author', last Signed-off-by '$sob'"
			bad=1
		elif why=$(placeholder "$author") && [ -n "$why" ]; then
			skip="$author: $why"
			[ "${SKIP_PLACEHOLDER:-0}" = 1 ] || { echo "FAIL $f: placeholder identity $skip"; bad=1; }
		fi
	done
done
[ $bad = 0 ] || die "the patches are not ready to send: set git config user.name and user.email to yours, then make export"
if [ -n "$skip" ]; then
	echo "skipped: the patches carry a placeholder identity ($skip); set git config user.name/user.email and make export before sending"
	exit 77
fi
log "identity: every patch authored and signed off by a real identity"
