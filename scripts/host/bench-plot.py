#!/usr/bin/python3
"""make bench's plot: bench.tsv into bench.png (matplotlib, Debian's).

The 4k io_uring queue-depth sweep on port 1 (conn d, one job, not polled):
columns randread and randwrite; rows send CQEs per NVMe command, icount
IOPS, and the series' IOPS change against upstream, each against queue
depth, unbatched (batch 1) and batched (batch = QD/2; at QD 1 the batch is
1, so both lines start at the same run). Error bars: the repeats' min-max.
A missing measurement is a gap in its line, never a dropped point.
Usage: bench-plot.py BENCH_TSV PNG [TITLE]
"""

import csv
import os
import sys
import warnings

import matplotlib

matplotlib.use("Agg")
warnings.filterwarnings("ignore", category=RuntimeWarning)  # all-NaN lines (rows not measured)
import matplotlib.pyplot as plt  # noqa: E402

QDS = [1, 8, 32, 128]
# The two labels in bench.tsv's order (upstream, series; a, b for A/A).
STYLES = (dict(color="tab:blue", marker="o"), dict(color="tab:red", marker="s"))
SHIFTS = (0.93, 1.07)


def nan(v):
    return float("nan") if v is None else v


def val(row, key):
    if row is None or row.get(key, "-") in ("-", ""):
        return None
    return float(row[key])


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tsv, png = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "make bench"
    with open(tsv) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    labels = list(dict.fromkeys(r["driver"] for r in rows))
    if len(labels) != 2:
        sys.exit(f"bench-plot: {tsv} has labels {labels}, not two")
    a, b = labels
    STYLE = dict(zip(labels, STYLES))
    SHIFT = dict(zip(labels, SHIFTS))
    sweep = {}
    for r in rows:
        if r["conn"] != "d" or r["bs"] != "4k" or r["engine"] != "io_uring" or r["jobs"] != "1":
            continue
        if r["repeats"] == "0":
            continue
        qd, bt = int(r["iodepth"]), int(r["batch"])
        kinds = []
        if bt == 1:
            kinds.append("unbatched")
        if bt == max(1, qd // 2):
            kinds.append("batched")
        for k in kinds:
            sweep[(r["driver"], r["rw"], k, qd)] = r
    if not any(r["repeats"] not in ("0", "-") for r in sweep.values()):
        print("bench-plot: no measured 4k io_uring queue-depth row in " + tsv + ": the plot is empty", file=sys.stderr)

    fig, axes = plt.subplots(3, 2, figsize=(12, 12), sharex=True)
    ax_changes = []  # every change line drawn, for the summary line
    for col, rw in enumerate(("randread", "randwrite")):
        ax_cqe, ax_iops, ax_chg = axes[0][col], axes[1][col], axes[2][col]
        for drv in labels:
            for kind, ls in (("unbatched", "--"), ("batched", "-")):
                pts = [sweep.get((drv, rw, kind, q)) for q in QDS]
                lab = f"{drv}, {kind}"
                # Side by side, so equal values stay visible: upstream a
                # little left, series a little right; unbatched hollow.
                xs = [q * SHIFT[drv] for q in QDS]
                mk = dict(STYLE[drv], markerfacecolor="none" if kind == "unbatched" else STYLE[drv]["color"])
                ax_cqe.plot(xs, [nan(val(p, "send_cqe/cmd")) for p in pts], linestyle=ls, label=lab, **mk)
                y = [val(p, "iops") for p in pts]
                lo = [None if v is None else v - val(p, "iops_min") for v, p in zip(y, pts)]
                hi = [None if v is None else val(p, "iops_max") - v for v, p in zip(y, pts)]
                err = [[e if e is not None else 0 for e in lo], [e if e is not None else 0 for e in hi]]
                ax_iops.errorbar(xs, [nan(v) for v in y], yerr=err, linestyle=ls, label=lab, capsize=3, **mk)
        for kind, ls in (("unbatched", "--"), ("batched", "-")):
            chg, lo, hi = [], [], []
            for q in QDS:
                u, s = sweep.get((a, rw, kind, q)), sweep.get((b, rw, kind, q))
                if val(u, "iops") and val(s, "iops"):
                    c = (val(s, "iops") / val(u, "iops") - 1) * 100
                    # Worst cases of the two drivers' min-max ranges.
                    cmin = (val(s, "iops_min") / val(u, "iops_max") - 1) * 100
                    cmax = (val(s, "iops_max") / val(u, "iops_min") - 1) * 100
                    chg.append(c)
                    lo.append(c - cmin)
                    hi.append(cmax - c)
                else:
                    chg.append(float("nan"))
                    lo.append(0)
                    hi.append(0)
            ax_changes.append(chg)
            ax_chg.errorbar([q * (0.95 if kind == "unbatched" else 1.05) for q in QDS], chg, yerr=[lo, hi],
                            linestyle=ls, color="black", marker="o", capsize=3,
                            markerfacecolor="none" if kind == "unbatched" else "black",
                            label=f"{b} vs {a}, {kind}")
        ax_chg.axhline(0, color="grey", linewidth=0.8)
        ax_cqe.set_title(f"4k {rw}, io_uring, port 1")
        ax_cqe.set_ylim(bottom=0)
        ax_cqe.set_ylabel("send CQEs per NVMe command (count boots)")
        ax_iops.set_ylabel("IOPS (icount, nothing counting)")
        ax_chg.set_ylabel(f"IOPS change, {b} vs {a} (%)")
        ax_chg.set_xlabel("queue depth (batched: batch = QD/2; QD 1 is batch 1)")
        for ax in (ax_cqe, ax_iops, ax_chg):
            if not any(sweep.get((d, rw, k, q)) for d in STYLE for k in ("unbatched", "batched") for q in QDS):
                ax.text(0.5, 0.5, "no measurement", transform=ax.transAxes, ha="center")
                ax.set_ylim(0, 1)
            ax.set_xlim(0.8, 160)
            ax.set_xscale("log", base=2)
            ax.set_xticks(QDS)
            ax.set_xticklabels([str(q) for q in QDS])
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
    npts = sum(1 for line in ax_changes for v in line if v == v)
    print(f"bench-plot: {b} vs {a}: {npts} change points")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(png + ".tmp.png", dpi=90)
    os.replace(png + ".tmp.png", png)


if __name__ == "__main__":
    main()
