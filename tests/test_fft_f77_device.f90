! test_fft_f77_device.f90 — the legacy FFT names from Fortran, non-thunking flavour: data kept on the
! GPU with cublas_alloc/cublas_set_vector, integer*8 device addresses passed to cufft_exec_*.
! Dimensions in Fortran order, checked against FFTW3 through its Fortran interface.
program test_fft_f77_device
  implicit none
  include 'fftw3.f'
  integer, parameter :: CUFFT_Z2Z = int(z'69'), CUFFT_Z2D = int(z'6c'), nx = 12, ny = 5
  integer :: passed = 0, failed = 0, st
  integer :: cufft_plan2d, cufft_exec_z2z, cufft_exec_z2d, cufft_destroy, cufft_set_normalize
  integer :: cublas_init, cublas_alloc, cublas_set_vector, cublas_get_vector, cublas_free
  integer :: cublas_shutdown
  external cufft_plan2d, cufft_exec_z2z, cufft_exec_z2d, cufft_destroy, cufft_set_normalize
  external cublas_init, cublas_alloc, cublas_set_vector, cublas_get_vector, cublas_free
  external cublas_shutdown
  complex(8) :: x(nx, ny), y(nx, ny), want(nx, ny), half(nx / 2 + 1, ny)
  double precision :: r(2, nx, ny), real_out(nx, ny), real_want(nx, ny)
  integer(8) :: plan, ref, d_x, d_y
  st = cufft_plan2d(plan, nx, ny, CUFFT_Z2Z)
  call check(st == 1, 'non-thunking names insist on cublas_init (status 1)', dble(st))
  st = cublas_init()
  call random_number(r)
  x = cmplx(0.1d0 + r(1, :, :), 0.2d0 - r(2, :, :), kind=8)
  y = x
  call dfftw_plan_dft_2d(ref, nx, ny, y, want, FFTW_FORWARD, FFTW_ESTIMATE)
  call dfftw_execute_dft(ref, y, want)
  call dfftw_destroy_plan(ref)

  st = cublas_alloc(nx * ny, 16, d_x)
  call check(st == 0, 'cublas_alloc', dble(st))
  st = cublas_alloc(nx * ny, 16, d_y)
  st = cublas_set_vector(nx * ny, 16, x, 1, d_x, 1)
  st = cufft_plan2d(plan, nx, ny, CUFFT_Z2Z)
  call check(st == 0, 'plan2d z2z', dble(st))
  st = cufft_exec_z2z(plan, d_x, d_y, FFTW_FORWARD)
  call check(st == 0, 'exec z2z on device addresses', dble(st))
  st = cublas_get_vector(nx * ny, 16, d_y, 1, y, 1)
  call check(maxval(abs(y - want)) <= 1d-12 * maxval(abs(want)), &
             'z2z 2d on the GPU, Fortran order, equals FFTW', maxval(abs(y - want)))
  st = cufft_exec_z2z(plan, x, d_y, FFTW_FORWARD)
  call check(st == 101, 'a host array where a device address belongs is refused (101)', dble(st))
  st = cufft_destroy(plan)

  ! complex-to-real of a real signal's half spectrum, normalised: gives the signal back
  real_want = r(1, :, :) + 0.1d0
  call dfftw_plan_dft_r2c_2d(ref, nx, ny, real_want, half, FFTW_ESTIMATE)
  call dfftw_execute_dft_r2c(ref, real_want, half)
  call dfftw_destroy_plan(ref)
  st = cublas_set_vector((nx / 2 + 1) * ny, 16, half, 1, d_x, 1)
  st = cufft_plan2d(plan, nx, ny, CUFFT_Z2D)
  st = cufft_set_normalize(plan, 1)
  st = cufft_exec_z2d(plan, d_x, d_y)
  call check(st == 0, 'exec z2d on device addresses', dble(st))
  st = cublas_get_vector(nx * ny, 8, d_y, 1, real_out, 1)
  call check(maxval(abs(real_out - real_want)) <= 1d-12, 'normalised z2d gives the signal back', &
             maxval(abs(real_out - real_want)))
  st = cufft_destroy(plan)
  st = cublas_free(d_x)
  st = cublas_free(d_y)
  st = cublas_shutdown()
  write(*, '(i0, a, i0, a)') passed, ' passed, ', failed, ' failed'
  if (failed > 0) error stop 1

contains

  subroutine check(ok, what, err)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    double precision, intent(in) :: err
    if (ok) then
      passed = passed + 1
      write(*, '(a, a)') 'ok fft_f77_device ', what
    else
      failed = failed + 1
      write(*, '(a, a, a, es10.3)') 'FAIL fft_f77_device ', what, ': error ', err
    end if
  end subroutine

end program test_fft_f77_device
