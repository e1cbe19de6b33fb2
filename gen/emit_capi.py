"""Emits the BLAS part of the C ABI: public prototypes, argument checks, device-pointer entry points,
thunking entry points, and the two backends (cuBLAS, CPU BLAS)."""

import re

from blas_table import variants, host_calls_cpu_blas
from cgen import (C_T, CU_T, c_params, c_names, ctype, tcode, result_ctype, opts, extent, layout,
                  wrap, header)

ME = "emit_capi.py"


def proto(name, r, v, with_result=True):
    return f"int {name}({wrap(c_params(r, v, with_result).split(', '), ' ' * (len(name) + 5))})"


def public_header():
    out = [header(ME, "cufort_blas.h — BLAS entry points of the cufort C ABI (see cufort.h)."),
           "#ifndef CUFORT_BLAS_H\n#define CUFORT_BLAS_H\n"]
    for r, v in variants():
        out.append(proto(f"cufort_{v.name}", r, v) + ";")
        out.append(proto(f"cufort_{v.name}_host", r, v) + ";")
    out.append("\n#endif")
    return "\n".join(out) + "\n"


def backend_header():
    out = [header(ME, "blas_backends.h — what each backend implements for the C ABI."),
           "#ifndef CUFORT_BLAS_BACKENDS_H\n#define CUFORT_BLAS_BACKENDS_H\n",
           '#include "cufort.h"\n']
    for r, v in variants():
        out.append(proto(f"cufort_cuda_{v.name}", r, v) + ";")
        out.append(proto(f"cufort_host_{v.name}", r, v) + ";")
    out.append("\n#endif")
    return "\n".join(out) + "\n"


# ---- argument checks, device mode, thunking -------------------------------------------------------------

def checks(r, v):
    lines = []
    for pos, a in enumerate(r.args, 1):
        if a.kind == "opt":
            lines.append(f'    if (!cufort_opt_in({a.name}, "{opts(v, a)}")) '
                         f'return cufort_bad_arg(fn, {pos}, "{a.name}");')
        elif a.kind == "int" and a.check:
            lines.append(f'    if (!({a.check})) return cufort_bad_arg(fn, {pos}, "{a.name}");')
        if a.kind == "int" and a.step:   # |INT64_MIN| is no int64: refused whatever n is
            lines.append(f'    if ({a.name} == INT64_MIN) return cufort_bad_inc(fn, {pos}, "{a.name}");')
    return lines


def null_checks(r):
    lines = [f'    if ({cond}) return cufort_bad_arg(fn, {pos}, "{name}");'
             for cond, pos, name in r.invalid_if]
    for a in r.args:
        if a.kind == "hostref":
            lines.append(f'    if (!{a.name}) return cufort_null_arg(fn, "{a.name}");')
    if r.result:
        lines.append('    if (!result) return cufort_null_arg(fn, "result");')
    return lines


def quick(r):
    if not r.quick:
        return []
    empty = {"I": "-1", "T": "0", "R": "0", None: None}[r.result]
    body = f"*result = {empty}; " if empty else ""
    return [f"    if ({r.quick}) {{ {body}return CUFORT_SUCCESS; }}"]


def batch_of(a):
    """An array argument as a batch: one matrix's layout, the stride and the count (a plain array is
    a batch of one)."""
    if a.shape[0] != "bmat":
        return layout(a), "0", "1"
    _, rows, cols, ld, stride, batch = a.shape
    return f"cufort_layout_mat({a.name}, {rows}, {cols}, {ld}, sizeof(*{a.name}))", stride, batch


def alias_checks(r):
    """An output may share no element with an input; an exact in-place pair is left to invalid_if."""
    args = {a.name: a for a in r.args}
    lines = []
    for out, inp, exact in r.no_alias:
        same = f"(const void *){out} != (const void *){inp} && " if exact else ""
        if "bmat" in (args[out].shape[0], args[inp].shape[0]):
            (lo, so, no), (li, si, ni) = batch_of(args[out]), batch_of(args[inp])
            cond = (f"{same}cufort_overlap_batched({lo}, {so}, {no},\n            {li}, {si}, "
                    f"{ni})")
        else:
            cond = f"{same}cufort_overlap({layout(args[out])},\n            {layout(args[inp])})"
        lines.append(f'    if ({cond})\n        return cufort_alias_arg(fn, "{out}", "{inp}");')
    return lines


