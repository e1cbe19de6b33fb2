! test_fortran_kernels.f90 -- cufort's own reductions and transposes through `use cufort`:
! cf_sum (plain and compensated), cf_sum_abs, cf_dot_product, cf_norm2, cf_minval, cf_maxval,
! cf_minloc, cf_maxloc, cf_count, cf_sum_to, cf_dot_product_to, cf_transpose, cf_transpose_inplace
! on device arrays, device views, host arrays and host sections (strided, reversed, and a derived-type
! component whose stride is not a whole number of elements), every kind, sizes 0, 1, 33, 1023, 100003.
! References are Fortran's intrinsics, evaluated in a wider precision where rounding matters; the
! same data in the same order must give the same bits on the device and on the host (the kernels
! are deterministic), whatever the increment.
module kernels_test_support
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, real64, real128
  use cufort
  implicit none
  integer :: npass = 0, nfail = 0
  !> random values of either sign with 0.5 <= |v| < 1.5 (never zero; complex: both parts)
  interface fill
    module procedure fill_r32, fill_r64, fill_c32, fill_c64
  end interface fill
  !> op(a) for trans = 'C': the conjugate transpose (real: the transpose)
  interface ct
    module procedure ct_r32, ct_r64, ct_c32, ct_c64
  end interface ct
  !> error / bound, in the reference precision
  interface ratio
    module procedure ratio_64, ratio_128
  end interface ratio
