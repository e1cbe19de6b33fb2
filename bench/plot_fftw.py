#!/usr/bin/env python3
"""plot_fftw.py CSV [PNG] [MD] — bench/fftw_bench.c's CSV as a table (markdown) and a figure.

Left: 1-d c2c of 2^8..2^20 points, median time per transform against size, one line per
contestant (pageable arrays): where the drop-in's threshold belongs.  Right: the four large cases,
median time of repeated calls per contestant, pageable and fftw_malloc arrays side by side, the
first call marked above each bar.  The table ends with the small transforms timed in turns
against the real FFTW in one process, where they exist."""
import csv
import statistics
import sys
from collections import defaultdict


def turns_table(rows):
    """The drop-in against the real FFTW timed in turns in one process (contestants turns_cufort_<T>
    and turns_fftw_<T>, fftw_bench --vs): per case, memory and thread count, the median over the
    runs of each one's median, and their ratio."""
    med = defaultdict(list)
    for r in rows:
        if r["contestant"].startswith("turns_"):
            med[(r["contestant"], r["case"], r["memory"])].append(float(r["median_ms"]))
    threads = sorted({c.split("_")[-1] for c, _, _ in med}, key=lambda t: -int(t.rstrip("t")))
    if not threads:
        return []
    out = ["", "Small transforms in turns (one process, the same arrays' alignment): median ms, "
           "drop-in / FFTW", "", "| case | memory | " + " | ".join(
               f"{t}: drop-in | FFTW | ratio" for t in threads) + " |",
           "|---|---|" + "---:|---:|---:|" * len(threads)]
    cases = sorted({k[1] for k in med}, key=lambda c: int(c.split("^")[1]) if "^" in c else 0)
    for case in cases:
        for mem in ("pageable", "fftw_malloc"):
            cells = []
            for t in threads:
                a, b = med.get((f"turns_cufort_{t}", case, mem)), med.get((f"turns_fftw_{t}", case, mem))
                if a and b:
                    x, y = statistics.median(a), statistics.median(b)
                    cells.append(f"{x:.5f} | {y:.5f} | {x / y:.3f}")
                else:
                    cells.append("- | - | -")
            if any(c != "- | - | -" for c in cells):
                out.append(f"| {case} | {mem} | " + " | ".join(cells) + " |")
    return out


def main():
    src = sys.argv[1]
    png = sys.argv[2] if len(sys.argv) > 2 else src.replace(".csv", ".png")
    md = sys.argv[3] if len(sys.argv) > 3 else src.replace(".csv", ".md")
    rows = list(csv.DictReader(open(src)))
    contestants = list(dict.fromkeys(r["contestant"] for r in rows))

    lines = ["| contestant | case | memory | plan ms | first ms | median ms | GFLOP/s | rel. error |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    def num(v, fmt):   # a library timed in turns with another (fftw_bench --vs) has no plan or check
        return format(float(v), fmt) if v else "-"
    for r in rows:
        lines.append(f"| {r['contestant']} | {r['case']} | {r['memory']} | {num(r['plan_ms'], '.2f')} | "
                     f"{num(r['first_ms'], '.2f')} | {float(r['median_ms']):.4f} | {float(r['gflops']):.1f} | "
                     f"{num(r['rel_err'], '.1e')} |")
    lines += turns_table(rows)
    open(md, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 6))
    small = defaultdict(list)
    for r in rows:
        if r["case"].startswith("small_2^") and r["memory"] == "pageable":
            if not r["contestant"].startswith("turns_"):
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
