"""Emits tests/generated/test_blas.c: one test driver per BLAS variant of the routine table, compiled
into one binary per layer by a preprocessor switch (the drop-in layer, LAYER_DROPIN, tests the
variants that have a reference-BLAS name through that name, against netlib renamed to ref_*).
Each variant gets

  run_<v>(case)   declares the routine's arguments from the table (defaults below, overridden by the
                  case), registers its arrays with tests/support/testlib, calls the layer's entry
                  point, runs the double-precision oracle (netlib <twin>_ or tests/support/
                  oracle_extra.c) on upcast copies and lets testlib compare and report;
  test_<v>()      the list of cases: every option combination, increments, beta = 0 over a NaN-
                  poisoned output, alpha = 0, zero sizes, sub-matrix offsets, lower-case options,
                  one illegal value per checked argument, and (device layers) bad pointers.
"""

import itertools
import re

from blas_table import variants, on_cpu_blas
from cgen import C_T, C_R, TWIN, tcode, opts, header

ME = "emit_tests.py"
OUT = "tests/generated/test_blas.c"

DIMS = {"m": 7, "n": 5, "k": 6, "kl": 2, "ku": 1, "batch": 3}
L1_N = 7            # Level-1 vector length
BAND_K = 2          # k of the banded routines (sbmv, hbmv, tbmv, tbsv)
LD_PAD = 3          # ld = rows + LD_PAD
BIG = {1: 150, 2: 9, 3: 9}   # the "big" case multiplies the dimensions (not batch) by level
INC_SETS = [(-2, 3), (3, -2)]
SOLVES = {"trsv", "tbsv", "tpsv", "trsm"}
ROTM_FLAGS = (-1, 0, 1, -2)
ORACLE_ALIAS = {"gemm3m": "gemm"}    # same result as gemm: netlib's gemm is its oracle
# Double twins netlib's reference BLAS lacks: tests/support/oracle_extra.c has them as oracle_<name>.
NOT_IN_NETLIB = {"idamin", "izamin", "zrot", "zsymv", "zsyr", "zsyr2", "dsyrkx", "zsyrkx", "zherkx",
                 "dgemm_strided_batched", "zgemm_strided_batched", "dgeam", "zgeam", "ddgmm", "zdgmm"}
TL_TYPE = {"s": "TL_S", "d": "TL_D", "c": "TL_C", "z": "TL_Z"}
REAL_OF = {"s": "s", "d": "d", "c": "s", "z": "d"}
ORACLE_T = {"d": "double", "z": "cufort_cdouble"}
IO = {"in": "TL_IN", "out": "TL_OUT", "inout": "TL_INOUT"}


# ---- argument roles -------------------------------------------------------------------------------

def array_args(r):
    return [a for a in r.args if a.kind in ("array", "hostref")]


def shape_of_ld(r, name):
    """The (rows, cols) of the array whose leading dimension is `name`."""
    for a in r.args:
        if a.kind == "array" and a.shape[0] in ("mat", "bmat") and a.shape[3] == name:
            return a.shape[1], a.shape[2]
    raise ValueError(f"{r.group}: {name} is no array's leading dimension")


def int_role(r, a):
    for b in r.args:
        if b.kind != "array":
            continue
        s = b.shape
        if s[0] == "vec" and s[2] == a.name:
            return "inc"
        if s[0] in ("mat", "bmat") and s[3] == a.name:
            return "ld"
        if s[0] == "bmat" and s[4] == a.name:
            return "stride"
    return "dim"


def is_band(r):
    return any(a.kind == "array" and a.shape[0] == "mat" and a.shape[1] == "k + 1" for a in r.args)


