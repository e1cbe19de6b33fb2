! test_kernels_f77_thunking.f90 — the legacy cuf_* names of cufort's own kernels (f77_kernels.h)
! through libcufort_f77_thunking: ordinary Fortran arrays, staged by the thunk engine; reductions
! against the Fortran intrinsics, strided and negative increments, transposes out of place and in
! place, and an error kept for cublas_get_error.  Prints ok/FAIL lines and "N passed, M failed".
! Its own xerbla (after the program) records calls and returns: a refused kernel call, which has
! no BLAS argument position, must not call it, even right after a BLAS call that did.
program test_kernels_f77_thunking
  implicit none
  integer, parameter :: n = 100003
  real(4) :: x(n), y(n), r4, a(37, 29), b(29, 37), q(33, 33), q0(33, 33), w(40, 40)
  real(8) :: xd(n), r8, asum
  complex(4) :: cx(n), cy(n), c4, ca(17, 13), cb(13, 17)
  complex(8) :: za(9, 11), zb(11, 9)
  integer :: st, npass, nfail, loc
  integer :: cublas_get_error, cublas_shutdown
  real(4) :: cuf_ssum, cuf_ssumk, cuf_sasum, cuf_sdot, cuf_snrm2, cuf_smin, cuf_smax
  real(8) :: cuf_dsum, cuf_dnrm2, cuf_dmax
  complex(4) :: cuf_cdotc
  integer :: cuf_sminloc, cuf_smaxloc, cuf_dcount, cuf_scount
  integer :: xerbla_calls, xerbla_info
  character(len=32) :: xerbla_name
  common /xerbla_seen/ xerbla_calls, xerbla_info, xerbla_name
  external :: cuf_stranspose, cuf_ctranspose, cuf_ztranspose, cuf_stranspose_inplace

  npass = 0
  nfail = 0
  call fill(x, n)
  call fill(y, n)
  xd = x
  xd(2:n:2) = xd(2:n:2) * 1.0d-3
  cx = cmplx(x, y)
  cy = cmplx(y, -x)
  asum = sum(abs(dble(x)))
  r4 = cuf_ssum(n, x, 1)
  call check(abs(r4 - sum(dble(x))) <= 1d-5 * asum, 'cuf_ssum')
  r4 = cuf_ssum(n / 3, x, -3)
  call check(abs(r4 - sum(dble(x(1:3 * (n / 3) - 2:3)))) <= 1d-5 * asum, 'cuf_ssum incx=-3')
  r4 = cuf_ssumk(n, x, 1)
  call check(abs(r4 - sum(dble(x))) <= 2 * spacing(abs(real(sum(dble(x)), 4))), 'cuf_ssumk (compensated)')
  r8 = cuf_dsum(n, xd, 1)
  call check(abs(r8 - sum(xd)) <= 1d-13 * sum(abs(xd)), 'cuf_dsum')
  r4 = cuf_sasum(n / 2, x, 2)
  call check(abs(r4 - sum(abs(dble(x(1:2 * (n / 2) - 1:2))))) <= 1d-5 * asum, 'cuf_sasum incx=2')
  r4 = cuf_sdot(n, x, 1, y, -1)
  call check(abs(r4 - dot_product(dble(x), dble(y(n:1:-1)))) <= 1d-5 * n, 'cuf_sdot incy=-1')
  r4 = cuf_snrm2(n, x, 1)
  call check(abs(r4 - norm2(dble(x))) <= 1d-5 * norm2(dble(x)), 'cuf_snrm2')
  r8 = cuf_dnrm2(n, xd, 1)
  ! the reference is summed in quad: gfortran's NORM2 is itself ~1e-14 off at this n, and the
  ! data change every run (random seed); its square root is taken in double (within an ulp): some
  ! runtimes have no quad-precision SQRT (LLVM flang's)
  call check(abs(r8 - sqrt(real(sum(real(xd, 16)**2), 8))) <= 1d-14 * norm2(xd), 'cuf_dnrm2')
  r4 = cuf_smin(n, x, 1)
  call check(r4 == minval(x), 'cuf_smin')
  r4 = cuf_smax(n, x, 1)
  call check(r4 == maxval(x), 'cuf_smax')
  r8 = cuf_dmax(n, xd, 1)
  call check(r8 == maxval(xd), 'cuf_dmax')
  loc = cuf_sminloc(n, x, 1)
  call check(loc == minloc(x, 1), 'cuf_sminloc (1-based, as MINLOC)')
  loc = cuf_smaxloc(n, x, -1)
  call check(loc == maxloc(x(n:1:-1), 1), 'cuf_smaxloc incx=-1 (BLAS order)')
  loc = cuf_dcount(n, xd, 1, 'gt', 0.5d0)
  call check(loc == count(xd > 0.5d0), 'cuf_dcount gt')
  c4 = cuf_cdotc(n, cx, 1, cy, 1)
  call check(abs(c4 - dot_product(cmplx(dble(x), dble(y), 8), cmplx(dble(y), -dble(x), 8))) <= 1d-4 * n, &
             'cuf_cdotc (as DOT_PRODUCT: conjugates x)')

  call fill(a, size(a))
  b = 0
  call cuf_stranspose('T', 37, 29, 2.0, a, 37, b, 29)
  call check(all(b == 2.0 * transpose(a)), 'cuf_stranspose T alpha=2')
  call fill(q0, size(q0))
  w = -1
  w(1:33, 1:33) = q0
  call cuf_stranspose_inplace('T', 33, 1.0, w, 40)
  q = w(1:33, 1:33)
  call check(all(q == transpose(q0)) .and. all(w(34:40, :) == -1), 'cuf_stranspose_inplace 33x33 lda=40')
  ca = cmplx(a(1:17, 1:13), a(18:34, 14:26))
  call cuf_ctranspose('c', 17, 13, (1.0, 0.0), ca, 17, cb, 13)
  call check(all(cb == conjg(transpose(ca))), 'cuf_ctranspose c')
  za = cmplx(a(1:9, 1:11), a(10:18, 12:22), 8)
  call cuf_ztranspose('T', 9, 11, (1.0d0, 0.0d0), za, 9, zb, 11)
  call check(all(zb == transpose(za)), 'cuf_ztranspose T')
  st = cublas_get_error()
  call cuf_stranspose('T', 37, 29, 2.0, a, 36, b, 29)
  st = cublas_get_error()
  call check(st == 7, 'cuf_stranspose lda < m: cublas_get_error = 7 (invalid value)')
  xerbla_calls = 0
  call cublas_sgemm('N', 'N', 37, 29, 29, 1.0, a, 36, b, 29, 0.0, w, 40)
  st = cublas_get_error()
  call check(xerbla_calls == 1 .and. xerbla_info == 8, 'cublas_sgemm lda < m: xerbla, parameter 8')
  xerbla_calls = 0
  loc = cuf_scount(n, x, 1, 'XX', 0.5)
  st = cublas_get_error()
  call check(st == 7 .and. xerbla_calls == 0, &
             'cuf_scount with an unknown predicate right after: status 7, no xerbla call')
  st = cublas_shutdown()   ! returns every device allocation: a clean leak check
  write (*, '(i0, a, i0, a)') npass, ' passed, ', nfail, ' failed'
  if (nfail > 0) stop 1
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (cond) then
      npass = npass + 1
      write (*, '(a, a)') 'ok test_kernels_f77_thunking ', what
    else
      nfail = nfail + 1
      write (*, '(a, a)') 'FAIL test_kernels_f77_thunking ', what
    end if
  end subroutine
  subroutine fill(v, m)
    integer, intent(in) :: m
    real(4), intent(out) :: v(m)
    real(8) :: r(2, m)
    call random_number(r)
    v = real(sign(0.5d0 + r(1, :), r(2, :) - 0.5d0), 4)
  end subroutine
end program

! records what the library reports and returns, as a program's own xerbla may
subroutine xerbla(srname, info)
  character(*), intent(in) :: srname
  integer, intent(in) :: info
  integer :: xerbla_calls, xerbla_info
  character(len=32) :: xerbla_name
  common /xerbla_seen/ xerbla_calls, xerbla_info, xerbla_name
  xerbla_calls = xerbla_calls + 1
  xerbla_info = info
  xerbla_name = srname
end subroutine
