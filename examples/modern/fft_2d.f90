! examples/modern/fft_2d.f90 -- seed 001's second CUFFT example with `use cufort`: a 2-D complex
! transform of 256 x 128 points out of place, then the inverse in place on the result.  The seed's C
! array data[NX][NY] is x(NY, NX) in Fortran; the plan takes the Fortran shape as it is and reverses
! it for cuFFT, so the seed's row-major note needs no thought.
!   gfortran fft_2d.f90 -Ibuild/include -Lbuild/lib -lcufort_fortran -lcufort -Wl,-rpath,$PWD/build/lib
program fft_2d
  use cufort
  implicit none
  integer, parameter :: nx = 256, ny = 128
  complex :: x(ny, nx), spectrum(ny, nx), back(ny, nx)
  real :: re(ny, nx), im(ny, nx)
  type(cf_matrix_c32) :: d_idata, d_odata
  type(cf_fft_plan) :: plan
  integer :: npass, nfail
  npass = 0
  nfail = 0
  call random_number(re)
  call random_number(im)
  x = cmplx(re, im)

  call cf_fft_plan_create(plan, x)               ! cufftPlan2d(&plan, NX, NY, CUFFT_C2C)
  d_idata = x
  call cf_allocate(d_odata, mold=x)
  call cf_fft_forward(plan, d_idata, d_odata)    ! out of place
  spectrum = d_odata
  call check('the zero-frequency coefficient is sum(x)', &
             abs(spectrum(1,1) - sum(cmplx(x, kind=kind(1d0)))) < 1e-5 * abs(sum(x)))
  call cf_fft_inverse(plan, d_odata)             ! in place on the result
  back = d_odata
  call check('inverse(forward(x)) = nx*ny*x', maxval(abs(back - nx * ny * x)) / (nx * ny) < 1e-5)

  ! host arrays, out of place both ways
  call cf_fft_forward(plan, x, spectrum)
  call cf_fft_inverse(plan, spectrum, back, normalize=.true.)
  call check('host arrays: normalised round trip gives x', maxval(abs(back - x)) < 1e-5)

  call cf_fft_plan_destroy(plan)
  call cf_deallocate(d_idata)
  call cf_deallocate(d_odata)
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

end program fft_2d