def default_int(r, a):
    role = int_role(r, a)
    if role == "inc":
        return "1"
    if role == "ld":
        rows, _ = shape_of_ld(r, a.name)
        return f"({rows}) + {LD_PAD}"
    if role == "stride":
        b = next(b for b in r.args if b.kind == "array" and b.shape[0] == "bmat" and b.shape[4] == a.name)
        return f"({b.shape[3]}) * ({b.shape[2]}) + 2"
    if a.name == "k" and is_band(r):
        small = BAND_K
    elif r.level == 1 and a.name == "n":
        small = L1_N
    else:
        small = DIMS[a.name]
    if a.name == "batch":
        return str(small)
    return f"tc->big ? {small * BIG[r.level]} : {small}"


def illegal_value(a):
    """A C expression violating the argument's check (the routine table's C condition)."""
    if a.check == f"{a.name} != 0":
        return "0"
    m = re.fullmatch(rf"(?:.* \|\| )?{a.name} >= (.+)", a.check)
    if not m:
        raise ValueError(f"no illegal value known for check '{a.check}'")
    return "-1" if m.group(1) == "0" else f"({m.group(1)}) - 1"


def positions(r):
    return {a.name: i for i, a in enumerate(r.args, 1)}


# ---- types and the oracle twin --------------------------------------------------------------------

def tl_type(prec, code):
    return TL_TYPE[prec if code == "T" else REAL_OF[prec]]


def twin_name(r, v):
    special = {"scasum": "dzasum", "scnrm2": "dznrm2", "csscal": "zdscal", "csrot": "zdrot"}
    if v.name in special:
        return special[v.name]
    tp = TWIN[v.prec]
    if r.group in ORACLE_ALIAS:
        return tp + ORACLE_ALIAS[r.group]
    if tp == v.prec:
        return v.name
    if v.name.startswith("i"):
        return "i" + tp + v.name[2:]
    return tp + v.name[1:]


def twin(r, v):
    """(routine, variant, on netlib) of the double-precision oracle."""
    name = twin_name(r, v)
    for r2, v2 in variants():
        if v2.name == name:
            return r2, v2, name not in NOT_IN_NETLIB
    raise ValueError(f"{v.name}: no twin {name} in the table")


def oracle_ctype(tv, a):
    return ORACLE_T[TWIN[tv.prec]] if tcode(tv, a) == "T" else "double"


def test_ctype(v, a):
    return C_T[v.prec] if tcode(v, a) == "T" else C_R[v.prec]


# ---- the run function -----------------------------------------------------------------------------

def declare_args(r, v):
    lines = []
    for pos, a in enumerate(r.args, 1):
        if a.kind == "opt":
            lines.append(f"    char {a.name} = tl_opt(tc, {pos}, '{opts(v, a)[0]}');")
        elif a.kind == "int":
            lines.append(f"    int64_t {a.name} = tl_int(tc, {pos}, {default_int(r, a)});")
        elif a.kind == "scalar":
            cplx = int(tcode(v, a) == "T" and v.prec in "cz")
            lines.append(f"    {test_ctype(v, a)} {a.name} = ({test_ctype(v, a)})"
                         f"{'' if cplx else 'creal'}(tl_scalar(X, \"{a.name}\", {cplx}));")
    return lines


def extent_expr(a):
    kind, *rest = a.shape
    if kind == "pack":
        rest = rest[:1]     # the count (a triangle's order after it is for the C ABI's extents)
    return f"tl_extent_{kind}({', '.join(rest)})"


def lead_expr(a):
    kind = a.shape[0]
    return {"mat": lambda s: s[3], "bmat": lambda s: s[3], "vec": lambda s: s[2],
            "pack": lambda s: "1"}[kind](a.shape)


def declare_arrays(r, v, tv):
    beta_scaled = any(a.name == "beta" for a in r.args)
    lines = []
    for a in array_args(r):
        io = IO[a.io]
        if a.kind == "hostref":
            io += " | TL_HOSTREF"
            extent, lead = str(a.count), "1"
        else:
            extent, lead = extent_expr(a), lead_expr(a)
            if beta_scaled and a.io == "inout":
                io += " | TL_SCALED"
        t, rt = tl_type(v.prec, tcode(v, a)), tl_type(TWIN[tv.prec], tcode(tv, a))
        lines.append(f"    tl_array *a_{a.name} = tl_arr(X, \"{a.name}\", {t}, {rt}, {io}, {extent}, "
                     f"{lead});")
    return lines


