#!/usr/bin/env bash
# The checks that can fail, with the controls that prove it: one kernel
# image, the test rxe (tests/rxe-strict) switched on from the kernel
# command line, six guests:
#   strict     the boot test (scripts/guest/nvme-rdma-io.sh check) on strict
#              rxe (mlx5 slot rules) with the retry oracle: must pass, no
#              overflow;
#   retransmit forced retransmission with the retry oracle
#              (scripts/guest/retransmit.sh: in-capsule writes, and 4k reads
#              at QD1, QD32 and QD32 in batches of 16 with register_always
#              Y and N, on the 128-deep and the 16-deep port): must pass,
#              every phase with retransmitted SENDs compared and none
#              changed;
#   poll       two pollers on one poll queue (scripts/guest/poll-queue.sh),
#              strict rxe with the oracle: must pass;
#   stall      two namespaces on one I/O queue of a 16-slot send ring
#              (tests/negative-control/small-ring.diff on the series,
#              scripts/guest/stall-hctx.sh), strict rxe with the oracle:
#              dispatches of several hctxs stall all the time; must pass,
#              no overflow;
#   enomem     tests/negative-control/enomem.diff on the series: every
#              50th post on an I/O queue is refused with -ENOMEM, whole or
#              after its first SEND, the retransmit case's guest: the
#              refused requests go back to blk-mq and complete verified,
#              no retransmitted SEND changed, nothing recovers the queue
#              (the dmesg scan fails on any recovery); must pass, with
#              both kinds of refusal injected;
#   2017-rule  the negative control tests/negative-control/2017-rule.diff,
#              the strict case's guest: must FAIL with a send queue overflow;
#   lifetime   tests/negative-control/lifetime.diff (a request completes on
#              its response alone), the retransmit case's guest: must FAIL
#              with the retry oracle;
#   rxe-unfixed the series on a test rxe built without fixes/rxe, the
#              retransmit case's guest: must FAIL with the test rxe's
#              report of a local operation executed again after a retry
#              (stock rxe then flushes the QP: "WR flushed");
#   lifetime-read  tests/negative-control/lifetime-read.diff on the series
#              (a read's capsule is placed by its tag, so a tag reused after
#              the response rewrites a capsule whose SEND is unretired),
#              the retransmit case's guest: must FAIL with the retry oracle
#              on a 64-byte SEND (a capsule without data: a read's);
#   bounds     the 2017 rule on stock rxe (no overflow there): the boot
#              test's per-row bounds must FAIL it (1/32 send CQEs per
#              request where a driver that signals by SEND count is held to
#              one per request).
# A control that does not fail fails this check. Writes
# $LOGS/controls.tsv (case, expect, result, detail).
# Usage: check-controls.sh [CASE...]   (default: all ten)
# Env: RETRANSMIT_SECONDS, the length of each read phase under drops
#      (default 8; make stress runs 20).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Forced retransmission (retransmit.sh switches the drops on for its
# writes): the retransmit timer shortened to 50 ms so a drop costs a short
# stall.
STRICT="rdma_rxe.strict_sq=1 rdma_rxe.retry_oracle=1"
ORACLE="rdma_rxe.retry_oracle=1 rdma_rxe.retry_timeout_ms=50"
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(strict retransmit poll stall enomem rxe-unfixed 2017-rule lifetime lifetime-read bounds)
rsecs=${RETRANSMIT_SECONDS:-8}

tsv=$LOGS/controls.tsv
mkdir -p "$LOGS"
printf 'case\texpect\tresult\tdetail\n' >"$tsv"
row() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$tsv"; }
bad=0

# counter NAME DIR: a test-rxe counter the guest saved, or "missing".
counter() {
	awk -v n="$1" '$1 == n { print $2; f = 1 } END { if (!f) print "missing" }' \
		"$2/rxe-counters.txt" 2>/dev/null || echo missing
}

# The lines that say why a guest failed: overflow, oracle, post failure.
evidence() {
	grep -ahoE 'rdma_rxe: (strict_sq|retry oracle|test):.*|nvme_rdma_[a-z_]+ failed with error code -?[0-9]+' \
		"$1/console.log" "$1/dmesg.txt" 2>/dev/null | head -1 || true
}

# run CASE MODROOT GUEST_SCRIPT APPEND [ARGS]: boots one guest, sets rc.
run() {
	local name=controls-$1 root=$2 script=$3 append=$4
	shift 4
	rc=0
	MODROOT=$root APPEND=$append "$TOP/scripts/host/boot.sh" "$name" "${BOOT_TIMEOUT:-1500}" \
		"$TOP/scripts/guest/$script" "$@" || rc=$?
	out=$LOGS/$name
}

# must_pass CASE [retransmit]: the guest passed, the strict queue never
# overflowed, the oracle saw no change; with "retransmit", the oracle also
# compared retransmitted SENDs.
must_pass() {
	local cmp mis ovf
	cmp=$(counter oracle_compared "$out") mis=$(counter oracle_mismatches "$out")
	ovf=$(counter strict_overflows "$out")
	if [ $rc -ne 0 ]; then
		row "$1" pass FAILED "$(head -1 "$out/error" 2>/dev/null || echo "rc $rc") $(evidence "$out")"
	elif [ "$mis" = missing ] || [ "$ovf" = missing ]; then
		row "$1" pass FAILED "the guest saved no test rxe counters: was the test rxe loaded?"
	elif [ "${2:-}" = retransmit ] && ! [ "$cmp" -gt 0 ] 2>/dev/null; then
		row "$1" pass FAILED "the oracle compared no retransmitted SEND (oracle_compared=$cmp): forced retransmission did not happen"
	elif [ "$mis" != 0 ] || [ "$ovf" != 0 ]; then
		row "$1" pass FAILED "oracle_mismatches=$mis strict_overflows=$ovf"
	else
		row "$1" pass passed "no overflow; oracle compared $cmp retransmitted SENDs, none changed"
		return 0
	fi
	bad=1
}

