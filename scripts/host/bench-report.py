#!/usr/bin/python3
"""make bench's report: IOPS from the time boots, figures per command from
the count boots.

Reads LOGS/bench-LABEL-BOOT/ and LOGS/bench-LABEL-BOOT-1cpu/ (the
1-vCPU guest of the polled rows) of the time boots (nothing counting),
BOOT in 1..BOOTS, and LOGS/bench-LABEL-count-BOOT{,-1cpu}/ of the count
boots (kprobes and tracepoints on), BOOT in 1..COUNT_BOOTS, each with
bench-raw.tsv, wall/ROW.start|end, accel, info, guest-seconds, error, for
the two LABELs (upstream, series; a, b for an A/A run), and
LOGS/<that directory>.wall (host seconds of that boot). The IOPS columns
come from time boots only; the per-command columns from count boots only,
and iops_counted is what the count boots measured, to show what counting
costs. Writes
  OUT/bench-runs.tsv  one line per label x boot x row (every repeat)
  OUT/bench.tsv       one line per label x row: means, IOPS spread
  OUT/bench.txt       the first label against the second, row by row
Every planned row (PLAN: the guest's "bench.sh list" output) is in
bench.tsv and bench.txt for both labels, measured or not: a row with no
measurement says "missing", it is never dropped.
Usage: bench-report.py [--labels A,B] [--count-boots N] [--out NAME] LOGS BOOTS PLAN [TITLE]
  (defaults: upstream,series, COUNT_BOOTS 0, NAME bench: OUT/NAME.txt,
  NAME.tsv, NAME-runs.tsv; make bench-aa writes bench-aa.*)
"""

import csv
import os
import sys

DRIVERS = ["upstream", "series"]  # the two labels (--labels)
COUNTS = ("queue_rq", "stalls", "send_posts", "send_cqes", "recv_cqes", "recv_posts", "local_inv", "reg_mr",
          "wrs", "polls", "cmds")
SPREAD_FLAG = 1.0  # percent: an icount row whose repeats spread this much is flagged

# The per-row columns of bench.tsv, with their one-line meaning (README).
COLUMNS = [
    ("driver", "upstream (the import's module) or series (the patched module), same kernel image; a, b: the series twice (A/A)"),
    ("workload", "fio row name: block size, rw, engine, iodepth (qd), batch (b), jobs, queue setup"),
    ("port", "target port: 1 = target default queue size, 2 = param_max_queue_size 16"),
    ("conn", "d: 2 I/O queues; q1: --nr-io-queues 1 (jobs pinned); poll: + --nr-poll-queues 1, fio --hipri; p2: port 2"),
    ("queues", "default/read/poll queues as nvme-rdma mapped them"),
    ("sqsize", "the controller's sqsize (sysfs)"),
    ("rw", "fio rw"),
    ("bs", "fio block size"),
    ("engine", "fio ioengine"),
    ("iodepth", "fio iodepth per job"),
    ("batch", "fio iodepth_batch_submit = iodepth_batch_complete_min (1 = unbatched)"),
    ("jobs", "fio jobs (pinned, one per vCPU)"),
    ("poll", "1 = polled queue (hipri)"),
    ("vcpus", "the guest's vCPUs: 1 for the polled rows (they do not repeat on 2), 2 for the others"),
    ("repeats", "time runs measured (one per time boot: nothing counting)"),
    ("count_repeats", "count runs measured (one per count boot: kprobes and tracepoints on)"),
    ("ios", "fio I/Os per run (mean)"),
    ("cmds/io", "NVMe commands per fio I/O (below 1 where the block layer merged I/Os), count boots"),
    ("iops", "icount IOPS of the time boots: fio I/Os per guest second (guest time counts instructions), mean"),
    ("iops_min", "lowest icount IOPS of the repeats"),
    ("iops_max", "highest icount IOPS of the repeats"),
    ("iops_spread%", "(max - min) / mean of the repeats' icount IOPS, percent"),
    ("iops_counted", "icount IOPS of the count boots, mean: what the counters leave (not a result)"),
    ("flag", "SPREAD when iops_spread% >= 1, FEW / EXTRA when fewer / more time runs than rounds, CFEW / CEXTRA the same for count runs, MISSING when none"),
    ("send_cqe/cmd", "send-side completions (send, memreg, inv_rkey, async done handlers) per command"),
    ("recv_cqe/cmd", "receive completions (nvme_rdma_recv_done) per command"),
    ("send_posts/cmd", "ib_post_send calls (series: tracepoint nvme_rdma_post_send; upstream: nvme_rdma_post_send + LOCAL_INVs) per command"),
    ("recv_posts/cmd", "ib_post_recv calls (nvme_rdma_post_recv) per command"),
    ("wrs/post", "send WRs per ib_post_send call (SEND + REG_MR + LOCAL_INV)"),
    ("wrs_source", "series: the WRs its send rings took (debugfs ring heads); upstream: posts + REG_MRs (ib_mr_pool_get calls)"),
    ("polls/cmd", "nvme_rdma_poll calls per command (blk-mq polling)"),
    ("wall_iops", "NOISY: fio I/Os per host second from fio start to exit (includes fio startup; shares the host)"),
    ("wall_spread%", "NOISY: (max - min) / mean of the repeats' wall IOPS, percent"),
]

