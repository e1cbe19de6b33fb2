! examples/modern/sgemm.f90 -- seed 001's SGEMM example with `use cufort`: one generic cf_gemm,
! first on ordinary host arrays (cufort moves the data: the thunking mode), then on device matrices
! that stay on the GPU (d_A = A, cf_gemm(d_A, d_B, d_C), C = d_C), timed with events.  The data are
! small integers and alpha, beta powers of two, so both results must equal a float64 triple loop
! exactly and print the same checksum as examples/sgemm_example.F90.
!   gfortran sgemm.f90 -Ibuild/include -Lbuild/lib -lcufort_fortran -lcufort -Wl,-rpath,$PWD/build/lib
program sgemm_modern
  use cufort
  implicit none
  integer, parameter :: m1 = 512
  real, dimension(m1, m1) :: A, B, C, C0, C2
  type(cf_matrix_r32) :: d_A, d_B, d_C
  type(cf_event) :: t0, t1
  real :: alpha, beta, ms
  integer :: i, j, npass, nfail

  do j = 1, m1
    do i = 1, m1
      A(i, j) = real(mod(3 * i + 7 * j, 17) - 8)
      B(i, j) = real(mod(5 * i + 2 * j, 15) - 7)
      C(i, j) = real(mod(i + j, 9) - 4)
    end do
  end do
  C0 = C
  alpha = 0.5
  beta = 2.0
  npass = 0
  nfail = 0

  ! host arrays: dimensions and leading dimensions come from the arrays, trans defaults to 'N'
  call cf_gemm(A, B, C, alpha=alpha, beta=beta)
  call report('cf_gemm on host arrays', C)

  ! device arrays: allocated by the assignments, the product stays on the device until C2 = d_C
  d_A = A
  d_B = B
  d_C = C0
  call cf_event_create(t0)
  call cf_event_create(t1)
  call cf_event_record(t0)
  call cf_gemm(d_A, d_B, d_C, alpha=alpha, beta=beta)
  call cf_event_record(t1)
  ms = cf_elapsed_ms(t0, t1)
  C2 = d_C
  call report('cf_gemm on device matrices', C2)
  write(*, '(a,f0.3,a,a,a)') 'time: ', ms, ' ms on the device (backend ', cf_backend_name(), ')'
  call cf_event_destroy(t0)
  call cf_event_destroy(t1)
  call cf_shutdown()               ! frees what is left on the device
  write(*, '(i0,a,i0,a)') npass, ' passed, ', nfail, ' failed'
  if (nfail /= 0) error stop 1

contains

  subroutine report(what, R)
    character(len=*), intent(in) :: what
    real, intent(in) :: R(m1, m1)
    double precision :: ref, checksum, abssum, maxdiff
    integer :: l
    checksum = 0
    abssum = 0
    maxdiff = 0
    do j = 1, m1
      do i = 1, m1
        ref = 0
        do l = 1, m1
          ref = ref + dble(A(i, l)) * dble(B(l, j))
        end do
        ref = dble(alpha) * ref + dble(beta) * dble(C0(i, j))
        maxdiff = max(maxdiff, abs(ref - dble(R(i, j))))
        checksum = checksum + dble(R(i, j))
        abssum = abssum + abs(dble(R(i, j)))
      end do
    end do
    write(*, '(a,a)') 'called: ', what
    write(*, '(a,f0.1)') 'checksum: ', checksum
    write(*, '(a,f0.1)') 'abssum: ', abssum
    write(*, '(a,es10.3)') 'maxdiff: ', maxdiff
    if (maxdiff == 0) then
      write(*, '(a,a)') 'ok ', what
      npass = npass + 1
    else
      write(*, '(a,a)') 'FAIL ', what
      nfail = nfail + 1
    end if
  end subroutine report

end program sgemm_modern
