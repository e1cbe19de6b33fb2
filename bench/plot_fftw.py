#!/usr/bin/env python3
"""plot_fftw.py CSV [PNG] [MD] — bench/fftw_bench.c's CSV as a table (markdown) and a figure.

Left: 1-d c2c of 2^8..2^20 points, median time per transform against size, one line per
contestant (pageable arrays): where the drop-in's threshold belongs.  Right: the four large cases,
median time of repeated calls per contestant, pageable and fftw_malloc arrays side by side, the
first call marked above each bar."""
import csv
import sys
from collections import defaultdict


def main():
    src = sys.argv[1]
    png = sys.argv[2] if len(sys.argv) > 2 else src.replace(".csv", ".png")
    md = sys.argv[3] if len(sys.argv) > 3 else src.replace(".csv", ".md")
    rows = list(csv.DictReader(open(src)))
    contestants = list(dict.fromkeys(r["contestant"] for r in rows))

    lines = ["| contestant | case | memory | plan ms | first ms | median ms | GFLOP/s | rel. error |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['contestant']} | {r['case']} | {r['memory']} | {float(r['plan_ms']):.2f} | "
                     f"{float(r['first_ms']):.2f} | {float(r['median_ms']):.3f} | {float(r['gflops']):.1f} | "
                     f"{float(r['rel_err']):.1e} |")
    open(md, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 6))
    small = defaultdict(list)
    for r in rows:
        if r["case"].startswith("small_2^") and r["memory"] == "pageable":
            small[r["contestant"]].append((2 ** int(r["case"].split("^")[1]), float(r["median_ms"])))
    for c in contestants:
        if small[c]:
            pts = sorted(small[c])
            left.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=c)
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("points (1-d c2c, single precision)")
    left.set_ylabel("median time per transform (ms)")
    left.set_title("small transforms: the threshold")
    left.grid(True, which="both", alpha=0.3)
    left.legend()

    big = [c for c in ["c2c_2^24", "c2c_4096x4096", "batch_256x65536", "r2c_512^3"]
           if any(r["case"] == c for r in rows)]
    series = [(c, m) for c in contestants for m in ("pageable", "fftw_malloc")
              if any(r["contestant"] == c and r["memory"] == m and r["case"] in big for r in rows)]
    width = 0.8 / max(1, len(series))
    for i, (c, m) in enumerate(series):
        med, first = [], []
        for case in big:
            hit = [r for r in rows if r["contestant"] == c and r["memory"] == m and r["case"] == case]
            med.append(float(hit[0]["median_ms"]) if hit else 0)
            first.append(float(hit[0]["first_ms"]) if hit else 0)
        xs = [k + i * width for k in range(len(big))]
        right.bar(xs, med, width, label=f"{c} ({m})", hatch="//" if m == "fftw_malloc" else None)
        right.scatter(xs, first, marker="v", color="black", s=12)
    right.set_xticks([k + 0.4 - width / 2 for k in range(len(big))])
    right.set_xticklabels(big)
    right.set_yscale("log")
    right.set_ylabel("median time of repeated calls (ms); v: first call")
    right.set_title("large transforms (single precision)")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    print(f"wrote {png} and {md}")


if __name__ == "__main__":
    main()
