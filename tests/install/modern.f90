! modern.f90 -- a `use cufort` program built against an installed cufort (tests/examples/install.sh):
! cf_version, then cf_axpy on device vectors.  Prints "version X.Y.Z" and "axpy ok (<backend>)",
! or stops with 1.
program modern
  use cufort
  implicit none
  integer, parameter :: n = 41
  real(cf_r64) :: x(n), y(n), want(n)
  type(cf_vector_r64) :: d_x, d_y
  integer :: i, major, minor, patch
  character(len=:), allocatable :: v
  character(len=32) :: parts

  v = cf_version(major, minor, patch)
  write(parts, '(i0,".",i0,".",i0)') major, minor, patch
  write(*, '(a)') 'version ' // v
  if (trim(parts) /= v) then
    write(*, '(a)') 'cf_version: parts ' // trim(parts) // ' disagree with ' // v
    error stop 1
  end if

  do i = 1, n
    x(i) = 1.0_cf_r64 + 0.5_cf_r64 * (i - 1)
    y(i) = 3.0_cf_r64 - 0.25_cf_r64 * (i - 1)
  end do
  want = 2 * x + y
  d_x = x                          ! device vectors, allocated by the assignments
  d_y = y
  call cf_axpy(d_x, d_y, alpha=2.0_cf_r64)
  y = d_y
  if (any(y /= want)) then
    write(*, '(a)') 'axpy: wrong result'
    error stop 1
  end if
  write(*, '(a)') 'axpy ok (' // cf_backend_name() // ')'
  call cf_shutdown()
end program modern
