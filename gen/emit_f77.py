"""Emits the legacy F77 layer: fortran.c-compatible cublas_<name> entry points in two flavours that
share names (two libraries): device pointers as integer*8 (non-thunking) and host arrays (thunking).
The shims only unpack Fortran's by-reference arguments; c_wrappers/f77/f77.h holds the mangling."""

from blas_table import variants
from cgen import C_T, ctype, result_ctype, wrap, header

ME = "emit_f77.py"


def shim(r, v, thunking):
    params, args, lens = [], [], []
    for a in r.args:
        if a.kind == "opt":
            params.append(f"const char *{a.name}")
            args.append(f"*{a.name}")
            lens.append(f"size_t {a.name}_len")
        elif a.kind == "int":
            params.append(f"const f77_int *{a.name}")
            args.append(f"*{a.name}")
        elif a.kind == "scalar":
            params.append(f"const {ctype(v, a)} *{a.name}")
            args.append(f"*{a.name}")
        elif a.kind == "hostref" or thunking:
            const = "const " if a.io == "in" else ""
            params.append(f"{const}{ctype(v, a)} *{a.name}")
            args.append(a.name)
        else:
            const = "const " if a.io == "in" else ""
            params.append(f"const cufort_devptr *{a.name}")
            args.append(f"({const}{ctype(v, a)} *)cufort_f77_ptr(*{a.name})")
    params += lens
    target = f"cufort_{v.name}_host" if thunking else f"cufort_{v.name}"
    xname = v.name.upper()
    fname = f"F77_NAME(cublas_{v.name}, CUBLAS_{xname})"
    ret = {"I": "f77_int", "T": C_T[v.prec], "R": result_ctype(r, v), None: "void"}[r.result]
    lines = [f"{ret} {fname}({wrap(params, '    ')})", "{"]
    lines += [f"    (void){ln.split()[-1]};" for ln in lens]
    if r.result:
        init = "-1" if r.result == "I" else "0"
        lines.append(f"    {result_ctype(r, v)} result = {init};")
        args.append("&result")
    lines.append(f'    cufort_f77_done({target}({wrap(args, " " * 20)}), "{xname}");')
    if r.result == "I":
        lines.append("    return (f77_int)(result + 1);")
    elif r.result:
        lines.append("    return result;")
    lines.append("}")
    return "\n".join(lines)


def source(thunking):
    kind = "thunking (host arrays)" if thunking else "non-thunking (integer*8 device pointers)"
    out = [header(ME, f"f77_{'thunking' if thunking else 'device'}.c — legacy cublas_* names, {kind}."),
           '#include "f77.h"', ""]
    for r, v in variants():
        out += [shim(r, v, thunking), ""]
    return "\n".join(out)


def emit(write):
    write("c_wrappers/generated/f77_device.c", source(False))
    write("c_wrappers/generated/f77_thunking.c", source(True))
