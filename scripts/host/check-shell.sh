#!/usr/bin/env bash
# Run shellcheck on every project shell script (host and guest side).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
command -v shellcheck >/dev/null || die "shellcheck missing: run 'make deps'"
cd "$TOP"
shellcheck -x -P SCRIPTDIR scripts/host/*.sh scripts/guest/*.sh .ci/run
log "shellcheck: clean"
