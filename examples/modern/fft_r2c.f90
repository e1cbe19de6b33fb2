! examples/modern/fft_r2c.f90 -- a real signal to its half spectrum and back with `use cufort`.
! A real plan is made from the real array and its complex partner: for r(n1, n2) the spectrum is
! c(n1/2+1, n2) (Fortran's first dimension is the one halved: cuFFT's last).  forward is R2C,
! inverse is C2R, and the round trip gives n1*n2*r back (normalize=.true.: r).
!   gfortran fft_r2c.f90 -Ibuild/include -Lbuild/lib -lcufort_fortran -lcufort -Wl,-rpath,$PWD/build/lib
program fft_r2c
  use cufort
  use, intrinsic :: iso_fortran_env, only: real64
  implicit none
  integer, parameter :: n1 = 300, n2 = 64, dp = real64
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  real(dp) :: r(n1, n2), back(n1, n2)
  complex(dp) :: c(n1 / 2 + 1, n2)
  type(cf_matrix_r64) :: d_r
  type(cf_matrix_c64) :: d_c
  type(cf_fft_plan) :: plan
  integer :: i, j, npass, nfail
  npass = 0
  nfail = 0
  ! a cosine of frequency (5, 3) on top of a constant 2
  do j = 1, n2
    do i = 1, n1
      r(i, j) = 2 + cos(2 * pi * (5 * (i - 1) / real(n1, dp) + 3 * (j - 1) / real(n2, dp)))
    end do
  end do

  call cf_fft_plan_create(plan, r, c)            ! D2Z forward, Z2D inverse
  call cf_fft_forward(plan, r, c)                ! host arrays
  call check('c(1,1) = 2*n1*n2 (the constant)', abs(c(1, 1) - 2 * n1 * n2) < 1e-8_dp * n1 * n2)
  call check('c(6,4) = n1*n2/2 (the cosine)', abs(c(6, 4) - n1 * n2 / 2) < 1e-8_dp * n1 * n2)
  c(1, 1) = 0
  c(6, 4) = 0
  call check('nothing else in the spectrum', maxval(abs(c)) < 1e-8_dp * n1 * n2)

  ! on the GPU: R2C, then C2R normalised, the data staying in device memory
  d_r = r
  call cf_allocate(d_c, n1 / 2 + 1, n2)
  call cf_fft_forward(plan, d_r, d_c)
  call cf_fft_inverse(plan, d_c, d_r, normalize=.true.)
  back = d_r
  call check('device arrays: normalised R2C then C2R gives r', maxval(abs(back - r)) < 1e-12_dp)

  call cf_fft_plan_destroy(plan)
  call cf_deallocate(d_r)
  call cf_deallocate(d_c)
  call cf_shutdown()
  write(*, '(i0,a,i0,a)') npass, ' passed, ', nfail, ' failed'
  if (nfail /= 0) error stop 1

contains

  subroutine check(what, good)
    character(len=*), intent(in) :: what
    logical, intent(in) :: good
    if (good) then
      write(*, '(a,a)') 'ok ', what
      npass = npass + 1
    else
      write(*, '(a,a)') 'FAIL ', what
      nfail = nfail + 1
    end if
  end subroutine check

end program fft_r2c
