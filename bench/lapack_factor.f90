! lapack_factor.f90 — LAPACK's factorizations timed as a legacy program calls them: one routine on
! one n x n host array, the same call again on a fresh copy of the same matrix.  Linked against
! the system's liblapack.so.3 and libblas.so.3 only, so that what runs is chosen at run time:
! reference LAPACK on the drop-in (LD_PRELOAD=libcufort_blas.so), or OpenBLAS's own LAPACK (its
! libopenblas under both names), with nothing else changed.
!
! Usage: lapack_factor routine n [reps]     routine: dpotrf | dgetrf | dgeqrf | zpotrf | dgemm
! (dgemm: C = A A, the BLAS's own rate, for scale)
! Prints one line per call ("routine n call seconds gflops") and a check of sampled entries of the
! factors against the matrix: the residual relative to the matrix's largest entry, and PASS or
! FAIL.  Exit status 1 on FAIL or a nonzero INFO.
program lapack_factor
  implicit none
  integer, parameter :: dp = kind(1.0d0), samples = 64
  character(len=16) :: routine, arg
  integer :: n, reps, r, info, lwork
  integer(8) :: c0, c1, rate
  double precision :: secs, flops, err
  double precision, allocatable :: a0(:, :), a(:, :), tau(:), work(:)
  complex(dp), allocatable :: z0(:, :), z(:, :)
  integer, allocatable :: ipiv(:)

  call get_command_argument(1, routine)
  call get_command_argument(2, arg)
  read (arg, *) n
  reps = 3
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg)
    read (arg, *) reps
  end if

  select case (trim(routine))
  case ('dpotrf')
    flops = real(n, dp)**3 / 3
  case ('dgetrf')
    flops = 2 * real(n, dp)**3 / 3
  case ('dgeqrf')
    flops = 4 * real(n, dp)**3 / 3
  case ('zpotrf')
    flops = 4 * real(n, dp)**3 / 3
  case ('dgemm')
    flops = 2 * real(n, dp)**3
  case default
    print '(a)', 'usage: lapack_factor dpotrf|dgetrf|dgeqrf|zpotrf|dgemm n [reps]'
    stop 2
  end select

  if (routine == 'zpotrf') then
    call hermitian(n, z0)
    allocate (z(n, n))
  else
    call general(n, a0, routine == 'dpotrf')
    allocate (a(n, n))
  end if
  if (routine == 'dgetrf') allocate (ipiv(n))
  if (routine == 'dgeqrf') then
    allocate (tau(n), work(1))
    call dgeqrf(n, n, a0, n, tau, work, -1, info)   ! workspace query: A is not touched
    lwork = int(work(1))
    deallocate (work)
    allocate (work(lwork))
  end if

  do r = 1, reps
    if (routine == 'zpotrf') then
      z = z0
    else
      a = a0
    end if
    call system_clock(c0, rate)
    select case (trim(routine))
    case ('dpotrf')
      call dpotrf('L', n, a, n, info)
    case ('dgetrf')
      call dgetrf(n, n, a, n, ipiv, info)
    case ('dgeqrf')
      call dgeqrf(n, n, a, n, tau, work, lwork, info)
    case ('zpotrf')
      call zpotrf('L', n, z, n, info)
    case ('dgemm')
      call dgemm('N', 'N', n, n, n, 1d0, a0, n, a0, n, 0d0, a, n)
      info = 0
    end select
    call system_clock(c1)
    secs = real(c1 - c0, dp) / real(rate, dp)
    print '(a,1x,i0,1x,i0,1x,f10.4,1x,f10.1)', trim(routine), n, r, secs, flops / secs * 1d-9
    if (info /= 0) then
      print '(a,i0)', 'FAIL: info = ', info
      stop 1
    end if
  end do

  select case (trim(routine))
  case ('dpotrf')
    err = check_cholesky()
  case ('dgetrf')
    err = check_lu()
  case ('dgeqrf')
    err = check_qr()
  case ('zpotrf')
    err = check_zcholesky()
  case ('dgemm')
    err = check_gemm()
  end select
  if (err < 1d-10) then
    print '(a,1x,a,1x,es9.2,1x,a)', trim(routine), 'check', err, 'PASS'
  else
    print '(a,1x,a,1x,es9.2,1x,a)', trim(routine), 'check', err, 'FAIL'
    stop 1
  end if