def single_column_lds(r):
    """A matrix of one column never steps its leading dimension, which is then passed as the rows:
    cuBLAS 13's 64-bit-address kernels read past a 1 x 1 triangle with an lda of 2^31 or more."""
    ints = {a.name for a in r.args if a.kind == "int"}
    lines = []
    for a in r.args:
        if a.kind == "array" and a.shape[0] == "mat" and a.shape[3] in ints:
            _, rows, cols, ld = a.shape
            lines.append(f"    if (({cols}) == 1) {ld} = IMAX(1, {rows});")
    return lines


def host_array_checks(r):
    """Host arrays cannot be checked against allocations, but one whose span exceeds the address
    space cannot exist: refused before any size arithmetic could wrap."""
    lines = []
    for a in r.args:
        if a.kind == "array":
            lines.append(f'    st = cufort_check_host_array(fn, "{a.name}", {extent(a.shape)}, '
                         f"sizeof(*{a.name}));")
            lines.append("    if (st) return st;")
    return lines


def call(fn, r, names):
    return f"{fn}({wrap(names, ' ' * 15)})"


def device_entry(r, v):
    name = f"cufort_{v.name}"
    sig = proto(name, r, v)
    body = [sig, "{", f'    static const char fn[] = "{name}";', "    CUFORT_HOLD_GATE;",
            "    int st = cufort_enter(fn);",
            "    if (st) return st;"] + check_call(r, v)
    body += null_checks(r) + quick(r)
    for a in r.args:
        if a.kind == "array":
            body.append(f'    st = cufort_check_array(fn, "{a.name}", {a.name}, {extent(a.shape)}, '
                        f"sizeof(*{a.name}));")
            body.append("    if (st) return st;")
    body += alias_checks(r)
    body += single_column_lds(r)
    names = c_names(r)
    body.append(f"    if (cufort_on_host()) return cufort_in(fn, {call(f'cufort_host_{v.name}', r, names)});")
    body.append(f"    return cufort_in(fn, {call(f'cufort_cuda_{v.name}', r, names)});")
    body.append("}")
    return "\n".join(body)


def check_params(r):
    return [a for a in r.args if a.kind in ("opt", "int")]


def check_fn(r, v):
    """Reference-BLAS argument checks in parameter order; None when the routine has none.  The
    integers arrive widened to 128 bits, so that a condition such as lda >= kl + ku + 1 or
    strideC >= ldc * n is exact for every int64 value instead of overflowing."""
    lines = checks(r, v)
    if not lines:
        return None
    params = ", ".join(("char " if a.kind == "opt" else "__int128 ") + a.name for a in check_params(r))
    unused = [a.name for a in check_params(r) if not any(_uses(ln, a.name) for ln in lines)]
    body = [f"    (void){n};" for n in unused]
    return "\n".join([f"static int check_{v.name}(const char *fn, {params})", "{"] + body + lines +
                     ["    return CUFORT_SUCCESS;", "}"])


def check_call(r, v):
    if not checks(r, v):
        return []
    names = ", ".join(a.name for a in check_params(r))
    return [f"    st = check_{v.name}(fn, {names});", "    if (st) return st;"]


def _uses(line, name):
    return re.search(rf"\b{name}\b", line) is not None


IO = {"in": "CUFORT_IN", "out": "CUFORT_OUT", "inout": "CUFORT_INOUT"}


L3_ENGINE = ("trsm", "trmm", "symm", "hemm", "syrk", "herk", "syr2k", "her2k", "syrkx", "herkx")