# must_fail CASE REGEX WHAT: the guest failed, and for the reason wanted.
must_fail() {
	local ev
	ev=$(evidence "$out")
	if [ $rc -eq 0 ]; then
		row "$1" "fail: $3" "NOT CAUGHT" "the guest passed: the control proves nothing"
		bad=1
	elif grep -qaE "$2" "$out/console.log" "$out/dmesg.txt" 2>/dev/null; then
		row "$1" "fail: $3" "caught" "$(grep -ahoE "$2.*" "$out/console.log" "$out/dmesg.txt" 2>/dev/null | head -1)"
	else
		row "$1" "fail: $3" "FAILED, other cause" "$(head -1 "$out/error" 2>/dev/null || echo "rc $rc") $ev"
		bad=1
	fi
}

for c in "${cases[@]}"; do
	log "controls: $c"
	case "$c" in
	strict)
		run strict "$MODROOT" nvme-rdma-io.sh "$STRICT" check
		must_pass strict
		;;
	retransmit)
		run retransmit "$MODROOT" retransmit.sh "$ORACLE" "$rsecs"
		must_pass retransmit retransmit
		;;
	poll)
		run poll "$MODROOT" poll-queue.sh "$STRICT"
		must_pass poll
		;;
	stall)
		MODROOT='' "$TOP/scripts/host/build-baseline.sh" small-ring \
			"$TOP/tests/negative-control/small-ring.diff" series
		run stall "$BUILD/modroot-$SUFFIX-small-ring" stall-hctx.sh "$STRICT"
		must_pass stall
		;;
	enomem)
		MODROOT='' "$TOP/scripts/host/build-baseline.sh" enomem \
			"$TOP/tests/negative-control/enomem.diff" series
		run enomem "$BUILD/modroot-$SUFFIX-enomem" retransmit.sh "$ORACLE" "$rsecs"
		# how many posts were refused whole, and after their first SEND
		whole=$(grep -c 'nvme_rdma: test: refused with -ENOMEM: .*(whole)' "$out/dmesg.txt" 2>/dev/null || true)
		cut=$(grep -c 'nvme_rdma: test: refused with -ENOMEM: .*(after the first SEND)' "$out/dmesg.txt" 2>/dev/null || true)
		if [ $rc -eq 0 ] && { ! [ "${whole:-0}" -gt 0 ] || ! [ "${cut:-0}" -gt 0 ]; }; then
			row enomem pass FAILED "refused whole ${whole:-0}, after the first SEND ${cut:-0}: a kind of refusal was never injected"
			bad=1
		else
			must_pass enomem retransmit
			# the row must_pass wrote, if it passed: what was refused
			sed -i '$ s/\tpassed\t.*/&; posts refused with -ENOMEM: '"${whole:-0}"' whole, '"${cut:-0}"' after their first SEND/' "$tsv"
		fi
		;;
	rxe-unfixed)
		root=$BUILD/modroot-$SUFFIX-rxe-unfixed
		rm -rf "$root"
		cp -a "$MODROOT" "$root"
		RXE_FIXES=0 "$TOP/scripts/host/build-rxe-strict.sh" "$root"
		run rxe-unfixed "$root" retransmit.sh "$ORACLE" "$rsecs"
		must_fail rxe-unfixed 'rdma_rxe: test: qp#[0-9]+ local operation [0-9]+ executed again after a retry' "local operation executed again"
		;;
	2017-rule)
		MODROOT='' "$TOP/scripts/host/build-baseline.sh" 2017rule "$TOP/tests/negative-control/2017-rule.diff"
		run 2017-rule "$BUILD/modroot-$SUFFIX-2017rule" nvme-rdma-io.sh "$STRICT" check
		must_fail 2017-rule 'rdma_rxe: strict_sq: .*send queue full' "send queue overflow"
		;;
	lifetime)
		MODROOT='' "$TOP/scripts/host/build-baseline.sh" lifetime "$TOP/tests/negative-control/lifetime.diff"
		run lifetime "$BUILD/modroot-$SUFFIX-lifetime" retransmit.sh "$ORACLE" "$rsecs"
		must_fail lifetime 'rdma_rxe: retry oracle: .*payload changed' "retry oracle"
		;;
	lifetime-read)
		MODROOT='' "$TOP/scripts/host/build-baseline.sh" lifetime-read \
			"$TOP/tests/negative-control/lifetime-read.diff" series
		run lifetime-read "$BUILD/modroot-$SUFFIX-lifetime-read" retransmit.sh "$ORACLE" "$rsecs"
		must_fail lifetime-read 'rdma_rxe: retry oracle: .* len 64: payload changed' "retry oracle, a 64-byte capsule"
		;;
	bounds)
		MODROOT='' "$TOP/scripts/host/build-baseline.sh" 2017rule "$TOP/tests/negative-control/2017-rule.diff"
		run bounds "$BUILD/modroot-$SUFFIX-2017rule" nvme-rdma-io.sh "" check
		must_fail bounds 'OUT OF BOUNDS: ' "per-row bounds"
		;;
	*) die "unknown control case '$c' (want strict, retransmit, poll, stall, enomem, rxe-unfixed, 2017-rule, lifetime, lifetime-read or bounds)" ;;
	esac
done
column -t -s $'\t' "$tsv"
[ $bad = 0 ] || die "controls: a check failed or a control was not caught (table: $tsv)"
log "controls: the series passed, every control was caught"
