"""Emits tests/generated/test_fortran_blas.f90 (called by emit_fortran.emit): every specific of every
generic cf_<operation> of `use cufort`, i.e. every variant in both modes, against the C ABI called
directly with explicit dimensions (cufort_<name>_host on copies of the same data):

  host arrays, defaults      no optional argument: trans='N', uplo='U', diag='N', side='L',
                             alpha=1, beta=0 must be what the module passes
  host arrays, explicit      every option (the last allowed letter, given in lower case) and scalar
  device views, explicit     every array a view with an offset inside a larger device array:
                             matrices a sub-matrix (ld > rows), vectors a matrix row (increment = ld),
                             packed arrays a sub-vector; the whole enclosing array is compared, so a
                             write outside the view is caught
  device views, defaults
  shape mismatches           every extent of every array that the other arguments determine, one
                             larger than it must be (host arrays for every variant, device arrays for
                             the first variant of each routine): stat = CF_INVALID_VALUE, errmsg
                             'cf_<op>: shape mismatch: argument <X> ...', and no array touched
  illegal options            every option of the first variant of each routine given as '' or 'x'
                             (shapes legal for the default): stat = CF_INVALID_VALUE, errmsg
                             'cf_<op>: argument <option> = ...' (options are checked before shapes),
                             and no array touched
"""

import re
from string import Template

from blas_table import ROUTINES
from cgen import tcode
from emit_fortran import (FT, PREC_KIND, REAL_KIND, RANK_TYPE, OPT_DEFAULT, REQUIRED_SCALARS,
                          components, solve, generic_name, dummy_order, parse, modes, fold, elem_kind)

ME = "emit_fortran_tests.py"
DIMS = {"m": 7, "n": 5, "k": 6, "kl": 2, "ku": 1, "batch": 3}
RANK = {"mat": 2, "vec": 1, "pack": 1, "bmat": 3}


def letters(r, v, explicit):
    out = {}
    for a in r.args:
        if a.kind == "opt":
            allowed = v.opts.get(a.name, a.opts)
            out[a.name] = allowed[-1] if explicit else OPT_DEFAULT[a.optkind]
    return out


def evaluate(expr, lets, dims):
    p = parse(expr)
    if p[0] == "cond":
        _, fn, opt, a, b = p
        cond = lets[opt] == ("N" if fn == "NOTR" else "L")
        return dims[a] if cond else dims[b]
    py = re.sub(r"\b([A-Za-z_]\w*)\b", lambda m: str(dims[m.group(1)]), expr)
    return int(eval(py.replace("/", "//")))


def shapes(r, lets):
    """{array name: [extents]} for the test dimensions."""
    out = {}
    for a in r.args:
        if a.kind != "array":
            continue
        sh = a.shape
        if sh[0] == "mat":
            out[a.name] = [evaluate(sh[1], lets, DIMS), evaluate(sh[2], lets, DIMS)]
        elif sh[0] in ("vec", "pack"):
            out[a.name] = [evaluate(sh[1], lets, DIMS)]
        else:
            out[a.name] = [evaluate(sh[1], lets, DIMS), evaluate(sh[2], lets, DIMS),
                           evaluate(sh[5], lets, DIMS)]
    return out


KEY_INDEX = {"rows": 0, "cols": 1, "len": 0, "batch": 2}


def detects(r, lets, shp):
    """Whether the module's inference + checks (simulated here) reject these actual shapes."""
    plan, comps, _ = solve(r)
    dims = {}
    act = {(c.arr, c.key): shp[c.arr][KEY_INDEX[c.key]] for c in comps}
    for step in plan:
        if step[0] == "req":
            dims[step[1]] = DIMS[step[1]]
            continue
        _, d, srcs = step
        if srcs[0][0] is None:
            _, c, f = srcs[0][:3]
            expr = f("ACT").replace("ACT", str(act[(c.arr, c.key)]))
            dims[d] = eval(re.sub(r"\b([A-Za-z_]\w*)_", lambda m: str(dims[m.group(1)]), expr))
        else:
            (cond, c1, _), (_, c2, _) = srcs
            ok = lets[cond[1]] == ("N" if cond[0] == "NOTR" else "L")
            c = c1 if ok else c2
            dims[d] = act[(c.arr, c.key)]
    for c in comps:
        if evaluate(c.expr, lets, dims) != act[(c.arr, c.key)]:
            return True
    return False


def lit(v, a, value, cplx_im):
    k = elem_kind(v, a)
    if k.startswith("c"):
        return f"cmplx({value}, {cplx_im}, kind=c_{'float' if k == 'c32' else 'double'})"
    return f"{value}_c_{'float' if k == 'r32' else 'double'}"


SCALARS = {"alpha": ("0.7", "0.3"), "beta": ("0.4", "-0.2"), "c": ("0.8", "0.1"), "s": ("0.6", "0.2")}


def dims_decl(rank):
    return {1: "(:)", 2: "(:,:)", 3: "(:,:,:)"}[rank]


