#!/usr/bin/env bash
# Prove the KUnit suite can fail: break the interval and the retire logic
# of rdma_sq.h one way at a time, run the suite on UML, and require that
# every mutant fails it. The header is restored from git afterwards.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

hdr=drivers/nvme/host/rdma_sq.h
[ -f "$TREE/$hdr" ] || die "no $hdr in $TREE: is the series applied? (make tree)"
cd "$TREE"
git diff --quiet -- "$hdr" || die "$hdr has uncommitted changes"
trap 'git -C "$TREE" checkout -q -- "$hdr"' EXIT

run_suite() {
	./tools/testing/kunit/kunit.py run --kunitconfig=drivers/nvme/host \
		--build_dir="$BUILD/kunit-uml" --jobs="$(nproc)" >"$LOGS/kunit-mutant-$1.log" 2>&1
}

mkdir -p "$LOGS"
log "baseline: the suite must pass unmodified"
run_suite baseline || die "KUnit suite fails without mutation (see $LOGS/kunit-mutant-baseline.log)"

# Each mutant: a name and a sed expression on the header.
names=(interval-is-depth interval-is-32 retire-only-one tail-unsignaled)
exprs=(
	's|return max(1U, depth / 2);|return max(1U, depth);|'
	's|return max(1U, depth / 2);|return 32;|'
	's|u32 n = seq - sq->tail + 1;|u32 n = 1;|'
	's/\*signal = last || ++sq->since_signal/*signal = ++sq->since_signal/'
)
bad=0
printf '%-20s %s\n' mutant result
for i in "${!names[@]}"; do
	name=${names[$i]}
	git checkout -q -- "$hdr"
	sed -i "${exprs[$i]}" "$hdr"
	git diff --quiet -- "$hdr" && die "mutant $name did not change $hdr"
	if run_suite "$name"; then
		printf '%-20s %s\n' "$name" "SURVIVED (suite passed)"
		bad=1
	else
		printf '%-20s %s\n' "$name" "killed: $(grep -c 'not ok' "$LOGS/kunit-mutant-$name.log") failing results"
	fi
done
[ $bad -eq 0 ] || die "a mutant survived: the suite cannot see that breakage"
log "every mutant fails the suite"
