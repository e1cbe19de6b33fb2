! cufort_kernels.f90 -- cufort's own reductions and transposes (cufort_kernels.h) in `use cufort`.
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
! is copied.  Host matrices are contiguous dummies: the compiler copies a section in (and b out).
module cufort_kernels
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64
  use cufort_core, mismatch => cf_shape_mismatch
  use cufort_memory
  implicit none
  private
  public :: cf_sum, cf_sum_abs, cf_dot_product, cf_norm2, cf_minval, cf_maxval, cf_minloc, cf_maxloc
  public :: cf_count, cf_sum_to, cf_dot_product_to, cf_transpose, cf_transpose_inplace

  interface cf_sum
    module procedure sum_r32_d, sum_r32_h, sum_r64_d, sum_r64_h, sum_c32_d, sum_c32_h, sum_c64_d, sum_c64_h
  end interface cf_sum
  interface cf_sum_abs
    module procedure asum_r32_d, asum_r32_h, asum_r64_d, asum_r64_h, asum_c32_d, asum_c32_h, asum_c64_d, &
        asum_c64_h
  end interface cf_sum_abs
  interface cf_dot_product
    module procedure dot_r32_d, dot_r32_h, dot_r64_d, dot_r64_h, dot_c32_d, dot_c32_h, dot_c64_d, dot_c64_h
  end interface cf_dot_product
  interface cf_norm2
    module procedure nrm2_r32_d, nrm2_r32_h, nrm2_r64_d, nrm2_r64_h, nrm2_c32_d, nrm2_c32_h, nrm2_c64_d, &
        nrm2_c64_h
  end interface cf_norm2
  interface cf_minval
    module procedure min_r32_d, min_r32_h, min_r64_d, min_r64_h
  end interface cf_minval
  interface cf_maxval
    module procedure max_r32_d, max_r32_h, max_r64_d, max_r64_h
  end interface cf_maxval
  interface cf_minloc
    module procedure minloc_r32_d, minloc_r32_h, minloc_r64_d, minloc_r64_h
  end interface cf_minloc
  interface cf_maxloc
    module procedure maxloc_r32_d, maxloc_r32_h, maxloc_r64_d, maxloc_r64_h
  end interface cf_maxloc
  interface cf_count
    module procedure count_r32_d, count_r32_h, count_r64_d, count_r64_h
  end interface cf_count
  interface cf_sum_to
    module procedure sum_to_r32, sum_to_r64, sum_to_c32, sum_to_c64
  end interface cf_sum_to
  interface cf_dot_product_to
    module procedure dot_to_r32, dot_to_r64, dot_to_c32, dot_to_c64
  end interface cf_dot_product_to
  interface cf_transpose
    module procedure transpose_r32_d, transpose_r32_h, transpose_r64_d, transpose_r64_h, &
        transpose_c32_d, transpose_c32_h, transpose_c64_d, transpose_c64_h
  end interface cf_transpose
  interface cf_transpose_inplace
    module procedure transpose_inplace_r32_d, transpose_inplace_r32_h, transpose_inplace_r64_d, &
        transpose_inplace_r64_h, transpose_inplace_c32_d, transpose_inplace_c32_h, &
        transpose_inplace_c64_d, transpose_inplace_c64_h
  end interface cf_transpose_inplace

  interface vd
    module procedure vd_r32, vd_r64, vd_c32, vd_c64
  end interface vd
  interface hv
    module procedure hv_r32, hv_r64, hv_c32, hv_c64
  end interface hv
  interface opt
    module procedure opt_r32, opt_r64, opt_c32, opt_c64
  end interface opt

  !> A vector as the C ABI takes it: the lowest address (element 1, or element n when inc < 0), the
  !> length and the increment in elements.
  type :: vec
    type(c_ptr) :: p = c_null_ptr
    integer(c_int64_t) :: n = 0, inc = 1
  end type vec

  character(len=*), parameter :: tr = 'cf_transpose', tri = 'cf_transpose_inplace'
  ! alpha's default.  (trans reaches C through a local variable: gfortran 12 passes a character
  ! function result straight to a value dummy as garbage.)
  real(c_float), parameter :: one_r32 = 1
  real(c_double), parameter :: one_r64 = 1
  complex(c_float_complex), parameter :: one_c32 = 1
  complex(c_double_complex), parameter :: one_c64 = 1

  ! Arrays and results as c_ptr: one interface serves every kind of a reduction, so one driver
  ! (run1, run2) serves every specific.
  abstract interface
    integer(c_int) function i_red1(n, x, incx, res) bind(C)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: n, incx
      type(c_ptr), value :: x, res
    end function i_red1
    integer(c_int) function i_red2(n, x, incx, y, incy, res) bind(C)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: n, incx, incy
      type(c_ptr), value :: x, y, res
    end function i_red2
    integer(c_int) function i_count_r32(n, x, incx, pred, value, res) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, c_float
      integer(c_int64_t), value :: n, incx
      type(c_ptr), value :: x
      character(kind=c_char), intent(in) :: pred(*)
      real(c_float), value :: value
      integer(c_int64_t), intent(out) :: res
    end function i_count_r32
    integer(c_int) function i_count_r64(n, x, incx, pred, value, res) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, c_double
      integer(c_int64_t), value :: n, incx
      type(c_ptr), value :: x
      character(kind=c_char), intent(in) :: pred(*)
      real(c_double), value :: value
      integer(c_int64_t), intent(out) :: res
    end function i_count_r64
    integer(c_int) function i_tr_r32(trans, m, n, alpha, a, lda, b, ldb) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, c_float
      character(kind=c_char), value :: trans
      integer(c_int64_t), value :: m, n, lda, ldb
      real(c_float), value :: alpha
      type(c_ptr), value :: a, b
    end function i_tr_r32
    integer(c_int) function i_tr_r64(trans, m, n, alpha, a, lda, b, ldb) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, c_double
      character(kind=c_char), value :: trans
      integer(c_int64_t), value :: m, n, lda, ldb
      real(c_double), value :: alpha
      type(c_ptr), value :: a, b
    end function i_tr_r64
    integer(c_int) function i_tr_c32(trans, m, n, alpha, a, lda, b, ldb) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, c_float_complex
      character(kind=c_char), value :: trans
      integer(c_int64_t), value :: m, n, lda, ldb
      complex(c_float_complex), value :: alpha
      type(c_ptr), value :: a, b
    end function i_tr_c32
    integer(c_int) function i_tr_c64(trans, m, n, alpha, a, lda, b, ldb) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, c_double_complex
      character(kind=c_char), value :: trans
      integer(c_int64_t), value :: m, n, lda, ldb
      complex(c_double_complex), value :: alpha
      type(c_ptr), value :: a, b
    end function i_tr_c64
    integer(c_int) function i_tri_r32(trans, n, alpha, a, lda) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, c_float
      character(kind=c_char), value :: trans
      integer(c_int64_t), value :: n, lda
      real(c_float), value :: alpha
      type(c_ptr), value :: a
    end function i_tri_r32
    integer(c_int) function i_tri_r64(trans, n, alpha, a, lda) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, c_double
      character(kind=c_char), value :: trans
      integer(c_int64_t), value :: n, lda
      real(c_double), value :: alpha
      type(c_ptr), value :: a
    end function i_tri_r64
    integer(c_int) function i_tri_c32(trans, n, alpha, a, lda) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, c_float_complex
      character(kind=c_char), value :: trans
      integer(c_int64_t), value :: n, lda
      complex(c_float_complex), value :: alpha
      type(c_ptr), value :: a
    end function i_tri_c32
    integer(c_int) function i_tri_c64(trans, n, alpha, a, lda) bind(C)
      import :: c_int, c_int64_t, c_ptr, c_char, c_double_complex
      character(kind=c_char), value :: trans
      integer(c_int64_t), value :: n, lda
      complex(c_double_complex), value :: alpha
      type(c_ptr), value :: a
    end function i_tri_c64
  end interface

  ! the C entry points, named as in cufort_kernels.h without cufort_
  procedure(i_red1), bind(C, name='cufort_sreduce_sum') :: sreduce_sum
  procedure(i_red1), bind(C, name='cufort_sreduce_sum_dev') :: sreduce_sum_dev
  procedure(i_red1), bind(C, name='cufort_sreduce_sum_host') :: sreduce_sum_host
  procedure(i_red1), bind(C, name='cufort_dreduce_sum') :: dreduce_sum
  procedure(i_red1), bind(C, name='cufort_dreduce_sum_dev') :: dreduce_sum_dev
  procedure(i_red1), bind(C, name='cufort_dreduce_sum_host') :: dreduce_sum_host
  procedure(i_red1), bind(C, name='cufort_creduce_sum') :: creduce_sum
  procedure(i_red1), bind(C, name='cufort_creduce_sum_dev') :: creduce_sum_dev
  procedure(i_red1), bind(C, name='cufort_creduce_sum_host') :: creduce_sum_host
  procedure(i_red1), bind(C, name='cufort_zreduce_sum') :: zreduce_sum
  procedure(i_red1), bind(C, name='cufort_zreduce_sum_dev') :: zreduce_sum_dev
  procedure(i_red1), bind(C, name='cufort_zreduce_sum_host') :: zreduce_sum_host
  procedure(i_red1), bind(C, name='cufort_sreduce_sumk') :: sreduce_sumk
  procedure(i_red1), bind(C, name='cufort_sreduce_sumk_dev') :: sreduce_sumk_dev
  procedure(i_red1), bind(C, name='cufort_sreduce_sumk_host') :: sreduce_sumk_host
  procedure(i_red1), bind(C, name='cufort_dreduce_sumk') :: dreduce_sumk
  procedure(i_red1), bind(C, name='cufort_dreduce_sumk_dev') :: dreduce_sumk_dev
  procedure(i_red1), bind(C, name='cufort_dreduce_sumk_host') :: dreduce_sumk_host
  procedure(i_red1), bind(C, name='cufort_sreduce_asum') :: sreduce_asum
  procedure(i_red1), bind(C, name='cufort_sreduce_asum_host') :: sreduce_asum_host
  procedure(i_red1), bind(C, name='cufort_dreduce_asum') :: dreduce_asum
  procedure(i_red1), bind(C, name='cufort_dreduce_asum_host') :: dreduce_asum_host
  procedure(i_red1), bind(C, name='cufort_creduce_asum') :: creduce_asum
  procedure(i_red1), bind(C, name='cufort_creduce_asum_host') :: creduce_asum_host
  procedure(i_red1), bind(C, name='cufort_zreduce_asum') :: zreduce_asum
  procedure(i_red1), bind(C, name='cufort_zreduce_asum_host') :: zreduce_asum_host
  procedure(i_red2), bind(C, name='cufort_sreduce_dot') :: sreduce_dot
  procedure(i_red2), bind(C, name='cufort_sreduce_dot_dev') :: sreduce_dot_dev
  procedure(i_red2), bind(C, name='cufort_sreduce_dot_host') :: sreduce_dot_host
  procedure(i_red2), bind(C, name='cufort_dreduce_dot') :: dreduce_dot
  procedure(i_red2), bind(C, name='cufort_dreduce_dot_dev') :: dreduce_dot_dev
  procedure(i_red2), bind(C, name='cufort_dreduce_dot_host') :: dreduce_dot_host
  procedure(i_red2), bind(C, name='cufort_creduce_dotc') :: creduce_dotc
  procedure(i_red2), bind(C, name='cufort_creduce_dotc_dev') :: creduce_dotc_dev
  procedure(i_red2), bind(C, name='cufort_creduce_dotc_host') :: creduce_dotc_host
  procedure(i_red2), bind(C, name='cufort_zreduce_dotc') :: zreduce_dotc
  procedure(i_red2), bind(C, name='cufort_zreduce_dotc_dev') :: zreduce_dotc_dev
  procedure(i_red2), bind(C, name='cufort_zreduce_dotc_host') :: zreduce_dotc_host
  procedure(i_red1), bind(C, name='cufort_sreduce_nrm2') :: sreduce_nrm2
  procedure(i_red1), bind(C, name='cufort_sreduce_nrm2_host') :: sreduce_nrm2_host
  procedure(i_red1), bind(C, name='cufort_dreduce_nrm2') :: dreduce_nrm2
  procedure(i_red1), bind(C, name='cufort_dreduce_nrm2_host') :: dreduce_nrm2_host
  procedure(i_red1), bind(C, name='cufort_creduce_nrm2') :: creduce_nrm2
  procedure(i_red1), bind(C, name='cufort_creduce_nrm2_host') :: creduce_nrm2_host
  procedure(i_red1), bind(C, name='cufort_zreduce_nrm2') :: zreduce_nrm2
  procedure(i_red1), bind(C, name='cufort_zreduce_nrm2_host') :: zreduce_nrm2_host
  procedure(i_red1), bind(C, name='cufort_sreduce_min') :: sreduce_min
  procedure(i_red1), bind(C, name='cufort_sreduce_min_host') :: sreduce_min_host
  procedure(i_red1), bind(C, name='cufort_dreduce_min') :: dreduce_min
  procedure(i_red1), bind(C, name='cufort_dreduce_min_host') :: dreduce_min_host
  procedure(i_red1), bind(C, name='cufort_sreduce_max') :: sreduce_max
  procedure(i_red1), bind(C, name='cufort_sreduce_max_host') :: sreduce_max_host
  procedure(i_red1), bind(C, name='cufort_dreduce_max') :: dreduce_max
  procedure(i_red1), bind(C, name='cufort_dreduce_max_host') :: dreduce_max_host
  procedure(i_red1), bind(C, name='cufort_sreduce_minloc') :: sreduce_minloc
  procedure(i_red1), bind(C, name='cufort_sreduce_minloc_host') :: sreduce_minloc_host
  procedure(i_red1), bind(C, name='cufort_dreduce_minloc') :: dreduce_minloc
  procedure(i_red1), bind(C, name='cufort_dreduce_minloc_host') :: dreduce_minloc_host
  procedure(i_red1), bind(C, name='cufort_sreduce_maxloc') :: sreduce_maxloc
  procedure(i_red1), bind(C, name='cufort_sreduce_maxloc_host') :: sreduce_maxloc_host
  procedure(i_red1), bind(C, name='cufort_dreduce_maxloc') :: dreduce_maxloc
  procedure(i_red1), bind(C, name='cufort_dreduce_maxloc_host') :: dreduce_maxloc_host
  procedure(i_count_r32), bind(C, name='cufort_sreduce_count') :: sreduce_count
  procedure(i_count_r32), bind(C, name='cufort_sreduce_count_host') :: sreduce_count_host
  procedure(i_count_r64), bind(C, name='cufort_dreduce_count') :: dreduce_count
  procedure(i_count_r64), bind(C, name='cufort_dreduce_count_host') :: dreduce_count_host
  procedure(i_tr_r32), bind(C, name='cufort_stranspose') :: stranspose
  procedure(i_tr_r32), bind(C, name='cufort_stranspose_host') :: stranspose_host
  procedure(i_tr_r64), bind(C, name='cufort_dtranspose') :: dtranspose
  procedure(i_tr_r64), bind(C, name='cufort_dtranspose_host') :: dtranspose_host
  procedure(i_tr_c32), bind(C, name='cufort_ctranspose') :: ctranspose
  procedure(i_tr_c32), bind(C, name='cufort_ctranspose_host') :: ctranspose_host
  procedure(i_tr_c64), bind(C, name='cufort_ztranspose') :: ztranspose
  procedure(i_tr_c64), bind(C, name='cufort_ztranspose_host') :: ztranspose_host
  procedure(i_tri_r32), bind(C, name='cufort_stranspose_inplace') :: stranspose_inplace
  procedure(i_tri_r32), bind(C, name='cufort_stranspose_inplace_host') :: stranspose_inplace_host
  procedure(i_tri_r64), bind(C, name='cufort_dtranspose_inplace') :: dtranspose_inplace
  procedure(i_tri_r64), bind(C, name='cufort_dtranspose_inplace_host') :: dtranspose_inplace_host
  procedure(i_tri_c32), bind(C, name='cufort_ctranspose_inplace') :: ctranspose_inplace
  procedure(i_tri_c32), bind(C, name='cufort_ctranspose_inplace_host') :: ctranspose_inplace_host
  procedure(i_tri_c64), bind(C, name='cufort_ztranspose_inplace') :: ztranspose_inplace
  procedure(i_tri_c64), bind(C, name='cufort_ztranspose_inplace_host') :: ztranspose_inplace_host