def case_block(r, v, mode, explicit, bad=None, badopt=None):
    """One call of the generic against the oracle (bad: (array, extent index) made one too large,
    then the call must fail with a shape mismatch and touch nothing; badopt: (option, value) an
    illegal option letter, then the call must fail naming that option, before any shape check, and
    touch nothing)."""
    lets = letters(r, v, explicit)
    shp = shapes(r, lets)
    if bad:
        shp = {k: list(e) for k, e in shp.items()}
        shp[bad[0]][bad[1]] += 1
    gname = generic_name(r, v)
    arrays, reqi, reqs, hostrefs, opts, optsc = dummy_order(r, v)
    decl, setup, oracle_args, lib_args, after, untouched = [], [], [], [], [], []
    what = f"{mode} {'explicit' if explicit else 'defaults'}"
    if bad:
        what = f"{mode} mismatch {bad[0]}({bad[1] + 1})"
    if badopt:
        what = f"{mode} illegal {badopt[0]}={badopt[1] or 'empty'}"
    # arrays
    for a in arrays:
        k = elem_kind(v, a)
        rank = RANK[a.shape[0]]
        e = shp[a.name]
        dd = dims_decl(rank)
        n = a.name
        decl.append(f"{FT[k]}, allocatable, target :: {n}_h{dd}, {n}_r{dd}")
        setup.append(f"call mk({n}_h, {n}_r, {', '.join(map(str, e))})")
        if mode == "dev":
            kind = a.shape[0]
            if kind == "bmat":
                decl.append(f"type(cf_array3_{k}) :: d_{n}")
                setup.append(f"call dev_3(d_{n}, {n}_h)")
                lib_args.append(f"d_{n}")
                after.append(f"call chk_dev_3({{label}} // ' {n}', d_{n}, {n}_r, nfail)")
                untouched.append(f"call chk_dev_3({{label}} // ' {n} untouched', d_{n}, {n}_h, nfail)")
                continue
            pdd = "(:)" if kind == "pack" else "(:,:)"
            tname = "vector" if kind == "pack" else "matrix"
            helper = {"mat": "mat", "vec": "vec", "pack": "pack"}[kind]
            decl.append(f"{FT[k]}, allocatable :: {n}_p{pdd}")
            decl.append(f"type(cf_{tname}_{k}) :: d_{n}")
            setup.append(f"call dev_{helper}(d_{n}, {n}_p, {n}_h)")
            view = {"mat": f"d_{n}%sub(2, {e[0] + 1}, 3, {e[-1] + 2})" if kind == "mat" else "",
                    "vec": f"d_{n}%row(2, 2, {e[0] + 1})", "pack": f"d_{n}%sub(3, {e[0] + 2})"}[kind]
            lib_args.append(view)
            after.append(f"call chk_dev_{helper}({{label}} // ' {n}', d_{n}, {n}_p, {n}_r, nfail)")
            untouched.append(f"call chk_dev_{helper}({{label}} // ' {n} untouched', d_{n}, {n}_p, {n}_h, nfail)")
        else:
            lib_args.append(f"{n}_h")
            after.append(f"call chk({{label}} // ' {n}', {n}_h, {n}_r, nfail)")
            untouched.append(f"call chk({{label}} // ' {n} untouched', {n}_h, {n}_r, nfail)")
    # required ints, scalars, hostrefs, options
    for a in reqi:
        lib_args.append(f"{a.name}={DIMS[a.name]}")
    scal_vals = {}
    for a in reqs + optsc:
        if a.name in REQUIRED_SCALARS.get(r.group, ()) or explicit:
            re_, im = SCALARS[a.name]
            scal_vals[a.name] = lit(v, a, re_, im if tcode(v, a) == "T" else "0")
            lib_args.append(f"{a.name}=sc_{a.name}")
        else:
            scal_vals[a.name] = lit(v, a, "1" if a.name == "alpha" else "0", "0")
        decl.append(f"{FT[elem_kind(v, a)]} :: sc_{a.name}")
        setup.append(f"sc_{a.name} = {scal_vals[a.name]}")
    for a in hostrefs:
        k = elem_kind(v, a)
        dim = f"({a.count})" if a.count > 1 else ""
        decl.append(f"{FT[k]} :: {a.name}_h{dim}, {a.name}_r{dim}")
        setup.append(f"call fill1({a.name}_h)" if not dim else f"call fill({a.name}_h)")
        if a.name == "param":
            setup.append(f"{a.name}_h(1) = -1")
        setup.append(f"{a.name}_r = {a.name}_h")
        lib_args.append(f"{a.name}={a.name}_h")
    if explicit:
        for a in opts:
            lib_args.append(f"{a.name}='{lets[a.name].lower()}'")
    if badopt:
        lib_args.append(f"{badopt[0]}='{badopt[1]}'")
    # oracle: the C ABI, explicit dimensions
    for a in r.args:
        if a.kind == "opt":
            oracle_args.append(f"'{lets[a.name]}'")
        elif a.kind == "int":
            oracle_args.append(f"{int_value(r, a.name, shp, lets)}_c_int64_t")
        elif a.kind == "scalar":
            oracle_args.append(f"sc_{a.name}")
        elif a.kind == "hostref":
            oracle_args.append(f"{a.name}_r")
        else:
            oracle_args.append(f"c_loc({a.name}_r)")
    if r.result:
        rt = "integer" if r.result == "I" else (FT[PREC_KIND[v.prec]] if r.result == "T" else
                                                FT[REAL_KIND[v.prec]])
        crt = "integer(c_int64_t)" if r.result == "I" else rt
        decl.append(f"{rt} :: res_l")
        if not bad:
            decl.append(f"{crt} :: res_r")
        oracle_args.append("res_r")
    lib_args += ["stat=st", "errmsg=msg"]
    body = [f"  {d}" for d in decl] + [f"  {s}" for s in setup]
    call = f"cf_{gname}({', '.join(lib_args)})"
    label = f"'{v.name} {what}'"
    if bad or badopt:
        if r.result:
            body.append(f"  res_l = {call}")
        else:
            body.append(f"  call {call}")
        prefix = f"cf_{gname}: argument {badopt[0]} = " if badopt else \
            f"cf_{gname}: shape mismatch: argument "
        body.append(f"  call expect_mismatch({label}, st, msg, '{prefix}', nfail)")
        body += [f"  {x.format(label=label)}" for x in untouched]
    else:
        body.append(f"  st2 = cufort_{v.name}_host({', '.join(oracle_args)})")
        if r.result:
            body.append(f"  res_l = {call}")
        else:
            body.append(f"  call {call}")
        body.append(f"  call expect_ok({label}, st, st2, msg, nfail)")
        body += [f"  {x.format(label=label)}" for x in after]
        for a in hostrefs:
            if a.io != "in":
                val = f"[{a.name}_h]", f"[{a.name}_r]"
                body.append(f"  call check({label} // ' {a.name}', {val[0]}, {val[1]}, nfail)")
        if r.result == "I":
            body.append(f"  call check_int({label} // ' value', res_l, int(res_r) + 1, nfail)")
        elif r.result:
            body.append(f"  call check({label} // ' value', [res_l], [res_r], nfail)")
    return body