def special_inputs(r):
    """Inputs the routine needs beyond random numbers."""
    if r.group in SOLVES:
        a = next(a for a in r.args if a.kind == "array" and a.io == "in")
        if a.shape[0] == "pack":
            return [f"    tl_dominant_packed(a_{a.name}, n, uplo);"]
        _, rows, _, ld = a.shape
        if is_band(r):
            return [f"    tl_dominant_band(a_{a.name}, n, k, {ld}, uplo);"]
        return [f"    tl_dominant_full(a_{a.name}, {rows}, {ld});"]
    if r.group == "rotm":
        return ["    tl_set_elem(a_param, 0, tc->flag);"]
    if r.group == "rotmg":
        return ["    tl_positive(a_d1);", "    tl_positive(a_d2);"]
    if r.group == "herkx":
        A = next(a for a in r.args if a.name == "A")
        _, rows, cols, _ = A.shape
        return ["    alpha = creal(alpha);   /* cuBLAS: op(A) op(B)^H must be hermitian */",
                f"    tl_herkx_inputs(a_A, a_B, {rows}, {cols}, lda, ldb, trans);"]
    return []


def bad_overrides(r):
    lines = []
    for pos, a in enumerate(r.args, 1):
        if a.kind == "opt":
            lines.append(f"    if (tc->bad == {pos}) {a.name} = tc->badopt;")
        elif a.kind == "int" and a.check:
            lines += [f"    if (tc->bad == {pos}) {{", f"        {a.name} = {illegal_value(a)};",
                      f"        tl_bad_check(X, {a.check});", "    }"]
    return lines


def capi_call(r, v):
    args = [f"tl_ptr(a_{a.name})" if a.kind in ("array", "hostref") else a.name for a in r.args]
    pre = []
    if r.result:
        rt = "int64_t" if r.result == "I" else C_T[v.prec] if r.result == "T" else C_R[v.prec]
        pre.append(f"    {rt} res = {'-999' if r.result == 'I' else 'NAN'};")
        args.append("&res")
    call = f"CAPI(cufort_{v.name})({', '.join(args)})"
    post = [f"    tl_{'i' if r.result == 'I' else ''}result(X, res);"] if r.result else []
    return pre + [f"    tl_capi_end(X, {call});"] + post


def fortran_args(r, integer, scalar, array, hostref):
    """Arguments in the Fortran convention: everything by reference, one hidden length per
    character argument at the end; integer/scalar/array/hostref spell each kind's argument."""
    args, lens = [], []
    for a in r.args:
        if a.kind == "opt":
            args.append(f"&{a.name}")
            lens.append("(size_t)1")
        else:
            spell = {"int": integer, "scalar": scalar, "array": array, "hostref": hostref}[a.kind]
            args.append(spell.format(a.name))
    return args + lens


def f77_args(r):
    return fortran_args(r, "TL_FINT({})", "&{}", "F77ARR(a_{})", "tl_ptr(a_{})")


def f77_call(r, v):
    call = f"cublas_{v.name}_({', '.join(f77_args(r))})"
    if r.result == "I":
        call = f"tl_iresult(X, (int64_t){call} - 1)"
    elif r.result:
        call = f"tl_result(X, {call})"
    return ["    tl_f77_begin(X);", f"    {call};", "    tl_f77_end(X);"]


def in_dropin(r, v):
    """The drop-in library exports the variants that have a reference-BLAS name."""
    return on_cpu_blas(r, v)


