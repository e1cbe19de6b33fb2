#!/usr/bin/env python3
"""bench/plot_mpi.py MPI_CSV [--testers TESTERS_CSV] [-o TABLE_MD] [--png PNG] — the tables and plot
from bench/mpi_run.sh: per routine, one row per (n, ranks, nb), each mode's median seconds over the
repeated calls (the warm-up left out) with its GFLOP/s, and the drop-in's and MPS's speedup (the
CPU BLAS's median time over theirs); with --testers, each tester's wall time per mode.  The tables
go to stdout or TABLE_MD; the PNG (GFLOP/s against nb, one panel per routine; default mpi.png
beside MPI_CSV) needs matplotlib."""

import argparse
import csv
import os
import statistics
import sys
from collections import defaultdict

MODES = ["cpu", "dropin", "mps"]
TITLES = {"pdgemm": "PDGEMM", "pdpotrf": "PDPOTRF (L)", "pdgetrf": "PDGETRF"}


def load(path):
    reps = defaultdict(list)          # (routine, n, ranks, nb, mode) -> [(seconds, gflops)]
    for r in csv.DictReader(open(path)):
        if r["call"] == "rep":
            key = (r["routine"], int(r["n"]), int(r["ranks"]), int(r["nb"]), r["mode"])
            reps[key].append((float(r["seconds"]), float(r["gflops"])))
    return {k: (statistics.median(s for s, _ in v), statistics.median(g for _, g in v))
            for k, v in reps.items()}


def speedup(med, key, mode):
    base, other = med.get(key + ("cpu",)), med.get(key + (mode,))
    return f"{base[0] / other[0]:.2f}x" if base and other else "-"


def table(med):
    out = []
    routines = sorted({k[0] for k in med}, key=lambda x: list(TITLES).index(x) if x in TITLES else 99)
    for routine in routines:
        modes = [m for m in MODES if any(k[0] == routine and k[4] == m for k in med)]
        out += [f"### {TITLES.get(routine, routine)}", "",
                "| n | ranks | nb | " + " | ".join(modes) + " | speedup, dropin | speedup, mps |",
                "| --- " * (5 + len(modes)) + "|"]
        for key in sorted({k[:4] for k in med if k[0] == routine}):
            cells = []
            for m in modes:
                s = med.get(key + (m,))
                cells.append(f"{s[0]:.3f} s ({s[1]:.0f} GF/s)" if s else "-")
            out.append(f"| {key[1]} | {key[2]} | {key[3]} | " + " | ".join(cells) +
                       f" | {speedup(med, key, 'dropin')} | {speedup(med, key, 'mps')} |")
        out.append("")
    return out


def tester_table(path):
    rows = defaultdict(dict)          # (tester, ranks) -> mode -> (seconds, passed, failed)
    for r in csv.DictReader(open(path)):
        rows[(r["tester"], int(r["ranks"]))][r["mode"]] = (float(r["seconds"]), r["passed"], r["failed"])
    out = ["### ScaLAPACK testers", "",
           "| tester | ranks | cpu | dropin | forced | dropin / cpu | forced / cpu |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for (t, np), m in sorted(rows.items()):
        def cell(mode):
            return f"{m[mode][0]:.2f} s ({m[mode][1]} passed, {m[mode][2]} failed)" if mode in m else "-"

        def ratio(mode):
            return f"{m[mode][0] / m['cpu'][0]:.2f}" if mode in m and "cpu" in m and m["cpu"][0] > 0 else "-"
        out.append(f"| {t} | {np} | {cell('cpu')} | {cell('dropin')} | {cell('forced')} | "
                   f"{ratio('dropin')} | {ratio('forced')} |")
    # one run of a tester takes about a second and varies by 10% from run to run: the sum over
    # the testers run in every mode is the steadier comparison
    full = [m for m in rows.values() if all(k in m for k in ("cpu", "dropin", "forced"))]
    if full:
        tot = {k: sum(m[k][0] for m in full) for k in ("cpu", "dropin", "forced")}
        out.append(f"| all {len(full)} | | {tot['cpu']:.2f} s | {tot['dropin']:.2f} s | {tot['forced']:.2f} s | "
                   f"{tot['dropin'] / tot['cpu']:.3f} | {tot['forced'] / tot['cpu']:.2f} |")
    out.append("")
    return out


def plot(med, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    routines = [r for r in TITLES if any(k[0] == r for k in med)]
    fig, axes = plt.subplots(1, len(routines), figsize=(4.5 * len(routines), 3.8), squeeze=False)
    for ax, routine in zip(axes[0], routines):
        for n, ranks, mode in sorted({(k[1], k[2], k[4]) for k in med if k[0] == routine}):
            pts = sorted((k[3], v[1]) for k, v in med.items() if k[0] == routine and k[1:3] == (n, ranks)
                         and k[4] == mode)
            ax.plot(*zip(*pts), marker="o", label=f"{mode}, n={n}, {ranks} ranks",
                    linestyle={"cpu": ":", "dropin": "-", "mps": "--"}.get(mode, "-"))
        ax.set_xscale("log", base=2)
        ax.set_title(TITLES[routine])
        ax.set_xlabel("nb")
        ax.set_ylabel("GFLOP/s (median of repeated calls)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--testers")
    ap.add_argument("-o", "--output")
    ap.add_argument("--png")
    args = ap.parse_args()
    med = load(args.csv)
    lines = table(med) + (tester_table(args.testers) if args.testers else [])
    if args.output:
        with open(args.output, "w") as f:
            f.write("\n".join(lines) + "\n")
    else:
        print("\n".join(lines))
    try:
        plot(med, args.png or os.path.join(os.path.dirname(args.csv), "mpi.png"))
    except ImportError:
        print("plot_mpi: no matplotlib; the table only", file=sys.stderr)


if __name__ == "__main__":
    main()