def l3_fields(r, v):
    """The cufort_l3 literal of a call: the triangular routines' B is the engine's output, C."""
    tri = r.group in ("trsm", "trmm")
    field = {"transa": "trans", "B": "C" if tri else "B", "ldb": "ldc" if tri else "ldb"}
    parts = [f".op = CUFORT_L3_{r.group.upper()}", f".prec = '{v.prec}'"]
    parts += [f".{field.get(a.name, a.name)} = {a.name}" for a in r.args]
    return ", ".join(parts)


def thunk_entry(r, v):
    name = f"cufort_{v.name}_host"
    body = [proto(name, r, v), "{", f'    static const char fn[] = "{name}";', "    CUFORT_HOLD_GATE;",
            "    cufort_clear_error();", "    int st = CUFORT_SUCCESS;"] + check_call(r, v)
    body += null_checks(r) + quick(r) + host_array_checks(r) + alias_checks(r)
    if r.group == "gemm":   # tiled, overlapped, out of core: c_wrappers/thunk/gemm_engine.c
        body.append(f"    return cufort_thunk_gemm(fn, '{v.prec}', transa, transb, m, n, k, &alpha, A, lda, B, "
                    "ldb, &beta, C, ldc);")
        return "\n".join(body + ["}"])
    if r.group in L3_ENGINE:   # panels over a resident operand: c_wrappers/thunk/l3_engine.c
        body.append(f"    return cufort_thunk_l3(fn, &(cufort_l3){{{l3_fields(r, v)}}});")
        return "\n".join(body + ["}"])
    body += ["    cufort_thunk t;", "    st = cufort_thunk_begin(&t, fn);", "    if (st) return st;"]
    subst = {}
    for a in r.args:
        if a.kind != "array":
            continue
        es = f"sizeof(*{a.name})"
        io = IO[a.io]
        kind = a.shape[0]
        if kind == "mat":
            _, rows, cols, ld = a.shape
            body.append(f"    int i{a.name} = cufort_thunk_matrix(&t, {a.name}, {rows}, {cols}, {ld}, "
                        f"{es}, {io});")
            subst[ld] = f"cufort_thunk_ld(&t, i{a.name})"
        elif kind == "vec":
            _, n, inc = a.shape
            body.append(f"    int i{a.name} = cufort_thunk_vector(&t, {a.name}, {n}, {inc}, {es}, {io});")
            subst[inc] = f"cufort_thunk_inc(&t, i{a.name})"
        else:
            body.append(f"    int i{a.name} = cufort_thunk_span(&t, {a.name}, {extent(a.shape)}, {es}, "
                        f"{io});")
        subst[a.name] = f"({'const ' if a.io == 'in' else ''}{ctype(v, a)} *)cufort_thunk_ptr(&t, i{a.name})"
    names = [subst.get(n, n) for n in c_names(r)]
    body.append("    st = cufort_thunk_stage_in(&t);")
    body.append(f"    if (st == CUFORT_SUCCESS)\n        st = {call(f'cufort_{v.name}', r, names)};")
    body.append("    return cufort_thunk_finish(&t, st);")
    body.append("}")
    return "\n".join(body)


def api_source():
    out = [header(ME, "blas_api.c — argument checks and the device-pointer and thunking entry points."),
           '#include "internal.h"', '#include "thunk.h"', '#include "gemm_engine.h"', '#include "l3_engine.h"',
           '#include "blas_backends.h"', ""]
    for r, v in variants():
        check = check_fn(r, v)
        out += ([check, ""] if check else []) + [device_entry(r, v), "", thunk_entry(r, v), ""]
    return "\n".join(out)


# ---- cuda backend ------------------------------------------------------------------------------------

OPT_CONV = {"trans": "cufort_cuda_op", "uplo": "cufort_cuda_fill", "diag": "cufort_cuda_diag",
            "side": "cufort_cuda_side"}


def cublas_name(r, v):
    tmpl = r.cublas or "cublas{P}_v2_64"
    return tmpl.format(P=v.name[0].upper() + v.name[1:], Q=v.prec.upper())


