#!/usr/bin/env bash
# Prove the KUnit suite can fail: break the interval, the slot and the
# retire arithmetic, the chain end, the AER deferral, the stall list, the
# refusal policy and the pull-up buffers of rdma_send_ring.h one way at a
# time, run the suite on UML, and require that every mutant fails it.
# The header is restored from git afterwards.
# Env: KUNIT_MUTANTS (debugging) only the mutants whose names are in this
#      comma-separated list; a name that is no mutant's is an error.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

hdr=drivers/nvme/host/rdma_send_ring.h
[ -f "$TREE/$hdr" ] || die "no $hdr in $TREE: is the series applied? (make tree)"
cd "$TREE"
git diff --quiet -- "$hdr" || die "$hdr has uncommitted changes"
trap 'git -C "$TREE" checkout -q -- "$hdr"' EXIT

run_suite() {
	./tools/testing/kunit/kunit.py run --kunitconfig=drivers/nvme/host \
		--build_dir="$KUNIT_UML" --jobs="$(nproc)" >"$LOGS/kunit-mutant-$1.log" 2>&1
}

# Each mutant: a name and a sed expression on the header.
names=(interval-is-depth interval-is-32 no-drain-slot retire-one-short seq-ignores-tail untake-no-signal
	stall-twice stall-pop-keeps cut-requeues any-error-requeues chain-end-never waited-on-ignored
	aer-never-marked aer-before-inv aer-while-stopping pullup-never-signaled pullup-retire-lost
	pullup-untake-lost)
exprs=(
	's|u32 interval = depth / 2;|u32 interval = depth;|'
	's|return max(interval, 1U);|return 32;|'
	's|return max_send_wr ? max_send_wr - 1 : 0;|return max_send_wr;|'
	's|smp_store_release(&ring->tail, seq + 1);|smp_store_release(\&ring->tail, seq);|'
	's|return ring->tail + ((slot - ring->tail) \& ring->mask);|return slot;|'
	's|ring->since_signal = ring->interval - 1;|ring->since_signal = 0;|'
	's|if (list_empty(entry))|if (entry)|'
	's|list_del_init(entry);|INIT_LIST_HEAD(entry);|'
	's/ || !req || reg_posted)/ || !req)/'
	's/if (err != -ENOMEM || local_inv/if (local_inv/'
	's|if (!ring->need_signal)|if (true)|'
	's|} else if (waited_on) {|} else if (false) {|'
	's|WRITE_ONCE(\*deferred, true);|;|'
	's/if (!\*deferred || inv_waiting || stopped)/if (!*deferred || stopped)/'
	's/if (!\*deferred || inv_waiting || stopped)/if (!*deferred || inv_waiting)/'
	's|\*signal = !((seq + 1) \& (ring->nr_pullups / 2 - 1));|*signal = false;|'
	's|smp_store_release(&ring->pullup_tail, ring->pullup_tail + n);|;|'
	's|ring->pullup_head -= n;|;|'
)
only=${KUNIT_MUTANTS:-}
for name in ${only//,/ }; do
	[[ " ${names[*]} " == *" $name "* ]] || die "KUNIT_MUTANTS: no mutant is named '$name'"
done
mkdir -p "$LOGS"
log "baseline: the suite must pass unmodified"
run_suite baseline || die "KUnit suite fails without mutation (see $LOGS/kunit-mutant-baseline.log)"

bad=0
printf '%-20s %-10s %s\n' mutant result 'kunit.py summary'
for i in "${!names[@]}"; do
	name=${names[$i]}
	[ -z "$only" ] || [[ ",$only," == *",$name,"* ]] || continue
	git checkout -q -- "$hdr"
	sed -i "${exprs[$i]}" "$hdr"
	git diff --quiet -- "$hdr" && die "mutant $name did not change $hdr"
	result=killed
	run_suite "$name" && result="SURVIVED (suite passed)"
	# kunit.py's summary: "Ran N tests: passed: P, failed: F"
	summary=$(grep -o 'Ran [0-9]* tests:.*' "$LOGS/kunit-mutant-$name.log" | tail -1)
	case "$result:$summary" in
	killed:*'failed: '[1-9]*) ;;
	killed:*) result="NOT KILLED BY A TEST (build or run error, see $LOGS/kunit-mutant-$name.log)" ;;
	esac
	printf '%-20s %-10s %s\n' "$name" "${result%% *}" "$summary"
	[ "$result" = killed ] || bad=1
done
[ $bad -eq 0 ] || die "a mutant survived: the suite cannot see that breakage"
log "every mutant fails the suite"
