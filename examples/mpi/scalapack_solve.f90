! scalapack_solve.f90 — an unchanged ScaLAPACK program: B = A*X0 by PDGEMM on a block-cyclic,
! diagonally dominant matrix, then A X = B by PDGESV, and X checked against X0 on every rank.
! It calls no cufort routine: its BLAS is whatever it is linked or preloaded with (README, "MPI").
!   mpif90 -O2 scalapack_solve.f90 -o solve -lscalapack-openmpi                  (CPU BLAS)
!   mpirun -np 4 -x LD_PRELOAD=.../libcufort_blas.so ./solve                      (cufort, unchanged binary)
!   mpif90 -O2 scalapack_solve.f90 -o solve -L.../lib -Wl,--no-as-needed -lcufort_blas \
!          -Wl,--as-needed -lscalapack-openmpi                                    (relinked; without
!          --no-as-needed a linker that drops unneeded libraries keeps ScaLAPACK on the system BLAS)
! Arguments (all optional): n, nb, nrhs.  Prints one line from rank 0 ending in PASSED or FAILED.
program scalapack_solve
    implicit none
    integer :: n = 600, nb = 32, nrhs = 40
    integer :: iam, nprocs, ictxt, nprow, npcol, myrow, mycol, info, i, j, mloc, nloc, rloc, lld
    integer :: desca(9), descb(9)
    double precision, allocatable :: a(:, :), x0(:, :), b(:, :)
    integer, allocatable :: ipiv(:)
    double precision :: err(1), big(1), t0, t1
    character(len=32) :: arg
    integer, external :: numroc, indxl2g
    double precision, external :: mpi_wtime

    if (command_argument_count() >= 1) then
        call get_command_argument(1, arg)
        read (arg, *) n
    end if
    if (command_argument_count() >= 2) then
        call get_command_argument(2, arg)
        read (arg, *) nb
    end if
    if (command_argument_count() >= 3) then
        call get_command_argument(3, arg)
        read (arg, *) nrhs
    end if

    call blacs_pinfo(iam, nprocs)
    nprow = int(sqrt(dble(nprocs)))            ! the squarest grid the rank count allows
    do while (mod(nprocs, nprow) /= 0)
        nprow = nprow - 1
    end do
    npcol = nprocs / nprow
    call blacs_get(-1, 0, ictxt)
    call blacs_gridinit(ictxt, 'R', nprow, npcol)
    call blacs_gridinfo(ictxt, nprow, npcol, myrow, mycol)

    mloc = numroc(n, nb, myrow, 0, nprow)
    nloc = numroc(n, nb, mycol, 0, npcol)
    rloc = numroc(nrhs, nb, mycol, 0, npcol)
    lld = max(1, mloc)
    call descinit(desca, n, n, nb, nb, 0, 0, ictxt, lld, info)
    call descinit(descb, n, nrhs, nb, nb, 0, 0, ictxt, lld, info)
    allocate (a(lld, max(1, nloc)), x0(lld, max(1, rloc)), b(lld, max(1, rloc)), ipiv(mloc + nb))

    do j = 1, nloc
        do i = 1, mloc
            a(i, j) = value(indxl2g(i, nb, myrow, 0, nprow), indxl2g(j, nb, mycol, 0, npcol), 1)
        end do
    end do
    do j = 1, rloc
        do i = 1, mloc
            x0(i, j) = value(indxl2g(i, nb, myrow, 0, nprow), indxl2g(j, nb, mycol, 0, npcol), 2)
        end do
    end do

    t0 = mpi_wtime()
    call pdgemm('N', 'N', n, nrhs, n, 1.0d0, a, 1, 1, desca, x0, 1, 1, descb, 0.0d0, b, 1, 1, descb)
    call pdgesv(n, nrhs, a, 1, 1, desca, ipiv, b, 1, 1, descb, info)
    t1 = mpi_wtime()

    err(1) = 0
    big(1) = 0
    do j = 1, rloc
        do i = 1, mloc
            err(1) = max(err(1), abs(b(i, j) - x0(i, j)))
            big(1) = max(big(1), abs(x0(i, j)))
        end do
    end do
    call dgamx2d(ictxt, 'A', ' ', 1, 1, err, 1, -1, -1, -1, -1, -1)
    call dgamx2d(ictxt, 'A', ' ', 1, 1, big, 1, -1, -1, -1, -1, -1)
    if (iam == 0) then
        if (info == 0 .and. err(1) <= 1d-10 * big(1)) then
            write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,es9.2,a,f8.3,a)') 'scalapack_solve: n = ', n, &
                ', nb = ', nb, ', nrhs = ', nrhs, ', grid ', nprow, ' x ', npcol, &
                ', max |x - x0| = ', err(1), ', ', t1 - t0, ' s: PASSED'
        else
            write (*, '(a,i0,a,es9.2,a)') 'scalapack_solve: info = ', info, ', max |x - x0| = ', &
                err(1), ': FAILED'
        end if
    end if
    call blacs_gridexit(ictxt)
    call blacs_exit(0)

contains

    ! element (i, j) of A (which = 1: entries in [-1, 1), n added on the diagonal) or of X0
    double precision function value(i, j, which)
        integer, intent(in) :: i, j, which
        integer(8) :: h
        h = ieor(int(i, 8) * 73856093_8, ieor(int(j, 8) * 19349663_8, int(which, 8) * 83492791_8))
        h = iand(ieor(h, ishft(h, -13)), 2147483647_8) * 1274126177_8
        value = dble(mod(iand(h, 2147483647_8), 2000001_8)) / 1d6 - 1d0
        if (value == 0) value = 0.5d0
        if (which == 1 .and. i == j) value = value + n
    end function value
end program scalapack_solve
