! fftw_f03.f90 -- a modern FFTW3 program through FFTW's own fftw3.f03 (the C API bound with
! bind(C)): fftw_alloc_complex, plan_dft_1d with new-array execution, plan_many_dft_r2c, fftwf_ 2-d.
! Linked against -lfftw3 -lfftw3f, relinked against -lcufort_fftw, or under LD_PRELOAD: the same
! numbers.  Each transform is checked against a direct sum or its inverse (status 1 when off).
program fftw_f03
  use, intrinsic :: iso_c_binding
  implicit none
  include 'fftw3.f03'
  integer, parameter :: n = 96, nr = 40, nb = 3, nx = 16, ny = 12
  type(c_ptr) :: plan, back, pa, pb
  complex(c_double_complex), pointer :: a(:), b(:)
  real(c_double) :: r(nr, nb), r2(nr, nb)
  complex(c_double_complex) :: c(nr / 2 + 1, nb)
  complex(c_float_complex) :: s(nx, ny), t(nx, ny)
  real(c_double) :: twopi, worst
  complex(c_double_complex) :: z
  integer :: i, j, k, nbad
  integer(c_int) :: dims(1)

  nbad = 0
  twopi = 8 * atan(1d0)

  ! fftw_alloc_complex'ed arrays; new-array execution on the same arrays
  pa = fftw_alloc_complex(int(n, c_size_t))
  pb = fftw_alloc_complex(int(n, c_size_t))
  call c_f_pointer(pa, a, [n])
  call c_f_pointer(pb, b, [n])
  plan = fftw_plan_dft_1d(n, a, b, FFTW_FORWARD, FFTW_ESTIMATE)
  do i = 1, n
    a(i) = cmplx(cos(0.2d0 * i), 1d0 / i, c_double_complex)
  end do
  call fftw_execute_dft(plan, a, b)
  worst = 0
  do k = 1, n
    z = 0
    do j = 1, n
      z = z + a(j) * exp(cmplx(0d0, -twopi * (j - 1) * (k - 1) / n, c_double_complex))
    end do
    worst = max(worst, abs(z - b(k)))
  end do
  call report('f03_dft_1d', worst / maxval(abs(b)), 1d-12, sum(abs(b)))
  call fftw_destroy_plan(plan)
  call fftw_free(pa)
  call fftw_free(pb)

  ! a batch of real transforms and back
  dims(1) = nr
  plan = fftw_plan_many_dft_r2c(1, dims, nb, r, dims, 1, nr, c, [nr / 2 + 1], 1, nr / 2 + 1, FFTW_ESTIMATE)
  back = fftw_plan_many_dft_c2r(1, dims, nb, c, [nr / 2 + 1], 1, nr / 2 + 1, r2, dims, 1, nr, FFTW_ESTIMATE)
  do k = 1, nb
    do i = 1, nr
      r(i, k) = sin(0.3d0 * i * k) + 0.1d0 * k
    end do
  end do
  call fftw_execute_dft_r2c(plan, r, c)
  worst = sum(abs(c))
  call fftw_execute_dft_c2r(back, c, r2)
  call report('f03_many_r2c+c2r', maxval(abs(r2 / nr - r)) / maxval(abs(r)), 1d-12, worst)
  call fftw_destroy_plan(plan)
  call fftw_destroy_plan(back)

  ! single precision 2-d (C order: ny x nx for a Fortran nx x ny array)
  plan = fftwf_plan_dft_2d(ny, nx, s, s, FFTW_FORWARD, FFTW_ESTIMATE)
  back = fftwf_plan_dft_2d(ny, nx, s, s, FFTW_BACKWARD, FFTW_ESTIMATE)
  do j = 1, ny
    do i = 1, nx
      s(i, j) = cmplx(real(i) / j, real(j - i) / 7, c_float_complex)
    end do
  end do
  t = s
  call fftwf_execute_dft(plan, s, s)
  worst = sum(abs(s))
  call fftwf_execute_dft(back, s, s)
  call report('f03_fftwf_2d', real(maxval(abs(s / (nx * ny) - t)) / maxval(abs(t)), c_double), 1d-5, worst)
  call fftwf_destroy_plan(plan)
  call fftwf_destroy_plan(back)

  if (nbad /= 0) stop 1
contains
  subroutine report(name, err, tol, value)
    character(*), intent(in) :: name
    real(c_double), intent(in) :: err, tol, value
    write (*, '(a, a, 1x, es22.15)') 'value ', name, value
    if (err <= tol) then
      write (*, '(a, a, 1x, es10.3)') 'ok ', name, err
    else
      write (*, '(a, a, 1x, es10.3)') 'FAIL ', name, err
      nbad = nbad + 1
    end if
  end subroutine
end program
