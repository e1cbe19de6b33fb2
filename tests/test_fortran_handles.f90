! test_fortran_handles.f90 -- objects of `use cufort` that own something, copied by the intrinsic
! means that never call defined assignment: array constructors ([d]), intrinsic assignment of arrays
! of them, transfer().  Such a copy is a view: when it dies it frees nothing, so the original stays
! valid and is freed exactly once (device vectors, matrices, rank-3 arrays, FFT plans); streams and
! events are plain handles, and destroying one twice through copies is refused.  Also: an
! illegal option letter is named as such before any shape is looked at; an empty host array with a
! huge other extent returns at once; extents whose bytes overflow int64 are refused, and a vector's
! extent may be an integer(int64) (2**31 + 7 elements on the GPU); a device array
! from before a cf_shutdown frees nothing after it (a later block may lie at its address); a pinned
! pointer with other lower bounds is freed; a type of one's own holding a device array, copied by
! component as modern-fortran.md says, owns its copy.
module handles_test_support
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, real32, real64
  use cufort
  implicit none
  integer :: npass = 0, nfail = 0
  ! a program's own type holding a device array, copied component by component (modern-fortran.md)
  type :: holder
    type(cf_matrix_r64) :: m
  end type holder
  interface
    ! a regression that loops over a huge extent must fail, not hang the suite
    integer(c_int) function alarm(seconds) bind(C, name='alarm')
      import :: c_int
      integer(c_int), value :: seconds
    end function
  end interface
contains
  subroutine check(good, what, detail)
    logical, intent(in) :: good
    character(len=*), intent(in) :: what
    character(len=*), intent(in), optional :: detail
    if (good) then
      write(*, '(a,a)') 'ok fortran handles ', what
      npass = npass + 1
    else
      if (present(detail)) then
        write(*, '(a,a,a,a)') 'FAIL fortran handles ', what, ': ', detail
      else
        write(*, '(a,a)') 'FAIL fortran handles ', what
      end if
      nfail = nfail + 1
    end if
  end subroutine check

  function status_text(st, msg) result(s)
    integer, intent(in) :: st
    character(len=*), intent(in) :: msg
    character(len=:), allocatable :: s
    character(len=24) :: b
    write(b, '(i0)') st
    s = 'stat ' // trim(b) // ', errmsg "' // trim(msg) // '"'
  end function status_text

  ! copies die here: constructor temporaries, an array of copies, a transfer() copy
  subroutine copies_of_matrix(d)
    type(cf_matrix_r64), intent(in) :: d
    type(cf_matrix_r64) :: arr(2), t
    arr = [d, d]
    t = transfer(d, t)          ! defined assignment from the transfer() result: a device copy
    call check(arr(1)%is_view() .and. .not. cf_allocated(arr(2)), 'matrix: [d] elements are views')
    call check(cf_allocated(t), 'matrix: t = transfer(d, t) is a copy of its own')
  end subroutine copies_of_matrix

  subroutine copies_of_vector(d)
    type(cf_vector_r32), intent(in) :: d
    type(cf_vector_r32), allocatable :: arr(:)
    allocate(arr(1))
    arr = [d]
    arr = [arr, d, d]
    call check(size(arr) == 3 .and. arr(3)%is_view(), 'vector: grown array of copies holds views')
  end subroutine copies_of_vector

  subroutine copies_of_array3(d)
    type(cf_array3_c32), intent(in) :: d
    type(cf_array3_c32) :: arr(1)
    arr = [d]
    call check(arr(1)%is_view(), 'array3: [d] element is a view')
  end subroutine copies_of_array3

  subroutine copies_of_plan(p)
    type(cf_fft_plan), intent(in) :: p
    type(cf_fft_plan) :: arr(2)
    arr = [p, p]
  end subroutine copies_of_plan
end module handles_test_support

program test_fortran_handles
  use handles_test_support
  implicit none
  integer(c_int) :: previous
  previous = alarm(120_c_int)
  call cf_init()
  call device_arrays()
  call plans()
  call options()
  call empty_calls()
  call huge_extents()
  call int64_extents()
  call handles()
  call pinned_bounds()
  call across_shutdown()
  call components()
  call cf_shutdown()
  write(*, '(i0,a,i0,a)') npass, ' passed, ', nfail, ' failed'
  if (nfail /= 0) error stop 1

