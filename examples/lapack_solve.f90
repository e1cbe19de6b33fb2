! lapack_solve.f90 — an unchanged LAPACK program: solves A x = b by Cholesky (DPOTRF, DPOTRS) and
! by LU (DGESV) and prints the residuals.  Linked against -llapack -lblas; run with the drop-in BLAS
! under it (LD_PRELOAD=libcufort_blas.so) LAPACK's blocked factorizations make their Level-3 calls
! on the GPU, and CUFORT_LAPACK_NB sets the block size they are made with (docs/dropin-blas.md).
!
! Usage: lapack_solve [n] [cholesky|lu|both]
program lapack_solve
  implicit none
  integer :: n, info, i, j
  character(len=16) :: arg, which
  double precision, allocatable :: a(:, :), a0(:, :), b(:), x(:)
  integer, allocatable :: ipiv(:)

  n = 1000
  which = 'both'
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) call get_command_argument(2, which)
  allocate (a(n, n), a0(n, n), b(n), x(n), ipiv(n))
  call random_number(a0)
  call random_number(b)

  if (which /= 'lu') then
    do j = 1, n          ! symmetric, n added on the diagonal: positive definite
      do i = j + 1, n
        a0(j, i) = a0(i, j)
      end do
      a0(j, j) = a0(j, j) + n
    end do
    a = a0
    x = b
    call dpotrf('L', n, a, n, info)
    if (info == 0) call dpotrs('L', n, 1, a, n, x, n, info)
    call report('cholesky', info)
  end if
  if (which /= 'cholesky') then
    call random_number(a0)
    a = a0
    x = b
    call dgesv(n, 1, a, n, ipiv, x, n, info)
    call report('lu', info)
  end if

contains

  ! ||A x - b|| / (||A|| ||x||), with A as it was before the factorization
  subroutine report(what, info)
    character(len=*), intent(in) :: what
    integer, intent(in) :: info
    double precision :: r
    if (info /= 0) then
      print '(a,a,i0)', what, ' info ', info
      stop 1
    end if
    r = norm2(matmul(a0, x) - b) / (maxval(sum(abs(a0), dim=1)) * norm2(x))
    print '(a,a,es10.3)', what, ' residual ', r
    if (r > 1d-12) stop 1
  end subroutine
end program