def dropin_call(r, v):
    """The standard Fortran name, through the asm-labelled dropin_<name> (the plain name is the
    oracle's, macro-renamed to ref_<name>_ in this layer)."""
    return [ln.replace(f"cublas_{v.name}_(", f"dropin_{v.name}(") for ln in f77_call(r, v)]


def netlib_call(r, tv):
    """The netlib twin, Fortran convention; its function value goes to testlib."""
    args = fortran_args(r, "TL_INT({})", "&r_{}", "tl_ref(a_{})", "tl_ref(a_{})")
    call = f"{tv.name}_({', '.join(args)})"
    if r.result == "I":
        return [], f"tl_riresult(X, (int64_t){call} - 1)"
    return [], f"tl_rresult(X, {call})" if r.result else call


def extra_call(r, tv):
    """The oracle_extra twin, C ABI convention (function value through a trailing pointer)."""
    args = [f"r_{a.name}" if a.kind == "scalar" else
            f"tl_ref(a_{a.name})" if a.kind in ("array", "hostref") else a.name for a in r.args]
    call = f"oracle_{tv.name}({', '.join(args + (['&rr'] if r.result else []))})"
    if not r.result:
        return [], call
    rtype = {"I": "int64_t", "T": ORACLE_T[tv.prec], "R": "double"}[r.result]
    decl = [f"        {rtype} rr = {'-999' if r.result == 'I' else '0'};"]
    return decl, f"{call}; tl_{'ri' if r.result == 'I' else 'r'}result(X, rr)"


def oracle_call(r, tv, netlib):
    """Upcast scalars, then the twin on the upcast arrays, unless the C ABI quick-returns."""
    lines = [f"        {oracle_ctype(tv, a)} r_{a.name} = {a.name};" for a in r.args
             if a.kind == "scalar"]
    decl, call = netlib_call(r, tv) if netlib else extra_call(r, tv)
    lines += decl
    if not r.quick:
        return lines + [f"        {call};"]
    empty = {"I": "tl_riresult(X, -1)", "T": "tl_rresult(X, 0)", "R": "tl_rresult(X, 0)",
             None: "(void)0"}[r.result]
    return lines + [f"        if ({quick_on_refs(r, tv)}) {empty};", f"        else {{ {call}; }}"]


def quick_on_refs(r, tv):
    """The C ABI's quick-return condition, with array references read from the oracle copies."""
    cond = r.quick
    for a in array_args(r):
        cond = re.sub(rf"\b{a.name}\b", f"(({oracle_ctype(tv, a)} *)tl_ref(a_{a.name}))", cond)
    return cond


def after_oracle(r):
    return ["        tl_rotmg_ignore(a_param);"] if r.group == "rotmg" else []


def run_fn(r, v):
    _, tv, netlib = twin(r, v)
    body = [f"static void run_{v.name}(const tl_case *tc)", "{",
            "    tl_ctx ctx, *X = &ctx;",
            f"    tl_begin(X, \"{v.name}\", {TL_TYPE[v.prec]}, tc, {repr(r.result) if r.result else 0});"]
    body += declare_args(r, v)
    body += declare_arrays(r, v, tv)
    body += ["    tl_fill(X);"] + special_inputs(r) + ["    tl_stage(X);"]
    body += bad_overrides(r)
    body += ["    if (X->ready) {"]
    if in_dropin(r, v):
        body += ["#if TL_DROPIN"] + ["    " + ln for ln in dropin_call(r, v)] + ["#elif TL_F77"]
    else:
        body += ["#if TL_F77"]
    body += ["    " + ln for ln in f77_call(r, v)]
    body += ["#else"] + ["    " + ln for ln in capi_call(r, v)] + ["#endif", "    }"]
    body += ["    if (tl_expect_call(X)) {"] + oracle_call(r, tv, netlib) + after_oracle(r)
    body += ["    }", "    tl_finish(X);", "}"]
    return "\n".join(body)


# ---- the cases ------------------------------------------------------------------------------------

