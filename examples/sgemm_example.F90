! sgemm_example.F90 -- seed 001's "SGEMM example": one source that calls the host BLAS SGEMM or,
! built with -DCUBLAS, cuBLAS through the thunking interface (cufort copies A, B, C to the GPU and back).
!
!   host BLAS:  gfortran -O2 sgemm_example.F90 -lopenblas
!   cuBLAS:     gfortran -O2 -DCUBLAS sgemm_example.F90 -Lbuild/lib -lcufort_f77_thunking -lcufort \
!                   -Wl,-rpath,$PWD/build/lib
!
! The matrices hold small integers and alpha, beta are powers of two, so every product and sum is exact
! in single precision whatever order the library adds in: both builds must print the same checksum, and
! the difference from a double-precision triple loop must be exactly zero.
program sgemm_example
  implicit none
  integer, parameter :: m1 = 512
  ! Define 3 single precision matrices A, B, C
  real, dimension(m1,m1) :: A, B, C, C0
  real :: alpha, beta
  double precision :: ref, checksum, abssum, maxdiff
  integer :: i, j, l
  integer(8) :: t0, t1, rate
#ifdef CUBLAS
  character(len=*), parameter :: what = 'cublas_SGEMM (cufort thunking interface)'
  integer :: cublas_get_error
  external :: cublas_get_error
#else
  character(len=*), parameter :: what = 'SGEMM (host BLAS)'
#endif

  ! Initialize
  do j = 1, m1
     do i = 1, m1
        A(i,j) = real(mod(3*i + 7*j, 17) - 8)
        B(i,j) = real(mod(5*i + 2*j, 15) - 7)
        C(i,j) = real(mod(i + j, 9) - 4)
     end do
  end do
  C0 = C
  alpha = 0.5
  beta = 2.0

  call system_clock(t0, rate)
#ifdef CUBLAS
  ! Call SGEMM in CUBLAS library using THUNKING interface (library takes care of
  ! memory allocation on device and data movement)
  call cublas_SGEMM ('n','n',m1,m1,m1,alpha,A,m1,B,m1,beta,C,m1)
  if (cublas_get_error() /= 0) then
     write(*,'(a)') 'cublas_SGEMM failed'
     stop 1
  end if
#else
  ! Call SGEMM in host BLAS library
  call SGEMM ('n','n',m1,m1,m1,alpha,A,m1,B,m1,beta,C,m1)
#endif
  call system_clock(t1)

  checksum = 0d0
  abssum = 0d0
  maxdiff = 0d0
  do j = 1, m1
     do i = 1, m1
        ref = 0d0
        do l = 1, m1
           ref = ref + dble(A(i,l)) * dble(B(l,j))
        end do
        ref = dble(alpha) * ref + dble(beta) * dble(C0(i,j))
        maxdiff = max(maxdiff, abs(ref - dble(C(i,j))))
        checksum = checksum + dble(C(i,j))
        abssum = abssum + abs(dble(C(i,j)))
     end do
  end do

  write(*,'(a,a)') 'called: ', what
  write(*,'(a,i0)') 'm=n=k: ', m1
  write(*,'(a,f0.1)') 'checksum: ', checksum
  write(*,'(a,f0.1)') 'abssum: ', abssum
  write(*,'(a,es10.3)') 'maxdiff: ', maxdiff
  write(*,'(a,f0.3,a)') 'time: ', 1d3 * dble(t1 - t0) / dble(rate), ' ms (first call, includes setup)'
end program sgemm_example
