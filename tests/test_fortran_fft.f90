! test_fortran_fft.f90 -- cf_fft_plan of `use cufort` against a direct separable DFT computed here in
! double precision: all six transform types, ranks 1-3, non-square shapes, batches, device and host
! arrays, in place and out of place, normalisation, streams, the plan cache behind plan creation and
! the finalizer, assignment, and the error reports (stat/errmsg, and error stop without stat).
module fft_test_support
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, dp => real64
  use cufort
  implicit none
  integer :: npass = 0, nfail = 0
  real(dp), parameter :: tol32 = 2e-6_dp, tol64 = 1e-13_dp
  real(dp), parameter :: pi = 3.14159265358979323846_dp

  type, bind(C) :: cache_stats
     integer(c_int64_t) :: idle, hits, misses, evictions
  end type cache_stats
  interface
     subroutine c_cache_stats(s) bind(C, name='cufort_fft_cache_get_stats')
       import :: cache_stats
       type(cache_stats), intent(out) :: s
     end subroutine
  end interface

contains

  subroutine check(good, what)
    logical, intent(in) :: good
    character(len=*), intent(in) :: what
    if (good) then
       write(*, '(a,a)') 'ok fortran_fft ', what
       npass = npass + 1
    else
       write(*, '(a,a)') 'FAIL fortran_fft ', what
       nfail = nfail + 1
    end if
  end subroutine check

  !> stat and the message both say what went wrong
  subroutine check_err(st, msg, expect, what)
    integer, intent(in) :: st
    character(len=*), intent(in) :: msg, expect, what
    call check(st == CF_INVALID_VALUE .and. index(msg, expect) > 0, what)
    if (index(msg, expect) == 0) write(*, '(a,a)') '#   errmsg: ', trim(msg)
  end subroutine check_err

  function rand_c(n) result(x)
    integer, intent(in) :: n
    complex(dp) :: x(n)
    real(dp) :: re(n), im(n)
    call random_number(re)
    call random_number(im)
    x = cmplx(re - 0.5_dp, im - 0.5_dp, kind=dp)
  end function rand_c

  function rand_r(n) result(x)
    integer, intent(in) :: n
    real(dp) :: x(n)
    call random_number(x)
    x = x - 0.5_dp
  end function rand_r

  real(dp) function rel_err(got, want)
    complex(dp), intent(in) :: got(:), want(:)
    rel_err = huge(1.0_dp)
    if (size(got) == size(want)) rel_err = maxval(abs(got - want)) / maxval(abs(want))
  end function rel_err

  !> The oracle: the unnormalised DFT (sign -1 forward, +1 inverse) over the first `rank` of the
  !> dimensions n(1:3) of each of nb batches, data flat in Fortran order; one dimension at a time.
  function dft(x, n, nb, rank, sign) result(y)
    complex(dp), intent(in) :: x(:)
    integer, intent(in) :: n(3), nb, rank, sign
    complex(dp), allocatable :: y(:)
    complex(dp), allocatable :: a(:,:,:,:), w(:,:)
    integer :: d, i, j, k, l, m
    a = reshape(x, [n(1), n(2), n(3), nb])
    do d = 1, rank
       m = n(d)
       allocate(w(m, m))
       do j = 1, m
          do i = 1, m
             w(i, j) = exp(cmplx(0, sign * 2 * pi * mod((i - 1) * (j - 1), m) / m, kind=dp))
          end do
       end do
       do l = 1, nb
          do k = 1, size(a, 3)
             do j = 1, size(a, 2)
                do i = 1, size(a, 1)
                   if (d == 1 .and. i == 1) a(:, j, k, l) = matmul(w, a(:, j, k, l))
                   if (d == 2 .and. j == 1) a(i, :, k, l) = matmul(w, a(i, :, k, l))
                   if (d == 3 .and. k == 1) a(i, j, :, l) = matmul(w, a(i, j, :, l))
                end do
             end do
          end do
       end do
       deallocate(w)
    end do
    y = reshape(a, [size(x)])
  end function dft

  !> R2C's oracle: the full DFT of a real signal, the first dimension cut to n(1)/2+1.
  function dft_r2c(x, n, nb, rank) result(y)
    real(dp), intent(in) :: x(:)
    integer, intent(in) :: n(3), nb, rank
    complex(dp), allocatable :: y(:)
    complex(dp), allocatable :: full(:,:,:,:)
    full = reshape(dft(cmplx(x, kind=dp), n, nb, rank, -1), [n(1), n(2), n(3), nb])
    y = reshape(full(1:n(1) / 2 + 1, :, :, :), [(n(1) / 2 + 1) * n(2) * n(3) * nb])
  end function dft_r2c

  integer(int64) function cache(what)
    character(len=*), intent(in) :: what
    type(cache_stats) :: s
    call c_cache_stats(s)
    select case (what)
    case ('idle')
       cache = s%idle
    case ('hits')
       cache = s%hits
    case ('misses')
       cache = s%misses
    case default
       cache = s%evictions
    end select
  end function cache

