"""Emits fortran/generated/cufort_kernels.f90, module cufort_kernels (cufort's own reductions and
transposes in `use cufort`), from gen/kernels_table.py: the drivers and argument checks that serve
every kind are written once below; the bind(C) declarations of the entry points, their per-kind
interfaces, the generics and their specific procedures (one per kind and mode) and the per-kind
helpers come from the table.  Standard Fortran 2008 + ISO_C_BINDING."""

import textwrap

from fortran_text import BYTES, FT, KIND_PARAM, PREC, REAL_OF, fheader, fold, generic_block, name_lines
from kernels_table import ALL, ENTRIES, GENERICS

ME = "emit_fortran_kernels.py"
TABLE = "kernels_table.py"

DOC = """! cufort_kernels.f90 -- cufort's own reductions and transposes (cufort_kernels.h) in `use cufort`.
! Each generic is named after the intrinsic it mirrors and takes device arrays (computed on the
! device) or ordinary host arrays (thunked), of kind r32, r64, c32, c64 (min/max/loc/count: real):
!   s = cf_sum(x [, compensated])    cf_dot_product(x, y)    cf_norm2(x)    cf_sum_abs(x)
!   cf_minval(x), cf_maxval(x), cf_minloc(x), cf_maxloc(x), cf_count(x, pred, value)
!   call cf_sum_to(x, res), cf_dot_product_to(x, y, res): the result stays on the device, no wait
!   call cf_transpose(a, b [, trans, alpha]), cf_transpose_inplace(a [, trans, alpha])
! The names differ from the BLAS generics cf_asum, cf_dot, cf_nrm2 (cufort_blas), which take the
! same arguments and would make a generic ambiguous.  These are the deterministic kernels: a result's
! bits depend on the data only, not on the increment, the device or the backend.
! Indices and counts are integer(int64): a device vector may hold more than 2^31 elements.
! Host vectors are walked in place with their stride (x(n:1:-2) is increment -2); a stride that is
! not a whole number of elements (a derived-type component, where the compiler passes byte strides)
! is copied.  Host matrices are contiguous dummies: the compiler copies a section in (and b out)."""

HEAD = """module cufort_kernels
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64
  use cufort_core, mismatch => cf_shape_mismatch
  use cufort_memory
  implicit none
  private"""

# the vector type of the drivers, and the routine names of the transposes' messages
VEC = """
  !> A vector as the C ABI takes it: the lowest address (element 1, or element n when inc < 0), the
  !> length and the increment in elements.
  type :: vec
    type(c_ptr) :: p = c_null_ptr
    integer(c_int64_t) :: n = 0, inc = 1
  end type vec

  character(len=*), parameter :: tr = 'cf_transpose', tri = 'cf_transpose_inplace'
  ! alpha's default.  (trans reaches C through a local variable: gfortran 12 passes a character
  ! function result straight to a value dummy as garbage.)"""

ABSTRACT = """  ! Arrays and results as c_ptr: one interface serves every kind of a reduction, so one driver
  ! (run1, run2) serves every specific.
  abstract interface"""

# the abstract interfaces of ENTRIES, {k}: one per kind
IFACES = {
    "i_red1": """    integer(c_int) function i_red1(n, x, incx, res) bind(C)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: n, incx
      type(c_ptr), value :: x, res
    end function i_red1""",
    "i_red2": """    integer(c_int) function i_red2(n, x, incx, y, incy, res) bind(C)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: n, incx, incy
      type(c_ptr), value :: x, y, res
    end function i_red2""",
    "i_count_{k}": """    integer(c_int) function i_count_{k}(n, x, incx, pred, value, res) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, {kp}
      integer(c_int64_t), value :: n, incx
      type(c_ptr), value :: x
      character(kind=c_char), intent(in) :: pred(*)
      {ft}, value :: value
      integer(c_int64_t), intent(out) :: res
    end function i_count_{k}""",
    "i_tr_{k}": """    integer(c_int) function i_tr_{k}(trans, m, n, alpha, a, lda, b, ldb) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, {kp}
      character(kind=c_char), value :: trans
      integer(c_int64_t), value :: m, n, lda, ldb
      {ft}, value :: alpha
      type(c_ptr), value :: a, b
    end function i_tr_{k}""",
    "i_tri_{k}": """    integer(c_int) function i_tri_{k}(trans, n, alpha, a, lda) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, {kp}
      character(kind=c_char), value :: trans
      integer(c_int64_t), value :: n, lda
      {ft}, value :: alpha
      type(c_ptr), value :: a
    end function i_tri_{k}""",
}