contains

  subroutine device_arrays()
    integer(int64) :: base
    base = cf_live_allocations()
    call scope()
    call check(cf_live_allocations() == base, 'every block freed exactly once at the end')
  end subroutine device_arrays

  subroutine scope()
    type(cf_matrix_r64) :: dm
    type(cf_vector_r32) :: dv
    type(cf_array3_c32) :: dt
    real(real64) :: hm(5, 3), back(5, 3)
    real(real32) :: hv(7), backv(7)
    complex(real32) :: ht(2, 3, 2), backt(2, 3, 2)
    integer(int64) :: base
    integer :: st
    character(len=256) :: msg
    call random_number(hm)
    call random_number(hv)
    ht = cmplx(1.5, -0.5)
    dm = hm
    dv = hv
    dt = ht
    base = cf_live_allocations()
    call copies_of_matrix(dm)
    call copies_of_vector(dv)
    call copies_of_array3(dt)
    ! the copy made by transfer() owned a block of its own, freed with it
    call check(cf_live_allocations() == base, 'copies freed nothing of the originals')
    msg = ''
    back = 0
    call cf_memcpy(back, dm, stat=st, errmsg=msg)
    call check(st == 0 .and. all(back == hm), 'matrix: the original still holds its data', &
               status_text(st, msg))
    backv = 0
    call cf_memcpy(backv, dv, stat=st, errmsg=msg)
    call check(st == 0 .and. all(backv == hv), 'vector: the original still holds its data', &
               status_text(st, msg))
    backt = 0
    call cf_memcpy(backt, dt, stat=st, errmsg=msg)
    call check(st == 0 .and. all(backt == ht), 'array3: the original still holds its data', &
               status_text(st, msg))
    call check(cf_allocated(dm) .and. .not. dm%is_view(), 'matrix: the original still owns its block')
  end subroutine scope

  subroutine plans()
    type(cf_fft_plan) :: p, q
    complex(real64) :: x(16), y(16), z(16)
    integer :: st, i
    character(len=256) :: msg
    do i = 1, 16
      x(i) = cmplx(i, 16 - i, real64)
    end do
    call cf_fft_plan_create(p, x)
    y = x
    call cf_fft_forward(p, y)
    call copies_of_plan(p)
    ! a plan of the same shape now must not be handed p's C plan (the copies released nothing)
    call cf_fft_plan_create(q, x)
    z = x
    msg = ''
    call cf_fft_forward(p, z, stat=st, errmsg=msg)
    call check(st == 0 .and. maxval(abs(z - y)) < 1d-9, 'fft plan: usable after its copies died', &
               status_text(st, msg))
    call cf_fft_plan_destroy(q)
    z = x
    call cf_fft_forward(p, z, stat=st, errmsg=msg)
    call check(st == 0 .and. maxval(abs(z - y)) < 1d-9, &
               'fft plan: usable after another plan of its shape was destroyed', status_text(st, msg))
  end subroutine plans

  subroutine options()
    real(real32) :: a(3, 4), b(4, 2), c(3, 2), c0(3, 2)
    type(cf_matrix_r32) :: da, db, dc
    integer :: st
    character(len=256) :: msg
    call random_number(a)
    call random_number(b)
    call random_number(c)
    c0 = c
    msg = ''
    call cf_gemm(a, b, c, transa='', stat=st, errmsg=msg)
    call check(st == CF_INVALID_VALUE .and. index(msg, "cf_gemm: argument transa = '' is illegal") == 1 &
               .and. all(c == c0), "cf_gemm(transa=''): the option is named, C untouched", status_text(st, msg))
    ! shapes that would fit neither transposition: still the option is what is reported
    call cf_gemm(a, a, c, transb='Q', stat=st, errmsg=msg)
    call check(st == CF_INVALID_VALUE .and. index(msg, "cf_gemm: argument transb = 'Q' is illegal") == 1, &
               "cf_gemm(transb='Q'): the option, not the shapes", status_text(st, msg))
    da = a
    db = b
    dc = c
    call cf_gemm(da, db, dc, transa='x', stat=st, errmsg=msg)
    call check(st == CF_INVALID_VALUE .and. index(msg, "cf_gemm: argument transa = 'x' is illegal") == 1, &
               "cf_gemm(device, transa='x'): the option is named", status_text(st, msg))
    call cf_trsm(da%sub(1, 3, 1, 3), dc, side='L', uplo='M', stat=st, errmsg=msg)
    call check(st == CF_INVALID_VALUE .and. index(msg, "cf_trsm: argument uplo = 'M' is illegal") == 1, &
               "cf_trsm(uplo='M'): the option is named", status_text(st, msg))
    call cf_gemm(a, b, c, transa='n', transb='Normal', stat=st, errmsg=msg)
    call check(st == 0, "cf_gemm: 'n' and 'Normal' are legal (first letter, either case)", status_text(st, msg))
    ! a band of 3 rows cannot hold kl = 3 subdiagonals: A's rows are named, not the ku derived from them
    call cf_gbmv(a, b(:, 1), c(:, 1), 3, trans='T', stat=st, errmsg=msg)
    call check(st == CF_INVALID_VALUE .and. &
               index(msg, 'cf_gbmv: shape mismatch: argument A has 3 rows, fewer than kl + 1 = 4') == 1, &
               'cf_gbmv(kl = 3) on a band of 3 rows: A is named', status_text(st, msg))
  end subroutine options

  ! m = 0 beside a huge n: nothing to do, and nothing may walk the huge extent
  subroutine empty_calls()
    real(real32), allocatable :: a(:,:), b(:,:), c(:,:)
    type(cf_matrix_r32) :: da, db, dc
    type(cf_vector_r32) :: dx
    integer :: st
    integer(int64) :: t0, t1, rate
    character(len=256) :: msg
    allocate(a(0, 2_int64**40), b(0, 2_int64**40), c(0, 2_int64**40))
    msg = ''
    call system_clock(t0, rate)
    call cf_geam(a, b, c, alpha=2.0, beta=3.0, stat=st, errmsg=msg)
    call check(st == 0, 'cf_geam: 0 x 2^40 host arrays', status_text(st, msg))
    call cf_gemm(a(:, 1:0), b, c, stat=st, errmsg=msg)
    call check(st == 0, 'cf_gemm: 0 x 0 times 0 x 2^40 host arrays', status_text(st, msg))
    call cf_allocate(da, 0, huge(0))
    call cf_allocate(db, 0, huge(0))
    call cf_allocate(dc, 0, huge(0))
    call cf_allocate(dx, 0)
    call cf_geam(da, db, dc, alpha=2.0, beta=3.0, stat=st, errmsg=msg)
    call check(st == 0, 'cf_geam: 0 x (2^31 - 1) device arrays', status_text(st, msg))
    call cf_dgmm(da, dx, dc, side='L', stat=st, errmsg=msg)
    call check(st == 0, 'cf_dgmm: 0 x (2^31 - 1) device arrays', status_text(st, msg))
    call system_clock(t1)
    call check(real(t1 - t0) / real(rate) < 2.0, 'empty calls return at once')
  end subroutine empty_calls

  ! extents whose bytes do not fit int64 are refused, never wrapped to some small allocation
  subroutine huge_extents()
    type(cf_matrix_c64) :: dm
    type(cf_array3_r32) :: dt
    integer :: st
    character(len=256) :: msg
    msg = ''
    call cf_allocate(dm, huge(0), huge(0), stat=st, errmsg=msg)
    call check(st == CF_INVALID_VALUE .and. index(msg, 'int64') > 0 .and. .not. cf_allocated(dm), &
               'cf_allocate: (2^31-1)^2 complex(real64) refused', status_text(st, msg))
    call cf_allocate(dt, 2097152, 2097152, 2097152, stat=st, errmsg=msg)
    call check(st == CF_INVALID_VALUE .and. index(msg, 'int64') > 0 .and. product(dt%shape()) == 0, &
               'cf_allocate: 2^21 x 2^21 x 2^21 real32 (2^65 bytes) refused', status_text(st, msg))
  end subroutine huge_extents

  ! a vector's extent as integer(int64): refused when negative or beyond int64's bytes; on the GPU one
  ! of 2**31 + 7 elements (8 GiB of real32), which a default integer cannot count
  subroutine int64_extents()
    type(cf_vector_r32) :: v
    type(cf_vector_c64) :: z
    integer :: st
    character(len=256) :: msg
    integer(int64), parameter :: big = 2_int64**31 + 7
    call cf_allocate(v, 1000_int64)
    call check(cf_allocated(v) .and. v%size() == 1000_int64, 'cf_allocate(v, 1000_int64)')
    msg = ''
    call cf_allocate(v, -1_int64, stat=st, errmsg=msg)
    call check(st == CF_INVALID_VALUE .and. .not. cf_allocated(v), 'cf_allocate(v, -1_int64) refused', &
               status_text(st, msg))
    msg = ''
    call cf_allocate(z, huge(0_int64), stat=st, errmsg=msg)
    call check(st == CF_INVALID_VALUE .and. index(msg, 'int64') > 0, &
               'cf_allocate(z, huge(0_int64)) complex(real64): bytes beyond int64 refused', status_text(st, msg))
    if (cf_backend() /= CF_BACKEND_CUDA) return
    msg = ''
    call cf_allocate(v, big, stat=st, errmsg=msg)
    call check(st == 0 .and. v%size() == big, 'cf_allocate(v, 2**31 + 7) on the GPU', status_text(st, msg))
    call cf_deallocate(v)
  end subroutine int64_extents

  ! cf_stream and cf_event are plain handles: a copy names the same stream, destroyed once
  subroutine handles()
    type(cf_stream) :: s, copies(2)
    type(cf_event) :: e, ecopy
    integer :: st
    character(len=256) :: msg
    call cf_stream_create(s)
    copies = [s, s]
    call cf_event_create(e)
    ecopy = e
    call cf_stream_destroy(s)
    msg = ''
    call cf_stream_destroy(copies(1), stat=st, errmsg=msg)
    call check(st == CF_INVALID_VALUE .and. index(msg, 'not a live stream') > 0, &
               'cf_stream: destroying a copy after the original is refused', status_text(st, msg))
    call cf_event_destroy(ecopy)
    call cf_event_destroy(e, stat=st, errmsg=msg)
    call check(st == CF_INVALID_VALUE .and. index(msg, 'not a live event') > 0, &
               'cf_event: destroying the original after a copy is refused', status_text(st, msg))
  end subroutine handles
  ! cf_pinned_deallocate frees the block whatever lower bounds the pointer was given since
  subroutine pinned_bounds()
    real(real64), pointer :: v(:), m(:,:)
    integer :: st
    character(len=256) :: msg
    call cf_pinned_allocate(v, 10)
    v(0:9) => v
    msg = ''
    call cf_pinned_deallocate(v, stat=st, errmsg=msg)
    call check(st == 0 .and. .not. associated(v), 'cf_pinned_deallocate of v(0:9) => v', &
               status_text(st, msg))
    call cf_pinned_allocate(m, 4, 3)
    m(-1:, 5:) => m
    msg = ''
    call cf_pinned_deallocate(m, stat=st, errmsg=msg)
    call check(st == 0 .and. .not. associated(m), 'cf_pinned_deallocate of m(-1:, 5:) => m', &
               status_text(st, msg))
  end subroutine pinned_bounds

  ! cf_shutdown frees every block; an array allocated before it must not free the block a later
  ! allocation got, even at the same address
  subroutine across_shutdown()
    type(cf_matrix_r64) :: old, new
    real(real64) :: a(8, 8), b(8, 8), back(8, 8)
    integer :: st
    character(len=256) :: msg
    call random_number(a)
    call random_number(b)
    old = a
    call cf_shutdown()
    call cf_init()
    call check(.not. cf_allocated(old), 'a device array from before cf_shutdown is not allocated')
    new = b
    call cf_deallocate(old)
    call check(cf_live_allocations() == 1, 'freeing it after the shutdown frees nothing')
    back = -1
    msg = ''
    call cf_memcpy(back, new, stat=st, errmsg=msg)
    call check(st == 0 .and. all(back == b), 'the array allocated after the shutdown is intact', &
               status_text(st, msg))
  end subroutine across_shutdown
  ! the documented way to copy a type of one's own that holds a device array: by component, in a
  ! procedure whose temporaries are gone when it returns
  subroutine components()
    type(holder) :: src, dst
    real(real64) :: a(5, 4), back(5, 4)
    integer(int64) :: base
    integer :: st
    character(len=256) :: msg
    call random_number(a)
    base = cf_live_allocations()
    src%m = a
    call copy_holder(dst, src)
    call cf_deallocate(src%m)
    back = -1
    msg = ''
    call cf_memcpy(back, dst%m, stat=st, errmsg=msg)
    call check(cf_allocated(dst%m) .and. st == 0 .and. all(back == a), &
               'a holder copied by component owns its copy after the copying procedure returns', &
               status_text(st, msg))
    call cf_deallocate(dst%m)
    call check(cf_live_allocations() == base, 'both holders freed exactly once')
  end subroutine components

  subroutine copy_holder(dst, src)
    type(holder), intent(inout) :: dst
    type(holder), intent(in) :: src
    dst%m = src%m
  end subroutine copy_holder
end program test_fortran_handles
