! scalapack_bench.f90 — one ScaLAPACK routine timed under mpirun, as a distributed program calls it:
! block-cyclic n x n matrices on the squarest process grid the rank count allows, one untimed
! warm-up call, then `reps` timed calls.  It calls no cufort routine: its BLAS is whatever it is
! linked or preloaded with (bench/mpi_run.sh runs it on OpenBLAS and under the drop-in).
!
! Usage: scalapack_bench routine n nb [reps]     routine: pdgemm | pdpotrf | pdgetrf; reps: 3
! Rank 0 prints one line per call and the same as CSV ("routine,n,nb,ranks,call,seconds,gflops",
! call "first" for the warm-up, "rep" for the others).  Each call's time is the slowest rank's,
! from a barrier to its return.  Then a check: pdgemm, sampled entries of C against dot products
! of the distributed row of A and column of B; the factorizations, one solve with a random
! right-hand side and its scaled residual ||A x - b|| / (||A|| ||x|| n eps).  "check ok" or
! "check FAILED"; exit status 1 on FAILED.
program scalapack_bench
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0), samples = 8
  double precision, parameter :: gemm_tol = 1d-10, residual_tol = 100
  character(len=16) :: routine, arg
  integer :: n, nb, reps, r, ierr, iam, nprocs, ictxt, nprow, npcol, myrow, mycol, info, mloc, nloc
  integer :: desca(9), descv(9)
  integer, allocatable :: gi(:), gj(:), ipiv(:)
  double precision, allocatable :: a(:, :), a0(:, :), b(:, :), c(:, :)
  double precision :: flops, t0, mine, slowest, err
  logical :: ok
  integer, external :: numroc, indxl2g

  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, iam, ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)
  if (command_argument_count() < 3) then
    if (iam == 0) print '(a)', 'usage: scalapack_bench pdgemm|pdpotrf|pdgetrf n nb [reps]'
    call mpi_finalize(ierr)
    stop 2
  end if
  call get_command_argument(1, routine)
  call get_command_argument(2, arg)
  read (arg, *) n
  call get_command_argument(3, arg)
  read (arg, *) nb
  reps = 3
  if (command_argument_count() >= 4) then
    call get_command_argument(4, arg)
    read (arg, *) reps
  end if
  select case (trim(routine))
  case ('pdgemm')
    flops = 2 * real(n, dp)**3
  case ('pdpotrf')
    flops = real(n, dp)**3 / 3
  case ('pdgetrf')
    flops = 2 * real(n, dp)**3 / 3
  case default
    if (iam == 0) print '(a)', 'scalapack_bench: unknown routine ' // trim(routine)
    call mpi_finalize(ierr)
    stop 2
  end select

  nprow = int(sqrt(dble(nprocs)))
  do while (mod(nprocs, nprow) /= 0)
    nprow = nprow - 1
  end do
  npcol = nprocs / nprow
  call blacs_get(-1, 0, ictxt)
  call blacs_gridinit(ictxt, 'R', nprow, npcol)
  call blacs_gridinfo(ictxt, nprow, npcol, myrow, mycol)

  mloc = numroc(n, nb, myrow, 0, nprow)
  nloc = numroc(n, nb, mycol, 0, npcol)
  call descinit(desca, n, n, nb, nb, 0, 0, ictxt, max(1, mloc), info)
  call descinit(descv, n, 1, nb, nb, 0, 0, ictxt, max(1, mloc), info)
  allocate (gi(mloc), gj(nloc))
  gi = [(indxl2g(r, nb, myrow, 0, nprow), r = 1, mloc)]
  gj = [(indxl2g(r, nb, mycol, 0, npcol), r = 1, nloc)]
  allocate (a(max(1, mloc), max(1, nloc)))

  if (routine == 'pdgemm') then
    allocate (b, c, mold=a)
    call fill(a, 1, .false., .false.)
    call fill(b, 2, .false., .false.)
    c = 0
  else
    allocate (a0, mold=a)
    call fill(a0, 1, routine == 'pdpotrf', .true.)
    if (routine == 'pdgetrf') allocate (ipiv(mloc + nb))
  end if

  ok = .true.
  do r = 0, reps
    if (allocated(a0)) a = a0
    call mpi_barrier(mpi_comm_world, ierr)
    t0 = mpi_wtime()
    select case (trim(routine))
    case ('pdgemm')
      call pdgemm('N', 'N', n, n, n, 1d0, a, 1, 1, desca, b, 1, 1, desca, 0d0, c, 1, 1, desca)
      info = 0
    case ('pdpotrf')
      call pdpotrf('L', n, a, 1, 1, desca, info)
    case ('pdgetrf')
      call pdgetrf(n, n, a, 1, 1, desca, ipiv, info)
    end select
    mine = mpi_wtime() - t0
    call mpi_reduce(mine, slowest, 1, mpi_double_precision, mpi_max, 0, mpi_comm_world, ierr)
    if (iam == 0) then
      print '(a,1x,a,i0,1x,a,i0,1x,i0,a,i0,a,i0,a,1x,a,1x,f10.4,a,f10.1,a)', trim(routine), 'n ', n, &
        'nb ', nb, nprocs, ' ranks (', nprow, ' x ', npcol, ')', merge('first', 'rep  ', r == 0), &
        slowest, ' s', flops / slowest * 1d-9, ' GFLOP/s'
      print '(a,3(",",i0),",",a,",",a,",",a)', trim(routine), n, nb, nprocs, &
        trim(merge('first', 'rep  ', r == 0)), fixed(slowest, '(f0.6)'), &
        fixed(flops / slowest * 1d-9, '(f0.2)')
    end if
    if (info /= 0) then
      if (myrow == 0 .and. mycol == 0) print '(a,a,i0)', trim(routine), ': info = ', info
      ok = .false.
      exit
    end if
  end do

  if (ok) then
    if (routine == 'pdgemm') then
      err = gemm_error()
      ok = err < gemm_tol
    else
      err = scaled_residual()
      ok = err < residual_tol
    end if
    if (iam == 0) print '(a,1x,a,a,es9.2)', trim(routine), trim(merge('check ok    ', 'check FAILED', ok)), &
      merge(': relative error ', ': scaled residual', routine == 'pdgemm'), err
  else if (iam == 0) then
    print '(a,1x,a)', trim(routine), 'check FAILED'
  end if

  call blacs_gridexit(ictxt)
  call blacs_exit(1)   ! 1: MPI was started here, and is finalized here
  call mpi_finalize(ierr)
  if (.not. ok) stop 1