DRIVERS = """contains

  ! ---- drivers shared by every kind --------------------------------------------------------------

  !> One reduction of v; res is host memory, or device memory for the _dev forms.
  subroutine run1(me, f, v, res, stat, errmsg)
    character(len=*), intent(in) :: me
    procedure(i_red1) :: f
    type(vec), intent(in) :: v
    type(c_ptr), intent(in) :: res
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. cf_ready(me, stat, errmsg)) return
    call cf_finish(me, f(v%n, v%p, v%inc, res), stat, errmsg)
  end subroutine run1

  subroutine run2(me, f, x, y, res, stat, errmsg)
    character(len=*), intent(in) :: me
    procedure(i_red2) :: f
    type(vec), intent(in) :: x, y
    type(c_ptr), intent(in) :: res
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. cf_ready(me, stat, errmsg)) return
    if (y%n /= x%n) then
      call mismatch(me, 'y', 'elements', y%n, x%n, stat, errmsg)
      return
    end if
    call cf_finish(me, f(x%n, x%p, x%inc, y%p, y%inc, res), stat, errmsg)
  end subroutine run2

  !> sum, or with compensated the sumk kernel, which is real-only: a complex vector (part = bytes of
  !> one component) is summed as its real parts and its imaginary parts, two real vectors of twice
  !> the increment, into the two halves of res.
  subroutine sum_any(me, v, f, fk, res, compensated, part, stat, errmsg)
    character(len=*), intent(in) :: me
    type(vec), intent(in) :: v
    procedure(i_red1) :: f, fk
    type(c_ptr), intent(in) :: res
    logical, intent(in), optional :: compensated
    integer, intent(in) :: part
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    logical :: comp
    comp = .false.
    if (present(compensated)) comp = compensated
    if (.not. comp) then
      call run1(me, f, v, res, stat, errmsg)
    else if (part == 0) then
      call run1(me, fk, v, res, stat, errmsg)
    else
      call run1(me, fk, vec(v%p, v%n, 2 * v%inc), res, stat, errmsg)
      if (present(stat)) then
        if (stat /= 0) return
      end if
      call run1(me, fk, vec(cf_offset(v%p, 1_int64, part), v%n, 2 * v%inc), cf_offset(res, 1_int64, part), &
          stat, errmsg)
    end if
  end subroutine sum_any
"""

CHECKS = """  ! ---- argument checks ----------------------------------------------------------------------------

  logical function one_element(me, n, stat, errmsg)
    character(len=*), intent(in) :: me
    integer(int64), intent(in) :: n
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    one_element = n == 1
    if (.not. one_element) call mismatch(me, 'res', 'elements', n, 1_int64, stat, errmsg)
  end function one_element

  !> b must have op(a)'s shape; trans is checked here because the expected shape depends on it.
  logical function transpose_ok(t, sa, sb, stat, errmsg)
    character(kind=c_char), intent(in) :: t
    integer(int64), intent(in) :: sa(2), sb(2)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64) :: e(2)
    transpose_ok = .false.
    if (.not. cf_ready(tr, stat, errmsg)) return
    if (index('NnTtCc', t) == 0) then
      call cf_raise(tr, CF_INVALID_VALUE, "trans = '" // t // "' must be 'N', 'T' or 'C'", stat, errmsg)
      return
    end if
    e = sa
    if (.not. cf_notr(t)) e = sa(2:1:-1)
    if (sb(1) /= e(1)) then
      call mismatch(tr, 'b', 'rows', sb(1), e(1), stat, errmsg)
    else if (sb(2) /= e(2)) then
      call mismatch(tr, 'b', 'columns', sb(2), e(2), stat, errmsg)
    else
      transpose_ok = .true.
    end if
  end function transpose_ok

  logical function square(s, stat, errmsg)
    integer(int64), intent(in) :: s(2)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    square = cf_ready(tri, stat, errmsg)
    if (.not. square .or. s(1) == s(2)) return
    square = .false.
    call cf_raise(tri, CF_INVALID_VALUE, 'a is ' // cf_itoa(s(1)) // 'x' // cf_itoa(s(2)) // ', not square', &
                  stat, errmsg)
  end function square

  ! ---- host vectors ---------------------------------------------------------------------------------

  !> A host vector of n >= 1 elements of es bytes from the addresses of its first and last elements.
  !> A Fortran array has one stride in bytes; when it is a whole number of elements the C ABI walks
  !> the array in place, otherwise p is null and the caller copies.
  function strided(first, last, n, es) result(v)
    type(c_ptr), intent(in) :: first, last
    integer(int64), intent(in) :: n
    integer, intent(in) :: es
    type(vec) :: v
    integer(c_intptr_t) :: bytes
    v = vec(first, n, 1)
    if (n == 1) return
    bytes = (transfer(last, bytes) - transfer(first, bytes)) / (n - 1)
    if (mod(bytes, int(es, c_intptr_t)) /= 0) then
      v%p = c_null_ptr
    else
      v%inc = bytes / es
      if (v%inc < 0) v%p = last
    end if
  end function strided"""

