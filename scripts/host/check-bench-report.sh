#!/usr/bin/env bash
# make bench's report (bench-report.py) on made-up boots, two time rounds
# (nothing counting: every count "-") and one count round of both drivers:
# a 2-vCPU guest with a port 1 and a port 2 row, a 1-vCPU guest with the
# polled row, raw files with the guest's own header line
# (scripts/guest/bench.sh). The report must take IOPS from the time boots
# only and the per-command figures from the count boots only, must say
# which guest ran each row (vcpus, boot names "N" and "N-1cpu"), must read
# an A/A run's labels, and must catch four broken inputs: a count that is
# not a number (a guest that reads too few fields into its last variable
# wrote "0 - -"), a time boot that counted, a polled row also run on the
# 2-vCPU guest (EXTRA) and no 1-vCPU guests (MISSING). A check that
# cannot fail is not a check: each broken input is watched failing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The plot needs Debian's matplotlib (as make bench does).
"$TOP/scripts/host/deps.sh" python3-matplotlib
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
header=$(sed -n "s/^printf '\(row\\\\tworkload[^']*\)\\\\n' >\"\$OUT\/bench-raw.tsv\"$/\1/p" \
	"$TOP/scripts/guest/bench.sh")
[ -n "$header" ] || die "no bench-raw.tsv header line in scripts/guest/bench.sh"

# fixture DIR [MUTATION [LABELS]]: the boots of two time rounds and one
# count round in DIR, and DIR/plan.
fixture() {
	mkdir -p "$1"
	/usr/bin/python3 - "$1" "${2:-}" "$header" "${3:-upstream,series}" <<'EOF'
import os, sys
out, mutation, header = sys.argv[1], sys.argv[2], sys.argv[3].replace("\\t", "\t").split("\t")
labels = sys.argv[4].split(",")
rows = [("4k-randread-uring-qd1", "d", "1", 1), ("4k-randread-poll-qd32", "poll", "1", 1),
        ("4k-randread-uring-qd32-b1", "p2", "2", 32)]
with open(os.path.join(out, "plan"), "w") as f:
    for name, conn, _, qd in rows:
        f.write(f"{name} {conn} randread 4k io_uring {qd} 1 1\n")
for mode, b in (("time", 1), ("time", 2), ("count", 1)):
    pfx = "" if mode == "time" else "count-"
    for sfx, vcpus in (("", 2), ("-1cpu", 1)):
        if mutation == "no-1cpu" and sfx:
            continue
        for d in labels:
            bdir = os.path.join(out, f"bench-{d}-{pfx}{b}{sfx}")
            os.makedirs(bdir)
            for fn, text in (("accel", "TCG icount"), ("guest-seconds", "300"), ("info", f"vcpus {vcpus}")):
                with open(os.path.join(bdir, fn), "w") as f:
                    f.write(text + "\n")
            with open(os.path.join(out, f"bench-{d}-{pfx}{b}{sfx}.wall"), "w") as f:
                f.write("400\n")
            lines = ["\t".join(header)]
            for i, (name, conn, port, qd) in enumerate(rows, 1):
                if (conn == "poll") != (vcpus == 1) and not (mutation == "poll-on-2" and conn == "poll"):
                    continue
                series = d != "upstream"
                # A count boot runs slower (its counters cost): 4000 ms.
                v = dict(row=str(i), workload=name, port=port, conn=conn, queues="2/0/0", sqsize="127",
                         rw="randread", bs="4k", engine="io_uring", iodepth=str(qd), batch="1", jobs="1",
                         poll="1" if conn == "poll" else "0", ios="16384",
                         runtime_ms=str(2000 + b) if mode == "time" else "4000",
                         queue_rq="16384", stalls="0" if series else "-", send_posts="16384",
                         send_cqes="128" if series else "16384", recv_cqes="16384",
                         recv_posts="2048" if series else "16384", local_inv="-" if series else "0",
                         reg_mr="16384", wrs="32768" if series else "-", polls="9000" if conn == "poll" else "0",
                         cmds="16384")
                if mutation == "bad-number" and series and mode == "count" and i == 1:
                    v["stalls"] = "0 - -"
                counts = ("queue_rq", "stalls", "send_posts", "send_cqes", "recv_cqes", "recv_posts",
                          "local_inv", "reg_mr", "wrs", "polls", "cmds")
                if mode == "time" and not (mutation == "time-counted" and series and b == 2 and i == 1):
                    v.update({k: "-" for k in counts})
                lines.append("\t".join(v[h] for h in header))
            with open(os.path.join(bdir, "bench-raw.tsv"), "w") as f:
                f.write("\n".join(lines) + "\n")
EOF
}
report() {
	/usr/bin/python3 "$TOP/scripts/host/bench-report.py" --count-boots 1 ${2:+--labels "$2"} \
		"$1" 2 "$1/plan" "check" >/dev/null 2>"$1/err"
}
# col DIR DRIVER WORKLOAD COLUMN: that cell of DIR/bench.tsv
col() {
	awk -F'\t' -v d="$2" -v w="$3" -v c="$4" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["driver"] == d && $h["workload"] == w { print $h[c] }' "$1/bench.tsv"
}
bad=0
result() { # NAME OK|WRONG DETAIL
	printf '%-26s %-5s %s\n' "$1" "$2" "$3"
	[ "$2" = ok ] || bad=1
}

