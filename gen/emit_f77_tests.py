"""Emits Fortran programs that call every legacy cublas_<name> the reference BLAS also has, compiled
by gfortran: the real Fortran calling convention (hidden string lengths, COMPLEX function values,
integer*8 device addresses) is what they check.  Each routine runs once on random data through
cublas_<name> and through the reference <name> on a copy; every element of every array (touched or
not) and the function value must agree."""

from blas_table import variants, on_cpu_blas
from cgen import C_R

ME = "emit_f77_tests.py"
SIZE = 512                                  # every array: BLAS uses them as assumed-size arrays
DIMS = {"m": 7, "n": 5, "k": 6, "kl": 2, "ku": 1}
INCS = {"incx": 2, "incy": -1}
LETTER = {"trans": -1, "uplo": -1, "diag": -1, "side": -1}   # the last allowed letter: 'C','L','U','R'
FTYPE = {"s": "real(4)", "d": "real(8)", "c": "complex(4)", "z": "complex(8)"}
FREAL = {"float": "real(4)", "double": "real(8)"}
KIND = {"s": 4, "d": 8, "c": 4, "z": 8}
REALP = {"s": "s", "d": "d", "c": "s", "z": "d"}   # the real precision of each precision
NETLIB_EXTRA_MISSING = ("crot", "zrot", "csymv", "zsymv", "csyr", "zsyr")  # LAPACK, not BLAS


def ftype(v, a_type):
    return FTYPE[v.prec] if a_type == "T" else FREAL[C_R[v.prec]]


def testable(r, v):
    return on_cpu_blas(r, v) and v.name not in NETLIB_EXTRA_MISSING


def scalar_value(v, t, name):
    real = {"alpha": "0.7", "beta": "0.4", "c": "0.8", "s": "0.6"}.get(name, "0.5")
    if t == "T" and v.prec in "cz":
        return f"cmplx({real}, 0.3, kind={KIND[v.prec]})"
    return f"{real}_{KIND[v.prec]}"


