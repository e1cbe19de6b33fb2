#!/usr/bin/env python3
"""bench/plot_l3.py CSV [OUTDIR] — the Level-3 table and plot from bench_l3's CSV
(routine,n,mode,first_ms,ms,tflops): a markdown table per routine (first-call and repeated-call ms,
effective TFLOP/s, the engine's share of the roofline) into OUTDIR/bench_l3.md, and
OUTDIR/bench_l3.png, effective TFLOP/s against n, one panel per routine (needs matplotlib)."""

import csv
import os
import sys
from collections import defaultdict

TIMED = ["engine", "pinned", "whole", "naive", "nvblas"]   # host-array paths, first and repeated calls
ORDER = TIMED + ["device", "roofline"]
LABELS = {"engine": "engine", "pinned": "engine, pinned", "whole": "whole arrays", "naive": "naive thunking",
          "nvblas": "NVBLAS (autopin)"}
TITLES = {"gemm": "DGEMM", "trsm": "DTRSM (L, L, N)", "trmm": "DTRMM (L, U, N)", "syrk": "DSYRK (L, N)",
          "symm": "DSYMM (L, L)", "trsmR": "DTRSM (R, L, T)", "syrkT": "DSYRK (L, T)"}


def load(path):
    rows = defaultdict(dict)          # (routine, n) -> mode -> (first_ms or None, ms, tflops)
    for r in csv.reader(open(path)):
        if len(r) == 6:
            first = float(r[3]) if r[3] else None
            rows[(r[0], int(r[1]))][r[2]] = (first, float(r[4]), float(r[5]))
    return rows


def table(rows):
    """Per routine: each host-array path's repeated and first calls, device, roofline, the engine's
    share of the roofline (only the paths the CSV has)."""
    out = []
    for routine in sorted({k[0] for k in rows}, key=lambda x: list(TITLES).index(x) if x in TITLES else 99):
        ns = sorted(k[1] for k in rows if k[0] == routine)
        timed = [t for t in TIMED if any(t in rows[(routine, n)] for n in ns)]
        head = "".join(f" {LABELS[t]}: repeated; 1st call |" for t in timed)
        out += [f"### {TITLES.get(routine, routine)}", "",
                f"| n |{head} device | roofline | engine / roofline |",
                "| --- |" + " --- |" * (len(timed) + 3)]
        for n in ns:
            m = rows[(routine, n)]
            def cell(mode):
                if mode not in m:
                    return "-"
                f, ms, tf = m[mode]
                return f"{ms:.2f} ms ({tf:.1f} TF/s)" + (f"; {f:.2f} ms" if f is not None else "")
            share = (f"{100 * m['roofline'][1] / m['engine'][1]:.0f}%"
                     if "engine" in m and "roofline" in m else "-")
            cells = "".join(f" {cell(t)} |" for t in timed)
            out.append(f"| {n} |{cells} {cell('device')} | {cell('roofline')} | {share} |")
        out.append("")
    return "\n".join(out)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    routines = [r for r in TITLES if any(k[0] == r for k in rows)]
    fig, axes = plt.subplots(1, len(routines), figsize=(4 * len(routines), 3.6), squeeze=False)
    for ax, routine in zip(axes[0], routines):
        ns = sorted(k[1] for k in rows if k[0] == routine)
        for mode in ORDER:
            pts = [(n, rows[(routine, n)][mode][2]) for n in ns if mode in rows[(routine, n)]]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=LABELS.get(mode, mode),
                        linestyle="--" if mode in ("device", "roofline") else "-")
        ax.set_xscale("log", base=2)
        ax.set_title(TITLES[routine])
        ax.set_xlabel("n")
        ax.set_ylabel("TFLOP/s (repeated calls)")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    outdir = sys.argv[2] if len(sys.argv) > 2 else "."
    rows = load(sys.argv[1])
    with open(os.path.join(outdir, "bench_l3.md"), "w") as f:
        f.write(table(rows))
    try:
        plot(rows, os.path.join(outdir, "bench_l3.png"))
    except ImportError:
        print("plot_l3: no matplotlib; the table only", file=sys.stderr)


if __name__ == "__main__":
    main()
