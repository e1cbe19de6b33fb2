#!/usr/bin/env python3
"""trace_report.py TRACE — per case of bench/probes/trace_calls.c, the median time of each milestone of a
thunked call, in us from the call's start (its 'M' marker), host and GPU events on one clock."""
import statistics, sys
from collections import defaultdict

ev = []
for line in open(sys.argv[1]):
    t, th, code, a, b = line.split()
    ev.append((float(t), int(th), code, int(a), int(b)))
host = sorted(e for e in ev if e[1] >= 0)
gpu = sorted(e for e in ev if e[1] < 0)
marks = [e for e in host if e[2] == 'M']
CASES = [f"{k} {s}" for s in ("256KiB", "4MiB", "16MiB", "64MiB") for k in ("sscal", "saxpy")] + \
        ["fft 2^24", "fft 4096x4096", "sgemm 2048", "sgemm 4096"]
rows = defaultdict(lambda: defaultdict(list))
for i, m in enumerate(marks):
    t0 = m[0]
    t1 = next((e[0] for e in host if e[0] > t0 and e[2] == 'Z'), None)
    if t1 is None:
        continue
    h = [e for e in host if t0 <= e[0] <= t1]
    g = [e for e in gpu if t0 <= e[0] <= t1]
    z = [e for e in h if e[2] == 'Z']
    if not z:
        continue
    r = rows[CASES[m[3]]]
    r['total'].append(z[-1][0] - t0)
    stages = [e for e in h if e[2] in 'SE']
    n_up = n_down = 0
    for s, e in zip(stages[::2], stages[1::2]):
        kind = 'up' if s[4] == 0 else 'down'
        if kind == 'up':
            n_up += 1
            tag = f"up{n_up}"
        else:
            n_down += 1
            tag = f"down{n_down}"
        inside = [x for x in h if s[0] <= x[0] <= e[0]]
        r[tag + ' start'].append(s[0] - t0)
        cs = [x for x in inside if x[2] == 'C']
        if cs:
            r[tag + ' 1st claim'].append(cs[0][0] - t0)
        ws = [x for x in inside if x[2] == 'W']
        if ws:
            r[tag + ' 1st slot ready'].append(ws[0][0] - t0)
        q0 = [x for x in h if x[2] == 'q' and s[0] <= x[0] <= e[0]]
        q1 = [x for x in h if x[2] == 'Q' and s[0] <= x[0] <= e[0]]
        for a in q0:
            b = next((y for y in q1 if y[1] == a[1] and y[0] >= a[0]), None)
            if b:
                r[tag + ' queue us (each)'].append(b[0] - a[0])
        qs = q1
        if qs:
            r[tag + ' 1st DMA queued'].append(qs[0][0] - t0)
            r[tag + ' last DMA queued'].append(qs[-1][0] - t0)
        ps = [x for x in inside if x[2] == 'P']
        if ps:
            r[tag + ' last piece'].append(ps[-1][0] - t0)
        r[tag + ' workers'].append(len({x[1] for x in cs}))
        r[tag + ' pieces'].append(len(cs))
        r[tag + ' end'].append(e[0] - t0)
    tails = [x for x in h if x[2] == 'A']
    if tails:
        r['tail streamed, each'].append(tails[0][4])
    d = [x for x in h if x[2] == 'D']
    if d:
        r['direct copies'].append(len(d))
    gs = [x for x in g if x[2] == 'G']
    k = [x for x in g if x[2] == 'K']
    if k:
        ups = [x for x in gs if x[0] <= k[0][0]]
        downs = [x for x in gs if x[0] > k[0][0]]
        if ups:
            r['GPU 1st upload DMA done'].append(ups[0][0] - t0)
            r['GPU last upload DMA done'].append(ups[-1][0] - t0)
        r['GPU op done (K)'].append(k[0][0] - t0)
        if downs:
            r['GPU 1st download DMA done'].append(downs[0][0] - t0)
            r['GPU last download DMA done'].append(downs[-1][0] - t0)
    f = [x for x in h if x[2] == 'F']   # the GEMM engine has no thunk.c finish
    if f:
        r['finish start (F)'].append(f[0][0] - t0)
for case in CASES:
    if case not in rows:
        continue
    r = rows[case]
    print(f"== {case}  ({len(r['total'])} calls; us from the call's start, medians)")
    for key, vals in sorted(r.items(), key=lambda kv: statistics.median(kv[1]) if not any(w in kv[0] for w in ('workers', 'pieces', 'copies', 'each')) else -1):
        print(f"   {key:28s} {statistics.median(vals):10.1f}   [{min(vals):.1f} - {max(vals):.1f}]")