def routine_test(r, v, device):
    """A subroutine t_<name>(nfail) for one variant."""
    decl, init, call_lib, call_ref, compare, setup, teardown = [], [], [], [], [], [], []
    es = {"s": 4, "d": 8, "c": 8, "z": 16}
    for a in r.args:
        t = v.types.get(a.name, a.type)
        ft = ftype(v, t)
        if a.kind == "opt":
            letters = v.opts.get(a.name, a.opts)
            lit = f"'{letters[LETTER[a.optkind]]}'"
            call_lib.append(lit)
            call_ref.append(lit)
        elif a.kind == "int":
            val = DIMS.get(a.name, INCS.get(a.name, 9))   # leading dimensions: 9 >= every row count
            call_lib.append(str(val))
            call_ref.append(str(val))
        elif a.kind == "scalar":
            decl.append(f"  {ft} :: {a.name}")
            init.append(f"  {a.name} = {scalar_value(v, t, a.name)}")
            call_lib.append(a.name)
            call_ref.append(a.name)
        elif a.kind == "hostref":
            n = a.count
            decl.append(f"  {ft} :: {a.name}_lib({n}), {a.name}_ref({n})")
            p = v.prec if t == "T" else REALP[v.prec]
            init.append(f"  call fill_{p}({a.name}_lib, {n})")
            if a.name == "param":
                init.append(f"  {a.name}_lib(1) = -1")
            init.append(f"  {a.name}_ref = {a.name}_lib")
            call_lib.append(f"{a.name}_lib")
            call_ref.append(f"{a.name}_ref")
            if a.io != "in":
                compare.append(f"  call check_{v.prec}r('{v.name}', '{a.name}', {a.name}_lib, "
                               f"{a.name}_ref, {n}, nfail)" if t == "R" and v.prec in "cz" else
                               f"  call check_{v.prec}('{v.name}', '{a.name}', {a.name}_lib, "
                               f"{a.name}_ref, {n}, nfail)")
        else:
            decl.append(f"  {ft} :: {a.name}_lib({SIZE}), {a.name}_ref({SIZE})")
            init.append(f"  call fill_{v.prec}({a.name}_lib, {SIZE})")
            init.append(f"  {a.name}_ref = {a.name}_lib")
            call_ref.append(f"{a.name}_ref")
            if device:
                decl.append(f"  integer(8) :: {a.name}_dev")
                setup.append(f"  st = cublas_alloc({SIZE}, {es[v.prec]}, {a.name}_dev)")
                setup.append(f"  st = cublas_set_vector({SIZE}, {es[v.prec]}, {a.name}_lib, 1, "
                             f"{a.name}_dev, 1)")
                teardown.append(f"  st = cublas_get_vector({SIZE}, {es[v.prec]}, {a.name}_dev, 1, "
                                f"{a.name}_lib, 1)")
                teardown.append(f"  st = cublas_free({a.name}_dev)")
                call_lib.append(f"{a.name}_dev")
            else:
                call_lib.append(f"{a.name}_lib")
            compare.append(f"  call check_{v.prec}('{v.name}', '{a.name}', {a.name}_lib, "
                           f"{a.name}_ref, {SIZE}, nfail)")
    lib_name, ref_name = f"cublas_{v.name}", v.name
    body = [f"subroutine t_{v.name}(nfail)", "  implicit none", "  integer :: nfail, st"]
    if device:
        body.append("  integer :: cublas_alloc, cublas_set_vector, cublas_get_vector, cublas_free")
    body += decl
    if r.result:
        rt = {"I": "integer", "T": FTYPE[v.prec], "R": FREAL[C_R[v.prec]]}[r.result]
        body.append(f"  {rt} :: {lib_name}, {ref_name}, res_lib, res_ref")
    body += ["  external " + lib_name + ", " + ref_name]
    body += init + setup
    lib_call = f"{lib_name}({', '.join(call_lib)})"
    ref_call = f"{ref_name}({', '.join(call_ref)})"
    if r.result:
        body += [f"  res_lib = {lib_call}", f"  res_ref = {ref_call}"]
    else:
        body += [f"  call {lib_call}", f"  call {ref_call}"]
    body += teardown
    body.append(f"  st = cublas_get_error()")
    body.append(f"  if (st /= 0) call report('{v.name}', 'cublas_get_error', 1.0d0, nfail)")
    if r.result == "I":
        body.append(f"  if (res_lib /= res_ref) call report('{v.name}', 'value', "
                    f"dble(res_lib - res_ref), nfail)")
    elif r.result:
        body.append(f"  call check_{v.prec if r.result == 'T' else REALP[v.prec]}('{v.name}', "
                    f"'value', [res_lib], [res_ref], 1, nfail)")
    body += compare
    body.append(f"  call passed('{v.name}', nfail)")
    body.append(f"end subroutine t_{v.name}")
    return [_fold(line) for line in body]


def _fold(line, width=100):
    """Free-form continuation so no line exceeds gfortran's 132-column limit."""
    if len(line) <= width:
        return line
    cut = line.rfind(", ", 0, width)
    return line[:cut + 1] + " &\n    " + _fold(line[cut + 2:].lstrip(), width)


SUPPORT = """module f77_test_support
  implicit none
  integer :: checks = 0, failures = 0, before = 0
contains
  subroutine report(name, what, err, nfail)
    character(*), intent(in) :: name, what
    double precision, intent(in) :: err
    integer, intent(inout) :: nfail
    write(*, '(a, a, a, a, a, es10.3)') 'FAIL {layer} ', name, ' ', what, ': error ', err
    nfail = nfail + 1
  end subroutine
  subroutine passed(name, nfail)
    character(*), intent(in) :: name
    integer, intent(in) :: nfail
    checks = checks + 1
    if (nfail == before) then
      write(*, '(a, a)') 'ok {layer} ', name
    else
      failures = failures + 1
    end if
    before = nfail
  end subroutine
"""