def int_value(r, name, shp, lets):
    """The value of an int argument for the oracle: a dimension, ld, inc or stride."""
    _, derived = components(r)
    if name in derived:
        arr, key = derived[name]
        e = shp[arr]
        if key == "inc":
            return 1
        return max(1, e[0]) if key == "ld" else e[0] * e[1]
    return DIMS[name]


def variant_test(r, v, first):
    lines = [f"subroutine t_{v.name}(nfail)", "  integer, intent(inout) :: nfail",
             "  integer :: before"]
    cases = []
    for mode in modes(r):
        for explicit in (False, True):
            cases.append((f"{mode} {'explicit' if explicit else 'defaults'}",
                          case_block(r, v, mode, explicit)))
    # shape mismatches
    mismatch_modes = ("host", "dev") if first else ()
    lets = letters(r, v, False)
    shp = shapes(r, lets)
    comps, _ = components(r)
    for mode in mismatch_modes:
        if mode not in modes(r):
            continue
        for c in comps:
            bad = (c.arr, KEY_INDEX[c.key])
            trial = {k: list(e) for k, e in shp.items()}
            trial[bad[0]][bad[1]] += 1
            if detects(r, lets, trial):
                cases.append((f"{mode} mismatch {bad[0]}({bad[1] + 1})",
                               case_block(r, v, mode, False, bad)))
    # illegal option letters: named before any shape is looked at (first variant of each routine)
    for mode in mismatch_modes:
        if mode not in modes(r):
            continue
        for a in r.args:
            if a.kind != "opt":
                continue
            for val in ("", "x") if mode == "host" else ("",):
                cases.append((f"{mode} illegal {a.name}={val or 'empty'}",
                               case_block(r, v, mode, False, badopt=(a.name, val))))
    subs = []
    for i, (label, c) in enumerate(cases, 1):
        lines.append("  before = nfail")
        lines.append(f"  call t_{v.name}_{i}(nfail)")
        lines.append(f"  call passed('{v.name} {label}', nfail, before)")
        subs += ["", f"subroutine t_{v.name}_{i}(nfail)", "  integer, intent(inout) :: nfail",
                 "  integer :: st", "  character(len=256) :: msg"]
        if any("st2 =" in x for x in c):
            subs.append("  integer(c_int) :: st2")
        subs += c
        subs.append(f"end subroutine t_{v.name}_{i}")
    lines.append(f"end subroutine t_{v.name}")
    return [fold(x) for x in lines + subs]


KINDS = ["r32", "r64", "c32", "c64"]
TOL = {"r32": "2e-4", "r64": "1d-10", "c32": "2e-4", "c64": "1d-10"}

HELPERS = """
  subroutine dev_mat_$K(d, p, h)
    type(cf_matrix_$K), intent(inout) :: d
    $FT, allocatable, intent(inout) :: p(:,:)
    $FT, intent(in) :: h(:,:)
    allocate(p(size(h, 1) + 3, size(h, 2) + 2))
    call fill(p)
    p(2:size(h, 1) + 1, 3:size(h, 2) + 2) = h
    d = p
  end subroutine dev_mat_$K
  subroutine chk_dev_mat_$K(what, d, p, r, nfail)
    character(len=*), intent(in) :: what
    type(cf_matrix_$K), intent(in) :: d
    $FT, intent(in) :: p(:,:), r(:,:)
    integer, intent(inout) :: nfail
    $FT, allocatable :: e(:,:), g(:,:)
    allocate(e, source=p)
    e(2:size(r, 1) + 1, 3:size(r, 2) + 2) = r
    allocate(g, mold=p)
    g = d
    call check(what, reshape(g, [size(g)]), reshape(e, [size(e)]), nfail)
  end subroutine chk_dev_mat_$K
  subroutine dev_vec_$K(d, p, h)
    type(cf_matrix_$K), intent(inout) :: d
    $FT, allocatable, intent(inout) :: p(:,:)
    $FT, intent(in) :: h(:)
    allocate(p(3, size(h) + 2))
    call fill(p)
    p(2, 2:size(h) + 1) = h
    d = p
  end subroutine dev_vec_$K
  subroutine chk_dev_vec_$K(what, d, p, r, nfail)
    character(len=*), intent(in) :: what
    type(cf_matrix_$K), intent(in) :: d
    $FT, intent(in) :: p(:,:), r(:)
    integer, intent(inout) :: nfail
    $FT, allocatable :: e(:,:), g(:,:)
    allocate(e, source=p)
    e(2, 2:size(r) + 1) = r
    allocate(g, mold=p)
    g = d
    call check(what, reshape(g, [size(g)]), reshape(e, [size(e)]), nfail)
  end subroutine chk_dev_vec_$K
  subroutine dev_pack_$K(d, p, h)
    type(cf_vector_$K), intent(inout) :: d
    $FT, allocatable, intent(inout) :: p(:)
    $FT, intent(in) :: h(:)
    allocate(p(size(h) + 4))
    call fill(p)
    p(3:size(h) + 2) = h
    d = p
  end subroutine dev_pack_$K
  subroutine chk_dev_pack_$K(what, d, p, r, nfail)
    character(len=*), intent(in) :: what
    type(cf_vector_$K), intent(in) :: d
    $FT, intent(in) :: p(:), r(:)
    integer, intent(inout) :: nfail
    $FT, allocatable :: e(:), g(:)
    allocate(e, source=p)
    e(3:size(r) + 2) = r
    allocate(g, mold=p)
    g = d
    call check(what, g, e, nfail)
  end subroutine chk_dev_pack_$K
  subroutine dev_3_$K(d, h)
    type(cf_array3_$K), intent(inout) :: d
    $FT, intent(in) :: h(:,:,:)
    call cf_allocate(d, source=h)
  end subroutine dev_3_$K
  subroutine chk_dev_3_$K(what, d, r, nfail)
    character(len=*), intent(in) :: what
    type(cf_array3_$K), intent(in) :: d
    $FT, intent(in) :: r(:,:,:)
    integer, intent(inout) :: nfail
    $FT, allocatable :: g(:,:,:)
    allocate(g, mold=r)
    g = d
    call check(what, reshape(g, [size(g)]), reshape(r, [size(r)]), nfail)
  end subroutine chk_dev_3_$K
"""

