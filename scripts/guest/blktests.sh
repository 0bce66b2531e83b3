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
step "${BLKTESTS_TIMEOUT:-6000}" ./check "$@" 2>&1 | tee "$OUT/blktests.log" || true
cp -r results "$OUT/blktests-results" 2>/dev/null || true
dmesg >"$OUT/dmesg.txt"
# One line per test: name, verdict, and blktests' skip reason if not run
# (the indented lines after the verdict). The last verdict of a test wins.
sed 's/\x1b\[[0-9;]*m//g' "$OUT/blktests.log" | awk -F'\t' '
	function flush() { if (t != "") { v[t] = s; r[t] = why } t = "" }
	/^[a-z]+\/[0-9]+ .*\[(passed|failed|not run)\]/ {
		flush(); split($0, w, " "); t = w[1]; why = ""
		match($0, /\[(passed|failed|not run)\]/); s = substr($0, RSTART + 1, RLENGTH - 2)
		next
	}
	/^    .*\.\.\./ { next }
	t != "" && s == "not run" && /^    [^ ]/ {
		sub(/^ +/, ""); why = why (why == "" ? "" : "; ") $0; next
	}
	{ flush() }
	END { flush(); for (k in v) print k "\t" v[k] "\t" r[k] }' | sort >"$OUT/blktests.tsv"
[ -s "$OUT/blktests.tsv" ] || fail "blktests produced no results"
phase finished