contains

  ! random entries in [0, 1), made symmetric with n on the diagonal when spd
  subroutine general(n, m, spd)
    integer, intent(in) :: n
    double precision, allocatable, intent(out) :: m(:, :)
    logical, intent(in) :: spd
    integer :: i, j
    allocate (m(n, n))
    call seed()
    call random_number(m)
    if (spd) then
      do j = 1, n
        do i = j + 1, n
          m(j, i) = m(i, j)
        end do
        m(j, j) = m(j, j) + n
      end do
    end if
  end subroutine

  subroutine hermitian(n, m)
    integer, intent(in) :: n
    complex(dp), allocatable, intent(out) :: m(:, :)
    double precision, allocatable :: re(:, :), im(:, :)
    integer :: i, j
    allocate (m(n, n), re(n, n), im(n, n))
    call seed()
    call random_number(re)
    call random_number(im)
    m = cmplx(re, im, dp)
    do j = 1, n
      do i = j + 1, n
        m(j, i) = conjg(m(i, j))
      end do
      m(j, j) = cmplx(real(m(j, j)) + n, 0, dp)
    end do
  end subroutine

  subroutine seed()
    integer :: k
    integer, allocatable :: s(:)
    call random_seed(size=k)
    allocate (s(k))
    s = 20261126
    call random_seed(put=s)
  end subroutine

  ! sampled (i, j), the same in every run
  subroutine pick(k, i, j)
    integer, intent(in) :: k
    integer, intent(out) :: i, j
    i = 1 + mod(k * 7919 + 13, n)
    j = 1 + mod(k * 104729 + 5, n)
    if (k == 1) then
      i = n
      j = n
    end if
  end subroutine

  double precision function check_cholesky() result(worst)
    integer :: k, i, j, m
    worst = 0
    do k = 1, samples
      call pick(k, i, j)
      m = min(i, j)
      worst = max(worst, abs(dot_product(a(i, 1:m), a(j, 1:m)) - a0(i, j)) / (2 * n))
    end do
  end function

  double precision function check_zcholesky() result(worst)
    integer :: k, i, j, m
    worst = 0
    do k = 1, samples
      call pick(k, i, j)
      m = min(i, j)
      ! (L L^H)(i, j) = sum L(i, k) conjg(L(j, k)); dot_product conjugates its first argument
      worst = max(worst, abs(dot_product(z(j, 1:m), z(i, 1:m)) - z0(i, j)) / (2 * n))
    end do
  end function

  double precision function check_gemm() result(worst)
    integer :: k, i, j
    worst = 0
    do k = 1, samples
      call pick(k, i, j)
      worst = max(worst, abs(dot_product(a0(i, :), a0(:, j)) - a(i, j)) / n)
    end do
  end function

  ! P A = L U: row i of L U is row perm(i) of A
  double precision function check_lu() result(worst)
    integer :: k, i, j, m, t
    integer, allocatable :: perm(:)
    double precision :: lu
    allocate (perm(n))
    perm = [(i, i = 1, n)]
    do i = 1, n
      t = perm(i)
      perm(i) = perm(ipiv(i))
      perm(ipiv(i)) = t
    end do
    worst = 0
    do k = 1, samples
      call pick(k, i, j)
      m = min(i - 1, j)
      lu = dot_product(a(i, 1:m), a(1:m, j))
      if (i <= j) lu = lu + a(i, j)
      worst = max(worst, abs(lu - a0(perm(i), j)) / n)
    end do
  end function

  ! |R(j, j)| of the first columns: the norm of what is left of column j of A after its
  ! projection on the ones before, here the first: |R(1, 1)| = ||A(:, 1)||
  double precision function check_qr() result(worst)
    double precision :: r12
    worst = abs(abs(a(1, 1)) - norm2(a0(:, 1))) / norm2(a0(:, 1))
    ! R(1, 2) = q1' A(:, 2), q1 = A(:, 1) / R(1, 1)
    r12 = dot_product(a0(:, 1), a0(:, 2)) / a(1, 1)
    worst = max(worst, abs(r12 - a(1, 2)) / norm2(a0(:, 2)))
  end function
end program