FILL_CHECK = """  subroutine fill_{p}(x, n)
    integer, intent(in) :: n
    {t}, intent(out) :: x(n)
    real(8) :: r(2, n)
    call random_number(r)
    r = sign(0.1d0 + 0.9d0 * r, r - 0.5d0)
    x = {conv}
  end subroutine
  subroutine check_{p}(name, what, got, ref, n, nfail)
    character(*), intent(in) :: name, what
    integer, intent(in) :: n
    {t}, intent(in) :: got(n), ref(n)
    integer, intent(inout) :: nfail
    double precision :: err
    err = maxval(abs(got - ref)) / max(1d0, maxval(abs(ref)))
    if (.not. (err <= {tol})) call report(name, what, err, nfail)
  end subroutine
"""


def support(layer):
    out = SUPPORT.replace("{layer}", layer)
    conv = {"s": "real(r(1, :), 4)", "d": "r(1, :)", "c": "cmplx(r(1, :), r(2, :), kind=4)",
            "z": "cmplx(r(1, :), r(2, :), kind=8)"}
    for p in "sdcz":
        out += FILL_CHECK.format(p=p, t=FTYPE[p], conv=conv[p], tol="1d-4" if p in "sc" else "1d-11")
    for p, real in (("c", "s"), ("z", "d")):   # complex routines' real hostrefs (crotg's c)
        out += f"""  subroutine check_{p}r(name, what, got, ref, n, nfail)
    character(*), intent(in) :: name, what
    integer, intent(in) :: n
    {FTYPE[real]}, intent(in) :: got(n), ref(n)
    integer, intent(inout) :: nfail
    call check_{real}(name, what, got, ref, n, nfail)
  end subroutine
"""
    return out + "end module f77_test_support\n"


def program(device):
    layer = "f77-device" if device else "f77-thunking"
    lib = "libcufort_f77" if device else "libcufort_f77_thunking"
    out = [f"! test_{layer.replace('-', '_')}.f90 — every legacy cublas_* routine the reference BLAS "
           f"also has,\n! called from Fortran through {lib} and compared with the reference.\n"
           f"! Generated by gen/{ME} from gen/blas_table.py (make generate). Do not edit.\n"
           + ("! cublas_set_vector/get_vector take any type, as in fortran.c: gfortran >= 10 needs\n"
              "! -fallow-argument-mismatch for a file that passes them several types.\n" if device else ""),
           support(layer)]
    tested = [(r, v) for r, v in variants() if testable(r, v)]
    for r, v in tested:
        out.append("\n".join(routine_test(r, v, device)).replace("subroutine t_", "subroutine t_", 1)
                   .replace("  implicit none", "  use f77_test_support\n  implicit none", 1)
                   .replace("  integer :: nfail, st", "  integer :: nfail, st, cublas_get_error", 1))
        out.append("")
    out.append(f"program test_{layer.replace('-', '_')}")
    out.append("  use f77_test_support")
    out.append("  implicit none")
    out.append("  integer :: nfail = 0, st, cublas_init, cublas_shutdown")
    out.append("  st = cublas_init()")
    out += [f"  call t_{v.name}(nfail)" for r, v in tested]
    out.append("  st = cublas_shutdown()   ! returns every device allocation: a clean leak check")
    out.append("  if (st /= 0) then")
    out.append("    write(*, '(a, i0)') 'FAIL shutdown: status ', st")
    out.append("    failures = failures + 1")
    out.append("  end if")
    out.append("  write(*, '(i0, a, i0, a)') checks - failures, ' passed, ', failures, ' failed'")
    out.append("  if (failures > 0) error stop 1")
    out.append(f"end program test_{layer.replace('-', '_')}")
    return "\n".join(out) + "\n"


def emit(write):
    write("tests/generated/test_f77_device.f90", program(True))
    write("tests/generated/test_f77_thunking.f90", program(False))
