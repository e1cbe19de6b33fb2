#!/usr/bin/env python3
"""bench/plot_multi.py CSV [OUTDIR] — the multi-GPU GEMM table and plot from bench/multi_run.sh's
bench_gemm.csv (prec,n,mode,ms,tflops), or from rows with a machine's name in front where runs of
several machines are kept together ('#' lines are comments): a markdown table per machine (ms and TFLOP/s of each path, the engine's
two-GPU speed-up over one GPU and over cublasXt on two) into OUTDIR/multi_gpu.md, and
OUTDIR/multi_gpu.png, TFLOP/s per path and size (needs matplotlib)."""

import csv
import os
import sys
from collections import defaultdict

PATHS = [("engine_pageable", "engine, pageable"), ("engine_pinned", "engine, pinned"),
         ("xt_pageable", "cublasXt, pageable"), ("xt_pinned", "cublasXt, pinned"),
         ("nvblas", "NVBLAS"), ("device", "cuBLAS on the device")]


def load(path):
    rows = defaultdict(dict)   # (machine, prec, n) -> mode -> (ms, tflops)
    for r in csv.reader(line for line in open(path) if not line.startswith("#")):
        if len(r) == 5:            # straight from multi_run.sh: one machine
            r = ["a"] + r
        rows[(r[0], r[1], int(r[2]))][r[3]] = (float(r[4]), float(r[5]))
    return rows


def cell(modes, key):
    return f"{modes[key][0]:.1f} ({modes[key][1]:.1f})" if key in modes else "–"


def table(rows):
    out = []
    for machine in sorted({k[0] for k in rows}):
        keys = sorted((k for k in rows if k[0] == machine), key=lambda k: (k[1], k[2]))
        cols = [(p, g) for p, _ in PATHS for g in ("1gpu", "2gpu")
                if any(f"{p}_{g}" in rows[k] for k in keys)]
        head = "".join(f" {dict(PATHS)[p]}, {g[0]} GPU |" for p, g in cols)
        out += [f"### machine {machine}: ms (TFLOP/s)", "",
                f"| GEMM | n |{head} engine pageable 2 / 1 GPU | engine 2 GPUs / cublasXt 2 GPUs |",
                "| --- | --- |" + " --- |" * (len(cols) + 2)]
        for k in keys:
            m = rows[k]
            speed = (f"{m['engine_pageable_1gpu'][0] / m['engine_pageable_2gpu'][0]:.2f}x"
                     if "engine_pageable_1gpu" in m and "engine_pageable_2gpu" in m else "–")
            vs_xt = (f"{m['xt_pageable_2gpu'][0] / m['engine_pageable_2gpu'][0]:.0f}x"
                     if "xt_pageable_2gpu" in m and "engine_pageable_2gpu" in m else "–")
            line = "".join(f" {cell(m, f'{p}_{g}')} |" for p, g in cols)
            out.append(f"| {k[1].upper()}GEMM | {k[2]} |{line} {speed} | {vs_xt} |")
        out.append("")
    return "\n".join(out)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = sorted({(k[1], k[2]) for k in rows})
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / (2 * len(PATHS))
    for i, (p, label) in enumerate(PATHS):
        for j, g in enumerate(("1gpu", "2gpu")):
            ys = [max((rows[(m, pr, n)].get(f"{p}_{g}", (0, 0))[1] for m in "ab" if (m, pr, n) in rows),
                      default=0) for pr, n in keys]
            if any(ys):
                ax.bar([x + (2 * i + j) * width for x in range(len(keys))], ys, width,
                       label=f"{label}, {g[0]} GPU", alpha=0.5 + 0.5 * j)
    ax.set_xticks([x + 0.4 for x in range(len(keys))])
    ax.set_xticklabels([f"{pr.upper()}GEMM {n}" for pr, n in keys])
    ax.set_ylabel("TFLOP/s (host arrays in, C back on the host)")
    ax.legend(fontsize=7, ncol=3)
    ax.set_title("GEMM on one and two H200 GPUs")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    outdir = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(sys.argv[1]) or "."
    with open(os.path.join(outdir, "multi_gpu.md"), "w") as f:
        f.write(table(rows) + "\n")
    try:
        plot(rows, os.path.join(outdir, "multi_gpu.png"))
    except ImportError:
        print("matplotlib missing: table only")


if __name__ == "__main__":
    main()