SPECIFICS = "  ! ---- the specifics " + "-" * 82

HELPERS = """  ! ---- kind-specific helpers -----------------------------------------------------------------------

  ! vd(x), hv(x, tmp): a device vector, a host vector as the C ABI takes it (in place, or copied
  ! into tmp when its stride is not a whole number of elements); opt: an optional scalar or its default"""

OPTIONAL_TAIL = ["    integer, intent(out), optional :: stat",
                 "    character(len=*), intent(inout), optional :: errmsg"]


def fill(k, text):
    return text.format(k=k, ft=FT[k], kp=KIND_PARAM[k])


def comment(text):
    return textwrap.wrap(text, 100, initial_indent="  ! ", subsequent_indent="  ! ",
                         break_long_words=False, break_on_hyphens=False)


def entry_point(name, k, suffix=""):
    """The Fortran name of cufort_<p><name><suffix>; {c} in name: 'c' for a complex kind."""
    return PREC[k] + name.format(c="c" if k[0] == "c" else "") + suffix


BOUND = {entry_point(e.name, k, s) for e in ENTRIES for k in e.kinds for s in e.suffixes}


def called(name, k, suffix):
    """An entry point a specific calls: one ENTRIES binds, else the table is wrong."""
    f = entry_point(name, k, suffix)
    assert f in BOUND, f"kernels_table.py: cufort_{f} is called but not in ENTRIES"
    return f


def bindings():
    """The abstract interfaces and the bind(C) declarations of every entry point."""
    ifaces, decls = [], []
    for e in ENTRIES:
        for k in e.kinds:
            iface = e.iface.format(k=k)
            if iface not in ifaces:
                ifaces.append(iface)
            for suffix in e.suffixes:
                name = entry_point(e.name, k, suffix)
                decls.append(f"  procedure({iface}), bind(C, name='cufort_{name}') :: {name}")
    templates = {t.format(k=k): fill(k, text) for t, text in IFACES.items() for k in ALL}
    return [ABSTRACT] + [templates[i] for i in ifaces] + ["  end interface", "",
            "  ! the C entry points, named as in cufort_kernels.h without cufort_"] + decls


def variants(g):
    """(kind, mode, name) of every specific of generic g."""
    for k in g.kinds:
        if g.form == "reduce_to":
            yield k, "dev", f"{g.prefix}_{k}"
        else:
            yield k, "d", f"{g.prefix}_{k}_d"
            yield k, "h", f"{g.prefix}_{k}_h"


# ---- specifics ----------------------------------------------------------------------------------------

SUFFIX = {"d": "", "h": "_host", "dev": "_dev"}      # of the entry point each mode calls


def device_vector(k):
    return f"type(cf_vector_{k})"


def result_decl(g, k):
    if g.result == "index":
        return "integer(int64), target :: r"
    return f"{FT[REAL_OF[k] if g.result == 'R' else k]}, target :: r"


def reduction(g, k, mode, name):
    """cf_sum, cf_sum_abs, cf_dot_product, cf_norm2, cf_minval, ... (a function), and their _to
    forms (a subroutine with the result in device memory)."""
    to = g.form == "reduce_to"
    arrays = list(g.vectors) + (["res"] if to else [])
    args = ", ".join(arrays + (["compensated"] if g.compensated else []) + ["stat", "errmsg"])
    if mode == "h":
        # copies of host vectors whose stride is not a whole number of elements: tmp, or tx, ty
        tmps = ["tmp"] if len(g.vectors) == 1 else [f"t{v}" for v in g.vectors]
        decl = f"    {FT[k]}, intent(in), target :: {', '.join(v + '(:)' for v in g.vectors)}"
        vecs = [f"hv({v}, {t})" for v, t in zip(g.vectors, tmps)]
    else:
        decl = f"    {device_vector(k)}, intent(in) :: {', '.join(arrays)}"
        vecs = [f"vd({v})" for v in g.vectors]
    out = [f"  subroutine {name}({args})" if to else f"  function {name}({args}) result(r)", decl]
    if g.compensated:
        out.append("    logical, intent(in), optional :: compensated")
    out += OPTIONAL_TAIL
    if to:
        out.append(f"    if (.not. one_element('{g.name}', res%size(), stat, errmsg)) return")
        res = "res%cptr()"
    else:
        out.append(f"    {result_decl(g, k)}")
        if mode == "h":
            out.append(f"    {FT[k]}, allocatable, target :: {', '.join(t + '(:)' for t in tmps)}")
        out.append("    r = -1" if g.result == "index" else "    r = 0")
        res = "c_loc(r)"
    f = called(g.kernel, k, SUFFIX[mode])
    if g.compensated:
        part = 0 if k[0] == "r" else BYTES[REAL_OF[k]]
        fk = called(g.compensated, REAL_OF[k], SUFFIX[mode])
        call = f"call sum_any('{g.name}', {vecs[0]}, {f}, {fk}, {res}, compensated, {part}, stat, errmsg)"
    else:
        call = f"call run{len(vecs)}('{g.name}', {f}, {', '.join(vecs)}, {res}, stat, errmsg)"
    out.append(fold(f"    {call}"))
    if g.result == "index":
        out.append("    r = r + 1")
    out.append(f"  end {'subroutine' if to else 'function'} {name}")
    return out


