C     fftw_legacy.f -- an unchanged FFTW3 program through FFTW's legacy
C     Fortran interface (dfftw_*, sfftw_*): plans as INTEGER*8, arrays
C     in Fortran order.  Linked against -lfftw3 -lfftw3f, or relinked
C     against -lcufort_fftw, it must print the same numbers.  Each
C     transform is checked against a direct sum or its inverse; the
C     program stops with status 1 when one is off.  Plain dfftw_execute
C     is used on arrays in COMMON only: an optimising compiler may
C     assume that a call which is not passed an array leaves it alone.
      program fftw_legacy
      implicit none
      include 'fftw3.f'
      integer n, nx, ny, m, nb, i, j, k, iret
      parameter (n = 120, nx = 24, ny = 18, m = 30, nb = 4)
      integer*8 plan, back
      double complex a(n), b(n), z, w
      double complex many(m, nb), mout(m, nb)
      double precision r(nx, ny), r2(nx, ny), q(n), q2(n), q0(n)
      double complex c(nx/2 + 1, ny)
      common /arrays/ r, r2, c
      complex s3(8, 6, 5), t3(8, 6, 5)
      double precision err, twopi, worst
      integer nbad
      common /state/ nbad
      nbad = 0
      twopi = 8d0*atan(1d0)
C     the threads API, as a threaded program calls it first
      call dfftw_init_threads(iret)
      if (iret .ne. 0) call dfftw_plan_with_nthreads(2)

C     1-d complex, FFTW_MEASURE: the input is filled after planning
      call dfftw_plan_dft_1d(plan, n, a, b, FFTW_FORWARD, FFTW_MEASURE)
      do i = 1, n
         a(i) = dcmplx(sin(0.3d0*i), cos(0.11d0*i*i))
      end do
      call dfftw_execute_dft(plan, a, b)
      worst = 0
      do k = 1, n
         z = 0
         do j = 1, n
            w = exp(dcmplx(0d0, -twopi*(j - 1)*(k - 1)/n))
            z = z + a(j)*w
         end do
         worst = max(worst, abs(z - b(k)))
      end do
      call report('dft_1d', worst/abs(b(1)), 1d-12, sum(abs(b)))
      call dfftw_destroy_plan(plan)

C     2-d real to complex and back: c2r(r2c(r)) = nx*ny*r
      call dfftw_plan_dft_r2c_2d(plan, nx, ny, r, c, FFTW_ESTIMATE)
      call dfftw_plan_dft_c2r_2d(back, nx, ny, c, r2, FFTW_ESTIMATE)
      do j = 1, ny
         do i = 1, nx
            r(i, j) = sin(0.1d0*i + 0.7d0*j) + 0.01d0*i*j
         end do
      end do
      call dfftw_execute(plan)
      err = sum(abs(c))
      call dfftw_execute(back)
      worst = maxval(abs(r2/(nx*ny) - r))/maxval(abs(r))
      call report('dft_r2c_2d+c2r', worst, 1d-12, err)
      call dfftw_destroy_plan(plan)
      call dfftw_destroy_plan(back)

C     a batch of 4 transforms of 30 points, one column each
      call dfftw_plan_many_dft(plan, 1, m, nb, many, m, 1, m,
     &     mout, m, 1, m, FFTW_BACKWARD, FFTW_ESTIMATE)
      do k = 1, nb
         do i = 1, m
            many(i, k) = dcmplx(1d0/(i + k), 0.5d0*k - 0.01d0*i)
         end do
      end do
      call dfftw_execute(plan)
      worst = 0
      do k = 1, nb
         do i = 1, m
            z = 0
            do j = 1, m
               w = exp(dcmplx(0d0, twopi*(j - 1)*(i - 1)/m))
               z = z + many(j, k)*w
            end do
            worst = max(worst, abs(z - mout(i, k)))
         end do
      end do
      call report('many_dft', worst/maxval(abs(mout)), 1d-12,
     &     sum(abs(mout)))
      call dfftw_destroy_plan(plan)

C     single precision 3-d, in place, forward then backward
      call sfftw_plan_dft_3d(plan, 8, 6, 5, s3, s3, FFTW_FORWARD,
     &     FFTW_ESTIMATE)
      call sfftw_plan_dft_3d(back, 8, 6, 5, s3, s3, FFTW_BACKWARD,
     &     FFTW_ESTIMATE)
      do k = 1, 5
         do j = 1, 6
            do i = 1, 8
               s3(i, j, k) = cmplx(real(i*j)/(k + 1.0), real(i - k))
            end do
         end do
      end do
      t3 = s3
      call sfftw_execute_dft(plan, s3, s3)
      err = sum(abs(s3))
      call sfftw_execute_dft(back, s3, s3)
      worst = maxval(abs(s3/240.0 - t3))/maxval(abs(t3))
      call report('sfftw_dft_3d', worst, 1d-5, err)
      call sfftw_destroy_plan(plan)
      call sfftw_destroy_plan(back)

C     a DCT pair (r2r: the real FFTW's): REDFT01(REDFT10(q)) = 2n q
      call dfftw_plan_r2r_1d(plan, n, q, q2, FFTW_REDFT10,
     &     FFTW_ESTIMATE)
      call dfftw_plan_r2r_1d(back, n, q2, q, FFTW_REDFT01,
     &     FFTW_ESTIMATE)
      do i = 1, n
         q(i) = cos(0.05d0*i*i)
      end do
      q0 = q
      call dfftw_execute_r2r(plan, q, q2)
      err = sum(abs(q2))
      call dfftw_execute_r2r(back, q2, q)
      worst = maxval(abs(q/(2*n) - q0))
      call report('r2r_dct', worst, 1d-12, err)
      call dfftw_destroy_plan(plan)
      call dfftw_destroy_plan(back)
      call dfftw_cleanup_threads()

      if (nbad .ne. 0) stop 1
      end

      subroutine report(name, err, tol, value)
      implicit none
      character*(*) name
      double precision err, tol, value
      integer nbad
      common /state/ nbad
      write (*, '(a, a, 1x, es22.15)') 'value ', name, value
      if (err .le. tol) then
         write (*, '(a, a, 1x, es10.3)') 'ok ', name, err
      else
         write (*, '(a, a, 1x, es10.3)') 'FAIL ', name, err
         nbad = nbad + 1
      end if
      end
