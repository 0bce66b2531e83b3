#!/bin/bash
# Run blktests (the read-only snapshot in ../shared/blktests, written to
# through the guest's overlay root) against nvme over rxe.
# Usage: blktests.sh BLKTESTS_DIR [TEST...]   (default: the nvme group)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dir=$1
shift
[ -x "$dir/check" ] || fail "no blktests at $dir"
[ $# -gt 0 ] || set -- nvme

phase "blktests setup"
mkdir -p /etc/nvme
uuidgen >/etc/nvme/hostid
echo "nqn.2014-08.org.nvmexpress:uuid:$(cat /etc/nvme/hostid)" >/etc/nvme/hostnqn
make -s -C "$dir/src" >"$OUT/blktests-src.log" 2>&1 || echo "blktests src build failed (some tests will not run)"
# blktests adds an rxe link to every Ethernet interface with carrier and an
# IPv4 address: one veth pair, both ends up, one address.
ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
ip addr add "$ADDR/16" dev veth0
cat >"$dir/config" <<CFG
NVMET_TRTYPES=rdma
USE_RXE=1
NVMET_BLKDEV_TYPES="device file"
NVME_IMG_SIZE=512M
TIMEOUT=30
CFG
phase "blktests $*"
cd "$dir"
set +e
step "${BLKTESTS_TIMEOUT:-6000}" ./check "$@" 2>&1 | tee "$OUT/blktests.log"
rc=${PIPESTATUS[0]}
set -e
# blktests exits non-zero when a test fails (reported per test below); a
# time-out is a result of its own.
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || echo "blktests killed after ${BLKTESTS_TIMEOUT:-6000}s" >"$OUT/timeout"
cp -r results "$OUT/blktests-results" 2>/dev/null || true
dmesg >"$OUT/dmesg.txt"
# The host parses blktests.log (scripts/host/blktests.sh).
grep -qE '\[(passed|failed|not run)\]' "$OUT/blktests.log" || fail "blktests printed no verdicts"
phase finished
