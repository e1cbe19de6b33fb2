"""Emits tests/fuzz/generated/fuzz_blas.c: the BLAS routine table as the fuzzer (tests/fuzz) sees it.

For every variant, in both forms (device pointers and _host arrays), one fz_blas_routine entry:
  params    the arguments in reference-BLAS order (the result pointer last), with their roles, so the
            fuzzer can draw values meant to hit each argument's edges
  check     the table's conditions (and invalid_if rejections) evaluated in 128-bit arithmetic: 0 when
            the arguments are legal, else the parameter position cufort must report
  quick     the table's quick-return condition
  extents   elements each array argument spans (128-bit, never wrapping)
  work      an estimate of the element operations a legal call does, for the rule that skips legal
            calls too large to be cheap
  call      the entry point itself, cufort_<name> or cufort_<name>_host
"""

from blas_table import variants
from cgen import C_T, C_R, ctype, opts, tcode, result_ctype, header

ME = "emit_fuzz.py"
OUT = "tests/fuzz/generated/fuzz_blas.c"

ESIZE = {"float": 4, "double": 8, "cufort_cfloat": 8, "cufort_cdouble": 16, "int64_t": 8}

# Element operations of one call, by routine group (doubles, so that huge sizes do not wrap).
WORK = {
    "amax": "n", "amin": "n", "asum": "n", "axpy": "n", "copy": "n", "dot": "n", "dotu": "n",
    "dotc": "n", "nrm2": "n", "rot": "n", "rotg": "1", "rotm": "n", "rotmg": "1", "scal": "n",
    "swap": "n",
    "gbmv": "(m + n) * (kl + ku + 1)", "gemv": "m * n + m + n", "ger": "m * n + m + n",
    "sbmv": "n * (k + 1)", "hbmv": "n * (k + 1)", "tbmv": "n * (k + 1)", "tbsv": "n * (k + 1)",
    "spmv": "n * n", "spr": "n * n", "spr2": "n * n", "symv": "n * n", "syr": "n * n",
    "syr2": "n * n", "tpmv": "n * n", "tpsv": "n * n", "trmv": "n * n", "trsv": "n * n",
    "hemv": "n * n", "hpmv": "n * n", "her": "n * n", "her2": "n * n", "hpr": "n * n",
    "hpr2": "n * n",
    "gemm": "m * n * (k + 1)", "gemm3m": "m * n * (k + 1)",
    "symm": "m * n * ((LEFT(side) ? m : n) + 1)", "hemm": "m * n * ((LEFT(side) ? m : n) + 1)",
    "syrk": "n * n * (k + 1)", "herk": "n * n * (k + 1)", "syr2k": "n * n * (k + 1)",
    "her2k": "n * n * (k + 1)", "syrkx": "n * n * (k + 1)", "herkx": "n * n * (k + 1)",
    "trmm": "m * n * ((LEFT(side) ? m : n) + 1)", "trsm": "m * n * ((LEFT(side) ? m : n) + 1)",
    "gemm_strided_batched": "batch * m * n * (k + 1)", "geam": "m * n", "dgmm": "m * n",
}

INT_ROLE = {"ld": "FZ_R_LD", "inc": "FZ_R_INC", "stride": "FZ_R_STRIDE"}
IO = {"in": "FZ_IN", "out": "FZ_OUT", "inout": "FZ_INOUT"}


def int_role(a):
    for prefix, role in INT_ROLE.items():
        if a.name.startswith(prefix):
            return role
    return "FZ_R_DIM"


def esize(v, a):
    return ESIZE[ctype(v, a)]


def is_complex(v, a):
    return v.prec in "cz" and tcode(v, a) == "T"


def params(r, v):
    rows = []
    for a in r.args:
        if a.kind == "opt":
            rows.append(f'{{"{a.name}", FZ_CHAR, 0, 0, 0, "{opts(v, a)}"}}')
        elif a.kind == "int":
            rows.append(f'{{"{a.name}", FZ_INT, {int_role(a)}, 0, 0, NULL}}')
        elif a.kind == "scalar":
            kind = "FZ_CPLX" if is_complex(v, a) else "FZ_REAL"
            rows.append(f'{{"{a.name}", {kind}, 0, {esize(v, a)}, 0, NULL}}')
        elif a.kind == "array":
            rows.append(f'{{"{a.name}", FZ_ARRAY, {IO[a.io]}, {esize(v, a)}, 0, NULL}}')
        else:   # hostref: always a host array of `count` elements
            rows.append(f'{{"{a.name}", FZ_ARRAY, {IO[a.io]}, {esize(v, a)}, '
                        f'FZ_HOSTREF | {a.count}, NULL}}')
    if r.result:
        size = ESIZE[result_ctype(r, v)]
        rows.append(f'{{"result", FZ_ARRAY, FZ_OUT, {size}, FZ_HOSTREF | 1, NULL}}')
    return rows


