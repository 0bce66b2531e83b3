#!/usr/bin/env bash
# Negative control: the unpatched driver changed back to the 2017 rule
# (tests/negative-control/2017-rule.diff: signal every 32nd SEND whatever
# the queue depth, complete a request on its response alone), through the
# boot test, whose port 2 is the 16-deep target that overflowed mlx5's SQ
# in 2017. What it must show is an overflow (post_send failed, -ENOMEM)
# or a verify error. rxe frees a send queue slot as soon as the WQE
# completes, signaled or not, and copies a SEND's data when it posts the
# packet, so it may not; then this says so, and checks what it can: that
# the variant runs the 2017 rule (about 1/32 send completions per 4k
# write) and moves data on the 16-deep port.
# Writes $LOGS/negative-control.tsv: check, result, detail. Fails only if
# the variant is not the 2017 rule or did not run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=negative-2017rule
diff=$TOP/tests/negative-control/2017-rule.diff
root=$BUILD/modroot-$SUFFIX-2017rule
MODROOT='' "$TOP/scripts/host/build-baseline.sh" 2017rule "$diff"
out=$LOGS/$name
rc=0
MODROOT=$root "$TOP/scripts/host/boot.sh" "$name" "${BOOT_TIMEOUT:-1500}" \
	"$TOP/scripts/guest/nvme-rdma-io.sh" check || rc=$?

tsv=$LOGS/negative-control.tsv
printf 'check\tresult\tdetail\n' >"$tsv"
row() { printf '%s\t%s\t%s\n' "$@" >>"$tsv"; }
overflow=$(grep -ahE 'post_send failed|error code -12|wq_overflow' "$out/console.log" "$out/dmesg.txt" 2>/dev/null | head -1 || true)
verify=$(grep -ahE 'verify failed|bad magic|bad header' "$out"/fio-*.json 2>/dev/null | head -1 || true)
detected=0
if [ -n "$overflow" ] || [ -n "$verify" ]; then
	detected=1
	row "boot test, 16-deep port" "FAILED as expected" "${overflow:-$verify}"
elif [ $rc -ne 0 ]; then
	row "boot test, 16-deep port" "FAILED, other cause" "$(head -1 "$out/error" 2>/dev/null || echo "rc $rc")"
else
	row "boot test, 16-deep port" "passed: rxe does not show it" \
		"no post_send failure, no verify error (rxe retires unsignaled WQEs itself; the KUnit SQ simulator's interval-is-32 mutant shows the overflow)"
fi
# The variant must really be the 2017 rule: 4k writes at about 1/32 send
# completions per I/O on both ports (the series gets 1/depth-half).
ok=1
while IFS=$'\t' read -r w port sq ios _ send _; do
	case "$w" in 4k-*) ;; *) continue ;; esac
	if awk -v s="$send" 'BEGIN { exit !(s > 0.02 && s < 0.06) }'; then
		row "2017 rule active: $w port $port (sqsize $sq)" ok "$send send CQEs per I/O over $ios I/Os"
	else
		row "2017 rule active: $w port $port (sqsize $sq)" FAIL "$send send CQEs per I/O, expected about 1/32"
		ok=0
	fi
done < <(tail -n +2 "$out/results.tsv" 2>/dev/null)
grep -q '^2017 rule active' "$tsv" || { row "2017 rule active" FAIL "no 4k results (logs: $out)"; ok=0; }
column -t -s $'\t' "$tsv"
[ $ok = 1 ] || [ $detected = 1 ] || die "negative control: the 2017-rule variant did not run as intended (logs: $out)"
log "negative control: $(sed -n 2p "$tsv" | cut -f2)"
