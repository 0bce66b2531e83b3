#!/bin/bash
# Proves nvme-rdma-hw.sh in the test VM, with rxe0 standing in for mlx5_0:
# loopback mode, its refusals (no scratch namespace named, nvmet already
# configured, no such device), and remote mode against a target set up
# here as a "remote" one. Writes $OUT/loopback/, $OUT/remote/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
hw=$(dirname "$(readlink -f "$0")")/nvme-rdma-hw.sh

setup_fabric
# expect_refusal NAME PATTERN ARGS...: must exit 2 naming the cause.
expect_refusal() {
	local name=$1 want=$2 rc=0
	shift 2
	"$hw" --out "$OUT/refuse-$name" "$@" >"$OUT/refuse-$name.log" 2>&1 || rc=$?
	if [ "$rc" != 2 ] || ! grep -q "refusing: .*$want" "$OUT/refuse-$name.log"; then
		fail "hw mode did not refuse ($name, rc $rc): $(tail -1 "$OUT/refuse-$name.log")"
	fi
	phase "refused ($name): $(grep -m1 refusing "$OUT/refuse-$name.log")"
}

expect_refusal no-device "no RDMA device" --device mlx5_9 --loopback
phase "hw mode: loopback on rxe0"
"$hw" --device rxe0 --loopback --out "$OUT/loopback" ||
	fail "loopback: $(cat "$OUT/loopback/error" 2>/dev/null || echo 'see console')"
# Loopback cleaned up after itself: no port, subsystem or null_blk left.
left=$(cd /sys/kernel/config && { ls -d nvmet/ports/*/ nvmet/subsystems/*/ nullb/*/ 2>/dev/null || true; })
[ -z "$left" ] || fail "loopback left configuration behind: $(echo "$left" | paste -sd' ')"

# The "remote" target: the boot test's, on its own null_blk.
setup_target 1:0
expect_refusal nvmet-busy "nvmet ports 1/2 exist" --device rxe0 --loopback
expect_refusal no-scratch "scratch-nsid" --device rxe0 --remote "$ADDR" --nqn "$NQN"
expect_refusal wrong-nsid "no namespace 7" --device rxe0 --remote "$ADDR" --nqn "$NQN" --scratch-nsid 7
phase "hw mode: remote target $ADDR"
"$hw" --device rxe0 --remote "$ADDR" --nqn "$NQN" --scratch-nsid 1 --svcid 4420 --out "$OUT/remote" ||
	fail "remote: $(cat "$OUT/remote/error" 2>/dev/null || echo 'see console')"
phase finished