contains
  subroutine check(good, what, ratio)
    logical, intent(in) :: good
    character(len=*), intent(in) :: what
    real(real64), intent(in), optional :: ratio   ! error / bound, printed on failure
    if (good) then
      write(*, '(a,a)') 'ok fortran kernels ', what
      npass = npass + 1
    else
      if (present(ratio)) then
        write(*, '(a,a,a,es10.3)') 'FAIL fortran kernels ', what, ': error / bound = ', ratio
      else
        write(*, '(a,a)') 'FAIL fortran kernels ', what
      end if
      nfail = nfail + 1
    end if
  end subroutine check

  !> a failed call: stat is CF_INVALID_VALUE and errmsg starts with prefix
  subroutine check_error(st, msg, prefix, what)
    integer, intent(in) :: st
    character(len=*), intent(in) :: msg, prefix, what
    call check(st == CF_INVALID_VALUE .and. index(msg, prefix) == 1, what)
    if (st /= CF_INVALID_VALUE .or. index(msg, prefix) /= 1) &
      write(*, '(a,i0,a,a)') '#   stat ', st, ', errmsg ', trim(msg)
  end subroutine check_error

  !> SQRT and complex ABS in quad precision from + - * / alone: a runtime may have no quad-precision
  !> square root (LLVM flang's has none where it was built without a quad math library)
  elemental real(real128) function qsqrt(a) result(r)
    real(real128), intent(in) :: a
    r = 0
    if (a <= 0) return
    r = sqrt(real(a, real64))
    ! Newton's steps double the correct bits: 53, 106, beyond quad's 113
    r = r + (a - r * r) / (2 * r)
    r = r + (a - r * r) / (2 * r)
  end function qsqrt
  elemental real(real128) function qabs(z) result(r)
    complex(real128), intent(in) :: z
    r = qsqrt(real(z)**2 + aimag(z)**2)
  end function qabs

  real(real64) function ratio_64(err, bound) result(r)
    real(real64), intent(in) :: err, bound
    r = err / max(bound, tiny(bound))
  end function ratio_64
  real(real64) function ratio_128(err, bound) result(r)
    real(real128), intent(in) :: err, bound
    r = real(err / max(bound, tiny(bound)), real64)
  end function ratio_128

  impure elemental subroutine fill_r32(a)
    real(c_float), intent(out) :: a
    real(c_float) :: u, s
    call random_number(u)
    call random_number(s)
    a = sign(0.5_c_float + u, s - 0.5_c_float)
  end subroutine fill_r32
  impure elemental subroutine fill_r64(a)
    real(c_double), intent(out) :: a
    real(c_double) :: u, s
    call random_number(u)
    call random_number(s)
    a = sign(0.5_c_double + u, s - 0.5_c_double)
  end subroutine fill_r64
  impure elemental subroutine fill_c32(a)
    complex(c_float_complex), intent(out) :: a
    real(c_float) :: re, im
    call fill_r32(re)
    call fill_r32(im)
    a = cmplx(re, im, kind=c_float)
  end subroutine fill_c32
  impure elemental subroutine fill_c64(a)
    complex(c_double_complex), intent(out) :: a
    real(c_double) :: re, im
    call fill_r64(re)
    call fill_r64(im)
    a = cmplx(re, im, kind=c_double)
  end subroutine fill_c64

  function ct_r32(a) result(b)
    real(c_float), intent(in) :: a(:,:)
    real(c_float) :: b(size(a, 2), size(a, 1))
    b = transpose(a)
  end function ct_r32
  function ct_r64(a) result(b)
    real(c_double), intent(in) :: a(:,:)
    real(c_double) :: b(size(a, 2), size(a, 1))
    b = transpose(a)
  end function ct_r64
  function ct_c32(a) result(b)
    complex(c_float_complex), intent(in) :: a(:,:)
    complex(c_float_complex) :: b(size(a, 2), size(a, 1))
    b = conjg(transpose(a))
  end function ct_c32
  function ct_c64(a) result(b)
    complex(c_double_complex), intent(in) :: a(:,:)
    complex(c_double_complex) :: b(size(a, 2), size(a, 1))
    b = conjg(transpose(a))
  end function ct_c64

  !> COUNT(x <pred> v) by the intrinsics
  integer(int64) function count_ref_r32(x, pred, v) result(c)
    real(c_float), intent(in) :: x(:), v
    character(len=*), intent(in) :: pred
    select case (pred)
    case ('lt')
      c = count(x < v, kind=int64)
    case ('le')
      c = count(x <= v, kind=int64)
    case ('gt')
      c = count(x > v, kind=int64)
    case ('ge')
      c = count(x >= v, kind=int64)
    case ('eq')
      c = count(x == v, kind=int64)
    case default
      c = count(x /= v, kind=int64)
    end select
  end function count_ref_r32
  integer(int64) function count_ref_r64(x, pred, v) result(c)
    real(c_double), intent(in) :: x(:), v
    character(len=*), intent(in) :: pred
    select case (pred)
    case ('lt')
      c = count(x < v, kind=int64)
    case ('le')
      c = count(x <= v, kind=int64)
    case ('gt')
      c = count(x > v, kind=int64)
    case ('ge')
      c = count(x >= v, kind=int64)
    case ('eq')
      c = count(x == v, kind=int64)
    case default
      c = count(x /= v, kind=int64)
    end select
  end function count_ref_r64
end module kernels_test_support

module kernels_tests
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, real64, real128
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_is_nan
  use cufort
  use kernels_test_support
  implicit none
  ! Five layouts of the same n numbers: a device vector, a row view of a 3 x n device matrix
  ! (increment 3), a host array, the host row h(2,:) (stride 3), and the reversed host section
  ! x(n:1:-1) (increment -1).  The first four must agree to the bit.
  character(len=*), parameter :: layouts = ' (device, device row view, host, host row, host reversed)'
contains

subroutine t_reduce_r32(n)
  integer, intent(in) :: n
  real(c_float), allocatable :: h(:,:), x(:), y(:), xn(:)
  real(c_float) :: s(5), r3(3), v
  integer(int64) :: l(5), e(5)
  real(real64) :: ref, bound
  type(cf_matrix_r32) :: dh
  type(cf_vector_r32) :: dx, dy, dres
  character(len=2), parameter :: preds(6) = ['lt', 'le', 'gt', 'ge', 'eq', 'ne']
  character(len=24) :: tag
  logical :: good
  integer :: i
  write(tag, '(a,a,i0)') 'r32', ' n=', n
  allocate(h(3, n))
  call fill(h)
  if (n >= 33) then
    ! ties: the first occurrence must win, in the order of the section (reversed too)
    h(2, [7, n - 3]) = -2.5_c_float
    h(2, [5, n - 1]) = 2.5_c_float
  end if
  x = h(2, :)
  y = h(3, :)
  dh = h
  dx = x
  dy = y

  s = [cf_sum(dx), cf_sum(dh%row(2)), cf_sum(x), cf_sum(h(2, :)), cf_sum(x(n:1:-1))]
  ref = sum(real(x, real64))
  bound = 16 * epsilon(1._c_float) * sum(abs(real(x, real64)))
  call check(all(s(1:4) == s(1)) .and. all(abs(s - ref) <= bound), 'cf_sum ' // trim(tag) // layouts, &
             ratio(maxval(abs(s - ref)), bound))
  s = [cf_sum(dx, .true.), cf_sum(dh%row(2), .true.), cf_sum(x, .true.), cf_sum(h(2, :), .true.), &
       cf_sum(x(n:1:-1), compensated=.true.)]
  bound = 2 * spacing(real(ref, c_float))
  call check(all(s(1:4) == s(1)) .and. all(abs(s - ref) <= bound), 'cf_sum compensated ' // trim(tag) // &
             ' within 2 ulps' // layouts, ratio(maxval(abs(s - ref)), bound))
  s = [cf_sum_abs(dx), cf_sum_abs(dh%row(2)), cf_sum_abs(x), cf_sum_abs(h(2, :)), cf_sum_abs(x(n:1:-1))]
  ref = sum(abs(real(x, real64)))
  bound = 16 * epsilon(1._c_float) * ref
  call check(all(s(1:4) == s(1)) .and. all(abs(s - ref) <= bound), 'cf_sum_abs ' // trim(tag) // layouts, &
             ratio(maxval(abs(s - ref)), bound))
  s = [cf_dot_product(dx, dy), cf_dot_product(dh%row(2), dh%row(3)), cf_dot_product(x, y), &
       cf_dot_product(h(2, :), h(3, :)), cf_dot_product(x(n:1:-1), y(n:1:-1))]
  ref = sum(real(x, real64) * real(y, real64))
  bound = 16 * epsilon(1._c_float) * sum(abs(real(x, real64) * real(y, real64)))
  call check(all(s(1:4) == s(1)) .and. all(abs(s - ref) <= bound), 'cf_dot_product ' // trim(tag) // &
             layouts, ratio(maxval(abs(s - ref)), bound))
  s = [cf_norm2(dx), cf_norm2(dh%row(2)), cf_norm2(x), cf_norm2(h(2, :)), cf_norm2(x(n:1:-1))]
  ref = sqrt(sum(real(x, real64)**2))
  bound = 16 * epsilon(1._c_float) * ref
  call check(all(s(1:4) == s(1)) .and. all(abs(s - ref) <= bound), 'cf_norm2 ' // trim(tag) // layouts, &
             ratio(maxval(abs(s - ref)), bound))

  s = [cf_minval(dx), cf_minval(dh%row(2)), cf_minval(x), cf_minval(h(2, :)), cf_minval(x(n:1:-1))]
  call check(all(s == minval(x)), 'cf_minval ' // trim(tag) // ' = minval' // layouts)
  s = [cf_maxval(dx), cf_maxval(dh%row(2)), cf_maxval(x), cf_maxval(h(2, :)), cf_maxval(x(n:1:-1))]
  call check(all(s == maxval(x)), 'cf_maxval ' // trim(tag) // ' = maxval' // layouts)
  l = [cf_minloc(dx), cf_minloc(dh%row(2)), cf_minloc(x), cf_minloc(h(2, :)), cf_minloc(x(n:1:-1))]
  e = [(minloc(x, 1, kind=int64), i = 1, 4), minloc(x(n:1:-1), 1, kind=int64)]
  call check(all(l == e), 'cf_minloc ' // trim(tag) // ' = minloc, first of ties' // layouts)
  l = [cf_maxloc(dx), cf_maxloc(dh%row(2)), cf_maxloc(x), cf_maxloc(h(2, :)), cf_maxloc(x(n:1:-1))]
  e = [(maxloc(x, 1, kind=int64), i = 1, 4), maxloc(x(n:1:-1), 1, kind=int64)]
  call check(all(l == e), 'cf_maxloc ' // trim(tag) // ' = maxloc, first of ties' // layouts)

  v = 1
  if (n > 0) v = x(min(n, 3))
  good = .true.
  do i = 1, 6
    l = [cf_count(dx, preds(i), v), cf_count(dh%row(2), preds(i), v), cf_count(x, preds(i), v), &
         cf_count(h(2, :), preds(i), v), cf_count(x(n:1:-1), preds(i), v)]
    good = good .and. all(l == count_ref_r32(x, preds(i), v))
  end do
  good = good .and. cf_count(dx, 'LT', v) == count(x < v) .and. cf_count(x, ' >= ', v) == count(x >= v) &
         .and. cf_count(dx, '/=', v) == count(x /= v) .and. cf_count(h(2, :), '==', v) == count(x == v)
  call check(good, 'cf_count ' // trim(tag) // ' lt le gt ge eq ne (and LT, >=, /=, ==) = count' // layouts)

  ! results left on the device: the same bits as the synchronous forms, the neighbours untouched
  r3 = 7
  dres = r3
  call cf_sum_to(dh%row(2), dres%elem(2))
  call cf_dot_product_to(dx, dh%row(3), dres%elem(3))
  call cf_synchronize()
  r3 = dres
  s(1:2) = [cf_sum(x), cf_dot_product(x, y)]
  good = r3(1) == 7 .and. r3(2) == s(1) .and. r3(3) == s(2)
  call cf_sum_to(dx, dres%elem(1), compensated=.true.)
  call cf_synchronize()
  r3 = dres
  call check(good .and. r3(1) == cf_sum(x, compensated=.true.), 'cf_sum_to, cf_dot_product_to ' // &
             trim(tag) // ' (device result, views)')

  if (n == 33) then
    ! NaNs are ignored as by gfortran's MINVAL/MAXVAL/MINLOC/MAXLOC
    xn = x
    xn([1, 9]) = ieee_value(xn(1), ieee_quiet_nan)
    dx = xn
    call check(cf_minval(dx) == minval(xn) .and. cf_maxval(xn) == maxval(xn) .and. &
               cf_minloc(xn) == minloc(xn, 1) .and. cf_maxloc(dx) == maxloc(xn, 1), &
               'cf_minval, cf_maxval, cf_minloc, cf_maxloc r32 ignore NaNs')
    xn = ieee_value(xn(1), ieee_quiet_nan)
    call check(ieee_is_nan(cf_minval(xn)) .and. ieee_is_nan(cf_maxval(xn)) .and. cf_minloc(xn) == 1 .and. &
               cf_maxloc(xn) == 1, 'cf_minval, cf_maxval r32 of all NaN are NaN, cf_minloc, cf_maxloc 1')
  end if
end subroutine t_reduce_r32

!> 10^4 pairs +-b (|b| up to 2^40) cancel; what is left is the sum of 1001 numbers near 1, which the
!> compensated sum must get to 2 ulps, with the same bits on the device and the host.
subroutine t_ill_r32()
  integer, parameter :: m = 10000, k = 1001
  real(c_float), allocatable :: b(:), small(:), u(:), x(:)
  real(c_float) :: s(3)
  type(cf_vector_r32) :: dx
  real(real64) :: exact, bound
  integer :: i, j
  allocate(b(m), small(k), u(2 * m + k))
  call fill(b)
  call random_number(u(1:m))
  b = b * 2._c_float**floor(40 * u(1:m))
  call fill(small)
  x = [b, -b, small]
  call random_number(u)
  do i = size(x), 2, -1          ! shuffle
    j = 1 + int(u(i) * i)
    x([i, j]) = x([j, i])
  end do
  exact = sum(real(small, real64))
  dx = x
  s = [cf_sum(dx, compensated=.true.), cf_sum(x, compensated=.true.), cf_sum(x(size(x):1:-1), .true.)]
  bound = 2 * spacing(real(exact, c_float))
  call check(all(s(1:2) == s(1)) .and. all(abs(s - exact) <= bound), &
             'cf_sum compensated r32, 21001 terms, 10^4 pairs +-b cancel, within 2 ulps', &
             ratio(maxval(abs(s - exact)), bound))
  write(*, '(a,es9.2,a,es9.2,a,es9.2)') '# r32 condition ', sum(abs(real(x, real64))) / abs(exact), &
      ': plain sum error ', abs(cf_sum(x) - exact), ', compensated ', abs(s(1) - exact)
end subroutine t_ill_r32

subroutine t_reduce_r64(n)
  integer, intent(in) :: n
  real(c_double), allocatable :: h(:,:), x(:), y(:), xn(:)
  real(c_double) :: s(5), r3(3), v
  integer(int64) :: l(5), e(5)
  real(real128) :: ref, bound
  type(cf_matrix_r64) :: dh
  type(cf_vector_r64) :: dx, dy, dres
  character(len=2), parameter :: preds(6) = ['lt', 'le', 'gt', 'ge', 'eq', 'ne']
  character(len=24) :: tag
  logical :: good
  integer :: i
  write(tag, '(a,a,i0)') 'r64', ' n=', n
  allocate(h(3, n))
  call fill(h)
  if (n >= 33) then
    ! ties: the first occurrence must win, in the order of the section (reversed too)
    h(2, [7, n - 3]) = -2.5_c_double
    h(2, [5, n - 1]) = 2.5_c_double
  end if
  x = h(2, :)
  y = h(3, :)
  dh = h
  dx = x
  dy = y

  s = [cf_sum(dx), cf_sum(dh%row(2)), cf_sum(x), cf_sum(h(2, :)), cf_sum(x(n:1:-1))]
  ref = sum(real(x, real128))
  bound = 16 * epsilon(1._c_double) * sum(abs(real(x, real128)))
  call check(all(s(1:4) == s(1)) .and. all(abs(s - ref) <= bound), 'cf_sum ' // trim(tag) // layouts, &
             ratio(maxval(abs(s - ref)), bound))
  s = [cf_sum(dx, .true.), cf_sum(dh%row(2), .true.), cf_sum(x, .true.), cf_sum(h(2, :), .true.), &
       cf_sum(x(n:1:-1), compensated=.true.)]
  bound = 2 * spacing(real(ref, c_double))
  call check(all(s(1:4) == s(1)) .and. all(abs(s - ref) <= bound), 'cf_sum compensated ' // trim(tag) // &
             ' within 2 ulps' // layouts, ratio(maxval(abs(s - ref)), bound))
  s = [cf_sum_abs(dx), cf_sum_abs(dh%row(2)), cf_sum_abs(x), cf_sum_abs(h(2, :)), cf_sum_abs(x(n:1:-1))]
  ref = sum(abs(real(x, real128)))
  bound = 16 * epsilon(1._c_double) * ref
  call check(all(s(1:4) == s(1)) .and. all(abs(s - ref) <= bound), 'cf_sum_abs ' // trim(tag) // layouts, &
             ratio(maxval(abs(s - ref)), bound))
  s = [cf_dot_product(dx, dy), cf_dot_product(dh%row(2), dh%row(3)), cf_dot_product(x, y), &
       cf_dot_product(h(2, :), h(3, :)), cf_dot_product(x(n:1:-1), y(n:1:-1))]
  ref = sum(real(x, real128) * real(y, real128))
  bound = 16 * epsilon(1._c_double) * sum(abs(real(x, real128) * real(y, real128)))
  call check(all(s(1:4) == s(1)) .and. all(abs(s - ref) <= bound), 'cf_dot_product ' // trim(tag) // &
             layouts, ratio(maxval(abs(s - ref)), bound))
  s = [cf_norm2(dx), cf_norm2(dh%row(2)), cf_norm2(x), cf_norm2(h(2, :)), cf_norm2(x(n:1:-1))]
  ref = qsqrt(sum(real(x, real128)**2))
  bound = 16 * epsilon(1._c_double) * ref
  call check(all(s(1:4) == s(1)) .and. all(abs(s - ref) <= bound), 'cf_norm2 ' // trim(tag) // layouts, &
             ratio(maxval(abs(s - ref)), bound))

  s = [cf_minval(dx), cf_minval(dh%row(2)), cf_minval(x), cf_minval(h(2, :)), cf_minval(x(n:1:-1))]
  call check(all(s == minval(x)), 'cf_minval ' // trim(tag) // ' = minval' // layouts)
  s = [cf_maxval(dx), cf_maxval(dh%row(2)), cf_maxval(x), cf_maxval(h(2, :)), cf_maxval(x(n:1:-1))]
  call check(all(s == maxval(x)), 'cf_maxval ' // trim(tag) // ' = maxval' // layouts)
  l = [cf_minloc(dx), cf_minloc(dh%row(2)), cf_minloc(x), cf_minloc(h(2, :)), cf_minloc(x(n:1:-1))]
  e = [(minloc(x, 1, kind=int64), i = 1, 4), minloc(x(n:1:-1), 1, kind=int64)]
  call check(all(l == e), 'cf_minloc ' // trim(tag) // ' = minloc, first of ties' // layouts)
  l = [cf_maxloc(dx), cf_maxloc(dh%row(2)), cf_maxloc(x), cf_maxloc(h(2, :)), cf_maxloc(x(n:1:-1))]
  e = [(maxloc(x, 1, kind=int64), i = 1, 4), maxloc(x(n:1:-1), 1, kind=int64)]
  call check(all(l == e), 'cf_maxloc ' // trim(tag) // ' = maxloc, first of ties' // layouts)

  v = 1
  if (n > 0) v = x(min(n, 3))
  good = .true.
  do i = 1, 6
    l = [cf_count(dx, preds(i), v), cf_count(dh%row(2), preds(i), v), cf_count(x, preds(i), v), &
         cf_count(h(2, :), preds(i), v), cf_count(x(n:1:-1), preds(i), v)]
    good = good .and. all(l == count_ref_r64(x, preds(i), v))
  end do
  good = good .and. cf_count(dx, 'LT', v) == count(x < v) .and. cf_count(x, ' >= ', v) == count(x >= v) &
         .and. cf_count(dx, '/=', v) == count(x /= v) .and. cf_count(h(2, :), '==', v) == count(x == v)
  call check(good, 'cf_count ' // trim(tag) // ' lt le gt ge eq ne (and LT, >=, /=, ==) = count' // layouts)

  ! results left on the device: the same bits as the synchronous forms, the neighbours untouched
  r3 = 7
  dres = r3
  call cf_sum_to(dh%row(2), dres%elem(2))
  call cf_dot_product_to(dx, dh%row(3), dres%elem(3))
  call cf_synchronize()
  r3 = dres
  s(1:2) = [cf_sum(x), cf_dot_product(x, y)]
  good = r3(1) == 7 .and. r3(2) == s(1) .and. r3(3) == s(2)
  call cf_sum_to(dx, dres%elem(1), compensated=.true.)
  call cf_synchronize()
  r3 = dres
  call check(good .and. r3(1) == cf_sum(x, compensated=.true.), 'cf_sum_to, cf_dot_product_to ' // &
             trim(tag) // ' (device result, views)')

  if (n == 33) then
    ! NaNs are ignored as by gfortran's MINVAL/MAXVAL/MINLOC/MAXLOC
    xn = x
    xn([1, 9]) = ieee_value(xn(1), ieee_quiet_nan)
    dx = xn
    call check(cf_minval(dx) == minval(xn) .and. cf_maxval(xn) == maxval(xn) .and. &
               cf_minloc(xn) == minloc(xn, 1) .and. cf_maxloc(dx) == maxloc(xn, 1), &
               'cf_minval, cf_maxval, cf_minloc, cf_maxloc r64 ignore NaNs')
    xn = ieee_value(xn(1), ieee_quiet_nan)
    call check(ieee_is_nan(cf_minval(xn)) .and. ieee_is_nan(cf_maxval(xn)) .and. cf_minloc(xn) == 1 .and. &
               cf_maxloc(xn) == 1, 'cf_minval, cf_maxval r64 of all NaN are NaN, cf_minloc, cf_maxloc 1')
  end if
end subroutine t_reduce_r64

!> 10^4 pairs +-b (|b| up to 2^40) cancel; what is left is the sum of 1001 numbers near 1, which the
!> compensated sum must get to 2 ulps, with the same bits on the device and the host.
subroutine t_ill_r64()
  integer, parameter :: m = 10000, k = 1001
  real(c_double), allocatable :: b(:), small(:), u(:), x(:)
  real(c_double) :: s(3)
  type(cf_vector_r64) :: dx
  real(real128) :: exact, bound
  integer :: i, j
  allocate(b(m), small(k), u(2 * m + k))
  call fill(b)
  call random_number(u(1:m))
  b = b * 2._c_double**floor(40 * u(1:m))
  call fill(small)
  x = [b, -b, small]
  call random_number(u)
  do i = size(x), 2, -1          ! shuffle
    j = 1 + int(u(i) * i)
    x([i, j]) = x([j, i])
  end do
  exact = sum(real(small, real128))
  dx = x
  s = [cf_sum(dx, compensated=.true.), cf_sum(x, compensated=.true.), cf_sum(x(size(x):1:-1), .true.)]
  bound = 2 * spacing(real(exact, c_double))
  call check(all(s(1:2) == s(1)) .and. all(abs(s - exact) <= bound), &
             'cf_sum compensated r64, 21001 terms, 10^4 pairs +-b cancel, within 2 ulps', &
             ratio(maxval(abs(s - exact)), bound))
  write(*, '(a,es9.2,a,es9.2,a,es9.2)') '# r64 condition ', sum(abs(real(x, real128))) / abs(exact), &
      ': plain sum error ', abs(cf_sum(x) - exact), ', compensated ', abs(s(1) - exact)
end subroutine t_ill_r64

subroutine t_reduce_c32(n)
  integer, intent(in) :: n
  complex(c_float_complex), allocatable :: h(:,:), x(:), y(:)
  complex(c_float_complex) :: s(5), r3(3)
  real(c_float) :: a(5)
  complex(real64) :: ref
  real(real64) :: bound, rre, rim
  type(cf_matrix_c32) :: dh
  type(cf_vector_c32) :: dx, dy, dres
  character(len=24) :: tag
  logical :: good
  write(tag, '(a,a,i0)') 'c32', ' n=', n
  allocate(h(3, n))
  call fill(h)
  x = h(2, :)
  y = h(3, :)
  dh = h
  dx = x
  dy = y

  s = [cf_sum(dx), cf_sum(dh%row(2)), cf_sum(x), cf_sum(h(2, :)), cf_sum(x(n:1:-1))]
  ref = sum(cmplx(x, kind=real64))
  bound = 16 * epsilon(1._c_float) * sum(abs(cmplx(x, kind=real64)))
  call check(all(s(1:4) == s(1)) .and. all(abs(s - ref) <= bound), 'cf_sum ' // trim(tag) // layouts, &
             ratio(maxval(abs(s - ref)), bound))
  s = [cf_sum(dx, .true.), cf_sum(dh%row(2), .true.), cf_sum(x, .true.), cf_sum(h(2, :), .true.), &
       cf_sum(x(n:1:-1), compensated=.true.)]
  rre = sum(real(real(x), real64))
  rim = sum(real(aimag(x), real64))
  good = all(abs(real(s) - rre) <= 2 * spacing(real(rre, c_float))) .and. &
         all(abs(aimag(s) - rim) <= 2 * spacing(real(rim, c_float)))
  call check(all(s(1:4) == s(1)) .and. good, 'cf_sum compensated ' // trim(tag) // &
             ' within 2 ulps in each part' // layouts)
  a = [cf_sum_abs(dx), cf_sum_abs(dh%row(2)), cf_sum_abs(x), cf_sum_abs(h(2, :)), cf_sum_abs(x(n:1:-1))]
  rre = sum(abs(real(real(x), real64))) + sum(abs(real(aimag(x), real64)))
  bound = 16 * epsilon(1._c_float) * rre
  call check(all(a(1:4) == a(1)) .and. all(abs(a - rre) <= bound), 'cf_sum_abs ' // trim(tag) // &
             ' = sum(|re| + |im|)' // layouts, ratio(maxval(abs(a - rre)), bound))
  s = [cf_dot_product(dx, dy), cf_dot_product(dh%row(2), dh%row(3)), cf_dot_product(x, y), &
       cf_dot_product(h(2, :), h(3, :)), cf_dot_product(x(n:1:-1), y(n:1:-1))]
  ref = dot_product(cmplx(x, kind=real64), cmplx(y, kind=real64))
  bound = 32 * epsilon(1._c_float) * sum(abs(cmplx(x, kind=real64)) * abs(cmplx(y, kind=real64)))
  call check(all(s(1:4) == s(1)) .and. all(abs(s - ref) <= bound), 'cf_dot_product ' // trim(tag) // &
             ' = dot_product (x conjugated)' // layouts, ratio(maxval(abs(s - ref)), bound))
  a = [cf_norm2(dx), cf_norm2(dh%row(2)), cf_norm2(x), cf_norm2(h(2, :)), cf_norm2(x(n:1:-1))]
  rre = sqrt(sum(abs(cmplx(x, kind=real64))**2))
  bound = 16 * epsilon(1._c_float) * rre
  call check(all(a(1:4) == a(1)) .and. all(abs(a - rre) <= bound), 'cf_norm2 ' // trim(tag) // layouts, &
             ratio(maxval(abs(a - rre)), bound))

  r3 = 7
  dres = r3
  call cf_sum_to(dh%row(2), dres%elem(2), compensated=.true.)
  call cf_dot_product_to(dx, dh%row(3), dres%elem(3))
  call cf_synchronize()
  r3 = dres
  good = r3(1) == 7 .and. r3(2) == cf_sum(x, compensated=.true.) .and. r3(3) == cf_dot_product(x, y)
  call cf_sum_to(dx, dres%elem(1))
  call cf_synchronize()
  r3 = dres
  call check(good .and. r3(1) == cf_sum(x), 'cf_sum_to, cf_dot_product_to ' // trim(tag) // &
             ' (device result, views)')
end subroutine t_reduce_c32

!> A component of a derived-type array, whose stride (12 or 24 bytes) is not a whole number of
!> elements: gfortran packs it for the call, a compiler that passes byte strides reaches cufort's own
!> copy; either way the result must equal that of a contiguous copy to the bit.
subroutine t_odd_stride_c32()
  type :: rec
    complex(c_float_complex) :: z
    real(c_float) :: w
  end type rec
  type(rec), allocatable :: r(:)
  complex(c_float_complex), allocatable :: x(:), y(:)
  allocate(r(1023), x(1023), y(1023))
  call fill(x)
  call fill(y)
  r%z = x
  r%w = 1
  call check(cf_sum(r%z) == cf_sum(x) .and. cf_sum(r%z, .true.) == cf_sum(x, .true.) .and. &
             cf_norm2(r(1023:1:-2)%z) == cf_norm2(x(1023:1:-2)) .and. &
             cf_dot_product(r%z, y) == cf_dot_product(x, y), &
             'c32 host component r%z of a derived-type array (odd stride): same bits as a contiguous copy')
end subroutine t_odd_stride_c32

subroutine t_reduce_c64(n)
  integer, intent(in) :: n
  complex(c_double_complex), allocatable :: h(:,:), x(:), y(:)
  complex(c_double_complex) :: s(5), r3(3)
  real(c_double) :: a(5)
  complex(real128) :: ref
  real(real128) :: bound, rre, rim
  type(cf_matrix_c64) :: dh
  type(cf_vector_c64) :: dx, dy, dres
  character(len=24) :: tag
  logical :: good
  write(tag, '(a,a,i0)') 'c64', ' n=', n
  allocate(h(3, n))
  call fill(h)
  x = h(2, :)
  y = h(3, :)
  dh = h
  dx = x
  dy = y

  s = [cf_sum(dx), cf_sum(dh%row(2)), cf_sum(x), cf_sum(h(2, :)), cf_sum(x(n:1:-1))]
  ref = sum(cmplx(x, kind=real128))
  bound = 16 * epsilon(1._c_double) * sum(qabs(cmplx(x, kind=real128)))
  call check(all(s(1:4) == s(1)) .and. all(qabs(s - ref) <= bound), 'cf_sum ' // trim(tag) // layouts, &
             ratio(maxval(qabs(s - ref)), bound))
  s = [cf_sum(dx, .true.), cf_sum(dh%row(2), .true.), cf_sum(x, .true.), cf_sum(h(2, :), .true.), &
       cf_sum(x(n:1:-1), compensated=.true.)]
  rre = sum(real(real(x), real128))
  rim = sum(real(aimag(x), real128))
  good = all(abs(real(s) - rre) <= 2 * spacing(real(rre, c_double))) .and. &
         all(abs(aimag(s) - rim) <= 2 * spacing(real(rim, c_double)))
  call check(all(s(1:4) == s(1)) .and. good, 'cf_sum compensated ' // trim(tag) // &
             ' within 2 ulps in each part' // layouts)
  a = [cf_sum_abs(dx), cf_sum_abs(dh%row(2)), cf_sum_abs(x), cf_sum_abs(h(2, :)), cf_sum_abs(x(n:1:-1))]
  rre = sum(abs(real(real(x), real128))) + sum(abs(real(aimag(x), real128)))
  bound = 16 * epsilon(1._c_double) * rre
  call check(all(a(1:4) == a(1)) .and. all(abs(a - rre) <= bound), 'cf_sum_abs ' // trim(tag) // &
             ' = sum(|re| + |im|)' // layouts, ratio(maxval(abs(a - rre)), bound))
  s = [cf_dot_product(dx, dy), cf_dot_product(dh%row(2), dh%row(3)), cf_dot_product(x, y), &
       cf_dot_product(h(2, :), h(3, :)), cf_dot_product(x(n:1:-1), y(n:1:-1))]
  ref = dot_product(cmplx(x, kind=real128), cmplx(y, kind=real128))
  bound = 32 * epsilon(1._c_double) * sum(qabs(cmplx(x, kind=real128)) * qabs(cmplx(y, kind=real128)))
  call check(all(s(1:4) == s(1)) .and. all(qabs(s - ref) <= bound), 'cf_dot_product ' // trim(tag) // &
             ' = dot_product (x conjugated)' // layouts, ratio(maxval(qabs(s - ref)), bound))
  a = [cf_norm2(dx), cf_norm2(dh%row(2)), cf_norm2(x), cf_norm2(h(2, :)), cf_norm2(x(n:1:-1))]
  rre = qsqrt(sum(real(real(x), real128)**2 + real(aimag(x), real128)**2))
  bound = 16 * epsilon(1._c_double) * rre
  call check(all(a(1:4) == a(1)) .and. all(abs(a - rre) <= bound), 'cf_norm2 ' // trim(tag) // layouts, &
             ratio(maxval(abs(a - rre)), bound))

  r3 = 7
  dres = r3
  call cf_sum_to(dh%row(2), dres%elem(2), compensated=.true.)
  call cf_dot_product_to(dx, dh%row(3), dres%elem(3))
  call cf_synchronize()
  r3 = dres
  good = r3(1) == 7 .and. r3(2) == cf_sum(x, compensated=.true.) .and. r3(3) == cf_dot_product(x, y)
  call cf_sum_to(dx, dres%elem(1))
  call cf_synchronize()
  r3 = dres
  call check(good .and. r3(1) == cf_sum(x), 'cf_sum_to, cf_dot_product_to ' // trim(tag) // &
             ' (device result, views)')
end subroutine t_reduce_c64

!> A component of a derived-type array, whose stride (12 or 24 bytes) is not a whole number of
!> elements: gfortran packs it for the call, a compiler that passes byte strides reaches cufort's own
!> copy; either way the result must equal that of a contiguous copy to the bit.
subroutine t_odd_stride_c64()
  type :: rec
    complex(c_double_complex) :: z
    real(c_double) :: w
  end type rec
  type(rec), allocatable :: r(:)
  complex(c_double_complex), allocatable :: x(:), y(:)
  allocate(r(1023), x(1023), y(1023))
  call fill(x)
  call fill(y)
  r%z = x
  r%w = 1
  call check(cf_sum(r%z) == cf_sum(x) .and. cf_sum(r%z, .true.) == cf_sum(x, .true.) .and. &
             cf_norm2(r(1023:1:-2)%z) == cf_norm2(x(1023:1:-2)) .and. &
             cf_dot_product(r%z, y) == cf_dot_product(x, y), &
             'c64 host component r%z of a derived-type array (odd stride): same bits as a contiguous copy')
end subroutine t_odd_stride_c64

subroutine t_transpose_r32()
  real(c_float), allocatable :: a(:,:), b(:,:), c(:,:), big(:,:), bigb(:,:), sq(:,:), sq2(:,:), ref(:,:)
  real(c_float), allocatable :: rb(:,:), rg(:,:), rq(:,:)
  real(c_float) :: al
  type(cf_matrix_r32) :: da, db, dc, dbig, dbigb, dsq, dz, dz2
  real(c_float) :: tol
  integer :: st
  character(len=200) :: msg
  allocate(a(37, 53), b(53, 37), c(37, 53), big(40, 60), bigb(55, 41), sq(37, 37), sq2(37, 37))
  allocate(rb, mold=bigb)
  allocate(rg, mold=big)
  allocate(rq, mold=sq)
  call fill(a)
  call fill(big)
  call fill(bigb)
  call fill(sq)
  call fill(al)
  tol = 4 * epsilon(1._c_float) * abs(al)
  da = a
  call cf_allocate(db, 53, 37)
  call cf_transpose(da, db)
  b = db
  call check(all(b == transpose(a)), 'cf_transpose r32 37x53 device (trans T by default) = transpose, bits')
  call cf_transpose(da, db, trans='c')
  b = db
  call check(all(b == ct(a)), 'cf_transpose r32 37x53 device trans=c = conjugate transpose, bits')
  call cf_transpose(da, db, trans='C', alpha=al)
  b = db
  call check(all(abs(b - al * ct(a)) <= tol * abs(ct(a))), 'cf_transpose r32 37x53 device trans=C, alpha')
  call cf_allocate(dc, 37, 53)
  call cf_transpose(da, dc, trans='N', alpha=al)
  c = dc
  call check(all(abs(c - al * a) <= tol * abs(a)), 'cf_transpose r32 trans=N: b = alpha*a')
  ! views with ld > rows: a 37x53 block of a 40x60 matrix into a 53x37 block of a 55x41 one
  dbig = big
  dbigb = bigb
  call cf_transpose(dbig%sub(2, 38, 3, 55), dbigb%sub(2, 54, 4, 40))
  ref = bigb
  ref(2:54, 4:40) = transpose(big(2:38, 3:55))
  rb = dbigb
  call check(all(rb == ref), 'cf_transpose r32 device views (ld 40 -> 55), the rest untouched')

  b = 0
  call cf_transpose(a, b)
  call check(all(b == transpose(a)), 'cf_transpose r32 37x53 host arrays = transpose, bits')
  call cf_transpose(a, b, trans='C', alpha=al)
  call check(all(abs(b - al * ct(a)) <= tol * abs(ct(a))), 'cf_transpose r32 37x53 host trans=C, alpha')
  rb = bigb
  call cf_transpose(big(2:38, 3:55), rb(2:54, 4:40))
  call check(all(rb == ref), 'cf_transpose r32 host sections, the rest untouched')
  b = 0
  call cf_transpose(a(5:5, 3:9), b(3:9, 7:7))
  call check(all(b(3:9, 7) == a(5, 3:9)) .and. count(b /= 0) == 7, 'cf_transpose r32 host 1x7 section')
  call cf_allocate(dz, 0, 5)
  call cf_allocate(dz2, 5, 0)
  call cf_transpose(dz, dz2, stat=st)
  call check(st == 0, 'cf_transpose r32 0x5 -> 5x0 device matrices (nothing to do)')

  dsq = sq
  call cf_transpose_inplace(dsq)
  sq2 = dsq
  call check(all(sq2 == transpose(sq)), 'cf_transpose_inplace r32 37x37 device = transpose, bits')
  call cf_transpose_inplace(dsq, trans='C', alpha=al)
  rq = dsq
  call check(all(abs(rq - al * ct(sq2)) <= tol * abs(sq2)), 'cf_transpose_inplace r32 device trans=C, alpha')
  sq2 = sq
  call cf_transpose_inplace(sq2, 'c')
  call check(all(sq2 == ct(sq)), 'cf_transpose_inplace r32 37x37 host trans=c, bits')
  call cf_transpose_inplace(dbig%sub(3, 39, 2, 38))
  ref = big
  ref(3:39, 2:38) = transpose(big(3:39, 2:38))
  rg = dbig
  call check(all(rg == ref), 'cf_transpose_inplace r32 37x37 device view of a 40x60 matrix (ld 40)')
  rg = big
  call cf_transpose_inplace(rg(3:39, 2:38))
  call check(all(rg == ref), 'cf_transpose_inplace r32 37x37 host section')

  call cf_transpose(da, dc, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose: shape mismatch: argument b has 37 rows, expected 53', &
                   'cf_transpose r32 37x53 into 37x53: stat and errmsg')
  call cf_transpose(a, c, trans='t', stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose: shape mismatch: argument b has 37 rows, expected 53', &
                   'cf_transpose r32 host shape mismatch: stat and errmsg')
  call cf_transpose(da, dc, trans='N', stat=st)
  call check(st == 0, 'cf_transpose r32 trans=N takes b of a''s shape')
  call cf_transpose(da, db, trans='X', stat=st, errmsg=msg)
  call check_error(st, msg, "cf_transpose: argument trans = 'X' is illegal", 'cf_transpose r32 trans=X: stat and errmsg')
  call cf_transpose(da, db, trans='', stat=st, errmsg=msg)
  call check_error(st, msg, "cf_transpose: argument trans = '' is illegal", 'cf_transpose r32 trans='''': stat and errmsg')
  call cf_transpose_inplace(da, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose_inplace: a is 37x53, not square', &
                   'cf_transpose_inplace r32 37x53 device: stat and errmsg')
  call cf_transpose_inplace(c, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose_inplace: a is 37x53, not square', &
                   'cf_transpose_inplace r32 37x53 host: stat and errmsg')
  call cf_transpose_inplace(dsq, trans='Q', stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose_inplace: ', 'cf_transpose_inplace r32 trans=Q: stat and errmsg')
end subroutine t_transpose_r32

subroutine t_transpose_r64()
  real(c_double), allocatable :: a(:,:), b(:,:), c(:,:), big(:,:), bigb(:,:), sq(:,:), sq2(:,:), ref(:,:)
  real(c_double), allocatable :: rb(:,:), rg(:,:), rq(:,:)
  real(c_double) :: al
  type(cf_matrix_r64) :: da, db, dc, dbig, dbigb, dsq, dz, dz2
  real(c_double) :: tol
  integer :: st
  character(len=200) :: msg
  allocate(a(37, 53), b(53, 37), c(37, 53), big(40, 60), bigb(55, 41), sq(37, 37), sq2(37, 37))
  allocate(rb, mold=bigb)
  allocate(rg, mold=big)
  allocate(rq, mold=sq)
  call fill(a)
  call fill(big)
  call fill(bigb)
  call fill(sq)
  call fill(al)
  tol = 4 * epsilon(1._c_double) * abs(al)
  da = a
  call cf_allocate(db, 53, 37)
  call cf_transpose(da, db)
  b = db
  call check(all(b == transpose(a)), 'cf_transpose r64 37x53 device (trans T by default) = transpose, bits')
  call cf_transpose(da, db, trans='c')
  b = db
  call check(all(b == ct(a)), 'cf_transpose r64 37x53 device trans=c = conjugate transpose, bits')
  call cf_transpose(da, db, trans='C', alpha=al)
  b = db
  call check(all(abs(b - al * ct(a)) <= tol * abs(ct(a))), 'cf_transpose r64 37x53 device trans=C, alpha')
  call cf_allocate(dc, 37, 53)
  call cf_transpose(da, dc, trans='N', alpha=al)
  c = dc
  call check(all(abs(c - al * a) <= tol * abs(a)), 'cf_transpose r64 trans=N: b = alpha*a')
  ! views with ld > rows: a 37x53 block of a 40x60 matrix into a 53x37 block of a 55x41 one
  dbig = big
  dbigb = bigb
  call cf_transpose(dbig%sub(2, 38, 3, 55), dbigb%sub(2, 54, 4, 40))
  ref = bigb
  ref(2:54, 4:40) = transpose(big(2:38, 3:55))
  rb = dbigb
  call check(all(rb == ref), 'cf_transpose r64 device views (ld 40 -> 55), the rest untouched')

  b = 0
  call cf_transpose(a, b)
  call check(all(b == transpose(a)), 'cf_transpose r64 37x53 host arrays = transpose, bits')
  call cf_transpose(a, b, trans='C', alpha=al)
  call check(all(abs(b - al * ct(a)) <= tol * abs(ct(a))), 'cf_transpose r64 37x53 host trans=C, alpha')
  rb = bigb
  call cf_transpose(big(2:38, 3:55), rb(2:54, 4:40))
  call check(all(rb == ref), 'cf_transpose r64 host sections, the rest untouched')
  b = 0
  call cf_transpose(a(5:5, 3:9), b(3:9, 7:7))
  call check(all(b(3:9, 7) == a(5, 3:9)) .and. count(b /= 0) == 7, 'cf_transpose r64 host 1x7 section')
  call cf_allocate(dz, 0, 5)
  call cf_allocate(dz2, 5, 0)
  call cf_transpose(dz, dz2, stat=st)
  call check(st == 0, 'cf_transpose r64 0x5 -> 5x0 device matrices (nothing to do)')

  dsq = sq
  call cf_transpose_inplace(dsq)
  sq2 = dsq
  call check(all(sq2 == transpose(sq)), 'cf_transpose_inplace r64 37x37 device = transpose, bits')
  call cf_transpose_inplace(dsq, trans='C', alpha=al)
  rq = dsq
  call check(all(abs(rq - al * ct(sq2)) <= tol * abs(sq2)), 'cf_transpose_inplace r64 device trans=C, alpha')
  sq2 = sq
  call cf_transpose_inplace(sq2, 'c')
  call check(all(sq2 == ct(sq)), 'cf_transpose_inplace r64 37x37 host trans=c, bits')
  call cf_transpose_inplace(dbig%sub(3, 39, 2, 38))
  ref = big
  ref(3:39, 2:38) = transpose(big(3:39, 2:38))
  rg = dbig
  call check(all(rg == ref), 'cf_transpose_inplace r64 37x37 device view of a 40x60 matrix (ld 40)')
  rg = big
  call cf_transpose_inplace(rg(3:39, 2:38))
  call check(all(rg == ref), 'cf_transpose_inplace r64 37x37 host section')

  call cf_transpose(da, dc, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose: shape mismatch: argument b has 37 rows, expected 53', &
                   'cf_transpose r64 37x53 into 37x53: stat and errmsg')
  call cf_transpose(a, c, trans='t', stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose: shape mismatch: argument b has 37 rows, expected 53', &
                   'cf_transpose r64 host shape mismatch: stat and errmsg')
  call cf_transpose(da, dc, trans='N', stat=st)
  call check(st == 0, 'cf_transpose r64 trans=N takes b of a''s shape')
  call cf_transpose(da, db, trans='X', stat=st, errmsg=msg)
  call check_error(st, msg, "cf_transpose: argument trans = 'X' is illegal", 'cf_transpose r64 trans=X: stat and errmsg')
  call cf_transpose(da, db, trans='', stat=st, errmsg=msg)
  call check_error(st, msg, "cf_transpose: argument trans = '' is illegal", 'cf_transpose r64 trans='''': stat and errmsg')
  call cf_transpose_inplace(da, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose_inplace: a is 37x53, not square', &
                   'cf_transpose_inplace r64 37x53 device: stat and errmsg')
  call cf_transpose_inplace(c, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose_inplace: a is 37x53, not square', &
                   'cf_transpose_inplace r64 37x53 host: stat and errmsg')
  call cf_transpose_inplace(dsq, trans='Q', stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose_inplace: ', 'cf_transpose_inplace r64 trans=Q: stat and errmsg')
end subroutine t_transpose_r64

subroutine t_transpose_c32()
  complex(c_float_complex), allocatable :: a(:,:), b(:,:), c(:,:), big(:,:), bigb(:,:), sq(:,:), sq2(:,:), ref(:,:)
  complex(c_float_complex), allocatable :: rb(:,:), rg(:,:), rq(:,:)
  complex(c_float_complex) :: al
  type(cf_matrix_c32) :: da, db, dc, dbig, dbigb, dsq, dz, dz2
  real(c_float) :: tol
  integer :: st
  character(len=200) :: msg
  allocate(a(37, 53), b(53, 37), c(37, 53), big(40, 60), bigb(55, 41), sq(37, 37), sq2(37, 37))
  allocate(rb, mold=bigb)
  allocate(rg, mold=big)
  allocate(rq, mold=sq)
  call fill(a)
  call fill(big)
  call fill(bigb)
  call fill(sq)
  call fill(al)
  tol = 4 * epsilon(1._c_float) * abs(al)
  da = a
  call cf_allocate(db, 53, 37)
  call cf_transpose(da, db)
  b = db
  call check(all(b == transpose(a)), 'cf_transpose c32 37x53 device (trans T by default) = transpose, bits')
  call cf_transpose(da, db, trans='c')
  b = db
  call check(all(b == ct(a)), 'cf_transpose c32 37x53 device trans=c = conjugate transpose, bits')
  call cf_transpose(da, db, trans='C', alpha=al)
  b = db
  call check(all(abs(b - al * ct(a)) <= tol * abs(ct(a))), 'cf_transpose c32 37x53 device trans=C, alpha')
  call cf_allocate(dc, 37, 53)
  call cf_transpose(da, dc, trans='N', alpha=al)
  c = dc
  call check(all(abs(c - al * a) <= tol * abs(a)), 'cf_transpose c32 trans=N: b = alpha*a')
  ! views with ld > rows: a 37x53 block of a 40x60 matrix into a 53x37 block of a 55x41 one
  dbig = big
  dbigb = bigb
  call cf_transpose(dbig%sub(2, 38, 3, 55), dbigb%sub(2, 54, 4, 40))
  ref = bigb
  ref(2:54, 4:40) = transpose(big(2:38, 3:55))
  rb = dbigb
  call check(all(rb == ref), 'cf_transpose c32 device views (ld 40 -> 55), the rest untouched')

  b = 0
  call cf_transpose(a, b)
  call check(all(b == transpose(a)), 'cf_transpose c32 37x53 host arrays = transpose, bits')
  call cf_transpose(a, b, trans='C', alpha=al)
  call check(all(abs(b - al * ct(a)) <= tol * abs(ct(a))), 'cf_transpose c32 37x53 host trans=C, alpha')
  rb = bigb
  call cf_transpose(big(2:38, 3:55), rb(2:54, 4:40))
  call check(all(rb == ref), 'cf_transpose c32 host sections, the rest untouched')
  b = 0
  call cf_transpose(a(5:5, 3:9), b(3:9, 7:7))
  call check(all(b(3:9, 7) == a(5, 3:9)) .and. count(b /= 0) == 7, 'cf_transpose c32 host 1x7 section')
  call cf_allocate(dz, 0, 5)
  call cf_allocate(dz2, 5, 0)
  call cf_transpose(dz, dz2, stat=st)
  call check(st == 0, 'cf_transpose c32 0x5 -> 5x0 device matrices (nothing to do)')

  dsq = sq
  call cf_transpose_inplace(dsq)
  sq2 = dsq
  call check(all(sq2 == transpose(sq)), 'cf_transpose_inplace c32 37x37 device = transpose, bits')
  call cf_transpose_inplace(dsq, trans='C', alpha=al)
  rq = dsq
  call check(all(abs(rq - al * ct(sq2)) <= tol * abs(sq2)), 'cf_transpose_inplace c32 device trans=C, alpha')
  sq2 = sq
  call cf_transpose_inplace(sq2, 'c')
  call check(all(sq2 == ct(sq)), 'cf_transpose_inplace c32 37x37 host trans=c, bits')
  call cf_transpose_inplace(dbig%sub(3, 39, 2, 38))
  ref = big
  ref(3:39, 2:38) = transpose(big(3:39, 2:38))
  rg = dbig
  call check(all(rg == ref), 'cf_transpose_inplace c32 37x37 device view of a 40x60 matrix (ld 40)')
  rg = big
  call cf_transpose_inplace(rg(3:39, 2:38))
  call check(all(rg == ref), 'cf_transpose_inplace c32 37x37 host section')

  call cf_transpose(da, dc, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose: shape mismatch: argument b has 37 rows, expected 53', &
                   'cf_transpose c32 37x53 into 37x53: stat and errmsg')
  call cf_transpose(a, c, trans='t', stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose: shape mismatch: argument b has 37 rows, expected 53', &
                   'cf_transpose c32 host shape mismatch: stat and errmsg')
  call cf_transpose(da, dc, trans='N', stat=st)
  call check(st == 0, 'cf_transpose c32 trans=N takes b of a''s shape')
  call cf_transpose(da, db, trans='X', stat=st, errmsg=msg)
  call check_error(st, msg, "cf_transpose: argument trans = 'X' is illegal", 'cf_transpose c32 trans=X: stat and errmsg')
  call cf_transpose(da, db, trans='', stat=st, errmsg=msg)
  call check_error(st, msg, "cf_transpose: argument trans = '' is illegal", 'cf_transpose c32 trans='''': stat and errmsg')
  call cf_transpose_inplace(da, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose_inplace: a is 37x53, not square', &
                   'cf_transpose_inplace c32 37x53 device: stat and errmsg')
  call cf_transpose_inplace(c, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose_inplace: a is 37x53, not square', &
                   'cf_transpose_inplace c32 37x53 host: stat and errmsg')
  call cf_transpose_inplace(dsq, trans='Q', stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose_inplace: ', 'cf_transpose_inplace c32 trans=Q: stat and errmsg')
end subroutine t_transpose_c32

subroutine t_transpose_c64()
  complex(c_double_complex), allocatable :: a(:,:), b(:,:), c(:,:), big(:,:), bigb(:,:), sq(:,:), sq2(:,:), ref(:,:)
  complex(c_double_complex), allocatable :: rb(:,:), rg(:,:), rq(:,:)
  complex(c_double_complex) :: al
  type(cf_matrix_c64) :: da, db, dc, dbig, dbigb, dsq, dz, dz2
  real(c_double) :: tol
  integer :: st
  character(len=200) :: msg
  allocate(a(37, 53), b(53, 37), c(37, 53), big(40, 60), bigb(55, 41), sq(37, 37), sq2(37, 37))
  allocate(rb, mold=bigb)
  allocate(rg, mold=big)
  allocate(rq, mold=sq)
  call fill(a)
  call fill(big)
  call fill(bigb)
  call fill(sq)
  call fill(al)
  tol = 4 * epsilon(1._c_double) * abs(al)
  da = a
  call cf_allocate(db, 53, 37)
  call cf_transpose(da, db)
  b = db
  call check(all(b == transpose(a)), 'cf_transpose c64 37x53 device (trans T by default) = transpose, bits')
  call cf_transpose(da, db, trans='c')
  b = db
  call check(all(b == ct(a)), 'cf_transpose c64 37x53 device trans=c = conjugate transpose, bits')
  call cf_transpose(da, db, trans='C', alpha=al)
  b = db
  call check(all(abs(b - al * ct(a)) <= tol * abs(ct(a))), 'cf_transpose c64 37x53 device trans=C, alpha')
  call cf_allocate(dc, 37, 53)
  call cf_transpose(da, dc, trans='N', alpha=al)
  c = dc
  call check(all(abs(c - al * a) <= tol * abs(a)), 'cf_transpose c64 trans=N: b = alpha*a')
  ! views with ld > rows: a 37x53 block of a 40x60 matrix into a 53x37 block of a 55x41 one
  dbig = big
  dbigb = bigb
  call cf_transpose(dbig%sub(2, 38, 3, 55), dbigb%sub(2, 54, 4, 40))
  ref = bigb
  ref(2:54, 4:40) = transpose(big(2:38, 3:55))
  rb = dbigb
  call check(all(rb == ref), 'cf_transpose c64 device views (ld 40 -> 55), the rest untouched')

  b = 0
  call cf_transpose(a, b)
  call check(all(b == transpose(a)), 'cf_transpose c64 37x53 host arrays = transpose, bits')
  call cf_transpose(a, b, trans='C', alpha=al)
  call check(all(abs(b - al * ct(a)) <= tol * abs(ct(a))), 'cf_transpose c64 37x53 host trans=C, alpha')
  rb = bigb
  call cf_transpose(big(2:38, 3:55), rb(2:54, 4:40))
  call check(all(rb == ref), 'cf_transpose c64 host sections, the rest untouched')
  b = 0
  call cf_transpose(a(5:5, 3:9), b(3:9, 7:7))
  call check(all(b(3:9, 7) == a(5, 3:9)) .and. count(b /= 0) == 7, 'cf_transpose c64 host 1x7 section')
  call cf_allocate(dz, 0, 5)
  call cf_allocate(dz2, 5, 0)
  call cf_transpose(dz, dz2, stat=st)
  call check(st == 0, 'cf_transpose c64 0x5 -> 5x0 device matrices (nothing to do)')

  dsq = sq
  call cf_transpose_inplace(dsq)
  sq2 = dsq
  call check(all(sq2 == transpose(sq)), 'cf_transpose_inplace c64 37x37 device = transpose, bits')
  call cf_transpose_inplace(dsq, trans='C', alpha=al)
  rq = dsq
  call check(all(abs(rq - al * ct(sq2)) <= tol * abs(sq2)), 'cf_transpose_inplace c64 device trans=C, alpha')
  sq2 = sq
  call cf_transpose_inplace(sq2, 'c')
  call check(all(sq2 == ct(sq)), 'cf_transpose_inplace c64 37x37 host trans=c, bits')
  call cf_transpose_inplace(dbig%sub(3, 39, 2, 38))
  ref = big
  ref(3:39, 2:38) = transpose(big(3:39, 2:38))
  rg = dbig
  call check(all(rg == ref), 'cf_transpose_inplace c64 37x37 device view of a 40x60 matrix (ld 40)')
  rg = big
  call cf_transpose_inplace(rg(3:39, 2:38))
  call check(all(rg == ref), 'cf_transpose_inplace c64 37x37 host section')

  call cf_transpose(da, dc, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose: shape mismatch: argument b has 37 rows, expected 53', &
                   'cf_transpose c64 37x53 into 37x53: stat and errmsg')
  call cf_transpose(a, c, trans='t', stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose: shape mismatch: argument b has 37 rows, expected 53', &
                   'cf_transpose c64 host shape mismatch: stat and errmsg')
  call cf_transpose(da, dc, trans='N', stat=st)
  call check(st == 0, 'cf_transpose c64 trans=N takes b of a''s shape')
  call cf_transpose(da, db, trans='X', stat=st, errmsg=msg)
  call check_error(st, msg, "cf_transpose: argument trans = 'X' is illegal", 'cf_transpose c64 trans=X: stat and errmsg')
  call cf_transpose(da, db, trans='', stat=st, errmsg=msg)
  call check_error(st, msg, "cf_transpose: argument trans = '' is illegal", 'cf_transpose c64 trans='''': stat and errmsg')
  call cf_transpose_inplace(da, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose_inplace: a is 37x53, not square', &
                   'cf_transpose_inplace c64 37x53 device: stat and errmsg')
  call cf_transpose_inplace(c, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose_inplace: a is 37x53, not square', &
                   'cf_transpose_inplace c64 37x53 host: stat and errmsg')
  call cf_transpose_inplace(dsq, trans='Q', stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_transpose_inplace: ', 'cf_transpose_inplace c64 trans=Q: stat and errmsg')
end subroutine t_transpose_c64

subroutine t_errors()
  real(c_float) :: x(5), y(4)
  complex(c_double_complex) :: z(3), w(4)
  type(cf_vector_r64) :: dx, dr
  type(cf_vector_c64) :: dz, dw
  real(c_double) :: r
  complex(c_double_complex) :: c
  integer(int64) :: l
  integer :: st
  character(len=200) :: msg
  call fill(x)
  call fill(y)
  call fill(z)
  call fill(w)
  r = cf_dot_product(x, y, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_dot_product: shape mismatch: argument y has 4 elements, expected 5', &
                   'cf_dot_product of 5 and 4 host elements: stat and errmsg')
  dz = z
  dw = w
  c = cf_dot_product(dz, dw, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_dot_product: shape mismatch: argument y has 4 elements, expected 3', &
                   'cf_dot_product of 3 and 4 device elements: stat and errmsg')
  l = cf_count(x, 'lq', 0.5_c_float, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_count: ', 'cf_count with pred lq: stat and errmsg')
  call check(index(msg, 'lq') > 0, 'cf_count with pred lq: errmsg names the predicate')
  dx = [1._c_double, 2._c_double]
  call cf_allocate(dr, 2)
  call cf_sum_to(dx, dr, stat=st, errmsg=msg)
  call check_error(st, msg, 'cf_sum_to: shape mismatch: argument res has 2 elements, expected 1', &
                   'cf_sum_to into 2 elements: stat and errmsg')
  r = cf_sum(dx, stat=st)
  call check(st == 0 .and. r == 3, 'stat = 0 after a successful call')
  ! without stat: one line naming the procedure, then error stop (in a child process)
  call self_test('--die-transpose', 'cf_transpose: shape mismatch: argument b has 3 rows, expected 4')
  call self_test('--die-count', 'cf_count: ')
end subroutine t_errors

!> The same data on every run; CUFORT_TEST_SEED=n picks other data.
subroutine seed()
  integer, allocatable :: s(:)
  integer :: n, i, v, st
  character(len=24) :: env
  v = 2024
  call get_environment_variable('CUFORT_TEST_SEED', env, status=st)
  if (st == 0) read(env, *, iostat=st) v
  call random_seed(size=n)
  allocate(s(n))
  s = [(v + 7919 * i, i = 1, n)]
  call random_seed(put=s)
  write(*, '(a,i0)') '# seed ', v
end subroutine seed

subroutine self_test(arg, prefix)
  character(len=*), intent(in) :: arg, prefix
  character(len=1024) :: exe, line, tmp, out
  integer :: es, cs, u, ios, nlines, tl
  character(len=256) :: cmsg
  call get_command_argument(0, exe)
  call get_environment_variable('TMPDIR', tmp, length=tl)
  if (tl == 0) tmp = '/tmp'
  out = trim(tmp) // '/cufort_test_fortran_kernels' // arg(2:) // '.txt'
  es = 0
  cmsg = ''
  ! cmdstat: without it, a runtime may end this program when the child fails (LLVM flang's does);
  ! the child's exit status is still in es
  call execute_command_line(trim(exe) // ' ' // arg // ' > ' // trim(out) // ' 2>&1', exitstat=es, &
                            cmdstat=cs, cmdmsg=cmsg)
  nlines = 0
  open(newunit=u, file=trim(out), status='old', action='read', iostat=ios)
  if (ios == 0) then
    do
      read(u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      if (index(line, prefix) == 1) nlines = nlines + 1
    end do
    close(u, status='delete')
  end if
  call check(es /= 0 .and. nlines == 1, 'without stat, an error prints one line "' // prefix // &
             '..." and stops (' // arg // ')')
  if (es == 0) write(*, '(a,i0,a,a)') '#   the child did not fail: cmdstat ', cs, ' ', trim(cmsg)
end subroutine self_test

subroutine die(arg)
  character(len=*), intent(in) :: arg
  real(c_float) :: a(3, 4), b(3, 4)
  integer(int64) :: l
  a = 1
  b = 1
  if (arg == '--die-transpose') call cf_transpose(a, b)
  if (arg == '--die-count') l = cf_count(a(1, :), 'xx', 1.0_c_float)
end subroutine die

end module kernels_tests

program test_fortran_kernels
  use kernels_tests
  implicit none
  integer, parameter :: sizes(5) = [0, 1, 33, 1023, 100003]
  character(len=64) :: arg
  integer :: i
  call get_command_argument(1, arg)
  if (len_trim(arg) > 0) then
    call die(trim(arg))
    stop
  end if
  call seed()
  do i = 1, size(sizes)
    call t_reduce_r32(sizes(i))
    call t_reduce_r64(sizes(i))
    call t_reduce_c32(sizes(i))
    call t_reduce_c64(sizes(i))
  end do
  call t_ill_r32()
  call t_ill_r64()
  call t_odd_stride_c32()
  call t_odd_stride_c64()
  call t_transpose_r32()
  call t_transpose_r64()
  call t_transpose_c32()
  call t_transpose_c64()
  call t_errors()
  call cf_shutdown()
  write(*, '(i0,a,i0,a)') npass, ' passed, ', nfail, ' failed'
  if (nfail /= 0) error stop 1
end program test_fortran_kernels
