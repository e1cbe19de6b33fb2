C     matrixmod_thunking.f -- seed 001's "FORTRAN 77 Code example",
C     thunking interface: the program keeps its host array and
C     modify calls cublas_sscal instead of sscal; the library copies
C     the data to the GPU and back.  Link with the thunking library:
C       gfortran matrixmod_thunking.f -Lbuild/lib
C         -lcufort_f77_thunking -lcufort -Wl,-rpath,$PWD/build/lib
C     Fixed the seed's off-by-one: row p from column q holds n-q+1
C     elements (the seed scaled n-p+1 and ran past the matrix).
      program matrixmod
      implicit none
      integer M, N
      parameter (M=6, N=5)
      real*4 a(M,N)
      integer i, j
      integer cublas_get_error
      external cublas_get_error

      do j = 1, N
         do i = 1, M
            a(i,j) = (i-1) * M + j
         enddo
      enddo

      call modify (a, M, N, 2, 3, 16.0, 12.0)
      if (cublas_get_error() .ne. 0) then
         write(*,*) 'cublas_sscal failed'
         stop 1
      endif

      do j = 1, N
         write(*, '(6F7.0)') (a(i,j), i = 1, M)
      enddo

      stop
      end

      subroutine modify (m, ldm, n, p, q, alpha, beta)
      implicit none
      integer ldm, n, p, q
      real*4 m(ldm,*), alpha, beta

      external cublas_sscal

      call cublas_sscal (n-q+1, alpha, m(p,q), ldm)

      call cublas_sscal (ldm-p+1, beta, m(p,q), 1)

      return
      end
