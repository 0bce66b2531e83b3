#!/usr/bin/env bash
# Build the test-only rdma_rxe (tests/rxe-strict/rxe-strict.patch: mlx5's
# send-queue slot rules, the retry oracle, forced retransmission; all off
# unless a module parameter is set) as an external module of $OBJ, on top
# of our fixes to stock rxe (fixes/rxe/*.patch, in name order: upstream
# fixes of their own, not part of the nvme-rdma series), and
# install it into each given module root under updates/, where modprobe
# prefers it over the stock rdma_rxe. The guest tree only: never part of
# patches/. Rebuilt only when the patch, the rxe sources or the kernel
# configuration changed.
# Usage: build-rxe-strict.sh MODROOT...
# Env: RXE_FIXES=0 leaves fixes/rxe out (the rxe-unfixed control of
#      check-controls.sh: the stock bugs they fix must fail the checks).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

patch_file=$TOP/tests/rxe-strict/rxe-strict.patch
[ -f "$patch_file" ] || die "no test rxe patch at $patch_file"
fixes=("$TOP"/fixes/rxe/[0-9][0-9][0-9][0-9]-*.patch)
[ -f "${fixes[0]}" ] || die "no rxe fixes under $TOP/fixes/rxe"
variant=
case "${RXE_FIXES:-1}" in
1) ;;
0) fixes=() variant=-unfixed ;;
*) die "RXE_FIXES must be 1 or 0, not '$RXE_FIXES'" ;;
esac
[ -f "$OBJ/Module.symvers" ] || die "no built kernel in $OBJ: run 'make build' first"
[ $# -gt 0 ] || die "usage: build-rxe-strict.sh MODROOT..."
release=$(cat "$OBJ/include/config/kernel.release")
dir=$BUILD/rxe-strict-$SUFFIX$variant
ko=$dir/src/rdma_rxe.ko
log_file=$LOGS/build-rxe-strict-$SUFFIX$variant.log
mkdir -p "$LOGS"

# The upstream import's rxe: the series never touches it.
stamp="$(git -C "$TREE" rev-parse upstream:drivers/infiniband/sw/rxe)"
# (The series' KUnit option comes and goes with build-baseline.sh's
# checkouts of the upstream import; rxe does not care.)
stamp+=" $(cat ${fixes[@]+"${fixes[@]}"} "$patch_file" | sha256sum | cut -c1-16) $(grep -v NVME_RDMA_KUNIT "$OBJ/.config" | sha256sum | cut -c1-16)"
if [ "$(cat "$dir/stamp" 2>/dev/null)" != "$stamp" ] || [ ! -f "$ko" ]; then
	log "building the test rxe (strict send queue, retry oracle; log: $log_file)"
	rm -rf "$dir"
	mkdir -p "$dir/src"
	git -C "$TREE" archive upstream drivers/infiniband/sw/rxe |
		tar -x -C "$dir/src" --strip-components=4
	: >"$log_file"
	for f in ${fixes[@]+"${fixes[@]}"}; do
		patch -p5 -s -d "$dir/src" <"$f" >>"$log_file" 2>&1 ||
			die "${f#"$TOP"/} does not apply to the rxe of $BASE (see $log_file)"
	done
	patch -p5 -s -d "$dir/src" <"$patch_file" >>"$log_file" 2>&1 ||
		die "tests/rxe-strict/rxe-strict.patch does not apply to the rxe of $BASE with fixes/rxe (see $log_file)"
	kmake -j"$(nproc)" M="$dir/src" modules >>"$log_file" 2>&1 ||
		die "test rxe build failed (see $log_file)"
	echo "$stamp" >"$dir/stamp"
fi
for p in strict_sq retry_oracle drop_ack_every; do
	modinfo -F parm "$ko" | grep -q "^$p:" ||
		die "the test rxe $ko has no '$p' parameter (see $log_file)"
done
for root in "$@"; do
	mods=$root/lib/modules/$release
	[ -d "$mods" ] || die "no modules for $release in $root"
	mkdir -p "$mods/updates"
	cp "$ko" "$mods/updates/rdma_rxe.ko"
	depmod -b "$root" "$release" || die "depmod failed in $root"
	modpath=$(grep -o '^updates/rdma_rxe.ko' "$mods/modules.dep" || true)
	[ -n "$modpath" ] || die "depmod in $root does not list updates/rdma_rxe.ko"
done
log "test rxe installed in: $*"
