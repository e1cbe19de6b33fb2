"""Emits the drop-in BLAS (libcufort_blas): one exported forwarder per standard Fortran BLAS name.

The names are the table's variants that have a reference-BLAS counterpart (on_cpu_blas: the CPU BLAS
has <name>_), plus the few netlib routines the table lacks (EXTRAS, always on the CPU BLAS).  Each
forwarder unpacks Fortran's by-reference arguments and then
  Level 3 (GPU_GROUPS)  asks the router; above the threshold: cufort_<name>_host (the thunk engine,
                        in libcufort, opened then: route.h, CORE);
                        a bad argument there calls xerbla with cufort_last_info(), any other failure
                        falls back to the CPU BLAS;
  everything            checks the arguments as reference BLAS does (xerbla, so that a program's own
                        xerbla_ sees them whatever the CPU BLAS), applies the C ABI's quick returns
                        (Level 1: n <= 0, incx <= 0 as classic reference BLAS and cuBLAS), and calls
                        the CPU BLAS found at run time.
Flops (for the report): the usual formulas, x4 for complex variants; Level 1/2 approximate."""

from blas_table import Routine, Variant, N1, Inc, Scalar, Vec, HostRef, variants, on_cpu_blas
from cgen import C_T, ctype, result_ctype, opts, wrap, header

ME = "emit_dropin.py"
OUT = "c_wrappers/dropin/generated/dropin_blas.c"
OUT_TABLE = "c_wrappers/dropin/generated/dropin_table.c"

GPU_GROUPS = ("gemm", "symm", "hemm", "syrk", "herk", "syr2k", "her2k", "trmm", "trsm")

# Netlib BLAS routines outside the routine table (cuBLAS has no counterpart): CPU BLAS only.
EXTRAS = [
    Routine("sdsdot", 1, [Variant("sdsdot", "s")],
            [N1(), Scalar("sb"), Vec("sx", "in", "n", "incx"), Inc("incx"), Vec("sy", "in", "n", "incy"),
             Inc("incy")], result="T"),
    Routine("dsdot", 1, [Variant("dsdot", "s")],
            [N1(), Vec("sx", "in", "n", "incx"), Inc("incx"), Vec("sy", "in", "n", "incy"), Inc("incy")],
            result="T"),
    Routine("scabs1", 1, [Variant("scabs1", "c")], [HostRef("z", "in")], result="R"),
    Routine("dcabs1", 1, [Variant("dcabs1", "z")], [HostRef("z", "in")], result="R"),
]
RESULT_OVERRIDE = {"dsdot": "double"}     # single-precision inputs, double-precision sum

# Real flops per call, C expressions over the arguments (complex variants count 4x).
FLOPS = {
    "amax": "n", "asum": "n", "axpy": "2.0 * n", "copy": "0", "dot": "2.0 * n", "dotu": "2.0 * n",
    "dotc": "2.0 * n", "nrm2": "2.0 * n", "rot": "6.0 * n", "rotg": "0", "rotm": "6.0 * n",
    "rotmg": "0", "scal": "n", "swap": "0", "sdsdot": "2.0 * n", "dsdot": "2.0 * n", "scabs1": "0",
    "dcabs1": "0",
    "gbmv": "2.0 * n * (kl + ku + 1)", "gemv": "2.0 * m * n", "ger": "2.0 * m * n",
    "sbmv": "2.0 * n * (2 * k + 1)", "spmv": "2.0 * n * n", "spr": "1.0 * n * n", "spr2": "2.0 * n * n",
    "symv": "2.0 * n * n", "syr": "1.0 * n * n", "syr2": "2.0 * n * n", "tbmv": "1.0 * n * (2 * k + 1)",
    "tbsv": "1.0 * n * (2 * k + 1)", "tpmv": "1.0 * n * n", "tpsv": "1.0 * n * n", "trmv": "1.0 * n * n",
    "trsv": "1.0 * n * n", "hemv": "2.0 * n * n", "hbmv": "2.0 * n * (2 * k + 1)", "hpmv": "2.0 * n * n",
    "her": "1.0 * n * n", "her2": "2.0 * n * n", "hpr": "1.0 * n * n", "hpr2": "2.0 * n * n",
    "gemm": "2.0 * m * n * k", "symm": "2.0 * m * n * (LEFT(side) ? m : n)",
    "hemm": "2.0 * m * n * (LEFT(side) ? m : n)", "syrk": "1.0 * n * n * k", "herk": "1.0 * n * n * k",
    "syr2k": "2.0 * n * n * k", "her2k": "2.0 * n * n * k", "trmm": "1.0 * m * n * (LEFT(side) ? m : n)",
    "trsm": "1.0 * m * n * (LEFT(side) ? m : n)",
}


