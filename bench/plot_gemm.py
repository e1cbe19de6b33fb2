#!/usr/bin/env python3
"""bench/plot_gemm.py CSV [OUTDIR] — the GEMM table and plot from bench_gemm's CSV (prec,n,mode,ms,tflops):
a markdown table per precision (ms and effective TFLOP/s per path, and the drop-in's time over the
better of the engine and the CPU BLAS, from the medians) into OUTDIR/bench_gemm.md, and
OUTDIR/bench_gemm.png, effective TFLOP/s against n, one panel per precision (needs matplotlib; run it
with the system python3 where pip's has none)."""

import csv
import os
import sys
from collections import defaultdict

ORDER = ["engine_pageable", "engine_pinned", "naive", "nvblas_plain", "nvblas_autopin", "xt_pageable",
         "xt_pinned", "cpu", "dropin", "device", "roofline"]
NAMES = {"prec": {"s": "SGEMM", "d": "DGEMM", "z": "ZGEMM"}}


def load(path):
    rows = defaultdict(dict)          # (prec, n) -> mode -> (ms, tflops)
    for r in csv.reader(open(path)):
        if len(r) == 5:
            rows[(r[0], int(r[1]))][r[2]] = (float(r[3]), float(r[4]))
    return rows


def modes_of(rows, prec):
    seen = {m for (p, _), v in rows.items() if p == prec for m in v}
    return [m for m in ORDER if m in seen] + sorted(seen - set(ORDER))


def table(rows):
    out = []
    for prec in "sdz":
        sizes = sorted(n for p, n in rows if p == prec)
        if not sizes:
            continue
        modes = modes_of(rows, prec)
        out.append(f"\n### {NAMES['prec'][prec]}: ms (effective TFLOP/s), C = A*B + C on host arrays\n")
        out.append("| n | " + " | ".join(modes) + " | dropin / better |")
        out.append("|---" * (len(modes) + 2) + "|")
        for n in sizes:
            row = rows[(prec, n)]
            cells = [f"{v[0]:.3g} ({v[1]:.2f})" if (v := row.get(m)) else "-" for m in modes]
            others = [row[m][0] for m in ("engine_pageable", "cpu") if m in row]
            cells.append(f"{row['dropin'][0] / min(others):.3f}" if "dropin" in row and others else "-")
            out.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_gemm: no matplotlib, no PNG")
        return
    precs = [p for p in "sdz" if any(k[0] == p for k in rows)]
    fig, axes = plt.subplots(1, len(precs), figsize=(6 * len(precs), 5), squeeze=False)
    for ax, prec in zip(axes[0], precs):
        cmap = plt.get_cmap("tab20")
        for c, m in enumerate(modes_of(rows, prec)):
            pts = sorted((n, v[m][1]) for (p, n), v in rows.items() if p == prec and m in v)
            style = "--" if m in ("roofline", "device") else "-"
            ax.plot([x for x, _ in pts], [y for _, y in pts], style, marker="o", ms=3, label=m,
                    color=cmap(c % 20))
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n")
        ax.set_ylabel("effective TFLOP/s")
        ax.set_title(f"{NAMES['prec'][prec]} on host arrays, H100")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot_gemm: wrote {path}")


def main():
    src = sys.argv[1]
    outdir = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(src) or "."
    rows = load(src)
    text = table(rows)
    with open(os.path.join(outdir, "bench_gemm.md"), "w") as f:
        f.write(text)
    print(text)
    plot(rows, os.path.join(outdir, "bench_gemm.png"))


if __name__ == "__main__":
    main()
