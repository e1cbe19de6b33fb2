#!/usr/bin/env python3
"""bench/plot_multi.py CSV [OUTDIR] — the multi-GPU GEMM table and plot from bench/multi_run.sh's
bench_gemm.csv (prec,n,mode,ms,tflops; modes <path>_<g>gpu), or from rows with a machine's name
in front where runs of several machines are kept together ('#' lines are comments): a markdown
table per machine (ms and TFLOP/s of each path on each GPU count, the engine's speed-up on
pageable arrays over one GPU, and over cublasXt on as many GPUs) into OUTDIR/multi_gpu.md, and
OUTDIR/multi_gpu.png, TFLOP/s of the engine and cublasXt on pageable arrays per GPU count (needs
matplotlib)."""

import csv
import os
import re
import sys
from collections import defaultdict

PATHS = [("engine_pageable", "engine, pageable"), ("engine_repeat", "engine, pageable, repeated"),
         ("engine_pinned", "engine, pinned"), ("xt_pageable", "cublasXt, pageable"),
         ("xt_pinned", "cublasXt, pinned"), ("nvblas", "NVBLAS"),
         ("device", "cuBLAS on the device")]


def load(path):
    rows = defaultdict(dict)   # (machine, prec, n) -> mode -> (ms, tflops)
    for r in csv.reader(line for line in open(path) if not line.startswith("#")):
        if len(r) == 5:            # straight from multi_run.sh: one machine
            r = ["a"] + r
        mode = re.sub(r"^engine_pageable_(\d+gpu)_repeat$", r"engine_repeat_\1", r[3])
        rows[(r[0], r[1], int(r[2]))][mode] = (float(r[4]), float(r[5]))
    return rows


def gpu_counts(rows):
    return sorted({int(g) for m in rows.values() for mode in m
                   for g in re.findall(r"_(\d+)gpu$", mode)})


def cell(modes, key):
    return f"{modes[key][0]:.1f} ({modes[key][1]:.1f})" if key in modes else "–"


def ratio(modes, num, den, fmt):
    return fmt.format(modes[num][0] / modes[den][0]) if num in modes and den in modes else "–"


def table(rows):
    out = []
    for machine in sorted({k[0] for k in rows}):
        keys = sorted((k for k in rows if k[0] == machine), key=lambda k: (k[1], k[2]))
        counts = gpu_counts({k: rows[k] for k in keys})
        cols = [(p, g) for p, _ in PATHS for g in counts
                if any(f"{p}_{g}gpu" in rows[k] for k in keys)]
        more = [g for g in counts if g > 1]
        head = "".join(f" {dict(PATHS)[p]}, {g} GPU |" for p, g in cols)
        head += "".join(f" engine pageable {g} / 1 GPU |" for g in more)
        head += "".join(f" engine / cublasXt, {g} GPUs |" for g in more)
        out += [f"### machine {machine}: ms (TFLOP/s)", "", f"| GEMM | n |{head}",
                "| --- | --- |" + " --- |" * (len(cols) + 2 * len(more))]
        for k in keys:
            m = rows[k]
            line = "".join(f" {cell(m, f'{p}_{g}gpu')} |" for p, g in cols)
            line += "".join(" " + ratio(m, "engine_pageable_1gpu", f"engine_pageable_{g}gpu",
                                        "{:.2f}x") + " |" for g in more)
            line += "".join(" " + ratio(m, f"xt_pageable_{g}gpu", f"engine_pageable_{g}gpu",
                                        "{:.0f}x") + " |" for g in more)
            out.append(f"| {k[1].upper()}GEMM | {k[2]} |{line}")
        out.append("")
    return "\n".join(out)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = sorted({(k[1], k[2]) for k in rows})
    counts = gpu_counts(rows)
    shown = [("engine_pageable", "engine, pageable"), ("engine_pinned", "engine, pinned"),
             ("xt_pageable", "cublasXt, pageable")]
    bars = [(p, label, g) for p, label in shown for g in counts
            if any(f"{p}_{g}gpu" in m for m in rows.values())]
    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.8 / max(1, len(bars))
    for i, (p, label, g) in enumerate(bars):
        ys = [max((m.get(f"{p}_{g}gpu", (0, 0))[1] for (mc, pr, n), m in rows.items()
                   if (pr, n) == key), default=0) for key in keys]
        ax.bar([x + i * width for x in range(len(keys))], ys, width, label=f"{label}, {g} GPU")
    ax.set_xticks([x + 0.4 for x in range(len(keys))])
    ax.set_xticklabels([f"{pr.upper()}GEMM {n}" for pr, n in keys])
    ax.set_ylabel("TFLOP/s (host arrays in, C back on the host)")
    ax.legend(fontsize=7, ncol=3)
    ax.set_title("GEMM on host arrays over 1, 2 and 4 H200 GPUs (best of the machines)")
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
