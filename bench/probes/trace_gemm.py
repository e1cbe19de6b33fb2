#!/usr/bin/env python3
"""trace_gemm.py TRACE — the last host-array GEMM of a stage trace (make trace-build), GPU by GPU:
when each block of A and B was up or copied from another GPU, when each tile's GEMMs were done,
and when the staged copies of C began and ended; ms from the call's start.  For a GEMM spread over
several GPUs, e.g.
  CUFORT_DEVICES=0,1,2,3 BENCH_REPS=2 CUFORT_STAGE_TRACE=t.txt LD_LIBRARY_PATH=build/trace/lib \\
      build/bench/bench_gemm --precs d --sizes 16384 --modes engine_pinned
  python3 bench/probes/trace_gemm.py t.txt"""
import sys
from collections import defaultdict

ev = []
for line in open(sys.argv[1]):
    t, th, code, a, b = line.split()
    ev.append((float(t), int(th), code, int(a), int(b)))
ev.sort()
starts = [e[0] for e in ev if e[1] >= 0 and e[2] == 'T']
if not starts:
    sys.exit("no call in the trace (is it from the trace build?)")
t0 = starts[-1]
t1 = next((e[0] for e in ev if e[1] >= 0 and e[2] == 'Z' and e[0] > t0), ev[-1][0])
ms = lambda t: (t - t0) / 1e3
print(f"the last of {len(starts)} calls: {ms(t1):.2f} ms")
gpu = defaultdict(list)
for e in ev:
    if e[1] < 0 and t0 <= e[0] <= t1:
        gpu[-1 - e[1]].append(e)
names = {'a': "A's blocks up", 'b': "B's blocks up", 'p': "A's panels from another GPU"}
for d in sorted(gpu):
    g = gpu[d]
    print(f"GPU {d}")
    for code, what in names.items():
        xs = [f"{ms(e[0]):.1f} ({e[3]},{e[4]})" for e in g if e[2] == code]
        if xs:
            print(f"  {what}: " + ", ".join(xs))
    ks = [ms(e[0]) for e in g if e[2] == 'k']
    if ks:
        gaps = [b - a for a, b in zip(ks, ks[1:])]
        print(f"  {len(ks)} tiles' GEMMs done: " + " ".join(f"{x:.1f}" for x in ks))
        if gaps:
            median = sorted(gaps)[len(gaps) // 2]
            print(f"  between tiles: median {median:.2f} ms, longest {max(gaps):.2f}")
    groups = [ms(e[0]) for e in g if e[2] == 'G']
    if groups:
        print(f"  staged DMAs: {len(groups)} groups done, from {groups[0]:.1f} to {groups[-1]:.1f}")
host = [e for e in ev if e[1] >= 0 and t0 <= e[0] <= t1]
copies = [e for e in host if e[2] in 'SE']
up = [e for e in copies if e[4] == 0]
down = [e for e in copies if e[4] == 1]
for what, xs in (("staged uploads", up), ("staged downloads", down)):
    if xs:
        s = [ms(e[0]) for e in xs if e[2] == 'S']
        e_ = [ms(e[0]) for e in xs if e[2] == 'E']
        print(f"{what}: {len(s)}, the first begun at {min(s):.1f}, the last done at {max(e_):.1f}")