def cuda_entry(r, v):
    """cuBLAS reads complex host scalars with 16-byte loads (cuDoubleComplex is double2), but C
    only promises 8-byte alignment for a double _Complex, so every complex scalar, host reference
    and result travels through an aligned local."""
    args_by_name = {a.name: a for a in r.args}
    names = r.cublas_args or [a.name for a in r.args]
    complex_args = [a for a in r.args if a.kind in ("scalar", "hostref")
                    and v.prec in "cz" and tcode(v, a) == "T"]
    pre, post = [], []
    for a in complex_args:
        n = a.count if a.kind == "hostref" else 1
        src = a.name if a.kind == "hostref" else f"&{a.name}"
        pre.append(f"    {CU_T[v.prec]} {a.name}_aligned[{n}];")
        pre.append(f"    memcpy({a.name}_aligned, {src}, sizeof {a.name}_aligned);")
        if a.kind == "hostref" and a.io != "in":
            post.append(f"    memcpy({a.name}, {a.name}_aligned, sizeof {a.name}_aligned);")
    aligned = {a.name for a in complex_args}
    # a vector of at most one element is read or written at its start whatever the increment,
    # but cuBLAS refuses some increments (INT32_MIN) even then: it gets 1
    vec_len = {a.shape[2]: a.shape[1] for a in r.args if a.shape and a.shape[0] == "vec"}
    conv = []
    for n in names:
        a = args_by_name[n]
        if n in aligned:
            conv.append(f"{n}_aligned")
        elif a.kind == "int" and n in vec_len:
            conv.append(f"({vec_len[n]}) <= 1 ? 1 : {n}")
        elif a.kind == "opt":
            conv.append(f"{OPT_CONV[a.optkind]}({n})")
        elif a.kind == "int":
            conv.append(n)
        elif a.kind == "scalar":
            conv.append(f"&{n}")
        else:
            const = "const " if a.io == "in" else ""
            conv.append(f"({const}{ctype(v, a, CU_T)} *){n}")
    if r.result == "I":
        pre.append("    int64_t one_based = 0;")
        conv.append("&one_based")
        post.append("    *result = one_based - 1;")
    elif r.result == "T" and v.prec in "cz":
        pre.append(f"    {CU_T[v.prec]} result_aligned;")
        conv.append("&result_aligned")
        post.append("    memcpy(result, &result_aligned, sizeof result_aligned);")
    elif r.result:
        conv.append("result")
    fname = cublas_name(r, v)
    body = [proto(f"cufort_cuda_{v.name}", r, v), "{", "    cublasHandle_t h;",
            "    int st = cufort_cuda_handle(&h);", "    if (st) return st;"] + pre
    body.append(f"    st = cufort_cuda_status({fname}({wrap(['h'] + conv, ' ' * 30)}), \"{fname}\");")
    if post:
        body.append("    if (st) return st;")
        body += post
    body += ["    return st;", "}"]
    return "\n".join(body)


def cuda_source():
    out = [header(ME, "blas_cuda.c — the cuda backend: each routine through cuBLAS (v2, 64-bit API)."),
           '#include "cuda_internal.h"', '#include "blas_backends.h"', ""]
    for r, v in variants():
        out += [cuda_entry(r, v), ""]
    return "\n".join(out)


# ---- host backend ------------------------------------------------------------------------------------

def copied(r):
    """A Level-2 routine's vectors, which the host backend hands the CPU BLAS as copies."""
    ints = {a.name for a in r.args if a.kind == "int"}
    return [a for a in r.args if r.level == 2 and a.kind == "array" and a.shape[0] == "vec"
            and a.shape[2] in ints]


