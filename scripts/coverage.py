#!/usr/bin/env python3
"""Prints the BLAS coverage table of docs/coverage.md (markdown) from gen/blas_table.py: `make coverage`."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "gen"))

import blas_table as t  # noqa: E402

# Every variant exists in each of these surfaces (generated from the one table).
LAYERS = [
    ("C ABI, device pointers", "cufort_<name>", "libcufort"),
    ("C ABI, host arrays (thunking)", "cufort_<name>_host", "libcufort"),
    ("F77 legacy, non-thunking (integer*8 device pointers)", "cublas_<name>", "libcufort_f77"),
    ("F77 legacy, thunking (host arrays)", "cublas_<name>", "libcufort_f77_thunking"),
]


def main():
    routines = t.ROUTINES
    nvar = sum(len(r.variants) for r in routines)
    print(f"{len(routines)} routines, {nvar} precision variants; each variant in {len(LAYERS)} surfaces "
          f"= {nvar * len(LAYERS)} entry points.\n")
    print("| surface | names | library | variants |")
    print("| --- | --- | --- | --- |")
    for title, names, lib in LAYERS:
        print(f"| {title} | `{names}` | `{lib}` | {nvar} |")
    print()
    print("| level | routine | variants | host backend | note |")
    print("| --- | --- | --- | --- | --- |")
    for r in routines:
        names = ", ".join(v.name for v in r.variants)
        cpu = set()
        for v in r.variants:
            cpu.add("CPU BLAS" if t.host_calls_cpu_blas(r, v) else "C reference")
        note = r.doc.replace("|", "\\|") if r.doc and "cuBLAS extension" in r.doc else ""
        print(f"| {r.level} | {r.group} | {names} | {' + '.join(sorted(cpu))} | {note} |")
    by_level = {}
    for r in routines:
        by_level.setdefault(r.level, [0, 0])
        by_level[r.level][0] += 1
        by_level[r.level][1] += len(r.variants)
    print()
    print("| level | routines | variants |")
    print("| --- | --- | --- |")
    for lvl in sorted(by_level):
        print(f"| {lvl} | {by_level[lvl][0]} | {by_level[lvl][1]} |")
    print(f"| all | {len(routines)} | {nvar} |")


if __name__ == "__main__":
    main()