SUPPORT_HEAD = """module fortran_blas_test_support
  use, intrinsic :: iso_c_binding
  use cufort
  implicit none
  integer :: checks = 0, failures = 0
  interface fill
"""


def support():
    out = [SUPPORT_HEAD]
    for k in KINDS:
        for rank in (1, 2, 3):
            out.append(f"    module procedure fill_{k}_{rank}")
    out.append("  end interface fill")
    out.append("  interface fill1")
    for k in KINDS:
        out.append(f"    module procedure fill1_{k}")
    out.append("  end interface fill1")
    out.append("  interface check")
    for k in KINDS:
        out.append(f"    module procedure check_{k}")
    out.append("  end interface check")
    gens = {"mk": [f"mk_{k}_{r}" for k in KINDS for r in (1, 2, 3)],
            "chk": [f"chk_{k}_{r}" for k in KINDS for r in (1, 2, 3)]}
    for h in ("mat", "vec", "pack", "3"):
        gens[f"dev_{h}"] = [f"dev_{h}_{k}" for k in KINDS]
        gens[f"chk_dev_{h}"] = [f"chk_dev_{h}_{k}" for k in KINDS]
    for g, procs in gens.items():
        out.append(f"  interface {g}")
        out += [f"    module procedure {p}" for p in procs]
        out.append(f"  end interface {g}")
    out.append("contains")
    for k in KINDS:
        out.append(Template(HELPERS).substitute(K=k, FT=FT[k]))
        for rank in (1, 2, 3):
            dd = dims_decl(rank)
            ns = ", ".join(f"n{i}" for i in range(1, rank + 1))
            out.append(f"""  subroutine mk_{k}_{rank}(h, r, {ns})
    {FT[k]}, allocatable, intent(inout) :: h{dd}, r{dd}
    integer, intent(in) :: {ns}
    allocate(h({ns}))
    call fill(h)
    r = h
  end subroutine mk_{k}_{rank}
  subroutine chk_{k}_{rank}(what, got, expect, nfail)
    character(len=*), intent(in) :: what
    {FT[k]}, intent(in) :: got{dd}, expect{dd}
    integer, intent(inout) :: nfail
    call check(what, reshape(got, [size(got)]), reshape(expect, [size(expect)]), nfail)
  end subroutine chk_{k}_{rank}""")
    for k in KINDS:
        cplx = k.startswith("c")
        rk = "c_float" if k in ("r32", "c32") else "c_double"
        for rank in (1, 2, 3):
            dd = dims_decl(rank)
            if cplx:
                body = (f"    real({rk}), allocatable :: re{dd}, im{dd}\n"
                        f"    allocate(re, im, mold=real(a))\n"
                        "    call random_number(re)\n    call random_number(im)\n"
                        f"    a = cmplx(2 * re - 1, 2 * im - 1, kind={rk})")
            else:
                body = "    call random_number(a)\n    a = 2 * a - 1"
            out.append(f"  subroutine fill_{k}_{rank}(a)\n    {FT[k]}, intent(out) :: a{dd}\n"
                       f"{body}\n  end subroutine fill_{k}_{rank}")
        out.append(f"  subroutine fill1_{k}(a)\n    {FT[k]}, intent(out) :: a\n"
                   f"    {FT[k]} :: t(1)\n    call fill(t)\n    a = t(1)\n  end subroutine fill1_{k}")
        out.append(f"""  subroutine check_{k}(what, got, expect, nfail)
    character(len=*), intent(in) :: what
    {FT[k]}, intent(in) :: got(:), expect(:)
    integer, intent(inout) :: nfail
    real({rk}) :: scale, err
    if (size(got) /= size(expect)) then
      write(*, '(a,a,a)') 'FAIL fortran ', what, ': sizes differ'
      nfail = nfail + 1
      return
    end if
    if (size(got) == 0) return
    scale = max(1.0_{rk}, maxval(abs(expect)))
    err = maxval(abs(got - expect)) / scale
    if (.not. (err <= {TOL[k]})) then
      write(*, '(a,a,a,es10.3)') 'FAIL fortran ', what, ': relative error ', err
      nfail = nfail + 1
    end if
  end subroutine check_{k}""")
    out.append("""  subroutine check_int(what, got, expect, nfail)
    character(len=*), intent(in) :: what
    integer, intent(in) :: got, expect
    integer, intent(inout) :: nfail
    if (got /= expect) then
      write(*, '(a,a,a,i0,a,i0)') 'FAIL fortran ', what, ': ', got, ', expected ', expect
      nfail = nfail + 1
    end if
  end subroutine check_int

  subroutine expect_ok(what, st, st_oracle, msg, nfail)
    character(len=*), intent(in) :: what, msg
    integer, intent(in) :: st
    integer(c_int), intent(in) :: st_oracle
    integer, intent(inout) :: nfail
    if (st /= 0 .or. st_oracle /= 0) then
      write(*, '(a,a,a,i0,a,i0,a,a)') 'FAIL fortran ', what, ': stat ', st, ', oracle status ', &
          st_oracle, ': ', trim(msg)
      nfail = nfail + 1
    end if
  end subroutine expect_ok

  subroutine expect_mismatch(what, st, msg, prefix, nfail)
    character(len=*), intent(in) :: what, msg, prefix
    integer, intent(in) :: st
    integer, intent(inout) :: nfail
    if (st /= CF_INVALID_VALUE .or. index(msg, prefix) /= 1) then
      write(*, '(a,a,a,i0,a,a)') 'FAIL fortran ', what, ': stat ', st, ', errmsg ', trim(msg)
      nfail = nfail + 1
    end if
  end subroutine expect_mismatch

  subroutine passed(name, nfail, before)
    character(len=*), intent(in) :: name
    integer, intent(in) :: nfail, before
    checks = checks + 1
    if (nfail == before) then
      write(*, '(a,a)') 'ok fortran ', name
    else
      failures = failures + 1
    end if
  end subroutine passed
end module fortran_blas_test_support
""")
    return "\n".join(out)


