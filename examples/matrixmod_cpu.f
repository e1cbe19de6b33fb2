C     matrixmod_cpu.f -- seed 001's "FORTRAN 77 Code example" with the
C     host BLAS sscal, the reference for the two cuBLAS versions:
C       gfortran matrixmod_cpu.f -lopenblas
C     Fixed the seed's off-by-one: row p from column q holds n-q+1
C     elements (the seed scaled n-p+1 and ran past the matrix).
      program matrixmod
      implicit none
      integer M, N
      parameter (M=6, N=5)
      real*4 a(M,N)
      integer i, j

      do j = 1, N
         do i = 1, M
            a(i,j) = (i-1) * M + j
         enddo
      enddo

      call modify (a, M, N, 2, 3, 16.0, 12.0)

      do j = 1, N
         write(*, '(6F7.0)') (a(i,j), i = 1, M)
      enddo

      stop
      end

      subroutine modify (m, ldm, n, p, q, alpha, beta)
      implicit none
      integer ldm, n, p, q
      real*4 m(ldm,*), alpha, beta

      external sscal

      call sscal (n-q+1, alpha, m(p,q), ldm)

      call sscal (ldm-p+1, beta, m(p,q), 1)

      return
      end
