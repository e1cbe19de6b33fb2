! cufort_streams.f90 -- streams and events of the modern Fortran API (`use cufort` re-exports them).
! A cf_stream is a handle: copying the variable copies the handle, and cf_stream_destroy releases it
! (handles are never destroyed behind the program's back).  A default-initialised cf_stream (or
! cf_default_stream) is the default stream.
!   call cf_stream_create(s);  d_a = ... ;  call cf_memcpy(d_a, a, stream=s);  call cf_set_stream(s)
!   call cf_event_create(t0);  call cf_event_record(t0, s);  ...;  ms = cf_elapsed_ms(t0, t1)
module cufort_streams
  use, intrinsic :: iso_c_binding
  use cufort_core
  implicit none
  private

  type, public :: cf_stream
     type(c_ptr) :: handle = c_null_ptr
  end type cf_stream

  type, public :: cf_event
     type(c_ptr) :: handle = c_null_ptr
  end type cf_event

  type(cf_stream), parameter, public :: cf_default_stream = cf_stream(c_null_ptr)

  public :: cf_stream_create, cf_stream_destroy, cf_stream_synchronize, cf_set_stream, cf_get_stream
  public :: cf_event_create, cf_event_destroy, cf_event_record, cf_event_synchronize, cf_elapsed_ms

  interface
     integer(c_int) function c_stream_create(s) bind(C, name='cufort_stream_create')
       import :: c_int, c_ptr
       type(c_ptr) :: s
     end function
     integer(c_int) function c_stream_destroy(s) bind(C, name='cufort_stream_destroy')
       import :: c_int, c_ptr
       type(c_ptr), value :: s
     end function
     integer(c_int) function c_stream_synchronize(s) bind(C, name='cufort_stream_synchronize')
       import :: c_int, c_ptr
       type(c_ptr), value :: s
     end function
     integer(c_int) function c_set_stream(s) bind(C, name='cufort_set_stream')
       import :: c_int, c_ptr
       type(c_ptr), value :: s
     end function
     integer(c_int) function c_get_stream(s) bind(C, name='cufort_get_stream')
       import :: c_int, c_ptr
       type(c_ptr) :: s
     end function
     integer(c_int) function c_event_create(e) bind(C, name='cufort_event_create')
       import :: c_int, c_ptr
       type(c_ptr) :: e
     end function
     integer(c_int) function c_event_destroy(e) bind(C, name='cufort_event_destroy')
       import :: c_int, c_ptr
       type(c_ptr), value :: e
     end function
     integer(c_int) function c_event_record(e, s) bind(C, name='cufort_event_record')
       import :: c_int, c_ptr
       type(c_ptr), value :: e, s
     end function
     integer(c_int) function c_event_synchronize(e) bind(C, name='cufort_event_synchronize')
       import :: c_int, c_ptr
       type(c_ptr), value :: e
     end function
     integer(c_int) function c_event_elapsed_ms(ms, e0, e1) bind(C, name='cufort_event_elapsed_ms')
       import :: c_int, c_ptr, c_float
       real(c_float) :: ms
       type(c_ptr), value :: e0, e1
     end function
  end interface

contains

  subroutine cf_stream_create(s, stat, errmsg)
    type(cf_stream), intent(out) :: s
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. cf_ready('cf_stream_create', stat, errmsg)) return
    call cf_finish('cf_stream_create', c_stream_create(s%handle), stat, errmsg)
  end subroutine cf_stream_create

  subroutine cf_stream_destroy(s, stat, errmsg)
    type(cf_stream), intent(inout) :: s
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. cf_ready('cf_stream_destroy', stat, errmsg)) return
    call cf_finish('cf_stream_destroy', c_stream_destroy(s%handle), stat, errmsg)
    s%handle = c_null_ptr
  end subroutine cf_stream_destroy

  !> Waits for the work queued on s (default: the default stream).
  subroutine cf_stream_synchronize(s, stat, errmsg)
    type(cf_stream), intent(in), optional :: s
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_ptr) :: h
    h = c_null_ptr
    if (present(s)) h = s%handle
    if (.not. cf_ready('cf_stream_synchronize', stat, errmsg)) return
    call cf_finish('cf_stream_synchronize', c_stream_synchronize(h), stat, errmsg)
  end subroutine cf_stream_synchronize

  !> The stream this thread's BLAS calls (cf_gemm, ...) run on; absent: the default stream.
  subroutine cf_set_stream(s, stat, errmsg)
    type(cf_stream), intent(in), optional :: s
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_ptr) :: h
    h = c_null_ptr
    if (present(s)) h = s%handle
    if (.not. cf_ready('cf_set_stream', stat, errmsg)) return
    call cf_finish('cf_set_stream', c_set_stream(h), stat, errmsg)
  end subroutine cf_set_stream

  function cf_get_stream(stat, errmsg) result(s)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(cf_stream) :: s
    if (.not. cf_ready('cf_get_stream', stat, errmsg)) return
    call cf_finish('cf_get_stream', c_get_stream(s%handle), stat, errmsg)
  end function cf_get_stream

  subroutine cf_event_create(e, stat, errmsg)
    type(cf_event), intent(out) :: e
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. cf_ready('cf_event_create', stat, errmsg)) return
    call cf_finish('cf_event_create', c_event_create(e%handle), stat, errmsg)
  end subroutine cf_event_create

  subroutine cf_event_destroy(e, stat, errmsg)
    type(cf_event), intent(inout) :: e
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. cf_ready('cf_event_destroy', stat, errmsg)) return
    call cf_finish('cf_event_destroy', c_event_destroy(e%handle), stat, errmsg)
    e%handle = c_null_ptr
  end subroutine cf_event_destroy

  !> Records e on stream s (default: the default stream).
  subroutine cf_event_record(e, s, stat, errmsg)
    type(cf_event), intent(in) :: e
    type(cf_stream), intent(in), optional :: s
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_ptr) :: h
    h = c_null_ptr
    if (present(s)) h = s%handle
    if (.not. cf_ready('cf_event_record', stat, errmsg)) return
    call cf_finish('cf_event_record', c_event_record(e%handle, h), stat, errmsg)
  end subroutine cf_event_record

  subroutine cf_event_synchronize(e, stat, errmsg)
    type(cf_event), intent(in) :: e
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. cf_ready('cf_event_synchronize', stat, errmsg)) return
    call cf_finish('cf_event_synchronize', c_event_synchronize(e%handle), stat, errmsg)
  end subroutine cf_event_synchronize

  !> Milliseconds between two recorded events (waits for e1).
  real function cf_elapsed_ms(e0, e1, stat, errmsg)
    type(cf_event), intent(in) :: e0, e1
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_float) :: ms
    ms = 0
    cf_elapsed_ms = 0
    if (.not. cf_ready('cf_elapsed_ms', stat, errmsg)) return
    call cf_finish('cf_elapsed_ms', c_event_elapsed_ms(ms, e0%handle, e1%handle), stat, errmsg)
    cf_elapsed_ms = ms
  end function cf_elapsed_ms

end module cufort_streams