class Case:
    def __init__(self, name, **fields):
        self.name, self.fields = name, fields

    def c(self, fn):
        parts = [f'.name = "{self.name}"']
        for key, val in self.fields.items():
            if key == "opt":
                val = "{" + ", ".join(f"[{p}] = '{c}'" for p, c in val) + "}"
            elif key == "set":
                val = "{" + ", ".join(f"{{{p}, {x}}}" for p, x in val) + "}"
            elif key == "badopt":
                val = f"'{val}'"
            parts.append(f".{key} = {val}")
        return f"    {fn}(&(tl_case){{{', '.join(parts)}}});"


def opt_combos(r, v):
    """Every combination of the option letters (and rotm's flag), as (label, case fields)."""
    pos = positions(r)
    axes = [[(a.name, c) for c in opts(v, a)] for a in r.args if a.kind == "opt"]
    if r.group == "rotm":
        axes.append([("flag", f) for f in ROTM_FLAGS])
    for combo in itertools.product(*axes):
        fields = {"flag": val for name, val in combo if name == "flag"}
        letters = [(pos[name], val) for name, val in combo if name != "flag"]
        if letters:
            fields["opt"] = letters
        yield ",".join(f"{name}={val}" for name, val in combo), fields


def join(*labels):
    return ",".join(x for x in labels if x) or "default"


def inc_sets(r):
    incs = [a for a in r.args if a.kind == "int" and int_role(r, a) == "inc"]
    if not incs:
        return []
    pos = positions(r)
    out = [[(pos[a.name], s[i]) for i, a in enumerate(incs)] for s in INC_SETS]
    quick_on_incx = r.quick is not None and "incx <= 0" in r.quick
    if quick_on_incx or r.level == 3:   # incx = 0 is defined: a quick return, or dgmm's broadcast
        out.append([(pos["incx"], 0)])
    return out


def set_label(r, pairs):
    names = {i: a.name for i, a in enumerate(r.args, 1)}
    return ",".join(f"{names[p]}={x}" for p, x in pairs)


def main_cases(r, v):
    has_beta = any(a.name == "beta" for a in r.args)
    for label, fields in opt_combos(r, v):
        yield Case(join(label), **fields)
        if has_beta:
            yield Case(join(label, "beta=0"), **fields, scal="TL_BETA0")
        for s in inc_sets(r):
            yield Case(join(label, set_label(r, s)), **fields, set=s)


def edge_cases(r, v):
    combos = list(opt_combos(r, v))
    for label, fields in [combos[0]] + combos[1:][-1:]:
        yield Case(join(label, "big"), **fields, big=1)
    label, fields = combos[0]
    if any(a.name == "alpha" for a in r.args):
        yield Case(join(label, "alpha=0"), **fields, scal="TL_ALPHA0")
    pos = positions(r)
    for a in r.args:
        if a.kind == "int" and int_role(r, a) == "dim":
            for val in ((0, -1) if a.check is None else (0,)):
                yield Case(join(label, f"{a.name}={val}"), **fields, set=[(pos[a.name], val)])
    if any(a.kind == "array" for a in r.args):
        yield Case(join(label, "sub"), **fields, sub=1)
        for s in inc_sets(r)[:1]:
            yield Case(join(label, "sub", set_label(r, s)), **fields, sub=1, set=s)
    if "opt" in fields:
        lower = [(p, c.lower()) for p, c in fields["opt"]]
        yield Case(join(label.lower(), "lowercase"), **dict(fields, opt=lower))
    if r.group in ("rotg", "rotmg"):
        for rep in (1, 2, 3):
            yield Case(f"rep={rep}", rep=rep)


def error_cases(r, v):
    _, fields = next(opt_combos(r, v))
    for pos, a in enumerate(r.args, 1):
        if a.kind == "opt":
            for bad in "X" + "".join(c for c in a.opts if c not in opts(v, a)):
                yield Case(f"bad:{a.name}={bad}", **fields, bad=pos, badopt=bad)
        elif a.kind == "int" and a.check:
            yield Case(f"bad:{a.name}", **fields, bad=pos)