def routines():
    """(routine, variant) of every forwarder, table order then EXTRAS."""
    for r, v in variants():
        if on_cpu_blas(r, v):
            yield r, v
    for r in EXTRAS:
        for v in r.variants:
            yield r, v


def on_gpu(r):
    return r.level == 3 and r.group in GPU_GROUPS


def flops(r, v):
    f = FLOPS[r.group]
    return f if f == "0" or v.prec in "sd" else f"4.0 * ({f})"


def ret_ctype(r, v):
    if v.name in RESULT_OVERRIDE:
        return RESULT_OVERRIDE[v.name]
    return {"I": "f77_int", None: "void"}.get(r.result) or result_ctype(r, v)


def cpu_ret_ctype(r, v):
    return "int" if r.result == "I" else ret_ctype(r, v)


def params(r, v):
    """The exported name's parameters (Fortran convention) and the CPU BLAS's parameter types."""
    out, cpu, lens = [], [], []
    for a in r.args:
        if a.kind == "opt":
            out.append(f"const char *p_{a.name}")
            cpu.append("const char *")
            lens.append(f"size_t {a.name}_len")
        elif a.kind == "int":
            out.append(f"const f77_int *p_{a.name}")
            cpu.append("const int *")
        else:
            const = "const " if a.kind == "scalar" or a.io == "in" else ""
            out.append(f"{const}{ctype(v, a)} *{a.name}")
            cpu.append(f"{const}{ctype(v, a)} *")
    return out + lens, cpu + ["size_t"] * len(lens)


def cpu_args(r, v):
    args = []
    for a in r.args:
        if a.kind == "opt":
            args.append(f"p_{a.name}")
        elif a.kind == "int" and r.group == "gemm" and a.name == "k":   # see alpha_zero()
            args.append(f'CPU_INT(&k_read, k_read, "{v.name}")')
        elif a.kind == "int":
            args.append(f'CPU_INT(p_{a.name}, {a.name}, "{v.name}")')
        else:
            args.append(a.name)
    return args + [f"{a.name}_len" for a in r.args if a.kind == "opt"]


def checks(r, v):
    """Reference BLAS's argument checks, in parameter order (the routine table's)."""
    lines = []
    for pos, a in enumerate(r.args, 1):
        cond = None
        if a.kind == "opt":
            cond = f'!dropin_opt_in({a.name}, "{opts(v, a)}")'
        elif a.kind == "int" and a.check:
            cond = f"!({a.check})"
        if cond:
            lines.append(f'    if ({cond}) {{ dropin_xerbla("{v.name}", {pos}); return; }}')
    assert not lines or not r.result, f"{v.name}: a function with argument checks"
    return lines


def quick(r, v):
    if not r.quick:
        return []
    empty = "" if r.result is None else " 0"
    return [f"    if ({r.quick}) {{", "        dropin_end(&call, 0, 0, 0);", f"        return{empty};",
            "    }"]


def alpha_zero(r, v):
    """GEMM on the CPU path: reference BLAS's quick return when alpha or k is 0 and beta is 1, and
    C = beta C with k = 0 when alpha is 0, for OpenBLAS 0.3.21's small-matrix GEMMs read A and B
    whatever alpha is (a NaN there reached C; NULL arrays, which reference BLAS allows then,
    crashed)."""
    if r.group != "gemm":
        return []
    return ["    if ((*alpha == 0 || k == 0) && *beta == 1) {", "        dropin_end(&call, 0, 0, 0);",
            "        return;", "    }",
            "    const f77_int k_read = *alpha == 0 ? 0 : *p_k;"]