def program():
    out = ["! test_fortran_blas.f90 -- every specific of every generic BLAS of `use cufort` (see "
           "gen/emit_fortran_tests.py).",
           f"! Generated by gen/{ME} from gen/blas_table.py (make generate). Do not edit.", "",
           support(), "",
           "module fortran_blas_tests", "  use, intrinsic :: iso_c_binding", "  use cufort",
           "  use cufort_c_blas", "  use fortran_blas_test_support", "  implicit none", "contains"]
    calls = []
    for r in ROUTINES:
        for i, v in enumerate(r.variants):
            out += variant_test(r, v, i == 0)
            calls.append(f"  call t_{v.name}(nfail)")
    out += ["end module fortran_blas_tests", "",
            "program test_fortran_blas", "  use fortran_blas_tests", "  implicit none",
            "  integer :: nfail", "  integer, allocatable :: seed(:)", "  integer :: n", "  nfail = 0",
            "  call random_seed(size=n)", "  allocate(seed(n))", "  seed = 20261122",
            "  call random_seed(put=seed)"]
    out += calls
    out += ["  call cf_shutdown()",
            "  write(*, '(i0,a,i0,a)') checks - failures, ' passed, ', failures, ' failed'",
            "  if (failures /= 0) error stop 1", "end program test_fortran_blas", ""]
    return "\n".join(out)




# ---- tests/generated/test_fortran_arrays.f90: device arrays, views, copies, pinned arrays, streams,
# events, devices, finalization and errors (the non-BLAS part of `use cufort`), every kind -----------------