RUN_COLUMNS = ["driver", "mode", "boot", "workload", "port", "conn", "queues", "sqsize", "rw", "bs", "engine",
               "iodepth", "batch", "jobs", "poll", "vcpus", "ios", "runtime_ms", "cmds", "iops", "wall_s",
               "wall_iops", "queue_rq", "stalls", "send_posts", "send_cqes", "recv_cqes", "recv_posts",
               "local_inv", "reg_mr", "wrs", "wrs_source", "wrs_formula", "polls"]


def num(v):
    return None if v in ("", "-", None) else float(v)


def fmt(v, nd=3):
    if v is None:
        return "-"
    return f"{v:.{nd}f}"


def read_text(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def load_plan(path):
    plan = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            name, conn, rw, bs, engine, qd, batch, jobs = p
            plan.append(dict(workload=name, conn=conn, port="2" if conn == "p2" else "1", rw=rw, bs=bs,
                             engine=engine, iodepth=qd, batch=batch, jobs=jobs,
                             poll="1" if conn == "poll" else "0"))
    return plan


def guest_vcpus(bdir):
    for line in read_text(os.path.join(bdir, "info")).splitlines():
        if line.startswith("vcpus "):
            return line.split()[1]
    return "?"


def load_runs(logs, boots, kinds, mode):
    runs, boots_info = [], []
    pfx = "" if mode == "time" else "count-"
    for b in range(1, boots + 1):
        for sfx in kinds:
            for d in DRIVERS:
                name = f"bench-{d}-{pfx}{b}{sfx}"
                bdir = os.path.join(logs, name)
                info = dict(driver=d, mode=mode, boot=f"{pfx}{b}{sfx}", dir=bdir, accel=read_text(os.path.join(bdir, "accel"), "?"),
                            error=read_text(os.path.join(bdir, "error")),
                            guest_s=num(read_text(os.path.join(bdir, "guest-seconds"), "-")),
                            wall_s=num(read_text(os.path.join(logs, f"{name}.wall"), "-")),
                            rows=0, present=os.path.isdir(bdir))
                boots_info.append(info)
                raw = os.path.join(bdir, "bench-raw.tsv")
                if not os.path.exists(raw):
                    continue
                vcpus = guest_vcpus(bdir)
                with open(raw) as f:
                    for r in csv.DictReader(f, delimiter="\t"):
                        info["rows"] += 1
                        try:
                            run = derive(checked(r, mode), d, f"{pfx}{b}{sfx}", bdir, mode)
                        except BadRaw as e:
                            sys.exit(f"bench-report: {raw}: {e}")
                        run["vcpus"] = vcpus
                        run["mode"] = mode
                        runs.append(run)
    return runs, boots_info


def mtime(path):
    try:
        return os.stat(path).st_mtime_ns / 1e9
    except OSError:
        return None


class BadRaw(Exception):
    pass


def checked(r, mode):
    """The raw row with every count column checked: a number, or "-"
    where the driver has no such count (upstream's stalls, wrs; the
    series' local_inv). A time run counts nothing: every count is "-"."""
    for k in ("ios", "runtime_ms") + COUNTS:
        if k not in r:
            if k == "cmds":
                continue
            raise BadRaw(f"no column {k}")
        v = r[k]
        if mode == "time" and k in COUNTS:
            if v != "-":
                raise BadRaw(f"row {r.get('row', '?')} ({r.get('workload', '?')}): time run with a count in column {k} ('{v}')")
            continue
        if v == "-" and k in ("stalls", "wrs", "local_inv"):
            continue
        try:
            float(v)
        except (TypeError, ValueError):
            raise BadRaw(f"row {r.get('row', '?')} ({r.get('workload', '?')}): column {k} is '{v}', not a number")
    return r


def derive(r, driver, boot, bdir, mode):
    ios, ms = float(r["ios"]), float(r["runtime_ms"])
    t0 = mtime(os.path.join(bdir, "wall", r["row"] + ".start"))
    t1 = mtime(os.path.join(bdir, "wall", r["row"] + ".end"))
    wall = t1 - t0 if t0 is not None and t1 is not None and t1 > t0 else None
    if mode == "time":
        run = {k: r.get(k, "") for k in RUN_COLUMNS if k in r}
        run.update(driver=driver, boot=str(boot), iops=ios * 1000.0 / ms if ms > 0 else None,
                   wall_s=wall, wall_iops=ios / wall if wall else None, ios=ios, runtime_ms=ms)
        return run
    stalls = num(r["stalls"]) or 0.0
    posts, regmr = float(r["send_posts"]), float(r["reg_mr"])
    # The series has no LOCAL_INV count of its own ("-"): its WRs are counted.
    inv = num(r["local_inv"]) or 0.0
    # Commands: completed requests (nvme_complete_rq), which also counts
    # those dispatched through ->queue_rqs(); older raw files: dispatches.
    cmds = float(r["cmds"]) if "cmds" in r else float(r["queue_rq"]) - stalls
    run = {k: r.get(k, "") for k in RUN_COLUMNS if k in r}
    run.update(driver=driver, boot=str(boot), cmds=cmds, iops=ios * 1000.0 / ms if ms > 0 else None,
               wall_s=wall, wall_iops=ios / wall if wall else None)
    if num(r["wrs"]) is not None:
        # The series counts its WRs itself; the formula is how upstream's
        # are counted, kept beside them as a cross-check.
        run.update(wrs=float(r["wrs"]), wrs_source="debugfs", wrs_formula=cmds + regmr + inv)
    else:
        # Upstream: each post is a SEND (its REG_MR chained in front) or a
        # LOCAL_INV, so WRs = posts + REG_MRs.
        run.update(wrs=posts + regmr, wrs_source="counted", wrs_formula=posts + regmr)
    for k in ("ios", "runtime_ms", "queue_rq", "send_posts", "send_cqes", "recv_cqes", "recv_posts",
              "reg_mr", "polls"):
        run[k] = float(r[k])
    run["local_inv"] = inv
    run["stalls"] = r["stalls"]
    return run


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def spread(xs):
    xs = [x for x in xs if x is not None]
    if len(xs) < 2:
        return None
    m = sum(xs) / len(xs)
    return (max(xs) - min(xs)) / m * 100.0 if m else None


def aggregate(plan, runs, boots, cboots):
    rows = []
    for d in DRIVERS:
        for p in plan:
            mine = [r for r in runs if r["driver"] == d and r["workload"] == p["workload"] and r["port"] == p["port"]]
            rs = [r for r in mine if r["mode"] == "time"]
            cs = [r for r in mine if r["mode"] == "count"]
            row = {c: "-" for c, _ in COLUMNS}
            row.update({k: p[k] for k in ("workload", "port", "conn", "rw", "bs", "engine", "iodepth", "batch", "jobs", "poll")})
            row["driver"] = d
            row["repeats"] = str(len(rs))
            row["count_repeats"] = str(len(cs))
            flags = []
            if len(rs) < boots:
                flags.append("FEW" if rs else "MISSING")
            if len(rs) > boots:
                flags.append("EXTRA")
            if len(cs) < cboots:
                flags.append("CFEW")
            if len(cs) > cboots:
                flags.append("CEXTRA")
            if mine:
                row["queues"] = mine[0]["queues"]
                row["vcpus"] = "/".join(sorted({r["vcpus"] for r in mine}))
                row["sqsize"] = mine[0]["sqsize"]
            if rs:
                iops = [r["iops"] for r in rs]
                sp = spread(iops)
                if sp is not None and sp >= SPREAD_FLAG:
                    flags.append("SPREAD")
                row.update({
                    "ios": fmt(mean([r["ios"] for r in rs]), 0),
                    "iops": fmt(mean(iops), 0),
                    "iops_min": fmt(min(iops), 0),
                    "iops_max": fmt(max(iops), 0),
                    "iops_spread%": fmt(sp, 2),
                    "wall_iops": fmt(mean([r["wall_iops"] for r in rs]), 0),
                    "wall_spread%": fmt(spread([r["wall_iops"] for r in rs]), 1),
                })
            if cs:
                cmds = sum(r["cmds"] for r in cs)

                def per_cmd(k):
                    return sum(r[k] for r in cs) / cmds if cmds > 0 else None
                posts = sum(r["send_posts"] for r in cs)
                row.update({
                    "cmds/io": fmt(cmds / sum(r["ios"] for r in cs)),
                    "iops_counted": fmt(mean([r["iops"] for r in cs]), 0),
                    "send_cqe/cmd": fmt(per_cmd("send_cqes"), 4),
                    "recv_cqe/cmd": fmt(per_cmd("recv_cqes"), 4),
                    "send_posts/cmd": fmt(per_cmd("send_posts"), 4),
                    "recv_posts/cmd": fmt(per_cmd("recv_posts"), 4),
                    "wrs/post": fmt(sum(r["wrs"] for r in cs) / posts if posts else None, 3),
                    "wrs_source": cs[0]["wrs_source"],
                    "polls/cmd": fmt(per_cmd("polls"), 3),
                })
            row["flag"] = ",".join(flags) or "ok"
            rows.append(row)
    return rows


def write_tsv(path, header, lines):
    with open(path + ".tmp", "w") as f:
        f.write("\t".join(header) + "\n")
        for line in lines:
            f.write("\t".join(str(line[h]) for h in header) + "\n")
    os.replace(path + ".tmp", path)


def delta(a, b):
    a, b = num(a), num(b)
    if a is None or b is None or a == 0:
        return "-"
    return f"{(b / a - 1) * 100:+.1f}%"


def render(head, lines):
    widths = [max(len(str(x[i])) for x in [head] + lines) for i in range(len(head))]
    return ["  ".join(str(c).rjust(widths[j]) if j > 1 else str(c).ljust(widths[j])
                      for j, c in enumerate(row)).rstrip() for row in [head] + lines]


def table(plan, agg, boots_info, boots, cboots, title, runs, kinds):
    by = {(r["driver"], r["workload"], r["port"]): r for r in agg}
    a, b = DRIVERS
    ab = {"upstream": "up"}.get(a, a)
    head1 = ["workload", "port", "sqsize", "vCPUs", f"IOPS {ab}", f"IOPS {b}", "change", f"spread {ab} %", f"spread {b} %",
             "counted change", "wall IOPS change (noisy)", "flag"]
    head2 = ["workload", "port", f"send CQE/cmd {ab}", b, "change", f"send posts/cmd {ab}", b, "change",
             f"recv CQE/cmd {ab}", b, f"recv posts/cmd {ab}", b, f"WRs/post {ab}", b]
    lines1, lines2 = [], []
    flagged = []
    changes = []
    for p in plan:
        u = by[(a, p["workload"], p["port"])]
        s = by[(b, p["workload"], p["port"])]
        flags = sorted({f for r in (u, s) for f in r["flag"].split(",") if f != "ok"})
        if flags:
            flagged.append((p["workload"], p["port"], flags, u["iops_spread%"], s["iops_spread%"]))
        sq = u["sqsize"] if u["sqsize"] == s["sqsize"] or s["sqsize"] == "-" else f"{u['sqsize']}/{s['sqsize']}"
        vc = u["vcpus"] if u["vcpus"] == s["vcpus"] or s["vcpus"] == "-" else f"{u['vcpus']}/{s['vcpus']}"
        lines1.append([p["workload"], p["port"], sq if sq != "-" else s["sqsize"], vc if vc != "-" else s["vcpus"],
                       u["iops"], s["iops"], delta(u["iops"], s["iops"]),
                       u["iops_spread%"], s["iops_spread%"], delta(u["iops_counted"], s["iops_counted"]),
                       delta(u["wall_iops"], s["wall_iops"]),
                       ",".join(flags) or "ok"])
        if num(u["iops"]) and num(s["iops"]):
            changes.append((num(s["iops"]) / num(u["iops"]) - 1) * 100)
        lines2.append([p["workload"], p["port"],
                       u["send_cqe/cmd"], s["send_cqe/cmd"], delta(u["send_cqe/cmd"], s["send_cqe/cmd"]),
                       u["send_posts/cmd"], s["send_posts/cmd"], delta(u["send_posts/cmd"], s["send_posts/cmd"]),
                       u["recv_cqe/cmd"], s["recv_cqe/cmd"], u["recv_posts/cmd"], s["recv_posts/cmd"],
                       u["wrs/post"], s["wrs/post"]])
    out = [title, ""]
    accels = sorted({b["accel"] for b in boots_info if b["present"]})
    out.append(f"accel: {', '.join(accels) or '?'}" +
               ("" if accels == ["TCG icount"] else "   WARNING: not every boot ran under TCG icount: IOPS are not instruction counts"))
    gs = [b["guest_s"] for b in boots_info if b["guest_s"] is not None]
    ws = [b["wall_s"] for b in boots_info if b["wall_s"] is not None]
    def span(xs):
        return f"{min(xs):.0f}-{max(xs):.0f}" if xs else "-"
    out.append(f"boots: {boots} time rounds (nothing counting) and {cboots} count rounds (kprobes, tracepoints);"
               " a round boots each label once per guest kind ("
               + ", ".join({"": "2 vCPUs", "-1cpu": "1 vCPU for the polled rows"}[k] for k in kinds)
               + f"), two guests at a time ({a} and {b} side by side);"
               f" guest s per boot {span(gs)}, host wall s per boot {span(ws)}"
               + (f" (wall/guest {mean(ws) / mean(gs):.1f}x)" if gs and ws else ""))
    out.append("")
    out.append("IOPS: icount (fio I/Os per guest second; guest time counts instructions), mean of the time boots'")
    out.append(f"repeats, nothing counting; change = {b} against {a}; spread = (max - min) / mean of the repeats;")
    out.append("flag SPREAD: spread >= 1%; counted change: the same change in the count boots (counters on), not a result")
    out.append("")
    out.extend(render(head1, lines1))
    out.append("")
    if changes:
        out.append(f"change over the {len(changes)} rows measured: mean {sum(changes) / len(changes):+.2f}%,"
                   f" lowest {min(changes):+.2f}%, highest {max(changes):+.2f}%, |change| >= 1% in"
                   f" {sum(1 for c in changes if abs(c) >= 1)}")
        out.append("")
    if cboots:
        out.append("Per NVMe command (requests completed: nvme_complete_rq calls), not per fio I/O, from the count")
        out.append("boots, summed over their repeats; WRs/post: send WRs per ib_post_send call")
        out.append("")
        out.extend(render(head2, lines2))
        out.append("")
    else:
        out.append("Per NVMe command: no count boots in this run (BENCH_COUNT_BOOTS=0)")
        out.append("")
    nsp = [f for f in flagged if "SPREAD" in f[2]]
    out.append(f"rows with an icount IOPS spread >= {SPREAD_FLAG:g}% (either label): {len(nsp)} of {len(plan)}")
    for w, port, fl, su, ss in nsp:
        out.append(f"  {w} (port {port}): spread {a} {su + '%' if su != '-' else '-'},"
                   f" {b} {ss + '%' if ss != '-' else '-'}")
    other = [f for f in flagged if f[2] != ["SPREAD"]]
    if other:
        out.append("rows measured fewer (FEW, CFEW) or more (EXTRA, CEXTRA) times than there were time (count) rounds, or not at all (MISSING):")
        for w, port, fl, _, _ in other:
            out.append(f"  {w} (port {port}): {','.join(x for x in fl if x != 'SPREAD')}")
    # The series' own WR counts against the formula upstream's are counted with.
    bad = []
    for r in runs:
        if r["mode"] == "count" and r["wrs_source"] == "debugfs" and r["wrs_formula"] > 0:
            dev = (r["wrs"] / r["wrs_formula"] - 1) * 100
            if abs(dev) > 2 and abs(r["wrs"] - r["wrs_formula"]) > 2:
                bad.append(f"{r['workload']} port {r['port']} boot {r['boot']}: {dev:+.1f}%")
    if cboots:
        out.append("WR count cross-check (series: debugfs WRs against commands + REG_MRs + LOCAL_INVs, the way upstream's are counted): "
                   + ("agrees within 2% in every run" if not bad else "DIFFERS in " + "; ".join(bad)))
    for b in boots_info:
        if not b["present"]:
            out.append(f"boot {b['driver']}-{b['boot']}: not run")
        elif b["error"]:
            out.append(f"boot {b['driver']}-{b['boot']}: FAILED after {b['rows']} rows: {b['error']} (logs: {b['dir']})")
    return "\n".join(out) + "\n"


def main():
    global DRIVERS
    args = sys.argv[1:]
    cboots = 0
    name = "bench"
    while args and args[0].startswith("--"):
        if len(args) < 2:
            sys.exit(__doc__)
        if args[0] == "--labels":
            DRIVERS = args[1].split(",")
            if len(DRIVERS) != 2 or not all(DRIVERS) or DRIVERS[0] == DRIVERS[1]:
                sys.exit(f"bench-report: --labels '{args[1]}': two different labels")
        elif args[0] == "--count-boots":
            cboots = int(args[1])
        elif args[0] == "--out":
            name = args[1]
        else:
            sys.exit(__doc__)
        args = args[2:]
    if len(args) < 3:
        sys.exit(__doc__)
    logs, boots, plan_file = args[0], int(args[1]), args[2]
    title = args[3] if len(args) > 3 else "make bench"
    plan = load_plan(plan_file)
    if not plan:
        sys.exit("bench-report: the plan is empty")
    # The boots the plan needs: a 2-vCPU guest for all but the polled
    # rows, a 1-vCPU one (suffix -1cpu) for those.
    kinds = [k for k, want in (("", any(p["conn"] != "poll" for p in plan)),
                               ("-1cpu", any(p["conn"] == "poll" for p in plan))) if want]
    runs, boots_info = load_runs(logs, boots, kinds, "time")
    cruns, cinfo = load_runs(logs, cboots, kinds, "count")
    runs += cruns
    boots_info += cinfo
    unplanned = sorted({(r["workload"], r["port"]) for r in runs} - {(p["workload"], p["port"]) for p in plan})
    if unplanned:
        sys.exit(f"bench-report: measured rows that are not in the plan: {unplanned}")
    out_runs = []
    for r in runs:
        line = {}
        for k in RUN_COLUMNS:
            v = r.get(k, "-")
            if isinstance(v, float):
                v = str(int(v)) if v.is_integer() else fmt(v, 3)
            line[k] = "-" if v is None else v
        out_runs.append(line)
    write_tsv(os.path.join(logs, f"{name}-runs.tsv"), RUN_COLUMNS, out_runs)
    agg = aggregate(plan, runs, boots, cboots)
    write_tsv(os.path.join(logs, f"{name}.tsv"), [c for c, _ in COLUMNS], agg)
    txt = table(plan, agg, boots_info, boots, cboots, title, runs, kinds)
    with open(os.path.join(logs, f"{name}.txt.tmp"), "w") as f:
        f.write(txt)
    os.replace(os.path.join(logs, f"{name}.txt.tmp"), os.path.join(logs, f"{name}.txt"))
    sys.stdout.write(txt)


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--columns":
        for c, what in COLUMNS:
            print(f"{c}\t{what}")
        sys.exit(0)
    main()
