C     thunking.f -- a legacy program built against an installed cufort
C     (tests/examples/install.sh): cublas_daxpy on host arrays through
C     libcufort_f77_thunking.  Prints "daxpy ok", or stops with 1.
      program thunking
      implicit none
      integer n, i, nbad
      parameter (n = 29)
      double precision x(n), y(n)
      integer cublas_init, cublas_shutdown, cublas_get_error
      external cublas_init, cublas_shutdown, cublas_get_error
      external cublas_daxpy

      if (cublas_init() .ne. 0) then
         write(*,*) 'cublas_init failed'
         stop 1
      endif
      do i = 1, n
         x(i) = 1.0d0 + 0.5d0 * (i - 1)
         y(i) = 3.0d0 - 0.25d0 * (i - 1)
      enddo
      call cublas_daxpy(n, 2.0d0, x, 1, y, 1)
      nbad = 0
      do i = 1, n
         if (y(i) .ne. 5.0d0 + 0.75d0 * (i - 1)) nbad = nbad + 1
      enddo
      if (cublas_get_error() .ne. 0 .or. nbad .ne. 0) then
         write(*,*) 'daxpy: error', cublas_get_error(), ',', nbad,
     &              ' wrong elements'
         stop 1
      endif
      write(*, '(a)') 'daxpy ok'
      if (cublas_shutdown() .ne. 0) stop 1
      end