contains

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

  function count_r32(f, v, pred, value, stat, errmsg) result(r)
    procedure(i_count_r32) :: f
    type(vec), intent(in) :: v
    character(len=*), intent(in) :: pred
    real(c_float), intent(in) :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64) :: r
    r = 0
    if (.not. cf_ready('cf_count', stat, errmsg)) return
    call cf_finish('cf_count', f(v%n, v%p, v%inc, trim(adjustl(pred)) // c_null_char, value, r), stat, errmsg)
  end function count_r32

  function count_r64(f, v, pred, value, stat, errmsg) result(r)
    procedure(i_count_r64) :: f
    type(vec), intent(in) :: v
    character(len=*), intent(in) :: pred
    real(c_double), intent(in) :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64) :: r
    r = 0
    if (.not. cf_ready('cf_count', stat, errmsg)) return
    call cf_finish('cf_count', f(v%n, v%p, v%inc, trim(adjustl(pred)) // c_null_char, value, r), stat, errmsg)
  end function count_r64

  ! ---- argument checks ----------------------------------------------------------------------------

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
  end function strided

  ! ---- the specifics ----------------------------------------------------------------------------------

  ! cf_sum(x [, compensated]): SUM(x); compensated: the sumk kernel, about one ulp

  function sum_r32_d(x, compensated, stat, errmsg) result(r)
    type(cf_vector_r32), intent(in) :: x
    logical, intent(in), optional :: compensated
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    r = 0
    call sum_any('cf_sum', vd(x), sreduce_sum, sreduce_sumk, c_loc(r), &
        compensated, 0, stat, errmsg)
  end function sum_r32_d

  function sum_r32_h(x, compensated, stat, errmsg) result(r)
    real(c_float), intent(in), target :: x(:)
    logical, intent(in), optional :: compensated
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    real(c_float), allocatable, target :: tmp(:)
    r = 0
    call sum_any('cf_sum', hv(x, tmp), sreduce_sum_host, sreduce_sumk_host, c_loc(r), &
        compensated, 0, stat, errmsg)
  end function sum_r32_h

  function sum_r64_d(x, compensated, stat, errmsg) result(r)
    type(cf_vector_r64), intent(in) :: x
    logical, intent(in), optional :: compensated
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    r = 0
    call sum_any('cf_sum', vd(x), dreduce_sum, dreduce_sumk, c_loc(r), &
        compensated, 0, stat, errmsg)
  end function sum_r64_d

  function sum_r64_h(x, compensated, stat, errmsg) result(r)
    real(c_double), intent(in), target :: x(:)
    logical, intent(in), optional :: compensated
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    real(c_double), allocatable, target :: tmp(:)
    r = 0
    call sum_any('cf_sum', hv(x, tmp), dreduce_sum_host, dreduce_sumk_host, c_loc(r), &
        compensated, 0, stat, errmsg)
  end function sum_r64_h

  function sum_c32_d(x, compensated, stat, errmsg) result(r)
    type(cf_vector_c32), intent(in) :: x
    logical, intent(in), optional :: compensated
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    complex(c_float_complex), target :: r
    r = 0
    call sum_any('cf_sum', vd(x), creduce_sum, sreduce_sumk, c_loc(r), &
        compensated, 4, stat, errmsg)
  end function sum_c32_d

  function sum_c32_h(x, compensated, stat, errmsg) result(r)
    complex(c_float_complex), intent(in), target :: x(:)
    logical, intent(in), optional :: compensated
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    complex(c_float_complex), target :: r
    complex(c_float_complex), allocatable, target :: tmp(:)
    r = 0
    call sum_any('cf_sum', hv(x, tmp), creduce_sum_host, sreduce_sumk_host, c_loc(r), &
        compensated, 4, stat, errmsg)
  end function sum_c32_h

  function sum_c64_d(x, compensated, stat, errmsg) result(r)
    type(cf_vector_c64), intent(in) :: x
    logical, intent(in), optional :: compensated
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    complex(c_double_complex), target :: r
    r = 0
    call sum_any('cf_sum', vd(x), zreduce_sum, dreduce_sumk, c_loc(r), &
        compensated, 8, stat, errmsg)
  end function sum_c64_d

  function sum_c64_h(x, compensated, stat, errmsg) result(r)
    complex(c_double_complex), intent(in), target :: x(:)
    logical, intent(in), optional :: compensated
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    complex(c_double_complex), target :: r
    complex(c_double_complex), allocatable, target :: tmp(:)
    r = 0
    call sum_any('cf_sum', hv(x, tmp), zreduce_sum_host, dreduce_sumk_host, c_loc(r), &
        compensated, 8, stat, errmsg)
  end function sum_c64_h

  ! cf_sum_to(x, res [, compensated]): res(1) = SUM(x) in device memory, ordered on this thread's
  ! stream without waiting; res is a one-element device vector (a view such as v%elem(i) will do)

  subroutine sum_to_r32(x, res, compensated, stat, errmsg)
    type(cf_vector_r32), intent(in) :: x, res
    logical, intent(in), optional :: compensated
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. one_element('cf_sum_to', res%size(), stat, errmsg)) return
    call sum_any('cf_sum_to', vd(x), sreduce_sum_dev, sreduce_sumk_dev, res%cptr(), compensated, &
        0, stat, errmsg)
  end subroutine sum_to_r32

  subroutine sum_to_r64(x, res, compensated, stat, errmsg)
    type(cf_vector_r64), intent(in) :: x, res
    logical, intent(in), optional :: compensated
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. one_element('cf_sum_to', res%size(), stat, errmsg)) return
    call sum_any('cf_sum_to', vd(x), dreduce_sum_dev, dreduce_sumk_dev, res%cptr(), compensated, &
        0, stat, errmsg)
  end subroutine sum_to_r64

  subroutine sum_to_c32(x, res, compensated, stat, errmsg)
    type(cf_vector_c32), intent(in) :: x, res
    logical, intent(in), optional :: compensated
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. one_element('cf_sum_to', res%size(), stat, errmsg)) return
    call sum_any('cf_sum_to', vd(x), creduce_sum_dev, sreduce_sumk_dev, res%cptr(), compensated, &
        4, stat, errmsg)
  end subroutine sum_to_c32

  subroutine sum_to_c64(x, res, compensated, stat, errmsg)
    type(cf_vector_c64), intent(in) :: x, res
    logical, intent(in), optional :: compensated
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. one_element('cf_sum_to', res%size(), stat, errmsg)) return
    call sum_any('cf_sum_to', vd(x), zreduce_sum_dev, dreduce_sumk_dev, res%cptr(), compensated, &
        8, stat, errmsg)
  end subroutine sum_to_c64

  ! cf_sum_abs(x): SUM(ABS(x)); complex: |re| + |im| summed, as BLAS asum

  function asum_r32_d(x, stat, errmsg) result(r)
    type(cf_vector_r32), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    r = 0
    call run1('cf_sum_abs', sreduce_asum, vd(x), c_loc(r), stat, errmsg)
  end function asum_r32_d

  function asum_r32_h(x, stat, errmsg) result(r)
    real(c_float), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    real(c_float), allocatable, target :: tmp(:)
    r = 0
    call run1('cf_sum_abs', sreduce_asum_host, hv(x, tmp), c_loc(r), stat, errmsg)
  end function asum_r32_h

  function asum_r64_d(x, stat, errmsg) result(r)
    type(cf_vector_r64), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    r = 0
    call run1('cf_sum_abs', dreduce_asum, vd(x), c_loc(r), stat, errmsg)
  end function asum_r64_d

  function asum_r64_h(x, stat, errmsg) result(r)
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    real(c_double), allocatable, target :: tmp(:)
    r = 0
    call run1('cf_sum_abs', dreduce_asum_host, hv(x, tmp), c_loc(r), stat, errmsg)
  end function asum_r64_h

  function asum_c32_d(x, stat, errmsg) result(r)
    type(cf_vector_c32), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    r = 0
    call run1('cf_sum_abs', creduce_asum, vd(x), c_loc(r), stat, errmsg)
  end function asum_c32_d

  function asum_c32_h(x, stat, errmsg) result(r)
    complex(c_float_complex), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    complex(c_float_complex), allocatable, target :: tmp(:)
    r = 0
    call run1('cf_sum_abs', creduce_asum_host, hv(x, tmp), c_loc(r), stat, errmsg)
  end function asum_c32_h

  function asum_c64_d(x, stat, errmsg) result(r)
    type(cf_vector_c64), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    r = 0
    call run1('cf_sum_abs', zreduce_asum, vd(x), c_loc(r), stat, errmsg)
  end function asum_c64_d

  function asum_c64_h(x, stat, errmsg) result(r)
    complex(c_double_complex), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    complex(c_double_complex), allocatable, target :: tmp(:)
    r = 0
    call run1('cf_sum_abs', zreduce_asum_host, hv(x, tmp), c_loc(r), stat, errmsg)
  end function asum_c64_h

  ! cf_dot_product(x, y): DOT_PRODUCT(x, y), x conjugated when complex

  function dot_r32_d(x, y, stat, errmsg) result(r)
    type(cf_vector_r32), intent(in) :: x, y
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    r = 0
    call run2('cf_dot_product', sreduce_dot, vd(x), vd(y), c_loc(r), &
        stat, errmsg)
  end function dot_r32_d

  function dot_r32_h(x, y, stat, errmsg) result(r)
    real(c_float), intent(in), target :: x(:), y(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    real(c_float), allocatable, target :: tx(:), ty(:)
    r = 0
    call run2('cf_dot_product', sreduce_dot_host, hv(x, tx), hv(y, ty), c_loc(r), &
        stat, errmsg)
  end function dot_r32_h

  function dot_r64_d(x, y, stat, errmsg) result(r)
    type(cf_vector_r64), intent(in) :: x, y
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    r = 0
    call run2('cf_dot_product', dreduce_dot, vd(x), vd(y), c_loc(r), &
        stat, errmsg)
  end function dot_r64_d

  function dot_r64_h(x, y, stat, errmsg) result(r)
    real(c_double), intent(in), target :: x(:), y(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    real(c_double), allocatable, target :: tx(:), ty(:)
    r = 0
    call run2('cf_dot_product', dreduce_dot_host, hv(x, tx), hv(y, ty), c_loc(r), &
        stat, errmsg)
  end function dot_r64_h

  function dot_c32_d(x, y, stat, errmsg) result(r)
    type(cf_vector_c32), intent(in) :: x, y
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    complex(c_float_complex), target :: r
    r = 0
    call run2('cf_dot_product', creduce_dotc, vd(x), vd(y), c_loc(r), &
        stat, errmsg)
  end function dot_c32_d

  function dot_c32_h(x, y, stat, errmsg) result(r)
    complex(c_float_complex), intent(in), target :: x(:), y(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    complex(c_float_complex), target :: r
    complex(c_float_complex), allocatable, target :: tx(:), ty(:)
    r = 0
    call run2('cf_dot_product', creduce_dotc_host, hv(x, tx), hv(y, ty), c_loc(r), &
        stat, errmsg)
  end function dot_c32_h

  function dot_c64_d(x, y, stat, errmsg) result(r)
    type(cf_vector_c64), intent(in) :: x, y
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    complex(c_double_complex), target :: r
    r = 0
    call run2('cf_dot_product', zreduce_dotc, vd(x), vd(y), c_loc(r), &
        stat, errmsg)
  end function dot_c64_d

  function dot_c64_h(x, y, stat, errmsg) result(r)
    complex(c_double_complex), intent(in), target :: x(:), y(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    complex(c_double_complex), target :: r
    complex(c_double_complex), allocatable, target :: tx(:), ty(:)
    r = 0
    call run2('cf_dot_product', zreduce_dotc_host, hv(x, tx), hv(y, ty), c_loc(r), &
        stat, errmsg)
  end function dot_c64_h

  ! cf_dot_product_to(x, y, res): as cf_sum_to

  subroutine dot_to_r32(x, y, res, stat, errmsg)
    type(cf_vector_r32), intent(in) :: x, y, res
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. one_element('cf_dot_product_to', res%size(), stat, errmsg)) return
    call run2('cf_dot_product_to', sreduce_dot_dev, vd(x), vd(y), res%cptr(), stat, errmsg)
  end subroutine dot_to_r32

  subroutine dot_to_r64(x, y, res, stat, errmsg)
    type(cf_vector_r64), intent(in) :: x, y, res
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. one_element('cf_dot_product_to', res%size(), stat, errmsg)) return
    call run2('cf_dot_product_to', dreduce_dot_dev, vd(x), vd(y), res%cptr(), stat, errmsg)
  end subroutine dot_to_r64

  subroutine dot_to_c32(x, y, res, stat, errmsg)
    type(cf_vector_c32), intent(in) :: x, y, res
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. one_element('cf_dot_product_to', res%size(), stat, errmsg)) return
    call run2('cf_dot_product_to', creduce_dotc_dev, vd(x), vd(y), res%cptr(), stat, errmsg)
  end subroutine dot_to_c32

  subroutine dot_to_c64(x, y, res, stat, errmsg)
    type(cf_vector_c64), intent(in) :: x, y, res
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. one_element('cf_dot_product_to', res%size(), stat, errmsg)) return
    call run2('cf_dot_product_to', zreduce_dotc_dev, vd(x), vd(y), res%cptr(), stat, errmsg)
  end subroutine dot_to_c64

  ! cf_norm2(x): NORM2(x) (complex too), without overflow or harmful underflow

  function nrm2_r32_d(x, stat, errmsg) result(r)
    type(cf_vector_r32), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    r = 0
    call run1('cf_norm2', sreduce_nrm2, vd(x), c_loc(r), stat, errmsg)
  end function nrm2_r32_d

  function nrm2_r32_h(x, stat, errmsg) result(r)
    real(c_float), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    real(c_float), allocatable, target :: tmp(:)
    r = 0
    call run1('cf_norm2', sreduce_nrm2_host, hv(x, tmp), c_loc(r), stat, errmsg)
  end function nrm2_r32_h

  function nrm2_r64_d(x, stat, errmsg) result(r)
    type(cf_vector_r64), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    r = 0
    call run1('cf_norm2', dreduce_nrm2, vd(x), c_loc(r), stat, errmsg)
  end function nrm2_r64_d

  function nrm2_r64_h(x, stat, errmsg) result(r)
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    real(c_double), allocatable, target :: tmp(:)
    r = 0
    call run1('cf_norm2', dreduce_nrm2_host, hv(x, tmp), c_loc(r), stat, errmsg)
  end function nrm2_r64_h

  function nrm2_c32_d(x, stat, errmsg) result(r)
    type(cf_vector_c32), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    r = 0
    call run1('cf_norm2', creduce_nrm2, vd(x), c_loc(r), stat, errmsg)
  end function nrm2_c32_d

  function nrm2_c32_h(x, stat, errmsg) result(r)
    complex(c_float_complex), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    complex(c_float_complex), allocatable, target :: tmp(:)
    r = 0
    call run1('cf_norm2', creduce_nrm2_host, hv(x, tmp), c_loc(r), stat, errmsg)
  end function nrm2_c32_h

  function nrm2_c64_d(x, stat, errmsg) result(r)
    type(cf_vector_c64), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    r = 0
    call run1('cf_norm2', zreduce_nrm2, vd(x), c_loc(r), stat, errmsg)
  end function nrm2_c64_d

  function nrm2_c64_h(x, stat, errmsg) result(r)
    complex(c_double_complex), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    complex(c_double_complex), allocatable, target :: tmp(:)
    r = 0
    call run1('cf_norm2', zreduce_nrm2_host, hv(x, tmp), c_loc(r), stat, errmsg)
  end function nrm2_c64_h

  ! cf_minval, cf_maxval, cf_minloc, cf_maxloc: the intrinsics on a real vector; NaNs are ignored
  ! unless all are NaN; locations are 1-based, the first of ties, 0 when x is empty

  function min_r32_d(x, stat, errmsg) result(r)
    type(cf_vector_r32), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    r = 0
    call run1('cf_minval', sreduce_min, vd(x), c_loc(r), stat, errmsg)
  end function min_r32_d

  function min_r32_h(x, stat, errmsg) result(r)
    real(c_float), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    real(c_float), allocatable, target :: tmp(:)
    r = 0
    call run1('cf_minval', sreduce_min_host, hv(x, tmp), c_loc(r), stat, errmsg)
  end function min_r32_h

  function min_r64_d(x, stat, errmsg) result(r)
    type(cf_vector_r64), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    r = 0
    call run1('cf_minval', dreduce_min, vd(x), c_loc(r), stat, errmsg)
  end function min_r64_d

  function min_r64_h(x, stat, errmsg) result(r)
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    real(c_double), allocatable, target :: tmp(:)
    r = 0
    call run1('cf_minval', dreduce_min_host, hv(x, tmp), c_loc(r), stat, errmsg)
  end function min_r64_h

  function max_r32_d(x, stat, errmsg) result(r)
    type(cf_vector_r32), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    r = 0
    call run1('cf_maxval', sreduce_max, vd(x), c_loc(r), stat, errmsg)
  end function max_r32_d

  function max_r32_h(x, stat, errmsg) result(r)
    real(c_float), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float), target :: r
    real(c_float), allocatable, target :: tmp(:)
    r = 0
    call run1('cf_maxval', sreduce_max_host, hv(x, tmp), c_loc(r), stat, errmsg)
  end function max_r32_h

  function max_r64_d(x, stat, errmsg) result(r)
    type(cf_vector_r64), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    r = 0
    call run1('cf_maxval', dreduce_max, vd(x), c_loc(r), stat, errmsg)
  end function max_r64_d

  function max_r64_h(x, stat, errmsg) result(r)
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), target :: r
    real(c_double), allocatable, target :: tmp(:)
    r = 0
    call run1('cf_maxval', dreduce_max_host, hv(x, tmp), c_loc(r), stat, errmsg)
  end function max_r64_h

  function minloc_r32_d(x, stat, errmsg) result(r)
    type(cf_vector_r32), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64), target :: r
    r = -1
    call run1('cf_minloc', sreduce_minloc, vd(x), c_loc(r), stat, errmsg)
    r = r + 1
  end function minloc_r32_d

  function minloc_r32_h(x, stat, errmsg) result(r)
    real(c_float), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64), target :: r
    real(c_float), allocatable, target :: tmp(:)
    r = -1
    call run1('cf_minloc', sreduce_minloc_host, hv(x, tmp), c_loc(r), stat, errmsg)
    r = r + 1
  end function minloc_r32_h

  function minloc_r64_d(x, stat, errmsg) result(r)
    type(cf_vector_r64), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64), target :: r
    r = -1
    call run1('cf_minloc', dreduce_minloc, vd(x), c_loc(r), stat, errmsg)
    r = r + 1
  end function minloc_r64_d

  function minloc_r64_h(x, stat, errmsg) result(r)
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64), target :: r
    real(c_double), allocatable, target :: tmp(:)
    r = -1
    call run1('cf_minloc', dreduce_minloc_host, hv(x, tmp), c_loc(r), stat, errmsg)
    r = r + 1
  end function minloc_r64_h

  function maxloc_r32_d(x, stat, errmsg) result(r)
    type(cf_vector_r32), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64), target :: r
    r = -1
    call run1('cf_maxloc', sreduce_maxloc, vd(x), c_loc(r), stat, errmsg)
    r = r + 1
  end function maxloc_r32_d

  function maxloc_r32_h(x, stat, errmsg) result(r)
    real(c_float), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64), target :: r
    real(c_float), allocatable, target :: tmp(:)
    r = -1
    call run1('cf_maxloc', sreduce_maxloc_host, hv(x, tmp), c_loc(r), stat, errmsg)
    r = r + 1
  end function maxloc_r32_h

  function maxloc_r64_d(x, stat, errmsg) result(r)
    type(cf_vector_r64), intent(in) :: x
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64), target :: r
    r = -1
    call run1('cf_maxloc', dreduce_maxloc, vd(x), c_loc(r), stat, errmsg)
    r = r + 1
  end function maxloc_r64_d

  function maxloc_r64_h(x, stat, errmsg) result(r)
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64), target :: r
    real(c_double), allocatable, target :: tmp(:)
    r = -1
    call run1('cf_maxloc', dreduce_maxloc_host, hv(x, tmp), c_loc(r), stat, errmsg)
    r = r + 1
  end function maxloc_r64_h

  ! cf_count(x, pred, value): COUNT(x <pred> value), pred "lt", "le", "gt", "ge", "eq", "ne" or
  ! "<", "<=", ">", ">=", "==", "/=", any case

  function count_r32_d(x, pred, value, stat, errmsg) result(r)
    type(cf_vector_r32), intent(in) :: x
    character(len=*), intent(in) :: pred
    real(c_float), intent(in) :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64) :: r
    r = count_r32(sreduce_count, vd(x), pred, value, stat, errmsg)
  end function count_r32_d

  function count_r32_h(x, pred, value, stat, errmsg) result(r)
    real(c_float), intent(in), target :: x(:)
    character(len=*), intent(in) :: pred
    real(c_float), intent(in) :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64) :: r
    real(c_float), allocatable, target :: tmp(:)
    r = count_r32(sreduce_count_host, hv(x, tmp), pred, value, stat, errmsg)
  end function count_r32_h

  function count_r64_d(x, pred, value, stat, errmsg) result(r)
    type(cf_vector_r64), intent(in) :: x
    character(len=*), intent(in) :: pred
    real(c_double), intent(in) :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64) :: r
    r = count_r64(dreduce_count, vd(x), pred, value, stat, errmsg)
  end function count_r64_d

  function count_r64_h(x, pred, value, stat, errmsg) result(r)
    real(c_double), intent(in), target :: x(:)
    character(len=*), intent(in) :: pred
    real(c_double), intent(in) :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64) :: r
    real(c_double), allocatable, target :: tmp(:)
    r = count_r64(dreduce_count_host, hv(x, tmp), pred, value, stat, errmsg)
  end function count_r64_h

  ! cf_transpose(a, b [, trans, alpha]): b = alpha*op(a), op by trans: "T" (default), "C" (conjugate
  ! transpose) or "N"; a and b must not overlap

  subroutine transpose_r32_d(a, b, trans, alpha, stat, errmsg)
    type(cf_matrix_r32), intent(in) :: a, b
    character(len=*), intent(in), optional :: trans
    real(c_float), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    t = cf_opt(trans, 'T')
    if (.not. transpose_ok(t, a%shape(), b%shape(), stat, errmsg)) return
    call cf_finish(tr, stranspose(t, a%size(1), a%size(2), opt(alpha, one_r32), a%cptr(), a%ld(), &
        b%cptr(), b%ld()), stat, errmsg)
  end subroutine transpose_r32_d

  subroutine transpose_r32_h(a, b, trans, alpha, stat, errmsg)
    real(c_float), intent(in), target, contiguous :: a(:,:)
    real(c_float), intent(inout), target, contiguous :: b(:,:)
    character(len=*), intent(in), optional :: trans
    real(c_float), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    integer(int64) :: s(2)
    t = cf_opt(trans, 'T')
    s = shape(a, kind=int64)
    if (.not. transpose_ok(t, s, shape(b, kind=int64), stat, errmsg)) return
    if (size(a) == 0) return
    call cf_finish(tr, stranspose_host(t, s(1), s(2), opt(alpha, one_r32), c_loc(a), s(1), c_loc(b), &
        size(b, 1, kind=int64)), stat, errmsg)
  end subroutine transpose_r32_h

  subroutine transpose_r64_d(a, b, trans, alpha, stat, errmsg)
    type(cf_matrix_r64), intent(in) :: a, b
    character(len=*), intent(in), optional :: trans
    real(c_double), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    t = cf_opt(trans, 'T')
    if (.not. transpose_ok(t, a%shape(), b%shape(), stat, errmsg)) return
    call cf_finish(tr, dtranspose(t, a%size(1), a%size(2), opt(alpha, one_r64), a%cptr(), a%ld(), &
        b%cptr(), b%ld()), stat, errmsg)
  end subroutine transpose_r64_d

  subroutine transpose_r64_h(a, b, trans, alpha, stat, errmsg)
    real(c_double), intent(in), target, contiguous :: a(:,:)
    real(c_double), intent(inout), target, contiguous :: b(:,:)
    character(len=*), intent(in), optional :: trans
    real(c_double), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    integer(int64) :: s(2)
    t = cf_opt(trans, 'T')
    s = shape(a, kind=int64)
    if (.not. transpose_ok(t, s, shape(b, kind=int64), stat, errmsg)) return
    if (size(a) == 0) return
    call cf_finish(tr, dtranspose_host(t, s(1), s(2), opt(alpha, one_r64), c_loc(a), s(1), c_loc(b), &
        size(b, 1, kind=int64)), stat, errmsg)
  end subroutine transpose_r64_h

  subroutine transpose_c32_d(a, b, trans, alpha, stat, errmsg)
    type(cf_matrix_c32), intent(in) :: a, b
    character(len=*), intent(in), optional :: trans
    complex(c_float_complex), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    t = cf_opt(trans, 'T')
    if (.not. transpose_ok(t, a%shape(), b%shape(), stat, errmsg)) return
    call cf_finish(tr, ctranspose(t, a%size(1), a%size(2), opt(alpha, one_c32), a%cptr(), a%ld(), &
        b%cptr(), b%ld()), stat, errmsg)
  end subroutine transpose_c32_d

  subroutine transpose_c32_h(a, b, trans, alpha, stat, errmsg)
    complex(c_float_complex), intent(in), target, contiguous :: a(:,:)
    complex(c_float_complex), intent(inout), target, contiguous :: b(:,:)
    character(len=*), intent(in), optional :: trans
    complex(c_float_complex), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    integer(int64) :: s(2)
    t = cf_opt(trans, 'T')
    s = shape(a, kind=int64)
    if (.not. transpose_ok(t, s, shape(b, kind=int64), stat, errmsg)) return
    if (size(a) == 0) return
    call cf_finish(tr, ctranspose_host(t, s(1), s(2), opt(alpha, one_c32), c_loc(a), s(1), c_loc(b), &
        size(b, 1, kind=int64)), stat, errmsg)
  end subroutine transpose_c32_h

  subroutine transpose_c64_d(a, b, trans, alpha, stat, errmsg)
    type(cf_matrix_c64), intent(in) :: a, b
    character(len=*), intent(in), optional :: trans
    complex(c_double_complex), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    t = cf_opt(trans, 'T')
    if (.not. transpose_ok(t, a%shape(), b%shape(), stat, errmsg)) return
    call cf_finish(tr, ztranspose(t, a%size(1), a%size(2), opt(alpha, one_c64), a%cptr(), a%ld(), &
        b%cptr(), b%ld()), stat, errmsg)
  end subroutine transpose_c64_d

  subroutine transpose_c64_h(a, b, trans, alpha, stat, errmsg)
    complex(c_double_complex), intent(in), target, contiguous :: a(:,:)
    complex(c_double_complex), intent(inout), target, contiguous :: b(:,:)
    character(len=*), intent(in), optional :: trans
    complex(c_double_complex), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    integer(int64) :: s(2)
    t = cf_opt(trans, 'T')
    s = shape(a, kind=int64)
    if (.not. transpose_ok(t, s, shape(b, kind=int64), stat, errmsg)) return
    if (size(a) == 0) return
    call cf_finish(tr, ztranspose_host(t, s(1), s(2), opt(alpha, one_c64), c_loc(a), s(1), c_loc(b), &
        size(b, 1, kind=int64)), stat, errmsg)
  end subroutine transpose_c64_h

  ! cf_transpose_inplace(a [, trans, alpha]): a = alpha*op(a) for a square a

  subroutine transpose_inplace_r32_d(a, trans, alpha, stat, errmsg)
    type(cf_matrix_r32), intent(in) :: a
    character(len=*), intent(in), optional :: trans
    real(c_float), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    t = cf_opt(trans, 'T')
    if (.not. square(a%shape(), stat, errmsg)) return
    call cf_finish(tri, stranspose_inplace(t, a%size(1), opt(alpha, one_r32), a%cptr(), a%ld()), &
        stat, errmsg)
  end subroutine transpose_inplace_r32_d

  subroutine transpose_inplace_r32_h(a, trans, alpha, stat, errmsg)
    real(c_float), intent(inout), target, contiguous :: a(:,:)
    character(len=*), intent(in), optional :: trans
    real(c_float), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    integer(int64) :: n
    t = cf_opt(trans, 'T')
    if (.not. square(shape(a, kind=int64), stat, errmsg)) return
    if (size(a) == 0) return
    n = size(a, 1, kind=int64)
    call cf_finish(tri, stranspose_inplace_host(t, n, opt(alpha, one_r32), c_loc(a), n), stat, errmsg)
  end subroutine transpose_inplace_r32_h

  subroutine transpose_inplace_r64_d(a, trans, alpha, stat, errmsg)
    type(cf_matrix_r64), intent(in) :: a
    character(len=*), intent(in), optional :: trans
    real(c_double), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    t = cf_opt(trans, 'T')
    if (.not. square(a%shape(), stat, errmsg)) return
    call cf_finish(tri, dtranspose_inplace(t, a%size(1), opt(alpha, one_r64), a%cptr(), a%ld()), &
        stat, errmsg)
  end subroutine transpose_inplace_r64_d

  subroutine transpose_inplace_r64_h(a, trans, alpha, stat, errmsg)
    real(c_double), intent(inout), target, contiguous :: a(:,:)
    character(len=*), intent(in), optional :: trans
    real(c_double), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    integer(int64) :: n
    t = cf_opt(trans, 'T')
    if (.not. square(shape(a, kind=int64), stat, errmsg)) return
    if (size(a) == 0) return
    n = size(a, 1, kind=int64)
    call cf_finish(tri, dtranspose_inplace_host(t, n, opt(alpha, one_r64), c_loc(a), n), stat, errmsg)
  end subroutine transpose_inplace_r64_h

  subroutine transpose_inplace_c32_d(a, trans, alpha, stat, errmsg)
    type(cf_matrix_c32), intent(in) :: a
    character(len=*), intent(in), optional :: trans
    complex(c_float_complex), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    t = cf_opt(trans, 'T')
    if (.not. square(a%shape(), stat, errmsg)) return
    call cf_finish(tri, ctranspose_inplace(t, a%size(1), opt(alpha, one_c32), a%cptr(), a%ld()), &
        stat, errmsg)
  end subroutine transpose_inplace_c32_d

  subroutine transpose_inplace_c32_h(a, trans, alpha, stat, errmsg)
    complex(c_float_complex), intent(inout), target, contiguous :: a(:,:)
    character(len=*), intent(in), optional :: trans
    complex(c_float_complex), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    integer(int64) :: n
    t = cf_opt(trans, 'T')
    if (.not. square(shape(a, kind=int64), stat, errmsg)) return
    if (size(a) == 0) return
    n = size(a, 1, kind=int64)
    call cf_finish(tri, ctranspose_inplace_host(t, n, opt(alpha, one_c32), c_loc(a), n), stat, errmsg)
  end subroutine transpose_inplace_c32_h

  subroutine transpose_inplace_c64_d(a, trans, alpha, stat, errmsg)
    type(cf_matrix_c64), intent(in) :: a
    character(len=*), intent(in), optional :: trans
    complex(c_double_complex), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    t = cf_opt(trans, 'T')
    if (.not. square(a%shape(), stat, errmsg)) return
    call cf_finish(tri, ztranspose_inplace(t, a%size(1), opt(alpha, one_c64), a%cptr(), a%ld()), &
        stat, errmsg)
  end subroutine transpose_inplace_c64_d

  subroutine transpose_inplace_c64_h(a, trans, alpha, stat, errmsg)
    complex(c_double_complex), intent(inout), target, contiguous :: a(:,:)
    character(len=*), intent(in), optional :: trans
    complex(c_double_complex), intent(in), optional :: alpha
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: t
    integer(int64) :: n
    t = cf_opt(trans, 'T')
    if (.not. square(shape(a, kind=int64), stat, errmsg)) return
    if (size(a) == 0) return
    n = size(a, 1, kind=int64)
    call cf_finish(tri, ztranspose_inplace_host(t, n, opt(alpha, one_c64), c_loc(a), n), stat, errmsg)
  end subroutine transpose_inplace_c64_h

  ! ---- kind-specific helpers -----------------------------------------------------------------------

  ! vd(x), hv(x, tmp): a device vector, a host vector as the C ABI takes it (in place, or copied
  ! into tmp when its stride is not a whole number of elements); opt: an optional scalar or its default

  function vd_r32(x) result(v)
    type(cf_vector_r32), intent(in) :: x
    type(vec) :: v
    v = vec(x%cptr(), x%size(), x%inc())
  end function vd_r32

  function vd_r64(x) result(v)
    type(cf_vector_r64), intent(in) :: x
    type(vec) :: v
    v = vec(x%cptr(), x%size(), x%inc())
  end function vd_r64

  function vd_c32(x) result(v)
    type(cf_vector_c32), intent(in) :: x
    type(vec) :: v
    v = vec(x%cptr(), x%size(), x%inc())
  end function vd_c32

  function vd_c64(x) result(v)
    type(cf_vector_c64), intent(in) :: x
    type(vec) :: v
    v = vec(x%cptr(), x%size(), x%inc())
  end function vd_c64

  function hv_r32(x, tmp) result(v)
    real(c_float), intent(in), target :: x(:)
    real(c_float), allocatable, target, intent(inout) :: tmp(:)
    type(vec) :: v
    integer(int64) :: n
    n = size(x, kind=int64)
    if (n == 0) return
    v = strided(c_loc(x(1)), c_loc(x(n)), n, 4)
    if (c_associated(v%p)) return
    tmp = x
    v = vec(c_loc(tmp), n, 1)
  end function hv_r32

  function hv_r64(x, tmp) result(v)
    real(c_double), intent(in), target :: x(:)
    real(c_double), allocatable, target, intent(inout) :: tmp(:)
    type(vec) :: v
    integer(int64) :: n
    n = size(x, kind=int64)
    if (n == 0) return
    v = strided(c_loc(x(1)), c_loc(x(n)), n, 8)
    if (c_associated(v%p)) return
    tmp = x
    v = vec(c_loc(tmp), n, 1)
  end function hv_r64

  function hv_c32(x, tmp) result(v)
    complex(c_float_complex), intent(in), target :: x(:)
    complex(c_float_complex), allocatable, target, intent(inout) :: tmp(:)
    type(vec) :: v
    integer(int64) :: n
    n = size(x, kind=int64)
    if (n == 0) return
    v = strided(c_loc(x(1)), c_loc(x(n)), n, 8)
    if (c_associated(v%p)) return
    tmp = x
    v = vec(c_loc(tmp), n, 1)
  end function hv_c32

  function hv_c64(x, tmp) result(v)
    complex(c_double_complex), intent(in), target :: x(:)
    complex(c_double_complex), allocatable, target, intent(inout) :: tmp(:)
    type(vec) :: v
    integer(int64) :: n
    n = size(x, kind=int64)
    if (n == 0) return
    v = strided(c_loc(x(1)), c_loc(x(n)), n, 16)
    if (c_associated(v%p)) return
    tmp = x
    v = vec(c_loc(tmp), n, 1)
  end function hv_c64

  function opt_r32(x, default) result(r)
    real(c_float), intent(in), optional :: x
    real(c_float), intent(in) :: default
    real(c_float) :: r
    r = default
    if (present(x)) r = x
  end function opt_r32

  function opt_r64(x, default) result(r)
    real(c_double), intent(in), optional :: x
    real(c_double), intent(in) :: default
    real(c_double) :: r
    r = default
    if (present(x)) r = x
  end function opt_r64

  function opt_c32(x, default) result(r)
    complex(c_float_complex), intent(in), optional :: x
    complex(c_float_complex), intent(in) :: default
    complex(c_float_complex) :: r
    r = default
    if (present(x)) r = x
  end function opt_c32

  function opt_c64(x, default) result(r)
    complex(c_double_complex), intent(in), optional :: x
    complex(c_double_complex), intent(in) :: default
    complex(c_double_complex) :: r
    r = default
    if (present(x)) r = x
  end function opt_c64

end module cufort_kernels
