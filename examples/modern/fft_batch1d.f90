! examples/modern/fft_batch1d.f90 -- seed 001's first CUFFT example with `use cufort`: ten 1-D
! complex transforms of 256 points, in place, forward then inverse.  The plan comes from the array
! (its shape, its kind, its last dimension as the batch); no handle, no cudaMalloc, no destroy.
! cuFFT is unnormalised, so the round trip gives 256*x back.
!   gfortran fft_batch1d.f90 -Ibuild/include -Lbuild/lib -lcufort_fortran -lcufort -Wl,-rpath,$PWD/build/lib
program fft_batch1d
  use cufort
  implicit none
  integer, parameter :: nx = 256, batch = 10
  complex :: data(nx, batch), x(nx, batch)
  real :: re(nx, batch), im(nx, batch)
  type(cf_matrix_c32) :: d_data
  type(cf_fft_plan) :: plan
  integer :: npass, nfail
  npass = 0
  nfail = 0
  call random_number(re)
  call random_number(im)
  x = cmplx(re, im)

  call cf_fft_plan_create(plan, x, batch=batch)  ! cufftPlan1d(&plan, NX, CUFFT_C2C, BATCH)

  ! on the GPU: the data stays in device memory between the two transforms
  d_data = x
  call cf_fft_forward(plan, d_data)              ! cufftExecC2C(plan, data, data, CUFFT_FORWARD)
  call cf_fft_inverse(plan, d_data)              ! cufftExecC2C(plan, data, data, CUFFT_INVERSE)
  data = d_data
  call check('device array: inverse(forward(x)) = nx*x', data, nx * x)

  ! the same on a host array: each call copies it to the GPU and back (thunking)
  data = x
  call cf_fft_forward(plan, data)
  call cf_fft_inverse(plan, data)
  call check('host array: inverse(forward(x)) = nx*x', data, nx * x)

  data = x
  call cf_fft_forward(plan, data)
  call cf_fft_inverse(plan, data, normalize=.true.)   ! divides by nx
  call check('with normalize=.true. the round trip gives x', data, x)

  call cf_fft_plan_destroy(plan)
  call cf_deallocate(d_data)
  call cf_shutdown()
  write(*, '(i0,a,i0,a)') npass, ' passed, ', nfail, ' failed'
  if (nfail /= 0) error stop 1

contains

  subroutine check(what, got, want)
    character(len=*), intent(in) :: what
    complex, intent(in) :: got(:,:), want(:,:)
    real :: err
    err = maxval(abs(got - want)) / maxval(abs(want))
    if (err < 1e-5) then
      write(*, '(a,a,es9.2,a)') 'ok ', what // ' (max relative error ', err, ')'
      npass = npass + 1
    else
      write(*, '(a,a,es9.2)') 'FAIL ', what // ': max relative error ', err
      nfail = nfail + 1
    end if
  end subroutine check

end program fft_batch1d