def badptr_cases(r, v):
    arrays = [a for a in r.args if a.kind == "array"]
    if not arrays:
        return
    _, fields = next(opt_combos(r, v))
    for kind, tag in (("TL_BADPTR_HOST", "host"), ("TL_BADPTR_END", "end")):
        yield Case(f"badptr:{tag}:{arrays[0].name}", **fields, badptr=kind)


def test_fn(r, v):
    fn = f"run_{v.name}"
    lines = [f"static void test_{v.name}(void)", "{"]
    for case in itertools.chain(main_cases(r, v), edge_cases(r, v), error_cases(r, v)):
        lines.append(case.c(fn))
    bad = [case.c(fn) for case in badptr_cases(r, v)]
    if bad:
        lines += ["#if TL_DEVICE_MEM"] + bad + ["#endif"]
    return "\n".join(lines + ["}"])


# ---- prototypes -----------------------------------------------------------------------------------

def f77_proto(r, v, name=None, label=""):
    params, lens = [], []
    for a in r.args:
        if a.kind == "opt":
            params.append(f"const char *{a.name}")
            lens.append(f"size_t {a.name}_len")
        elif a.kind == "int":
            params.append(f"const tl_fint *{a.name}")
        elif a.kind == "scalar":
            params.append(f"const {test_ctype(v, a)} *{a.name}")
        elif a.kind == "hostref":
            params.append(f"{test_ctype(v, a)} *{a.name}")
        else:
            const = "const " if a.io == "in" else ""
            params.append(f"F77ARRT({const}{test_ctype(v, a)}) {a.name}")
    ret = {"I": "tl_fint", "T": C_T[v.prec], "R": C_R[v.prec], None: "void"}[r.result]
    return f"{ret} {name or f'cublas_{v.name}_'}({', '.join(params + lens)}){label};"


def netlib_proto(r, v):
    params, lens = [], []
    for a in r.args:
        if a.kind == "opt":
            params.append("const char *")
            lens.append("size_t")
        elif a.kind == "int":
            params.append("const int *")
        else:
            params.append(f"{oracle_ctype(v, a)} *")
    ret = {"I": "int", "T": ORACLE_T[v.prec], "R": "double", None: "void"}[r.result]
    return f"{ret} {v.name}_({', '.join(params + lens)});"


def netlib_protos():
    seen, out = set(), []
    for r, v in variants():
        tr, tv, netlib = twin(r, v)
        if netlib and tv.name not in seen:
            seen.add(tv.name)
            out.append(netlib_proto(tr, tv))
    return out


def dropin_block():
    """The drop-in layer's names: the oracle's netlib names become ref_<name>_, the library under
    test is reached through asm labels, which no macro renames."""
    out = ["#if TL_DROPIN", "/* netlib, renamed (mk/dropin.mk): the plain names are the drop-in's */"]
    seen = set()
    for r, v in variants():
        tr, tv, netlib = twin(r, v)
        if netlib and tv.name not in seen:
            seen.add(tv.name)
            out.append(f"#define {tv.name}_ ref_{tv.name}_")
    out.append("/* the drop-in library under test, Fortran convention */")
    out += [f77_proto(r, v, f"dropin_{v.name}", f' __asm__("{v.name}_")') for r, v in variants()
            if in_dropin(r, v)]
    return out + ["#endif", ""]


# ---- the file -------------------------------------------------------------------------------------

