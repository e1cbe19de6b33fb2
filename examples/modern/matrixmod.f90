! examples/modern/matrixmod.f90 -- seed 001's matrixmod with `use cufort`: the matrix lives on the GPU
! in a cf_matrix_r32, and modify scales a row and a column through 1-based views (no IDX2F, no byte
! offsets, no integer*8 pointers).  Prints the same matrix as examples/matrixmod_*.f, then checks it.
!   gfortran matrixmod.f90 -Ibuild/include -Lbuild/lib -lcufort_fortran -lcufort -Wl,-rpath,$PWD/build/lib
program matrixmod
  use cufort
  implicit none
  integer, parameter :: M = 6, N = 5
  real :: a(M, N), expect(M, N)
  type(cf_matrix_r32) :: d_a
  integer :: i, j

  do j = 1, N
    do i = 1, M
      a(i, j) = (i - 1) * M + j
    end do
  end do
  expect = a
  expect(2, 3:N) = 16 * expect(2, 3:N)
  expect(2:M, 3) = 12 * expect(2:M, 3)

  d_a = a                          ! allocates the device matrix and copies a into it
  call modify(d_a, 2, 3, 16.0, 12.0)
  a = d_a                          ! copies it back

  do j = 1, N
    write(*, '(6F7.0)') (a(i, j), i = 1, M)
  end do
  call cf_shutdown()               ! frees what is left on the device
  if (all(a == expect)) then
    write(*, '(a)') 'ok matrixmod (use cufort): row 2 from column 3 scaled by 16, column 3 from row 2 by 12'
    write(*, '(a)') '1 passed, 0 failed'
  else
    write(*, '(a)') 'FAIL matrixmod (use cufort): the matrix differs from the expectation'
    write(*, '(a)') '0 passed, 1 failed'
    error stop 1
  end if

contains

  subroutine modify(d_m, p, q, alpha, beta)
    type(cf_matrix_r32), intent(in) :: d_m
    integer, intent(in) :: p, q
    real, intent(in) :: alpha, beta
    call cf_scal(d_m%row(p, q), alpha)    ! row p from column q on: n-q+1 elements, stride ld
    call cf_scal(d_m%col(q, p), beta)     ! column q from row p on
  end subroutine modify

end program matrixmod
