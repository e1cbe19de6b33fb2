! test_fft_f77_thunking.f90 — the legacy FFT names from Fortran, thunking flavour (host arrays):
! the dimensions a Fortran caller gives (first index fastest) must reach cuFFT reversed.  Checked
! against FFTW3 called through its own Fortran interface, which takes Fortran order too, on
! non-square 2-D and 3-D arrays, plus a real-to-complex transform, a normalised round trip, and
! cufft_plan_many in the basic layout (a one-element inembed of 0) and with ranks outside 1..3.
! In an INTEGER*8 build, a type or direction that no C int holds is refused, not cut to its low bits.
program test_fft_f77_thunking
  implicit none
  include 'fftw3.f'
  integer, parameter :: CUFFT_Z2Z = int(z'69'), CUFFT_C2C = int(z'29'), CUFFT_D2Z = int(z'6a')
  integer :: passed = 0, failed = 0
  integer :: cufft_plan2d, cufft_plan3d, cufft_plan1d, cufft_exec_z2z, cufft_exec_c2c, &
             cufft_exec_d2z, cufft_destroy, cufft_set_normalize, cublas_init, cublas_shutdown, st, &
             cufft_plan_many
  external cufft_plan2d, cufft_plan3d, cufft_plan1d, cufft_exec_z2z, cufft_exec_c2c, &
           cufft_exec_d2z, cufft_destroy, cufft_set_normalize, cublas_init, cublas_shutdown, &
           cufft_plan_many

  call first_use()
  if (cublas_init() /= 0) call check(.false., 'cublas_init', 1d0)
  call z2z_2d(10, 7)
  call c2c_3d(6, 5, 4)
  call d2z_2d(9, 6)
  call round_trip(300, 4)
  call wrong_type()
  call plan_many(6, 5, 3)
  call wide_values()
  st = cublas_shutdown()   ! returns every device allocation: a clean leak check
  write(*, '(i0, a, i0, a)') passed, ' passed, ', failed, ' failed'
  if (failed > 0) error stop 1