BUILD = """\
 * Build (one source, four binaries; testlib.c is compiled with the same LAYER_ switch):
 *   T="tests/generated/test_blas.c tests/support/testlib.c tests/support/oracle_extra.c"
 *   O="-std=c11 -O1 -Wall -Wextra -Ic_wrappers/include -Itests/support"
 *   L="-Lbuild/lib -Wl,-rpath,$PWD/build/lib"
 *   ORACLE="/usr/lib/x86_64-linux-gnu/blas/libblas.a -lgfortran -lm"   (netlib, static: never -lblas,
 *                                                                       which is OpenBLAS here)
 *   gcc $O -DLAYER_DEVICE       $T -o test_blas_device       $L -lcufort $ORACLE
 *   gcc $O -DLAYER_HOST         $T -o test_blas_host         $L -lcufort $ORACLE
 *   gcc $O -DLAYER_F77_DEVICE   $T -o test_blas_f77_device   $L -lcufort_f77 -lcufort $ORACLE
 *   gcc $O -DLAYER_F77_THUNKING $T -o test_blas_f77_thunking $L -lcufort_f77_thunking -lcufort $ORACLE
 *   gcc $O -DLAYER_DROPIN $T tests/dropin/layer.c -o test_blas_dropin $L -lcufort_blas -lcufort $REF
 *     (REF: netlib's libblas.a with every symbol renamed to ref_*, mk/dropin.mk)
 * Run: CUFORT_BACKEND=host|cuda ./test_blas_<layer>   (CUFORT_BLAS_FILTER=sgemm,dgemv runs a few).
 * Output: one line per case, "ok <layer> <variant> <case>" or "FAIL <layer> <variant> <case>: why",
 * then "N passed, M failed"; the exit status is 1 when a case failed.
 */
"""


def source():
    head = header(ME, "test_blas.c — every BLAS variant of the table against a double-precision "
                  "oracle, per layer.")
    out = [head[:head.rindex("*/")].rstrip() + "\n *\n" + BUILD]
    out += ['#include <math.h>', '#include <stdint.h>', "", '#include "cufort.h"',
            '#include "oracle_extra.h"', '#include "testlib.h"', ""]
    out += dropin_block()
    out += ["/* netlib reference BLAS (double twins), Fortran convention */"]
    out += netlib_protos()
    out += ["", "#if TL_F77", "/* the legacy layer under test, Fortran convention */"]
    out += [f77_proto(r, v) for r, v in variants()]
    out += ["#endif", ""]
    names = []
    for r, v in variants():
        fns = [f"/* ---- {v.name} " + "-" * (90 - len(v.name)) + " */", run_fn(r, v), "",
               test_fn(r, v)]
        out += (fns if in_dropin(r, v) else ["#if !TL_DROPIN"] + fns + ["#endif"]) + [""]
        names.append((v.name, in_dropin(r, v)))
    out += ["static const struct { const char *name; void (*fn)(void); } tests[] = {"]
    for i, (n, dropin) in enumerate(names):
        opens = not dropin and (i == 0 or names[i - 1][1])
        closes = not dropin and (i + 1 == len(names) or names[i + 1][1])
        out += (["#if !TL_DROPIN"] if opens else []) + [f"    {{\"{n}\", test_{n}}},"]
        out += ["#endif"] if closes else []
    out += ["};", "", "int main(void)", "{", "    tl_init();",
            "    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)",
            "        if (tl_selected(tests[i].name))", "            tests[i].fn();",
            "#if TL_DROPIN", "    tl_dropin_routing();", "#endif",
            "    return tl_summary();", "}"]
    return "\n".join(out) + "\n"


def fold(line, width=100):
    """Breaks a long generated line after ', ' (never inside the case-name strings, which hold no
    spaces), continuing 8 columns deeper."""
    if len(line) <= width or line.startswith(("/*", " *")):
        return line
    indent = " " * (len(line) - len(line.lstrip()) + 8)
    out, cur = [], ""
    for piece in line.split(", "):
        if cur and len(cur) + 2 + len(piece) > width:
            out.append(cur + ",")
            cur = indent + piece
        else:
            cur = f"{cur}, {piece}" if cur else piece
    return "\n".join(out + [cur])


def emit(write):
    write(OUT, "\n".join(fold(ln) for ln in source().split("\n")))