ARRAYS_KIND = """
subroutine t_arrays_$K()
  $FT :: x(9), y(9), ex(9), y5(5), y1(1), y0(0), a(6,5), b(6,5), ea(6,5), b3(2,4), col(6), row(3)
  $FT :: d5(5), s35(3,5), c3(3,4,2), e3(3,4,2), m2(3,4), e00(0,0)
  $FT, allocatable :: z(:)
  $FT, pointer :: p1(:), p2(:,:), p3(:,:,:)
  $FT, allocatable, target :: q1(:), q2(:,:), q3(:,:,:)
  type(cf_vector_$K) :: dx, dx2
  type(cf_matrix_$K) :: da, db, dsub
  type(cf_array3_$K) :: dc, dc2
  type(cf_stream) :: s
  integer :: st, i
  character(len=200) :: msg
  call fill(x)
  call fill(a)
  call fill(c3)
  ! ---- vectors
  call check(.not. cf_allocated(dx) .and. dx%size() == 0, '$K vector starts empty')
  dx = x
  call check(cf_allocated(dx) .and. dx%size() == 9 .and. dx%inc() == 1 .and. .not. dx%is_view() &
             .and. all(dx%shape() == [9]), '$K vector: d = h allocates, shape and increment')
  y = 0
  y = dx
  call check(all(y == x), '$K vector: h = d after d = h')
  dx2 = dx
  y = 0
  y = dx2
  call check(all(y == x), '$K vector: d2 = d (device to device, allocates d2)')
  y5 = dx%sub(3, 7)
  y1 = dx%elem(4)
  call check(all(y5 == x(3:7)) .and. y1(1) == x(4), '$K vector views sub(3,7), elem(4) read')
  call cf_memcpy(dx%sub(2, 6), x(5:9))
  y = dx
  ex = x
  ex(2:6) = x(5:9)
  call check(all(y == ex), '$K vector: cf_memcpy into a view writes only the view')
  dx = dx2
  y = dx
  call check(all(y == x), '$K vector: d = d2 into an allocated vector')
  call cf_allocate(dx2, mold=y5)
  call check(dx2%size() == 5, '$K vector: cf_allocate(mold=)')
  call cf_allocate(dx2, 7)
  call check(dx2%size() == 7, '$K vector: cf_allocate(n)')
  call cf_allocate(dx2, source=y5)
  call fill(y5)
  y5 = dx2
  call check(all(y5 == x(3:7)), '$K vector: cf_allocate(source=)')
  call cf_deallocate(dx2)
  call check(.not. cf_allocated(dx2) .and. dx2%size() == 0, '$K vector: cf_deallocate')
  ! ---- matrices
  da = a
  b = 0
  b = da
  call check(all(b == a) .and. da%ld() == 6 .and. all(da%shape() == [6, 5]) .and. da%size() == 30, &
             '$K matrix: d = h, h = d, shape and ld')
  call cf_allocate(db, mold=a)
  db = da
  b = 0
  b = db
  call check(all(b == a), '$K matrix: cf_allocate(mold=), d2 = d')
  col = da%col(3)
  row = da%row(2, 3, 5)
  b3 = da%sub(2, 3, 2, 5)
  y1 = da%elem(4, 2)
  d5 = da%diag()
  call check(all(col == a(:, 3)) .and. all(row == a(2, 3:5)) .and. all(b3 == a(2:3, 2:5)) .and. &
             y1(1) == a(4, 2) .and. all(d5 == [(a(i, i), i = 1, 5)]), &
             '$K matrix views col, row (stride ld), sub, elem, diag read')
  call cf_memcpy(da%sub(2, 3, 2, 5), 2 * b3)
  b = da
  ea = a
  ea(2:3, 2:5) = 2 * a(2:3, 2:5)
  call check(all(b == ea), '$K matrix: cf_memcpy into a sub-matrix view (offset, ld > rows)')
  call cf_memcpy(db%sub(1, 2, 1, 4), da%sub(2, 3, 2, 5))
  b = db
  ea = a
  ea(1:2, 1:4) = 2 * a(2:3, 2:5)
  call check(all(b == ea), '$K matrix: device-to-device copy between views')
  dsub = a(1:6:2, :)
  s35 = dsub
  call check(all(s35 == a(1:6:2, :)) .and. dsub%ld() == 3, '$K matrix: d = non-contiguous host section')
  b = 0
  b(1:6:2, :) = da%sub(1, 3, 1, 5)
  s35 = da%sub(1, 3, 1, 5)
  call check(all(b(1:6:2, :) == s35) .and. all(b(2:6:2, :) == 0), &
             '$K matrix: h(1:6:2,:) = view (non-contiguous destination)')
  ! ---- asynchronous copies on a stream
  call cf_stream_create(s)
  call cf_memcpy(da, a, stream=s)
  b = 0
  call cf_memcpy(b, da, stream=s)
  call cf_stream_synchronize(s)
  call check(all(b == a), '$K matrix: cf_memcpy both ways on a stream')
  call cf_memcpy(da%sub(1, 3, 1, 5), a(1:6:2, :), stream=s, stat=st, errmsg=msg)
  call check(st == CF_INVALID_VALUE .and. index(msg, 'cf_memcpy') == 1, &
             '$K async copy from a non-contiguous array is refused')
  call cf_stream_destroy(s)
  ! ---- rank 3
  dc = c3
  e3 = 0
  e3 = dc
  m2 = dc%mat(2)
  y1 = dc%elem(2, 3, 2)
  call check(all(e3 == c3) .and. all(m2 == c3(:, :, 2)) .and. y1(1) == c3(2, 3, 2) .and. &
             dc%stride() == 12 .and. dc%ld() == 3 .and. all(dc%shape() == [3, 4, 2]), &
             '$K rank 3: d = h, h = d, mat(k), elem, stride')
  dc2 = dc
  e3 = 0
  e3 = dc2
  call check(all(e3 == c3), '$K rank 3: d2 = d')
  call cf_allocate(dc2, 2, 2, 2)
  call check(all(dc2%shape() == [2, 2, 2]), '$K rank 3: cf_allocate(n1, n2, n3)')
  call cf_allocate(dc2, source=c3)
  e3 = dc2
  call check(all(e3 == c3), '$K rank 3: cf_allocate(source=)')
  ! ---- shape mismatches and bad views, via stat
  call cf_memcpy(da, b3, stat=st, errmsg=msg)
  call check(st == CF_INVALID_VALUE .and. index(msg, 'cf_memcpy') == 1, '$K mismatch: device = host')
  call cf_memcpy(b3, da, stat=st, errmsg=msg)
  call check(st == CF_INVALID_VALUE .and. index(msg, 'cf_memcpy') == 1, '$K mismatch: host = device')
  call cf_memcpy(db, dsub, stat=st, errmsg=msg)
  call check(st == CF_INVALID_VALUE .and. index(msg, 'cf_memcpy') == 1, '$K mismatch: device = device')
  call cf_memcpy(x(1:4), dx, stat=st)
  call check(st == CF_INVALID_VALUE, '$K mismatch: vector')
  call cf_memcpy(e3(:, :, 1:1), dc, stat=st)
  call check(st == CF_INVALID_VALUE, '$K mismatch: rank 3')
  call cf_memcpy(y0, da%col(9, stat=st, errmsg=msg))
  call check(st == CF_INVALID_VALUE .and. index(msg, 'cf_matrix%col') == 1, '$K bad view: col(9) of 5')
  call cf_memcpy(e00, da%sub(0, 2, 1, 1, stat=st))
  call check(st == CF_INVALID_VALUE, '$K bad view: sub from row 0')
  call cf_memcpy(y0, dx%sub(5, 10, stat=st))
  call check(st == CF_INVALID_VALUE, '$K bad view: vector sub past the end')
  call cf_memcpy(e00, dc%mat(3, stat=st))
  call check(st == CF_INVALID_VALUE, '$K bad view: mat(3) of 2')
  call cf_allocate(dx2, stat=st, errmsg=msg)
  call check(st == CF_INVALID_VALUE .and. index(msg, 'cf_allocate') == 1, '$K cf_allocate without a shape')
  ! ---- empty arrays
  allocate(z(0))
  dx2 = z
  call check(dx2%size() == 0, '$K empty vector')
  ! ---- pinned arrays of rank 1-3, pin/unpin
  call cf_pinned_allocate(p1, 9)
  call cf_pinned_allocate(p2, 6, 5)
  call cf_pinned_allocate(p3, 3, 4, 2)
  p1 = x
  p2 = a
  p3 = c3
  dx = p1
  da = p2
  dc = p3
  p1 = 0
  p2 = 0
  p3 = 0
  call cf_stream_create(s)
  call cf_memcpy(p1, dx, stream=s)
  call cf_memcpy(p2, da, stream=s)
  call cf_memcpy(p3, dc, stream=s)
  call cf_stream_synchronize(s)
  call cf_stream_destroy(s)
  call check(all(p1 == x) .and. all(p2 == a) .and. all(p3 == c3) .and. all(shape(p3) == [3, 4, 2]), &
             '$K pinned arrays rank 1-3: async round trip')
  call cf_pinned_deallocate(p1)
  call cf_pinned_deallocate(p2)
  call cf_pinned_deallocate(p3, stat=st)
  call check(st == 0 .and. .not. associated(p1) .and. .not. associated(p2) .and. .not. associated(p3), &
             '$K cf_pinned_deallocate')
  allocate(q1(9), q2(6, 5), q3(3, 4, 2))
  q1 = x
  q2 = a
  q3 = c3
  call cf_pin(q1)
  call cf_pin(q2)
  call cf_pin(q3, stat=st)
  call check(st == 0, '$K cf_pin rank 1-3')
  dx = q1
  da = q2
  dc = q3
  q1 = 0
  q2 = 0
  q3 = 0
  q1 = dx
  q2 = da
  q3 = dc
  call check(all(q1 == x) .and. all(q2 == a) .and. all(q3 == c3), '$K copies through pinned (registered) arrays')
  call cf_unpin(q1)
  call cf_unpin(q2)
  call cf_unpin(q3, stat=st)
  call check(st == 0, '$K cf_unpin rank 1-3')
  call cf_pin(q2(1:6:2, :), stat=st)
  call check(st == CF_INVALID_VALUE, '$K cf_pin refuses a non-contiguous section')
  call cf_unpin(q1, stat=st, errmsg=msg)
  call check(st /= 0 .and. index(msg, 'cf_unpin') == 1, '$K cf_unpin of an array that is not pinned fails')
end subroutine t_arrays_$K
"""