def engine(r, v):
    """Level 3 above the threshold: the thunk engine through the C ABI."""
    dims = [a.name for a in r.args if a.kind == "int" and a.check == f"{a.name} >= 0"]
    min_dim = dims[0]
    for d in dims[1:]:
        min_dim = f"IMIN({min_dim}, {d})"
    terms = []
    for a in r.args:
        if a.kind == "array":
            _, rows, cols, _ = a.shape
            times = {"in": 1, "out": 1, "inout": 2}[a.io]
            terms.append(f"{times}.0 * (double)({rows}) * (double)({cols}) * sizeof *{a.name}")
    bytes_ = " +\n                       ".join(terms)
    call_args = [f"*{a.name}" if a.kind == "scalar" else a.name for a in r.args]
    call = f"CORE(cufort_{v.name}_host)({wrap(call_args, ' ' * 16)})"
    return [f"    if (dropin_use_gpu(&call, flops, {min_dim})) {{",
            f"        double bytes = {bytes_};",
            f"        int st = {call};",
            "        if (dropin_gpu_done(&call, st, flops, bytes))",
            "            return;",
            "    }"]


def forwarder(r, v, index):
    name, upper = v.name, v.name.upper()
    ps, cpu_types = params(r, v)
    ret = ret_ctype(r, v)
    ftype = f"{name}_cpu_fn"
    lines = [f"typedef {cpu_ret_ctype(r, v)} {ftype}({wrap(cpu_types, '    ')});", "",
             f"{ret} F77_PLAIN_NAME({name}, {upper})({wrap(ps, '    ')})", "{",
             "    static void *cpu;", "    dropin_call call;",
             f"    dropin_begin(&call, &dropin_routines[{index}]);"]
    for a in r.args:
        if a.kind == "opt":
            lines.append(f"    const char {a.name} = *p_{a.name};")
        elif a.kind == "int":
            lines.append(f"    const int64_t {a.name} = *p_{a.name};")
    lines.append(f"    const double flops = {flops(r, v)};")
    if on_gpu(r):
        lines += engine(r, v)
    lines += checks(r, v) + quick(r, v) + alpha_zero(r, v)
    fn = f'(({ftype} *)dropin_cpu(&cpu, "{name}_"))'
    callexpr = f"{fn}({wrap(cpu_args(r, v), ' ' * 8)})"
    if r.result:
        cast = "(f77_int)" if r.result == "I" else ""
        lines += [f"    {ret} result = {cast}{callexpr};", "    dropin_end(&call, 0, flops, 0);",
                  "    return result;"]
    else:
        lines += [f"    {callexpr};", "    dropin_end(&call, 0, flops, 0);"]
    lines.append("}")
    return "\n".join(lines)


def source():
    pairs = list(routines())
    head = header(ME, "dropin_blas.c — the standard Fortran BLAS names of the drop-in library "
                  "(libcufort_blas).")
    out = [head, '#include "dropin.h"', ""]
    for i, (r, v) in enumerate(pairs):
        out += [f"/* ---- {v.name} " + "-" * (90 - len(v.name)) + " */", forwarder(r, v, i), ""]
    return "\n".join(out)


def table():
    pairs = list(routines())
    head = header(ME, "dropin_table.c — the drop-in library's routines in table order, with their "
                  "counters (stats.c).")
    out = [head, '#include "dropin.h"', "", "dropin_stats dropin_routines[] = {"]
    out += [f'    {{.name = "{v.name}", .gpu_capable = {int(on_gpu(r))}}},' for r, v in pairs]
    out += ["};", f"const int dropin_nroutines = {len(pairs)};", ""]
    return "\n".join(out)


def emit(write):
    write(OUT, source())
    write(OUT_TABLE, table())
