#!/usr/bin/env bash
# Run shellcheck on every project shell script: host and guest side, the
# shared files, and the scenario groups (tests/GROUP/rc and NNN).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
command -v shellcheck >/dev/null || die "shellcheck missing: run 'make deps'"
cd "$TOP"
shellcheck -x -P SCRIPTDIR scripts/host/*.sh scripts/guest/*.sh scripts/common/*.sh .ci/run
shopt -s nullglob
scn=(tests/*/rc tests/*/[0-9][0-9][0-9])
[ ${#scn[@]} -gt 0 ] || die "no scenario file under tests/: the scenario groups are missing"
shellcheck -s bash -x -P SCRIPTDIR:. "${scn[@]}"
log "shellcheck: clean"