def count(g, k, mode, name):
    x = f"    {FT[k]}, intent(in), target :: x(:)" if mode == "h" else \
        f"    {device_vector(k)}, intent(in) :: x"
    out = [f"  function {name}(x, pred, value, stat, errmsg) result(r)", x,
           "    character(len=*), intent(in) :: pred",
           f"    {FT[k]}, intent(in) :: value"] + OPTIONAL_TAIL + ["    integer(int64) :: r"]
    if mode == "h":
        out.append(f"    {FT[k]}, allocatable, target :: tmp(:)")
    v = "hv(x, tmp)" if mode == "h" else "vd(x)"
    f = called(g.kernel, k, SUFFIX[mode])
    return out + [f"    r = count_{k}({f}, {v}, pred, value, stat, errmsg)", f"  end function {name}"]


def count_driver(k):
    """count_<k>: cf_count's driver (the value argument has the vector's kind)."""
    return [f"  function count_{k}(f, v, pred, value, stat, errmsg) result(r)",
            f"    procedure(i_count_{k}) :: f",
            "    type(vec), intent(in) :: v",
            "    character(len=*), intent(in) :: pred",
            f"    {FT[k]}, intent(in) :: value"] + OPTIONAL_TAIL + [
            "    integer(int64) :: r",
            "    r = 0",
            "    if (.not. cf_ready('cf_count', stat, errmsg)) return",
            fold("    call cf_finish('cf_count', f(v%n, v%p, v%inc, trim(adjustl(pred)) // c_null_char, "
                 "value, r), stat, errmsg)"),
            f"  end function count_{k}"]


def transpose(g, k, mode, name):
    f = called(g.kernel, k, SUFFIX[mode])
    alpha = f"opt(alpha, one_{k})"
    if mode == "d":
        out = [f"  subroutine {name}(a, b, trans, alpha, stat, errmsg)",
               f"    type(cf_matrix_{k}), intent(in) :: a, b"]
    else:
        out = [f"  subroutine {name}(a, b, trans, alpha, stat, errmsg)",
               f"    {FT[k]}, intent(in), target, contiguous :: a(:,:)",
               f"    {FT[k]}, intent(inout), target, contiguous :: b(:,:)"]
    out += ["    character(len=*), intent(in), optional :: trans",
            f"    {FT[k]}, intent(in), optional :: alpha"] + OPTIONAL_TAIL + [
            "    character(kind=c_char) :: t"]
    if mode == "d":
        out += ["    if (cf_bad_option(tr, 'trans', 'NTC', trans, stat, errmsg)) return",
                "    t = cf_opt(trans, 'T')",
                "    if (.not. transpose_ok(t, a%shape(), b%shape(), stat, errmsg)) return",
                f"    call cf_finish(tr, {f}(t, a%size(1), a%size(2), {alpha}, a%cptr(), a%ld(), &",
                "        b%cptr(), b%ld()), stat, errmsg)"]
    else:
        out += ["    integer(int64) :: s(2)",
                "    if (cf_bad_option(tr, 'trans', 'NTC', trans, stat, errmsg)) return",
                "    t = cf_opt(trans, 'T')",
                "    s = shape(a, kind=int64)",
                "    if (.not. transpose_ok(t, s, shape(b, kind=int64), stat, errmsg)) return",
                "    if (size(a) == 0) return",
                f"    call cf_finish(tr, {f}(t, s(1), s(2), {alpha}, c_loc(a), s(1), c_loc(b), &",
                "        size(b, 1, kind=int64)), stat, errmsg)"]
    return out + [f"  end subroutine {name}"]