contains

  ! x in format fmt, with the leading zero that f0.d leaves out
  function fixed(x, fmt) result(s)
    double precision, intent(in) :: x
    character(len=*), intent(in) :: fmt
    character(len=:), allocatable :: s
    character(len=32) :: buf
    write (buf, fmt) x
    s = trim(adjustl(buf))
    if (s(1:1) == '.') s = '0' // s
  end function

  ! The local part of matrix `which`: every entry a function of its global (i, j) alone, so the
  ! matrix is the same on every grid; symmetric when asked, and n added on the diagonal when
  ! dominant (the factorizations' matrices: SPD for pdpotrf, no growth for pdgetrf).
  subroutine fill(m, which, symmetric, dominant)
    double precision, intent(out) :: m(:, :)
    integer, intent(in) :: which
    logical, intent(in) :: symmetric, dominant
    integer :: i, j
    do j = 1, nloc
      do i = 1, mloc
        if (symmetric) then
          m(i, j) = entry(min(gi(i), gj(j)), max(gi(i), gj(j)), which)
        else
          m(i, j) = entry(gi(i), gj(j), which)
        end if
        if (dominant .and. gi(i) == gj(j)) m(i, j) = m(i, j) + n
      end do
    end do
  end subroutine

  ! a hash of (i, j, which) onto [-1, 1), never 0
  double precision function entry(i, j, which)
    integer, intent(in) :: i, j, which
    integer(8) :: h
    h = ieor(int(i, 8) * 73856093_8, ieor(int(j, 8) * 19349663_8, int(which, 8) * 83492791_8))
    h = iand(ieor(h, ishft(h, -13)), 2147483647_8) * 1274126177_8
    entry = dble(mod(iand(h, 2147483647_8), 2000001_8)) / 1d6 - 1d0
    if (abs(entry) < 1d-7) entry = 0.5d0
  end function

  ! C(i, j) at sampled (i, j) against row i of A times column j of B, both as distributed: each
  ! rank puts the pieces it holds into a zeroed buffer and a sum gathers them on every rank.
  ! Error relative to sum |A(i, k) B(k, j)|, which no cancellation can make small.
  double precision function gemm_error() result(worst)
    double precision, allocatable :: buf(:), tot(:)
    integer :: k, i, j, l, q
    allocate (buf(2 * n + 1), tot(2 * n + 1))
    worst = 0
    do k = 1, samples
      i = 1 + mod(k * 7919 + 13, n)
      j = 1 + mod(k * 104729 + 5, n)
      if (k == 1) then
        i = n
        j = n
      end if
      buf = 0
      do l = 1, mloc
        if (gi(l) /= i) cycle
        buf(gj) = a(l, 1:nloc)
        do q = 1, nloc
          if (gj(q) == j) buf(2 * n + 1) = c(l, q)
        end do
      end do
      do q = 1, nloc
        if (gj(q) == j) buf(n + gi) = b(1:mloc, q)
      end do
      call mpi_allreduce(buf, tot, 2 * n + 1, mpi_double_precision, mpi_sum, mpi_comm_world, ierr)
      worst = max(worst, abs(dot_product(tot(1:n), tot(n + 1:2 * n)) - tot(2 * n + 1)) &
                         / sum(abs(tot(1:n) * tot(n + 1:2 * n))))
    end do
  end function

  ! x from the factors for a random b, then ||A x - b||_inf / (||A||_inf ||x||_inf n eps)
  double precision function scaled_residual() result(res)
    double precision, allocatable :: x(:, :), rhs(:, :), work(:)
    double precision :: anorm, xnorm, rnorm
    double precision, external :: pdlange
    allocate (x(max(1, mloc), 1), rhs(max(1, mloc), 1), work(mloc + nloc + nb))
    x = 0
    if (mycol == 0) x(1:mloc, 1) = [(entry(gi(r), 1, 3), r = 1, mloc)]
    rhs = x
    if (routine == 'pdpotrf') then
      call pdpotrs('L', n, 1, a, 1, 1, desca, x, 1, 1, descv, info)
    else
      call pdgetrs('N', n, 1, a, 1, 1, desca, ipiv, x, 1, 1, descv, info)
    end if
    call pdgemv('N', n, n, 1d0, a0, 1, 1, desca, x, 1, 1, descv, 1, -1d0, rhs, 1, 1, descv, 1)
    anorm = pdlange('I', n, n, a0, 1, 1, desca, work)
    xnorm = pdlange('I', n, 1, x, 1, 1, descv, work)
    rnorm = pdlange('I', n, 1, rhs, 1, 1, descv, work)
    res = rnorm / (anorm * xnorm * n * epsilon(1d0))
    if (info /= 0) res = huge(1d0)
  end function
end program scalapack_bench
