! dgemm_loop.f90 -- an unchanged legacy Fortran program: plain `call dgemm(...)` in a loop, nothing
! cufort-specific.  It is built twice from one object (make examples):
!
!   build/examples/dgemm_loop          gfortran dgemm_loop.f90 -lblas             (the CPU BLAS)
!   build/examples/dgemm_loop_dropin   the same object relinked: -lcufort_blas    (the drop-in library)
!
! and the first also runs with LD_PRELOAD=build/lib/libcufort_blas.so (tests/examples/dropin.sh).
! Usage: dgemm_loop [n [iterations]]   (default 2048 10)
!
! Every step is C = op(A) * op(B) + 0.5 * C on small integers, op cycling through N/T: every product
! and sum is exact in double precision whatever order a BLAS adds in, so every build, on the CPU or
! the GPU, must print the same checksum.
program dgemm_loop
  implicit none
  double precision, allocatable :: a(:,:), b(:,:), c(:,:)
  double precision :: checksum, abssum, secs
  integer :: n, iters, it, i, j
  integer(8) :: t0, t1, rate
  character(len=32) :: arg
  character :: ta, tb

  n = 2048
  iters = 10
  if (command_argument_count() >= 1) then
     call get_command_argument(1, arg)
     read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
     call get_command_argument(2, arg)
     read (arg, *) iters
  end if

  allocate (a(n,n), b(n,n), c(n,n))
  do j = 1, n
     do i = 1, n
        a(i,j) = dble(mod(3*i + 7*j, 17) - 8)
        b(i,j) = dble(mod(5*i + 2*j, 15) - 7)
        c(i,j) = dble(mod(i + j, 9) - 4)
     end do
  end do

  call system_clock(t0, rate)
  do it = 1, iters
     ta = merge('N', 'T', mod(it, 2) == 1)
     tb = merge('N', 'T', mod(it / 2, 2) == 0)
     call dgemm(ta, tb, n, n, n, 1.0d0, a, n, b, n, 0.5d0, c, n)
  end do
  call system_clock(t1)
  secs = dble(t1 - t0) / dble(rate)

  checksum = sum(c)
  abssum = sum(abs(c))
  write (*, '(a,i0,a,i0)') 'dgemm_loop: n = ', n, ', iterations = ', iters
  write (*, '(a,es24.16)') 'checksum: ', checksum
  write (*, '(a,es24.16)') 'abssum: ', abssum
  write (*, '(a,f10.4,a,f10.2,a)') 'time: ', secs, ' s, ', &
       2d0 * dble(n)**3 * iters / max(secs, 1d-9) * 1d-9, ' GFLOP/s'
end program dgemm_loop