def transpose_inplace(g, k, mode, name):
    f = called(g.kernel, k, SUFFIX[mode])
    alpha = f"opt(alpha, one_{k})"
    a = f"    type(cf_matrix_{k}), intent(in) :: a" if mode == "d" else \
        f"    {FT[k]}, intent(inout), target, contiguous :: a(:,:)"
    out = [f"  subroutine {name}(a, trans, alpha, stat, errmsg)", a,
           "    character(len=*), intent(in), optional :: trans",
           f"    {FT[k]}, intent(in), optional :: alpha"] + OPTIONAL_TAIL + [
           "    character(kind=c_char) :: t"]
    if mode == "d":
        out += ["    if (cf_bad_option(tri, 'trans', 'NTC', trans, stat, errmsg)) return",
                "    t = cf_opt(trans, 'T')",
                "    if (.not. square(a%shape(), stat, errmsg)) return",
                f"    call cf_finish(tri, {f}(t, a%size(1), {alpha}, a%cptr(), a%ld()), &",
                "        stat, errmsg)"]
    else:
        out += ["    integer(int64) :: n",
                "    if (cf_bad_option(tri, 'trans', 'NTC', trans, stat, errmsg)) return",
                "    t = cf_opt(trans, 'T')",
                "    if (.not. square(shape(a, kind=int64), stat, errmsg)) return",
                "    if (size(a) == 0) return",
                "    n = size(a, 1, kind=int64)",
                f"    call cf_finish(tri, {f}(t, n, {alpha}, c_loc(a), n), stat, errmsg)"]
    return out + [f"  end subroutine {name}"]


FORMS = {"reduce": reduction, "reduce_to": reduction, "count": count, "transpose": transpose,
         "transpose_inplace": transpose_inplace}


def specifics(g):
    out = comment(g.doc) + [""] if g.doc else []
    for k, mode, name in variants(g):
        out += FORMS[g.form](g, k, mode, name) + [""]
    return out


# ---- per-kind helpers ---------------------------------------------------------------------------------

def helpers(k):
    return {
        "vd": [f"  function vd_{k}(x) result(v)",
               f"    {device_vector(k)}, intent(in) :: x",
               "    type(vec) :: v",
               "    v = vec(x%cptr(), x%size(), x%inc())",
               f"  end function vd_{k}"],
        "hv": [f"  function hv_{k}(x, tmp) result(v)",
               f"    {FT[k]}, intent(in), target :: x(:)",
               f"    {FT[k]}, allocatable, target, intent(inout) :: tmp(:)",
               "    type(vec) :: v",
               "    integer(int64) :: n",
               "    n = size(x, kind=int64)",
               "    if (n == 0) return",
               f"    v = strided(c_loc(x(1)), c_loc(x(n)), n, {BYTES[k]})",
               "    if (c_associated(v%p)) return",
               "    tmp = x",
               "    v = vec(c_loc(tmp), n, 1)",
               f"  end function hv_{k}"],
        "opt": [f"  function opt_{k}(x, default) result(r)",
                f"    {FT[k]}, intent(in), optional :: x",
                f"    {FT[k]}, intent(in) :: default",
                f"    {FT[k]} :: r",
                "    r = default",
                "    if (present(x)) r = x",
                f"  end function opt_{k}"],
    }


HELPER_NAMES = ("vd", "hv", "opt")


def module():
    out = [fheader(DOC, ME, TABLE) + HEAD]
    out += name_lines("  public :: ", [g.name for g in GENERICS]) + [""]
    for g in GENERICS:
        out += generic_block(g.name, [name for _, _, name in variants(g)])
    out.append("")
    for h in HELPER_NAMES:
        out += generic_block(h, [f"{h}_{k}" for k in ALL])
    out += [VEC] + [f"  {FT[k]}, parameter :: one_{k} = 1" for k in ALL] + [""]
    out += bindings() + ["", DRIVERS]
    for k in next(g for g in GENERICS if g.form == "count").kinds:
        out += count_driver(k) + [""]
    out += [CHECKS, "", SPECIFICS, ""]
    for g in GENERICS:
        out += specifics(g)
    out += [HELPERS, ""]
    for h in HELPER_NAMES:
        for k in ALL:
            out += helpers(k)[h] + [""]
    out += ["end module cufort_kernels", ""]
    return "\n".join(out)


def emit(write):
    write("fortran/generated/cufort_kernels.f90", module())