def bind(r, v, wanted):
    """Locals named after the arguments, from the value array; ints widened to 128 bits."""
    out = []
    for i, a in enumerate(r.args):
        if a.name not in wanted:
            continue
        if a.kind == "opt":
            out.append(f"    char {a.name} = v[{i}].c;")
        elif a.kind == "int":
            out.append(f"    fz_wide {a.name} = v[{i}].i;")
        elif a.kind == "hostref":
            out.append(f"    const {ctype(v, a)} *{a.name} = v[{i}].p;")
        elif a.kind == "array":
            out.append(f"    const void *{a.name} = v[{i}].p;")
    return out


def names_in(*exprs):
    import re
    found = set()
    for e in exprs:
        found |= set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", e))
    return found


def check_fn(r, v):
    conds = []
    for pos, a in enumerate(r.args, 1):
        if a.kind == "opt":
            conds.append((f'!fz_opt_in({a.name}, "{opts(v, a)}")', pos))
        elif a.kind == "int" and a.check:
            conds.append((f"!({a.check})", pos))
    for cond, pos, _ in r.invalid_if:
        conds.append((cond, pos))
    body = [f"static int check_{v.name}(const fz_val *v)", "{"]
    body += bind(r, v, names_in(*(c for c, _ in conds)))
    if not conds:
        body.append("    (void)v;")
    body += [f"    if ({c}) return {pos};" for c, pos in conds]
    body += ["    return 0;", "}"]
    return "\n".join(body)


def quick_fn(r, v):
    body = [f"static int quick_{v.name}(const fz_val *v)", "{"]
    if r.quick:
        body += bind(r, v, names_in(r.quick))
        body.append(f"    return {r.quick};")
    else:
        body += ["    (void)v;", "    return 0;"]
    return "\n".join(body + ["}"])


def extent(shape):
    kind = shape[0]
    if kind == "mat":
        return f"fz_ext_mat({shape[1]}, {shape[2]}, {shape[3]})"
    if kind == "vec":
        return f"fz_ext_vec({shape[1]}, {shape[2]})"
    if kind == "pack":
        return f"fz_ext_pack({shape[1]})"
    return f"fz_ext_bmat({', '.join(shape[1:])})"


def extents_fn(r, v):
    exprs = {i: extent(a.shape) for i, a in enumerate(r.args) if a.kind == "array"}
    exprs.update({i: str(a.count) for i, a in enumerate(r.args) if a.kind == "hostref"})
    if r.result:
        exprs[len(r.args)] = "1"
    body = [f"static void extents_{v.name}(const fz_val *v, fz_wide *ext)", "{"]
    body += bind(r, v, names_in(*exprs.values()))
    if not names_in(*exprs.values()) & {a.name for a in r.args}:
        body.append("    (void)v;")
    body += [f"    ext[{i}] = {e};" for i, e in sorted(exprs.items())]
    return "\n".join(body + ["}"])


def work_fn(r, v):
    expr = WORK[r.group]
    body = [f"static double work_{v.name}(const fz_val *v)", "{"]
    used = names_in(expr) & {a.name for a in r.args}
    for i, a in enumerate(r.args):
        if a.name in used:
            body.append(f"    double {a.name} = (double)v[{i}].{'c' if a.kind == 'opt' else 'i'};")
    if not used:
        body.append("    (void)v;")
    return "\n".join(body + [f"    return {expr};", "}"])


def call_fn(r, v):
    conv = []
    for i, a in enumerate(r.args):
        if a.kind == "opt":
            conv.append(f"v[{i}].c")
        elif a.kind == "int":
            conv.append(f"v[{i}].i")
        elif a.kind == "scalar":
            t = ctype(v, a)
            conv.append(f"fz_{'c' if is_complex(v, a) else 'r'}_{'f' if t in ('float', 'cufort_cfloat') else 'd'}(v[{i}])")
        else:
            const = "const " if a.io == "in" else ""
            conv.append(f"({const}{ctype(v, a)} *)v[{i}].p")
    if r.result:
        conv.append(f"({result_ctype(r, v)} *)v[{len(r.args)}].p")
    args = ", ".join(conv)
    return "\n".join([f"static int call_{v.name}(const fz_val *v, int host)", "{",
                      f"    return host ? cufort_{v.name}_host({args})",
                      f"                : cufort_{v.name}({args});", "}"])


def source():
    out = [header(ME, "fuzz_blas.c — every BLAS variant as the fuzzer drives it (tests/fuzz/fuzz.h)."),
           '#include "fuzz.h"', ""]
    entries = []
    for r, v in variants():
        rows = params(r, v)
        out.append(f"static const fz_param params_{v.name}[] = {{")
        out += [f"    {row}," for row in rows]
        out.append("};")
        out += [check_fn(r, v), quick_fn(r, v), extents_fn(r, v), work_fn(r, v), call_fn(r, v), ""]
        entries.append(f'    {{"{v.name}", "{r.group}", {r.level}, params_{v.name}, {len(rows)}, '
                       f"check_{v.name}, quick_{v.name}, extents_{v.name}, work_{v.name}, "
                       f"call_{v.name}}},")
    out.append("const fz_blas_routine fz_blas[] = {")
    out += entries
    out.append("};")
    out.append("const int fz_blas_count = (int)(sizeof fz_blas / sizeof *fz_blas);")
    return "\n".join(out) + "\n"


def emit(write):
    write(OUT, source())