ARRAYS_MISC = """
subroutine leak_cycle(a)
  real(c_float), intent(in) :: a(:,:)
  type(cf_matrix_r32) :: d, d2
  type(cf_vector_c64) :: v
  d = a
  d2 = d
  call cf_memcpy(d2%sub(1, 2, 1, 2), d%sub(3, 4, 3, 4))
  call cf_allocate(v, 100)
end subroutine leak_cycle

subroutine take_out(d)
  type(cf_matrix_r32), intent(out) :: d
  call cf_allocate(d, 3, 3)
end subroutine take_out

subroutine t_misc()
  integer :: n, dev, st, i, j
  integer(int64) :: free0, free1, total, live0
  type(cf_device_properties) :: props
  type(cf_stream) :: s, s2
  type(cf_event) :: e0, e1
  real :: ms
  real(c_float) :: a(64, 64), b(64, 64)
  type(cf_matrix_r32) :: da, db, dc
  character(len=200) :: msg
  ! ---- context and devices
  call cf_init()
  call check(cf_is_initialized() .and. (cf_backend_name() == 'cuda' .or. cf_backend_name() == 'host'), &
             'cf_init, cf_backend_name = ' // cf_backend_name())
  call check(cf_backend() == CF_BACKEND_CUDA .or. cf_backend() == CF_BACKEND_HOST, 'cf_backend')
  n = cf_device_count(stat=st)
  call check(st == 0 .and. n >= 1, 'cf_device_count')
  dev = cf_get_device()
  call cf_set_device(dev, stat=st)
  call check(st == 0 .and. cf_get_device() == dev, 'cf_set_device / cf_get_device')
  props = cf_get_device_properties(stat=st)
  call check(st == 0 .and. len_trim(props%name) > 0 .and. props%total_memory > 0 .and. &
             props%multiprocessors > 0, 'cf_get_device_properties: ' // trim(props%name))
  props = cf_get_device_properties(9999, stat=st, errmsg=msg)
  call check(st /= 0 .and. index(msg, 'cf_get_device_properties') == 1, &
             'cf_get_device_properties(bad device) fails with stat')
  call cf_synchronize(stat=st)
  call check(st == 0, 'cf_synchronize')
  call cf_mem_info(free0, total, stat=st)
  call check(st == 0 .and. free0 > 0 .and. total >= free0, 'cf_mem_info')
  call check(len(cf_status_string(CF_INVALID_VALUE)) > 0, 'cf_status_string')
  ! ---- streams and events
  call cf_stream_create(s)
  call cf_set_stream(s)
  s2 = cf_get_stream()
  call check(c_associated(s2%handle, s%handle), 'cf_set_stream / cf_get_stream')
  call fill(a)
  da = a
  db = a
  call cf_allocate(dc, 64, 64)
  call cf_event_create(e0)
  call cf_event_create(e1)
  call cf_event_record(e0, s)
  call cf_gemm(da, db, dc)
  call cf_event_record(e1, s)
  call cf_event_synchronize(e1)
  ms = cf_elapsed_ms(e0, e1, stat=st)
  call check(st == 0 .and. ms >= 0, 'events on a stream around a BLAS call: elapsed_ms')
  call cf_stream_synchronize(s)
  b = dc
  call check(maxval(abs(b - matmul(a, a))) <= 1e-3 * maxval(abs(matmul(a, a))), &
             'cf_gemm with all defaults on the stream set by cf_set_stream')
  call cf_set_stream()
  s2 = cf_get_stream()
  call check(.not. c_associated(s2%handle), 'cf_set_stream() restores the default stream')
  call cf_event_destroy(e0)
  call cf_event_destroy(e1)
  call cf_stream_destroy(s)
  call cf_stream_synchronize(cf_default_stream)
  call check(.not. c_associated(s%handle), 'cf_stream_destroy')
  ! ---- finalization: 1000 allocate/assign/finalize cycles leave device memory where it was
  call cf_deallocate(da)
  call cf_deallocate(db)
  call cf_deallocate(dc)
  call cf_synchronize()
  live0 = cf_live_allocations()
  call cf_mem_info(free0)
  do i = 1, 1000
    call leak_cycle(a)
    block
      type(cf_matrix_r32) :: t
      type(cf_array3_r64) :: t3
      t = a
      call cf_allocate(t3, 4, 4, 4)
    end block
  end do
  call cf_synchronize()
  call cf_mem_info(free1)
  call check(cf_live_allocations() == live0, '1000 allocate/assign/finalize cycles: live device blocks ' // &
             'back to where they started')
  if (cf_backend() == CF_BACKEND_CUDA) then
    call check(free1 == free0, '1000 cycles: free device memory (cufort_mem_info) unchanged')
  else
    call check(.true., '1000 cycles: (free device memory is host RAM on the host backend: not compared)')
  end if
  write(*, '(a,i0,a,i0)') '# device memory free before/after 1000 cycles: ', free0, ' / ', free1
  call take_out(da)
  call take_out(da)
  call check(cf_live_allocations() == live0 + 1, 'intent(out) finalizes the old device array')
  call cf_deallocate(da)
  do j = 1, 100
    da = a
  end do
  call check(cf_live_allocations() == live0 + 1, 'repeated d = h reuses one allocation')
  ! ---- errors: absent stat prints one line naming the procedure, then error stop (child process)
  call self_test('--die-gemm', 'cf_gemm: shape mismatch: argument ')
  call self_test('--die-view', 'cf_matrix%row: ')
  call self_test('--die-memcpy', 'cf_memcpy ')
end subroutine t_misc

subroutine self_test(arg, prefix)
  character(len=*), intent(in) :: arg, prefix
  character(len=1024) :: exe, line, tmp, out
  integer :: es, cs, u, ios, nlines, tl
  character(len=256) :: cmsg
  logical :: found
  call get_command_argument(0, exe)
  ! the child's output goes to a scratch file under $TMPDIR (or /tmp), never into the source tree
  call get_environment_variable('TMPDIR', tmp, length=tl)
  if (tl == 0) tmp = '/tmp'
  out = trim(tmp) // '/cufort_test_fortran_arrays' // arg(2:) // '.txt'
  es = 0
  cmsg = ''
  ! cmdstat: without it, a runtime may end this program when the child fails (LLVM flang's does);
  ! the child's exit status is still in es
  call execute_command_line(trim(exe) // ' ' // arg // ' > ' // trim(out) // ' 2>&1', exitstat=es, &
                            cmdstat=cs, cmdmsg=cmsg)
  found = .false.
  nlines = 0
  open(newunit=u, file=trim(out), status='old', action='read', iostat=ios)
  if (ios == 0) then
    do
      read(u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      if (index(line, prefix) == 1) then
        found = .true.
        nlines = nlines + 1
      end if
    end do
    close(u, status='delete')
  end if
  call check(es /= 0 .and. found .and. nlines == 1, 'without stat, an error prints one line "' // prefix // &
             '..." and stops (' // arg // ')')
  if (es == 0) write(*, '(a,i0,a,a)') '#   the child did not fail: cmdstat ', cs, ' ', trim(cmsg)
end subroutine self_test

subroutine die(arg)
  character(len=*), intent(in) :: arg
  real(c_float) :: a(3, 3), b(4, 4), c(3, 3)
  type(cf_matrix_r32) :: d
  a = 1
  b = 1
  c = 1
  if (arg == '--die-gemm') call cf_gemm(a, b, c)
  d = a
  if (arg == '--die-view') call cf_scal(d%row(5), 2.0_c_float)
  if (arg == '--die-memcpy') call cf_memcpy(b, d)
end subroutine die
"""