def host_entry(r, v):
    sym = f"{v.name}_"
    ftype = f"{v.name}_fn"
    fparams, fargs, ints = [], [], []
    nchar = 0
    cp = copied(r)
    for a in r.args:
        if a.kind == "opt":
            fparams.append("const char *")
            fargs.append(f"&{a.name}")
            nchar += 1
        elif a.kind == "int":
            fparams.append("const int *")
            fargs.append(f"&i_{a.name}")
            ints.append(a.name)
        elif a.kind == "scalar":
            fparams.append(f"const {ctype(v, a)} *")
            fargs.append(f"&{a.name}")
        else:
            const = "const " if a.io == "in" else ""
            fparams.append(f"{const}{ctype(v, a)} *")
            fargs.append(f"({const}{ctype(v, a)} *)c_{a.name}.p" if a in cp else a.name)
    fparams += ["size_t"] * nchar
    fargs += ["1"] * nchar
    ret = {"I": "int", "T": C_T[v.prec], "R": result_ctype(r, v), None: "void"}[r.result]
    body = [f"typedef {ret} (*{ftype})({', '.join(fparams) or 'void'});", "",
            proto(f"cufort_host_{v.name}", r, v), "{", "    static void *slot;", f"    {ftype} f;",
            f'    int st = cufort_cpu_blas_symbol("{sym}", &slot, (void **)&f);', "    if (st) return st;"]
    # A vector of one element reads no stride: it goes to the CPU BLAS as 1, which OpenBLAS needs
    # (its kernels that load past a vector's end fault on n = 1 with an increment near INT_MAX).
    for a in r.args:
        if a.kind == "array" and a.shape[0] == "vec" and a.shape[2] in ints:
            body.append(f"    if (({a.shape[1]}) <= 1) {a.shape[2]} = 1;")
    for n in ints:
        body.append(f"    int i_{n};")
    for n in ints:
        body.append(f'    if ((st = cufort_host_int(&i_{n}, {n}, "{n}"))) return st;')
    # Level 2: the vectors go as contiguous copies with room on both sides, which OpenBLAS's
    # Level-2 kernels need (c_wrappers/host/cpu_blas_vec.c)
    if cp:
        body.append("    cufort_cpu_vec " + ", ".join(f"c_{a.name} = {{0}}" for a in cp) + ";")
        ins = " ||\n        ".join(f"(st = cufort_cpu_vec_in(&c_{a.name}, {a.name}, {a.shape[1]}, {a.shape[2]}, "
                                    f"sizeof *{a.name}))" for a in cp)
        body.append(f"    if ({ins}) {{")
        body += [f"        cufort_cpu_vec_free(&c_{a.name});" for a in cp]
        body += ["        return st;", "    }"]
        body += [f"    i_{a.shape[2]} = 1;" for a in cp]
    callexpr = f"f({wrap(fargs, ' ' * 8)})"
    if r.result == "I":
        body.append(f"    *result = (int64_t){callexpr} - 1;")
    elif r.result:
        body.append(f"    *result = {callexpr};")
    else:
        body.append(f"    {callexpr};")
    for a in cp:
        if a.io != "in":
            body.append(f"    cufort_cpu_vec_out(&c_{a.name}, {a.name}, {a.shape[1]}, {a.shape[2]}, sizeof *{a.name});")
    body += [f"    cufort_cpu_vec_free(&c_{a.name});" for a in cp]
    body += ["    return CUFORT_SUCCESS;", "}"]
    return "\n".join(body)


def host_source():
    out = [header(ME, "blas_host.c — the host backend: each routine through the CPU BLAS found at run "
                  "time.\n * Routines the CPU BLAS lacks are hand-written in c_wrappers/host/."),
           '#include "host_internal.h"', '#include "blas_backends.h"', ""]
    for r, v in variants():
        if host_calls_cpu_blas(r, v):
            out += [host_entry(r, v), ""]
    return "\n".join(out)


def emit(write):
    write("c_wrappers/include/cufort_blas.h", public_header())
    write("c_wrappers/generated/blas_backends.h", backend_header())
    write("c_wrappers/generated/blas_api.c", api_source())
    write("c_wrappers/generated/blas_cuda.c", cuda_source())
    write("c_wrappers/generated/blas_host.c", host_source())