end module fft_test_support

module fft_tests
  use fft_test_support
  implicit none
contains

  ! ---- complex-to-complex -----------------------------------------------------------------------------

  subroutine t_c2c_host_1d_batch()   ! C2C, 15 points, batch 4, host arrays
    complex(c_float_complex) :: x(15, 4), y(15, 4), z(15, 4)
    complex(dp) :: x0(60)
    type(cf_fft_plan) :: p
    integer :: st
    x0 = rand_c(60)
    x = reshape(cmplx(x0, kind=c_float), [15, 4])
    call cf_fft_plan_create(p, x, batch=4, stat=st)
    call check(st == 0 .and. p%rank() == 1 .and. all(p%shape() == [15]) .and. p%batch() == 4 .and. &
               .not. p%is_real(), 'c2c plan from x(15,4) with batch=4: rank 1, shape [15], batch 4')
    y = x
    call cf_fft_forward(p, y, stat=st)
    call check(st == 0 .and. rel_err(cmplx(pack(y, .true.), kind=dp), &
               dft(cmplx(pack(x, .true.), kind=dp), [15, 1, 1], 4, 1, -1)) < tol32, &
               'c2c 1-D 15 x batch 4, host, in place forward = DFT')
    call cf_fft_inverse(p, x, z, stat=st)
    call check(st == 0 .and. rel_err(cmplx(pack(z, .true.), kind=dp), &
               dft(cmplx(pack(x, .true.), kind=dp), [15, 1, 1], 4, 1, 1)) < tol32, &
               'c2c 1-D 15 x batch 4, host, out of place inverse = DFT(+1)')
    call cf_fft_inverse(p, y, z, normalize=.true., stat=st)
    call check(st == 0 .and. rel_err(cmplx(pack(z, .true.), kind=dp), cmplx(pack(x, .true.), kind=dp)) &
               < tol32, 'c2c 1-D host: inverse(forward(x), normalize=.true.) = x')
    call cf_fft_inverse(p, y, stat=st)
    call check(st == 0 .and. rel_err(cmplx(pack(y, .true.), kind=dp), 15 * cmplx(pack(x, .true.), kind=dp)) &
               < tol32, 'c2c 1-D host: in place round trip without normalize = 15*x')
  end subroutine t_c2c_host_1d_batch

  subroutine t_z2z_host_2d()   ! Z2Z 15x4, host arrays, normalize as the plan's default
    complex(c_double_complex) :: x(15, 4), y(15, 4), x1(60), y1(60)
    type(cf_fft_plan) :: p
    integer :: st
    x = reshape(rand_c(60), [15, 4])
    call cf_fft_plan_create(p, x, y, normalize=.true., stat=st)
    call check(st == 0 .and. p%rank() == 2 .and. all(p%shape() == [15, 4]) .and. p%batch() == 1, &
               'z2z plan from x(15,4) and y(15,4): rank 2, no batch')
    call cf_fft_forward(p, x, y, stat=st)
    call check(st == 0 .and. rel_err(pack(y, .true.), dft(pack(x, .true.), [15, 4, 1], 1, 2, -1)) < tol64, &
               'z2z 2-D 15x4, host, out of place forward = DFT')
    call cf_fft_inverse(p, y, stat=st)
    call check(st == 0 .and. rel_err(pack(y, .true.), pack(x, .true.)) < tol64, &
               'z2z 2-D host: plan-level normalize=.true. makes the round trip give x')
    call cf_fft_inverse(p, x, y, normalize=.false., stat=st)
    call check(st == 0 .and. rel_err(pack(y, .true.), dft(pack(x, .true.), [15, 4, 1], 1, 2, 1)) < tol64, &
               'z2z 2-D host: normalize=.false. on the call overrides the plan')
    ! a flat array of the same elements fits the plan too; x may be intent(in) out of place
    x1 = pack(x, .true.)
    call forward_of(p, x1, y1, st)
    call check(st == 0 .and. rel_err(y1, dft(x1, [15, 4, 1], 1, 2, -1)) < tol64, &
               'z2z 2-D plan on flat x(60), y(60), x intent(in) in the caller')
  end subroutine t_z2z_host_2d

  subroutine forward_of(p, x, y, st)
    type(cf_fft_plan), intent(in) :: p
    complex(c_double_complex), intent(in) :: x(:)
    complex(c_double_complex), intent(out) :: y(:)
    integer, intent(out) :: st
    call cf_fft_forward(p, x, y, stat=st)
  end subroutine forward_of

  subroutine t_c2c_dev_3d()   ! C2C 6x10x7 on cf_array3_c32, in place and out of place, on a stream
    complex(c_float_complex) :: x(6, 10, 7), y(6, 10, 7)
    type(cf_array3_c32) :: dx, dy
    type(cf_fft_plan) :: p
    type(cf_stream) :: s
    integer :: st
    x = reshape(cmplx(rand_c(420), kind=c_float), [6, 10, 7])
    dx = x
    call cf_fft_plan_create(p, dx, stat=st)
    call check(st == 0 .and. all(p%shape() == [6, 10, 7]), 'c2c plan from a device array3 6x10x7')
    call cf_fft_forward(p, dx, stat=st)
    y = dx
    call check(st == 0 .and. rel_err(cmplx(pack(y, .true.), kind=dp), &
               dft(cmplx(pack(x, .true.), kind=dp), [6, 10, 7], 1, 3, -1)) < tol32, &
               'c2c 3-D 6x10x7, device, in place forward = DFT')
    call cf_allocate(dy, mold=x)
    call cf_stream_create(s)
    dx = x
    call cf_fft_inverse(p, dx, dy, stream=s, stat=st)
    call cf_stream_synchronize(s)
    y = dy
    call check(st == 0 .and. rel_err(cmplx(pack(y, .true.), kind=dp), &
               dft(cmplx(pack(x, .true.), kind=dp), [6, 10, 7], 1, 3, 1)) < tol32, &
               'c2c 3-D device, out of place inverse on a stream = DFT(+1)')
    call cf_set_stream(s)   ! host arrays then stage and transform on the thread's stream
    y = x
    call cf_fft_forward(p, y, stat=st)
    call cf_fft_inverse(p, y, normalize=.true., stat=st)
    call cf_set_stream()
    call check(st == 0 .and. rel_err(cmplx(pack(y, .true.), kind=dp), cmplx(pack(x, .true.), kind=dp)) &
               < tol32, 'c2c 3-D host arrays with cf_set_stream: normalised round trip = x')
    call cf_stream_destroy(s)
  end subroutine t_c2c_dev_3d

  subroutine t_z2z_dev_2d_batch()   ! Z2Z 6x10, batch 3, in a device array3
    complex(c_double_complex) :: x(6, 10, 3), y(6, 10, 3)
    type(cf_array3_c64) :: dx, dy
    type(cf_fft_plan) :: p
    integer :: st
    x = reshape(rand_c(180), [6, 10, 3])
    dx = x
    call cf_allocate(dy, mold=x)
    call cf_fft_plan_create(p, dx, dy, batch=3, stat=st)
    call check(st == 0 .and. p%rank() == 2 .and. p%batch() == 3, 'z2z plan from device array3 with batch=3')
    call cf_fft_forward(p, dx, dy, stat=st)
    y = dy
    call check(st == 0 .and. rel_err(pack(y, .true.), dft(pack(x, .true.), [6, 10, 1], 3, 2, -1)) < tol64, &
               'z2z 2-D 6x10 x batch 3, device, out of place forward = DFT')
    call cf_fft_inverse(p, dy, stat=st)
    y = dy
    call check(st == 0 .and. rel_err(pack(y, .true.), 60 * pack(x, .true.)) < tol64, &
               'z2z 2-D batch device: in place inverse completes the round trip (= 60*x)')
  end subroutine t_z2z_dev_2d_batch

  subroutine t_z2z_3d_batch_explicit()   ! a batch of 3-D transforms needs the explicit shape
    complex(c_double_complex) :: x(840), y(840), x3(6, 10, 14), y3(6, 10, 14)
    type(cf_vector_c64) :: dx
    type(cf_fft_plan) :: p
    integer :: st
    x = rand_c(840)
    call cf_fft_plan_create(p, [6, 10, 7], CF_FFT_Z2Z, batch=2, stat=st)
    call check(st == 0 .and. p%rank() == 3 .and. p%batch() == 2, 'z2z plan from [6,10,7], batch 2')
    call cf_fft_forward(p, x, y, stat=st)
    call check(st == 0 .and. rel_err(y, dft(x, [6, 10, 7], 2, 3, -1)) < tol64, &
               'z2z 3-D 6x10x7 x batch 2 on flat host arrays = DFT')
    x3 = reshape(x, [6, 10, 14])
    call cf_fft_forward(p, x3, y3, stat=st)
    call check(st == 0 .and. rel_err(pack(y3, .true.), y) < tol64, &
               'z2z 3-D batch 2 on x(6,10,14): the last dimension holds 7 x 2')
    dx = x
    call cf_fft_forward(p, dx, stat=st)
    y = dx
    call check(st == 0 .and. rel_err(y, dft(x, [6, 10, 7], 2, 3, -1)) < tol64, &
               'z2z 3-D batch 2 in place on a device vector')
  end subroutine t_z2z_3d_batch_explicit

  ! ---- real transforms ---------------------------------------------------------------------------------

  subroutine t_r2c_host_1d_batch()   ! R2C/C2R 15 (odd) x batch 4, host arrays
    real(c_float) :: x(15, 4), back(15, 4)
    complex(c_float_complex) :: c(8, 4)
    complex(dp) :: want(32)
    type(cf_fft_plan) :: p
    integer :: st
    x = reshape(real(rand_r(60), c_float), [15, 4])
    call cf_fft_plan_create(p, x, c, batch=4, stat=st)
    call check(st == 0 .and. p%is_real() .and. all(p%shape() == [15]) .and. p%batch() == 4, &
               'real plan from x(15,4), c(8,4), batch=4')
    call cf_fft_forward(p, x, c, stat=st)
    want = dft_r2c(real(pack(x, .true.), dp), [15, 1, 1], 4, 1)
    call check(st == 0 .and. rel_err(cmplx(pack(c, .true.), kind=dp), want) < tol32, &
               'r2c 1-D 15 x batch 4, host = the first 8 DFT coefficients')
    call cf_fft_inverse(p, c, back, stat=st)
    call check(st == 0 .and. rel_err(cmplx(pack(back, .true.), kind=dp), 15 * cmplx(pack(x, .true.), kind=dp)) &
               < tol32, 'c2r 1-D host: C2R(R2C(x)) = 15*x')
    call cf_fft_inverse(p, c, back, normalize=.true., stat=st)
    call check(st == 0 .and. rel_err(cmplx(pack(back, .true.), kind=dp), cmplx(pack(x, .true.), kind=dp)) &
               < tol32, 'c2r 1-D host, normalize=.true.: gives x')
  end subroutine t_r2c_host_1d_batch

  subroutine t_d2z_dev_2d()   ! D2Z/Z2D 15x4 on device matrices
    real(c_double) :: x(15, 4), back(15, 4)
    complex(c_double_complex) :: c(8, 4)
    type(cf_matrix_r64) :: dx
    type(cf_matrix_c64) :: dc
    type(cf_fft_plan) :: p
    integer :: st
    x = reshape(rand_r(60), [15, 4])
    dx = x
    call cf_allocate(dc, 8, 4)
    call cf_fft_plan_create(p, dx, dc, stat=st)
    call check(st == 0 .and. p%is_real() .and. all(p%shape() == [15, 4]), 'real plan from device 15x4, 8x4')
    call cf_fft_forward(p, dx, dc, stat=st)
    c = dc
    call check(st == 0 .and. rel_err(pack(c, .true.), dft_r2c(pack(x, .true.), [15, 4, 1], 1, 2)) < tol64, &
               'd2z 2-D 15x4, device = DFT half spectrum')
    call cf_fft_inverse(p, dc, dx, normalize=.true., stat=st)
    back = dx
    call check(st == 0 .and. maxval(abs(back - x)) < tol64, 'z2d 2-D device, normalised: gives x')
  end subroutine t_d2z_dev_2d

  subroutine t_r2c_3d()   ! R2C/C2R 7x10x6 (odd first dimension), host and device
    real(c_float) :: x(7, 10, 6), back(7, 10, 6)
    complex(c_float_complex) :: c(4, 10, 6)
    complex(dp) :: want(240)
    type(cf_array3_r32) :: dx
    type(cf_array3_c32) :: dc
    type(cf_fft_plan) :: p
    integer :: st
    x = reshape(real(rand_r(420), c_float), [7, 10, 6])
    call cf_fft_plan_create(p, [7, 10, 6], CF_FFT_C2R, stat=st)
    call check(st == 0 .and. p%is_real() .and. p%rank() == 3, 'real plan from [7,10,6] and CF_FFT_C2R')
    want = dft_r2c(real(pack(x, .true.), dp), [7, 10, 6], 1, 3)
    call cf_fft_forward(p, x, c, stat=st)
    call check(st == 0 .and. rel_err(cmplx(pack(c, .true.), kind=dp), want) < tol32, &
               'r2c 3-D 7x10x6, host = DFT half spectrum 4x10x6')
    dx = x
    call cf_allocate(dc, 4, 10, 6)
    call cf_fft_forward(p, dx, dc, stat=st)
    c = dc
    call check(st == 0 .and. rel_err(cmplx(pack(c, .true.), kind=dp), want) < tol32, &
               'r2c 3-D 7x10x6, device = DFT half spectrum')
    call cf_fft_inverse(p, dc, dx, stat=st)
    back = dx
    call check(st == 0 .and. rel_err(cmplx(pack(back, .true.), kind=dp), 420 * cmplx(pack(x, .true.), kind=dp)) &
               < tol32, 'c2r 3-D device: C2R(R2C(x)) = 420*x')
  end subroutine t_r2c_3d

  subroutine t_z2d_host_3d()   ! Z2D 6x10x7 host, the input a real signal's half spectrum
    real(c_double) :: s(6, 10, 7), y(6, 10, 7)
    complex(c_double_complex) :: h(4, 10, 7)
    type(cf_fft_plan) :: p
    integer :: st
    s = reshape(rand_r(420), [6, 10, 7])
    h = reshape(dft_r2c(pack(s, .true.), [6, 10, 7], 1, 3), [4, 10, 7])
    call cf_fft_plan_create(p, s, h, stat=st)
    call cf_fft_inverse(p, h, y, stat=st)
    call check(st == 0 .and. maxval(abs(y - 420 * s)) < 420 * tol64, 'z2d 3-D 6x10x7 host: = 420 * the signal')
  end subroutine t_z2d_host_3d

  subroutine t_c2r_dev_1d()   ! C2R 16 (even) on device vectors
    real(c_float) :: s(16), y(16)
    complex(c_float_complex) :: h(9)
    type(cf_vector_r32) :: dy
    type(cf_vector_c32) :: dh
    type(cf_fft_plan) :: p
    integer :: st
    s = real(rand_r(16), c_float)
    h = cmplx(dft_r2c(real(s, dp), [16, 1, 1], 1, 1), kind=c_float)
    dh = h
    call cf_allocate(dy, 16)
    call cf_fft_plan_create(p, dy, dh, stat=st)
    call cf_fft_inverse(p, dh, dy, normalize=.true., stat=st)
    y = dy
    call check(st == 0 .and. maxval(abs(y - s)) < 10 * tol32, 'c2r 1-D 16 device, normalised: = the signal')
  end subroutine t_c2r_dev_1d

  ! ---- the plan object and the cache -----------------------------------------------------------------

  subroutine local_plan(n, x)   ! a plan that lives for one call, as in a solver's inner routine
    integer, intent(in) :: n
    complex(c_double_complex), intent(inout) :: x(n)
    type(cf_fft_plan) :: p
    call cf_fft_plan_create(p, x)
    call cf_fft_forward(p, x)
  end subroutine local_plan

  subroutine t_plan_object()
    complex(c_double_complex) :: x(33), y(33), x0(33)
    type(cf_fft_plan) :: p, q
    integer(int64) :: misses0, hits0, idle0
    integer :: i, st
    x0 = rand_c(33)
    x = x0
    call local_plan(33, x)   ! first time: a new plan, released by the finalizer
    misses0 = cache('misses')
    hits0 = cache('hits')
    idle0 = cache('idle')
    call check(idle0 >= 1, 'the finalizer gives the plan back to the cache')
    do i = 1, 20
       x = x0
       call local_plan(33, x)
    end do
    call check(cache('misses') == misses0 .and. cache('hits') == hits0 + 20 .and. cache('idle') == idle0, &
               '20 more plans of the same shape come from the cache (no new plan)')
    call check(rel_err(x, dft(x0, [33, 1, 1], 1, 1, -1)) < tol64, 'a cached plan transforms correctly')
    call cf_fft_plan_create(p, x, normalize=.true.)
    q = p
    call cf_fft_plan_destroy(p)
    call check(p%rank() == 0 .and. q%rank() == 1 .and. all(q%shape() == [33]), &
               'q = p gives q a plan of its own that outlives cf_fft_plan_destroy(p)')
    x = x0
    call cf_fft_forward(q, x, y, stat=st)
    call cf_fft_inverse(q, y, stat=st)
    call check(st == 0 .and. rel_err(y, x0) < tol64, 'the copy keeps the normalize setting')
    call cf_fft_forward(p, x, stat=st)
    call check(st /= 0, 'a destroyed plan cannot be executed')
  end subroutine t_plan_object

  subroutine t_cache_bound()
    complex(c_float_complex) :: x(40)
    type(cf_fft_plan) :: p(12)
    integer :: i
    integer(int64) :: ev0
    ev0 = cache('evictions')
    do i = 1, 12
       call cf_fft_plan_create(p(i), x(1:27 + i))
    end do
    call cf_fft_plan_destroy(p)   ! elemental: gives back 12 different shapes
    call check(cache('idle') == 8 .and. cache('evictions') >= ev0 + 4, &
               'the cache keeps 8 released plans and destroys the least recently used')
    call cf_fft_cache_clear()
    call check(cache('idle') == 0, 'cf_fft_cache_clear empties the cache')
  end subroutine t_cache_bound

  ! ---- errors ----------------------------------------------------------------------------------------

  subroutine t_errors()
    complex(c_float_complex) :: x(15, 4), x5(15, 5), c8(8, 4)
    complex(c_double_complex) :: z(15, 4)
    real(c_float) :: r(15, 4)
    complex(c_float_complex) :: c7(7, 4), xz(0, 3)
    type(cf_matrix_c32) :: dm
    type(cf_fft_plan) :: p, pr, none
    integer :: st
    character(len=300) :: msg
    x = 0
    r = 0
    call cf_fft_plan_create(p, x, stat=st)
    msg = ''
    call cf_fft_forward(p, x5, stat=st, errmsg=msg)
    call check_err(st, msg, 'cf_fft_forward: shape mismatch: argument x is 15x5, expected 15x4', &
                   'a wrong shape is refused, named in errmsg')
    msg = ''
    call cf_fft_forward(p, x, x5, stat=st, errmsg=msg)
    call check_err(st, msg, 'argument y is 15x5, expected 15x4', 'a wrong output shape is refused')
    msg = ''
    call cf_fft_forward(p, z, stat=st, errmsg=msg)
    call check_err(st, msg, 'argument x is complex(c_double), expected complex(c_float)', &
                   'a complex(c_double) array on a complex(c_float) plan is refused')
    msg = ''
    call cf_fft_forward(p, r, c8, stat=st, errmsg=msg)
    call check_err(st, msg, 'argument x is real(c_float), expected complex(c_float)', &
                   'a real-to-complex call on a complex plan is refused')
    call cf_fft_plan_create(pr, r, c8, stat=st)
    msg = ''
    call cf_fft_forward(pr, x, c8, stat=st, errmsg=msg)
    call check_err(st, msg, 'a real plan', 'a complex input on a real plan is refused')
    msg = ''
    call cf_fft_inverse(pr, c8, x, stat=st, errmsg=msg)
    call check_err(st, msg, 'argument y is complex(c_float), expected real(c_float)', &
                   'a real plan''s inverse needs a real output')
    msg = ''
    call cf_fft_forward(none, x, stat=st, errmsg=msg)
    call check_err(st, msg, 'has not been created', 'a plan never created is refused')
    msg = ''
    call cf_fft_plan_create(p, x, batch=5, stat=st, errmsg=msg)
    call check_err(st, msg, 'batch = 5 but the last dimension of x (the batch) has 4', &
                   'batch= must match the last dimension')
    call check(p%rank() == 0, 'a failed creation leaves no plan')
    msg = ''
    call cf_fft_plan_create(p, x(:, 1), batch=15, stat=st, errmsg=msg)
    call check_err(st, msg, 'x has rank 1', 'batch= on a rank-1 array is refused')
    msg = ''
    call cf_fft_plan_create(pr, r, c7, stat=st, errmsg=msg)
    call check_err(st, msg, 'argument y is 7x4, expected 8x4', 'a wrong spectrum mold is refused at creation')
    msg = ''
    call cf_fft_plan_create(p, xz, stat=st, errmsg=msg)
    call check_err(st, msg, 'dimension 1 has 0 elements', 'an empty dimension is refused')
    msg = ''
    call cf_fft_plan_create(p, [4, 4], 7, stat=st, errmsg=msg)
    call check_err(st, msg, 'fft_type 7 is none of', 'an unknown fft_type is refused')
    msg = ''
    call cf_fft_plan_create(p, [4, 4, 4, 4], CF_FFT_C2C, stat=st, errmsg=msg)
    call check_err(st, msg, 'rank 1 to 3, not 4', 'rank 4 is refused')
    ! a strided device view
    call cf_allocate(dm, 15, 8)
    call cf_fft_plan_create(p, x, stat=st)
    msg = ''
    call cf_fft_forward(p, dm%sub(1, 15, 1, 4), stat=st, errmsg=msg)
    call check(st == 0, 'a column block of a device matrix is contiguous and accepted')
    call cf_deallocate(dm)
    call cf_allocate(dm, 20, 4)
    call cf_fft_forward(p, dm%sub(1, 15, 1, 4), stat=st, errmsg=msg)
    call check_err(st, msg, 'strided view', 'a strided device view is refused')
    call cf_deallocate(dm)
    ! a plan from before cf_shutdown
    call cf_shutdown()
    msg = ''
    call cf_fft_forward(p, x, stat=st, errmsg=msg)
    call check_err(st, msg, 'destroyed by cf_shutdown', 'a plan made before cf_shutdown is refused')
    call cf_fft_plan_create(p, x, stat=st)
    call cf_fft_forward(p, x, stat=st)
    call check(st == 0, 'creating it again after cf_shutdown works')
    call self_test('--die-shape', 'cf_fft_forward: shape mismatch: argument x is 15x5')
    call self_test('--die-nonplan', 'cf_fft_inverse: the plan has not been created')
  end subroutine t_errors

  subroutine self_test(arg, prefix)
    character(len=*), intent(in) :: arg, prefix
    character(len=1024) :: exe, line, tmp, out
    integer :: es, cs, u, ios, nlines, tl
    character(len=256) :: cmsg
    logical :: found
    call get_command_argument(0, exe)
    call get_environment_variable('TMPDIR', tmp, length=tl)
    if (tl == 0) tmp = '/tmp'
    out = trim(tmp) // '/cufort_test_fortran_fft' // arg(2:) // '.txt'
    es = 0
    cmsg = ''
    ! cmdstat: without it, a runtime may end this program when the child fails (LLVM flang's does);
    ! the child's exit status is still in es
    call execute_command_line(trim(exe) // ' ' // arg // ' > ' // trim(out) // ' 2>&1', exitstat=es, &
                              cmdstat=cs, cmdmsg=cmsg)
    found = .false.
    nlines = 0
    open(newunit=u, file=trim(out), status='old', action='read', iostat=ios)
    if (ios == 0) then
       do
          read(u, '(a)', iostat=ios) line
          if (ios /= 0) exit
          if (index(line, prefix) == 1) then
             found = .true.
             nlines = nlines + 1
          end if
       end do
       close(u, status='delete')
    end if
    call check(es /= 0 .and. found .and. nlines == 1, 'without stat, an error prints one line "' // prefix // &
               '..." and stops (' // arg // ')')
    if (es == 0) write(*, '(a,i0,a,a)') '#   the child did not fail: cmdstat ', cs, ' ', trim(cmsg)
  end subroutine self_test

  subroutine die(arg)
    character(len=*), intent(in) :: arg
    complex(c_float_complex) :: x(15, 4), x5(15, 5)
    type(cf_fft_plan) :: p
    x = 0
    x5 = 0
    call cf_fft_plan_create(p, x)
    if (arg == '--die-shape') call cf_fft_forward(p, x5)
    if (arg == '--die-nonplan') then
       call cf_fft_plan_destroy(p)
       call cf_fft_inverse(p, x)
    end if
  end subroutine die

end module fft_tests

program test_fortran_fft
  use fft_tests
  implicit none
  character(len=64) :: arg
  integer :: seed_size
  integer, allocatable :: seed(:)
  call get_command_argument(1, arg)
  if (len_trim(arg) > 0) then
     call die(trim(arg))
     stop
  end if
  call random_seed(size=seed_size)
  allocate(seed(seed_size))
  seed = 20261122
  call random_seed(put=seed)
  deallocate(seed)
  write(*, '(a,a)') '# backend ', cf_backend_name()
  call t_c2c_host_1d_batch()
  call t_z2z_host_2d()
  call t_c2c_dev_3d()
  call t_z2z_dev_2d_batch()
  call t_z2z_3d_batch_explicit()
  call t_r2c_host_1d_batch()
  call t_d2z_dev_2d()
  call t_r2c_3d()
  call t_z2d_host_3d()
  call t_c2r_dev_1d()
  call t_plan_object()
  call t_cache_bound()
  call t_errors()
  call cf_shutdown()
  write(*, '(i0,a,i0,a)') npass, ' passed, ', nfail, ' failed'
  if (nfail /= 0) error stop 1
end program test_fortran_fft
