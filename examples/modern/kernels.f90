! examples/modern/kernels.f90 -- cufort's own kernels from `use cufort`: reductions named after the
! intrinsics they mirror (cf_sum, cf_norm2, cf_dot_product, cf_maxloc, cf_count, ...) on a device
! matrix's columns and rows (views), on host arrays, and a transpose; each result is checked against
! the intrinsic.
!   gfortran kernels.f90 -Ibuild/include -Lbuild/lib -lcufort_fortran -lcufort -Wl,-rpath,$PWD/build/lib
program kernels
  use cufort
  use, intrinsic :: iso_fortran_env, only: int64, real64
  implicit none
  integer, parameter :: M = 1000, N = 300
  real(real64) :: a(M, N), at(N, M), norms(N), s
  type(cf_matrix_r64) :: d_a, d_at
  integer :: j, npass = 0, nfail = 0

  call random_number(a)
  a = a - 0.5_real64
  d_a = a                                    ! allocates the device matrix and copies a into it

  do j = 1, N                                ! a column is a view: no copy, no count, no stride
    norms(j) = cf_norm2(d_a%col(j))
  end do
  call check('column norms', all(abs(norms - norm2(a, dim=1)) <= 1e-13_real64 * norm2(a, dim=1)))
  s = cf_sum(d_a%row(7), compensated=.true.) ! a row: increment M, walked in place on the device
  call check('compensated sum of row 7', abs(s - sum(a(7, :))) <= 1e-12_real64)
  call check('dot_product of two columns', &
             abs(cf_dot_product(d_a%col(1), d_a%col(2)) - dot_product(a(:, 1), a(:, 2))) <= 1e-12_real64)
  call check('maxloc of column 5 (1-based, first of ties)', cf_maxloc(d_a%col(5)) == maxloc(a(:, 5), 1))
  call check('count of positive elements of row 3 (a host section)', &
             cf_count(a(3, :), 'gt', 0.0_real64) == count(a(3, :) > 0))

  call cf_allocate(d_at, N, M)
  call cf_transpose(d_a, d_at)               ! d_at = transpose(d_a), out of place on the device
  at = d_at
  call check('transpose on the device', all(at == transpose(a)))

  call cf_shutdown()                         ! frees what is left on the device
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

end program kernels