fixture "$tmp/good"
if ! report "$tmp/good"; then
	result "two rounds, two guests" WRONG "report failed: $(tail -1 "$tmp/good/err")"
else
	got="$(col "$tmp/good" series 4k-randread-poll-qd32 vcpus) $(col "$tmp/good" upstream 4k-randread-uring-qd1 vcpus)"
	got+=" $(col "$tmp/good" series 4k-randread-uring-qd32-b1 flag) $(col "$tmp/good" series 4k-randread-poll-qd32 repeats)"
	got+=" $(awk -F'\t' '$3 == "2-1cpu"' "$tmp/good/bench-runs.tsv" | wc -l)"
	# vcpus of the polled and a port 1 row, a flag, repeats, and the two
	# drivers' runs of round 2's 1-vCPU guest by their boot name.
	if [ "$got" = "1 2 ok 2 2" ]; then
		result "two rounds, two guests" ok "vcpus 1 / 2, boot names N and N-1cpu"
	else
		result "two rounds, two guests" WRONG "expected '1 2 ok 2 2', got '$got'"
	fi
	# IOPS of the time boots (16384 I/Os in 2001 and 2002 ms), the counted
	# IOPS and the per-command figures of the count boot (4000 ms; 128 send
	# CQEs per 16384 commands), count repeats.
	got="$(col "$tmp/good" series 4k-randread-uring-qd1 iops) $(col "$tmp/good" series 4k-randread-uring-qd1 iops_counted)"
	got+=" $(col "$tmp/good" series 4k-randread-uring-qd1 send_cqe/cmd) $(col "$tmp/good" upstream 4k-randread-uring-qd1 count_repeats)"
	if [ "$got" = "8186 4096 0.0078 1" ]; then
		result "time and count boots" ok "IOPS from time boots, counts from the count boot"
	else
		result "time and count boots" WRONG "expected '8186 4096 0.0078 1', got '$got'"
	fi
fi
fixture "$tmp/aa" "" a,b
if ! report "$tmp/aa" a,b; then
	result "A/A labels" WRONG "report failed: $(tail -1 "$tmp/aa/err")"
elif [ "$(col "$tmp/aa" b 4k-randread-uring-qd1 repeats)" = 2 ] && grep -q '^4k-randread-uring-qd1 .* +0.0% ' "$tmp/aa/bench.txt"; then
	result "A/A labels" ok "labels a and b, change +0.0%"
else
	result "A/A labels" WRONG "no b row with 2 repeats, or no +0.0% change (see $tmp/aa/bench.txt)"
fi
# The plot draws both label sets (bench-plot.py reads the labels from
# bench.tsv).
# The fixture's only sweep row is 4k-randread-uring-qd1 (QD 1: unbatched
# and batched), so each label pair draws two change points.
for d in good:upstream aa:a; do
	want="${d#*:}"
	d=${d%%:*}
	want="bench-plot: $([ "$want" = a ] && echo "b vs a" || echo "series vs upstream"): 2 change points"
	if [ -s "$tmp/$d/bench.tsv" ] && /usr/bin/python3 "$TOP/scripts/host/bench-plot.py" "$tmp/$d/bench.tsv" \
		"$tmp/$d/bench.png" check >"$tmp/$d/plot.out" 2>"$tmp/$d/plot.err" && [ -s "$tmp/$d/bench.png" ] &&
		grep -qxF "$want" "$tmp/$d/plot.out"; then
		result "plot ($d)" ok "$want"
	else
		result "plot ($d)" WRONG "expected '$want', got '$(cat "$tmp/$d/plot.out" 2>/dev/null)' $(tail -1 "$tmp/$d/plot.err" 2>/dev/null)"
	fi
done
# must_reject NAME MUTATION ERROR: the report of that broken fixture must
# fail, saying ERROR.
must_reject() {
	fixture "$tmp/$2" "$2"
	if report "$tmp/$2"; then
		result "$1" WRONG "the report accepted it"
	elif grep -qF "$3" "$tmp/$2/err"; then
		result "$1" ok "$(tail -1 "$tmp/$2/err")"
	else
		result "$1" WRONG "failed without saying '$3': $(tail -1 "$tmp/$2/err")"
	fi
}
must_reject "a time boot that counted" time-counted "time run with a count in column"
must_reject "a count that is '0 - -'" bad-number "column stalls is '0 - -', not a number"
fixture "$tmp/poll-on-2" poll-on-2
report "$tmp/poll-on-2" || true
f=$(col "$tmp/poll-on-2" series 4k-randread-poll-qd32 flag 2>/dev/null || true)
case "$f" in
*EXTRA*) result "polled row on 2 vCPUs too" ok "flag $f" ;;
*) result "polled row on 2 vCPUs too" WRONG "flag '${f:-none}', not EXTRA" ;;
esac
fixture "$tmp/no-1cpu" no-1cpu
report "$tmp/no-1cpu" || true
f=$(col "$tmp/no-1cpu" upstream 4k-randread-poll-qd32 flag 2>/dev/null || true)
case "$f" in
MISSING,CFEW) result "no 1-vCPU guests" ok "flag $f" ;;
*) result "no 1-vCPU guests" WRONG "flag '${f:-none}', not MISSING,CFEW" ;;
esac
[ $bad = 0 ] || die "bench-report.py: a fixture gave the wrong report (see above)"
log "bench-report.py: two guest kinds, time and count boots, A/A labels reported; four broken inputs caught"