contains

  subroutine check(ok, what, err)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    double precision, intent(in) :: err
    if (ok) then
      passed = passed + 1
      write(*, '(a, a)') 'ok fft_f77_thunking ', what
    else
      failed = failed + 1
      write(*, '(a, a, a, es10.3)') 'FAIL fft_f77_thunking ', what, ': error ', err
    end if
  end subroutine

  subroutine random_complex(z, n)   ! explicit shape: takes arrays of any rank
    integer, intent(in) :: n
    complex(8), intent(out) :: z(n)
    double precision :: r(2, n)
    call random_number(r)
    z = cmplx(0.1d0 + r(1, :), -0.2d0 - r(2, :), kind=8)
  end subroutine

  ! Before any other call: thunking names initialise cufort on first use, the FFT ones too.
  subroutine first_use()
    complex(8) :: x(16, 2), y(16, 2), want(16, 2)
    integer(8) :: plan, ref
    integer :: st
    call random_complex(x, size(x))
    call dfftw_plan_many_dft(ref, 1, [16], 2, x, [16], 1, 16, want, [16], 1, 16, FFTW_FORWARD, &
                             FFTW_ESTIMATE)
    call dfftw_execute_dft(ref, x, want)
    call dfftw_destroy_plan(ref)
    st = cufft_plan1d(plan, 16, CUFFT_Z2Z, 2)
    call check(st == 0, 'cufft_plan1d as the first call initialises cufort', dble(st))
    st = cufft_exec_z2z(plan, x, y, FFTW_FORWARD)
    call check(st == 0, 'exec after the first-use plan', dble(st))
    call check(maxval(abs(y - want)) <= 1d-12 * maxval(abs(want)), &
               'first-use plan computes the transform', maxval(abs(y - want)))
    st = cufft_destroy(plan)
    call check(st == 0, 'destroy the first-use plan', dble(st))
  end subroutine

  subroutine z2z_2d(nx, ny)
    integer, intent(in) :: nx, ny
    complex(8) :: x(nx, ny), y(nx, ny), want(nx, ny), tmp(nx, ny)
    integer(8) :: plan, ref
    integer :: st
    call random_complex(x, size(x))
    tmp = x
    call dfftw_plan_dft_2d(ref, nx, ny, tmp, want, FFTW_FORWARD, FFTW_ESTIMATE)
    call dfftw_execute_dft(ref, tmp, want)
    call dfftw_destroy_plan(ref)
    st = cufft_plan2d(plan, nx, ny, CUFFT_Z2Z)
    call check(st == 0, 'plan2d z2z', dble(st))
    st = cufft_exec_z2z(plan, x, y, FFTW_FORWARD)
    call check(st == 0, 'exec z2z 2d', dble(st))
    call check(maxval(abs(y - want)) <= 1d-12 * maxval(abs(want)), &
               'z2z 2d non-square in Fortran order equals FFTW', maxval(abs(y - want)))
    st = cufft_destroy(plan)
    call check(st == 0, 'destroy', dble(st))
  end subroutine

  subroutine c2c_3d(nx, ny, nz)
    integer, intent(in) :: nx, ny, nz
    complex(8) :: xd(nx, ny, nz), want(nx, ny, nz)
    complex(4) :: x(nx, ny, nz)
    integer(8) :: plan, ref
    integer :: st
    call random_complex(xd, size(xd))
    x = cmplx(xd, kind=4)
    xd = cmplx(x, kind=8)
    call dfftw_plan_dft_3d(ref, nx, ny, nz, xd, want, FFTW_BACKWARD, FFTW_ESTIMATE)
    call dfftw_execute_dft(ref, xd, want)
    call dfftw_destroy_plan(ref)
    st = cufft_plan3d(plan, nx, ny, nz, CUFFT_C2C)
    call check(st == 0, 'plan3d c2c', dble(st))
    st = cufft_exec_c2c(plan, x, x, FFTW_BACKWARD)
    call check(st == 0, 'exec c2c 3d in place', dble(st))
    xd = cmplx(x, kind=8)      ! compare in one kind (mixed-kind maxval misbehaved here)
    call check(maxval(abs(xd - want)) <= 1d-5 * maxval(abs(want)), &
               'c2c 3d inverse in place, Fortran order, equals FFTW', maxval(abs(xd - want)))
    st = cufft_destroy(plan)
  end subroutine

  subroutine d2z_2d(nx, ny)
    integer, intent(in) :: nx, ny
    double precision :: x(nx, ny), tmp(nx, ny)
    complex(8) :: y(nx / 2 + 1, ny), want(nx / 2 + 1, ny)
    integer(8) :: plan, ref
    integer :: st
    call random_number(x)
    x = x + 0.1d0
    tmp = x
    call dfftw_plan_dft_r2c_2d(ref, nx, ny, tmp, want, FFTW_ESTIMATE)
    call dfftw_execute_dft_r2c(ref, tmp, want)
    call dfftw_destroy_plan(ref)
    st = cufft_plan2d(plan, nx, ny, CUFFT_D2Z)
    call check(st == 0, 'plan2d d2z', dble(st))
    st = cufft_exec_d2z(plan, x, y)
    call check(st == 0, 'exec d2z 2d', dble(st))
    call check(maxval(abs(y - want)) <= 1d-12 * maxval(abs(want)), &
               'd2z 2d keeps nx/2+1 of the FIRST (fastest) dimension, as FFTW', maxval(abs(y - want)))
    st = cufft_destroy(plan)
  end subroutine

  subroutine round_trip(n, batch)
    integer, intent(in) :: n, batch
    complex(8) :: x(n, batch), y(n, batch)
    integer(8) :: plan
    integer :: st
    call random_complex(x, size(x))
    y = x
    st = cufft_plan1d(plan, n, CUFFT_Z2Z, batch)
    call check(st == 0, 'plan1d z2z batch', dble(st))
    st = cufft_exec_z2z(plan, y, y, FFTW_FORWARD)
    st = cufft_exec_z2z(plan, y, y, FFTW_BACKWARD)
    call check(maxval(abs(y - n * x)) <= 1d-10 * n, 'unnormalised round trip = n*x', &
               maxval(abs(y - n * x)))
    st = cufft_set_normalize(plan, 1)
    y = x
    st = cufft_exec_z2z(plan, y, y, FFTW_FORWARD)
    st = cufft_exec_z2z(plan, y, y, FFTW_BACKWARD)
    call check(maxval(abs(y - x)) <= 1d-12, 'normalised round trip = x', maxval(abs(y - x)))
    st = cufft_destroy(plan)
  end subroutine

  subroutine wrong_type()
    complex(4) :: x(8)
    integer(8) :: plan
    integer :: st
    x = (1.0, 0.5)
    st = cufft_plan1d(plan, 8, CUFFT_Z2Z, 1)
    st = cufft_exec_c2c(plan, x, x, FFTW_FORWARD)
    call check(st == 7, 'cufft_exec_c2c refuses a Z2Z plan (status 7)', dble(st))
    call check(all(x == (1.0, 0.5)), 'refused call leaves the data alone', 0d0)
    st = cufft_destroy(plan)
    st = cufft_exec_c2c(plan, x, x, FFTW_FORWARD)
    call check(st == 7, 'a destroyed plan is refused (status 7)', dble(st))
  end subroutine

  subroutine plan_many(nx, ny, batch)
    integer, intent(in) :: nx, ny, batch
    complex(8) :: x(nx, ny, batch), y(nx, ny, batch), want(nx, ny, batch), tmp(nx, ny, batch)
    integer(8) :: plan, ref
    integer :: st, k
    integer, parameter :: bad_ranks(4) = [0, -1, 4, 200000000]
    call random_complex(x, size(x))
    tmp = x
    do k = 1, batch   ! FFTW's Fortran interface takes 4-byte INTEGER arrays: scalars only here
      call dfftw_plan_dft_2d(ref, nx, ny, tmp(:, :, k), want(:, :, k), FFTW_FORWARD, FFTW_ESTIMATE)
      call dfftw_execute_dft(ref, tmp(:, :, k), want(:, :, k))
      call dfftw_destroy_plan(ref)
    end do
    st = cufft_plan_many(plan, 2, [nx, ny], [0], 1, nx * ny, [0], 1, nx * ny, CUFFT_Z2Z, batch)
    call check(st == 0, 'plan_many rank 2, basic layout (inembed = [0])', dble(st))
    st = cufft_exec_z2z(plan, x, y, FFTW_FORWARD)
    call check(st == 0 .and. maxval(abs(y - want)) <= 1d-12 * maxval(abs(want)), &
               'plan_many batch of 2-D z2z equals FFTW', maxval(abs(y - want)))
    st = cufft_destroy(plan)
    do k = 1, size(bad_ranks)
      plan = 12345
      st = cufft_plan_many(plan, bad_ranks(k), [nx, ny], [0], 1, nx * ny, [0], 1, nx * ny, &
                           CUFFT_Z2Z, batch)
      call check(st == 7 .and. plan == 0, 'plan_many refuses a rank outside 1..3 (status 7, plan 0)', &
                 dble(bad_ranks(k)))
    end do
  end subroutine

  ! 2**32 plus a valid value: its low 32 bits name a real type or direction.
  subroutine wide_values()
    complex(8) :: x(6, 5, 4)
    integer(8) :: plan, wide
    integer :: big, st
    if (bit_size(big) /= 64) return   ! a default INTEGER cannot hold such a value
    wide = ishft(1_8, 32)
    big = int(wide + CUFFT_Z2Z, kind(big))
    plan = 12345
    st = cufft_plan1d(plan, 6, big, 1)
    call check(st == 7 .and. plan == 0, 'plan1d refuses type 2**32 + Z2Z (status 7, plan 0)', dble(st))
    plan = 12345
    st = cufft_plan2d(plan, 6, 5, big)
    call check(st == 7 .and. plan == 0, 'plan2d refuses type 2**32 + Z2Z', dble(st))
    plan = 12345
    st = cufft_plan3d(plan, 6, 5, 4, big)
    call check(st == 7 .and. plan == 0, 'plan3d refuses type 2**32 + Z2Z', dble(st))
    plan = 12345
    st = cufft_plan_many(plan, 2, [6, 5], [0], 1, 30, [0], 1, 30, big, 4)
    call check(st == 7 .and. plan == 0, 'plan_many refuses type 2**32 + Z2Z', dble(st))
    st = cufft_plan3d(plan, 6, 5, 4, CUFFT_Z2Z)
    x = (1.0, 0.5)
    st = cufft_exec_z2z(plan, x, x, int(wide + FFTW_FORWARD, kind(big)))
    call check(st == 7 .and. all(x == (1.0, 0.5)), &
               'exec_z2z refuses direction 2**32 + FORWARD and leaves the data alone', dble(st))
    st = cufft_exec_z2z(plan, x, x, FFTW_FORWARD)
    call check(st == 0 .and. any(x /= (1.0, 0.5)), 'the plan still runs with FORWARD', dble(st))
    st = cufft_destroy(plan)
  end subroutine

end program test_fft_f77_thunking
