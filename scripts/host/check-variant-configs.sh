#!/usr/bin/env bash
# Configure each kernel variant (VARIANT=debug, kasan, mlx5) in its own
# object tree and fail if an option of its fragment did not stick: a fragment
# whose dependencies moved is caught here, not on the machine that needs it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
for v in debug kasan mlx5; do
	VARIANT=$v "$TOP/scripts/host/configure-kernel.sh" ||
		die "config/$v.config does not apply to $BASE (see $LOGS/config-${BASE#linux-}-$v.log)"
done
log "variant configs: debug, kasan and mlx5 options all set"