ARRAYS_SUPPORT = """module fortran_arrays_test_support
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64
  use cufort
  implicit none
  integer :: npass = 0, nfail = 0
  interface fill
    module procedure fill_r32, fill_r64, fill_c32, fill_c64
  end interface fill
contains
  subroutine check(good, what)
    logical, intent(in) :: good
    character(len=*), intent(in) :: what
    if (good) then
      write(*, '(a,a)') 'ok fortran ', what
      npass = npass + 1
    else
      write(*, '(a,a)') 'FAIL fortran ', what
      nfail = nfail + 1
    end if
  end subroutine check
  impure elemental subroutine fill_r32(a)
    real(c_float), intent(out) :: a
    call random_number(a)
  end subroutine fill_r32
  impure elemental subroutine fill_r64(a)
    real(c_double), intent(out) :: a
    call random_number(a)
  end subroutine fill_r64
  impure elemental subroutine fill_c32(a)
    complex(c_float_complex), intent(out) :: a
    real(c_float) :: re, im
    call random_number(re)
    call random_number(im)
    a = cmplx(re, im, kind=c_float)
  end subroutine fill_c32
  impure elemental subroutine fill_c64(a)
    complex(c_double_complex), intent(out) :: a
    real(c_double) :: re, im
    call random_number(re)
    call random_number(im)
    a = cmplx(re, im, kind=c_double)
  end subroutine fill_c64
end module fortran_arrays_test_support
"""


def arrays_program():
    out = ["! test_fortran_arrays.f90 -- device arrays, views, assignment and cf_memcpy both ways, pinned",
           "! arrays, streams, events, devices, finalization (no leak) and error reporting of `use cufort`,",
           "! every kind (r32, r64, c32, c64) and rank (1-3).",
           f"! Generated by gen/{ME} (make generate). Do not edit.", "", ARRAYS_SUPPORT,
           "module fortran_arrays_tests", "  use, intrinsic :: iso_c_binding",
           "  use, intrinsic :: iso_fortran_env, only: int64", "  use cufort",
           "  use fortran_arrays_test_support", "  implicit none", "contains"]
    for k in KINDS:
        out.append(ARRAYS_KIND.replace("$K", k).replace("$FT", FT[k]))
    out.append(ARRAYS_MISC)
    out += ["end module fortran_arrays_tests", "",
            "program test_fortran_arrays", "  use fortran_arrays_tests", "  implicit none",
            "  character(len=64) :: arg", "  call get_command_argument(1, arg)",
            "  if (len_trim(arg) > 0) then", "    call die(trim(arg))", "    stop", "  end if"]
    out += [f"  call t_arrays_{k}()" for k in KINDS]
    out += ["  call t_misc()", "  call cf_shutdown()",
            "  write(*, '(i0,a,i0,a)') npass, ' passed, ', nfail, ' failed'",
            "  if (nfail /= 0) error stop 1", "end program test_fortran_arrays", ""]
    return "\n".join(fold(x) for x in "\n".join(out).split("\n"))


def emit(write):
    write("tests/generated/test_fortran_blas.f90", program())
    write("tests/generated/test_fortran_arrays.f90", arrays_program())
