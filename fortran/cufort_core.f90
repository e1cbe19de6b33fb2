! cufort_core.f90 -- the base of the modern Fortran API (`use cufort` re-exports it): kinds, status
! codes, error handling, initialisation, devices, the library's version.  Standard Fortran 2008 with
! ISO_C_BINDING only: every procedure here is a thin layer over the C ABI in c_wrappers/include/cufort.h.
!
! Errors: every public procedure takes optional `stat` (and `errmsg`).  With `stat` present the status
! comes back there (0 = success, else one of the CF_* codes below, equal to cufort.h's CUFORT_*) and the
! message in `errmsg`; with `stat` absent an error prints one line "<procedure>: <cause>" on stderr
! and stops the program (error stop).
module cufort_core
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit, int64
  implicit none
  private

  ! status codes (cufort.h)
  integer, parameter, public :: CF_SUCCESS = 0, CF_NOT_INITIALIZED = 1, CF_ALLOC_FAILED = 3, &
       CF_INVALID_VALUE = 7, CF_ARCH_MISMATCH = 8, CF_MAPPING_ERROR = 11, CF_EXECUTION_FAILED = 13, &
       CF_INTERNAL_ERROR = 14, CF_NOT_SUPPORTED = 15, CF_NO_DEVICE = 100, CF_BAD_POINTER = 101
  integer, parameter, public :: CF_BACKEND_AUTO = 0, CF_BACKEND_CUDA = 1, CF_BACKEND_HOST = 2
  ! element kinds of the device arrays
  integer, parameter, public :: cf_r32 = c_float, cf_r64 = c_double
  integer, parameter, public :: CF_MSG_LEN = 512

  type, public :: cf_device_properties
     character(len=256) :: name = ''
     integer(int64) :: total_memory = 0          ! bytes
     integer :: multiprocessors = 0
     integer :: major = 0, minor = 0             ! compute capability; 0.0 on the host backend
     integer(int64) :: memory_clock_khz = 0
     integer :: memory_bus_width = 0             ! bits
  end type cf_device_properties

  type, bind(C) :: c_device_properties
     character(kind=c_char) :: name(256)
     integer(c_int64_t) :: total_memory
     integer(c_int) :: multiprocessors, major, minor
     integer(c_int64_t) :: memory_clock_khz
     integer(c_int) :: memory_bus_width
  end type c_device_properties

  public :: cf_init, cf_shutdown, cf_is_initialized, cf_backend, cf_backend_name, cf_last_error
  public :: cf_status_string
  public :: cf_device_count, cf_set_device, cf_get_device, cf_get_device_properties
  public :: cf_synchronize, cf_mem_info, cf_live_allocations, cf_version
  ! used by the other cufort modules (not part of the documented API)
  public :: cf_ready, cf_finish, cf_raise, cf_offset, cf_notr, cf_left, cf_opt, cf_count_alloc
  public :: cf_bad_option, cf_bytes
  public :: cf_c_string, cf_itoa, cf_shape_string, cf_shape_mismatch

  integer(int64), save :: live_allocations = 0

  interface
     integer(c_int) function c_init() bind(C, name='cufort_init')
       import :: c_int
     end function
     integer(c_int) function c_init_backend(backend) bind(C, name='cufort_init_backend')
       import :: c_int
       integer(c_int), value :: backend
     end function
     integer(c_int) function c_shutdown() bind(C, name='cufort_shutdown')
       import :: c_int
     end function
     integer(c_int) function c_is_initialized() bind(C, name='cufort_is_initialized')
       import :: c_int
     end function
     integer(c_int) function c_backend() bind(C, name='cufort_backend')
       import :: c_int
     end function
     type(c_ptr) function c_backend_name() bind(C, name='cufort_backend_name')
       import :: c_ptr
     end function
     type(c_ptr) function c_last_error() bind(C, name='cufort_last_error')
       import :: c_ptr
     end function
     type(c_ptr) function c_status_string(st) bind(C, name='cufort_status_string')
       import :: c_ptr, c_int
       integer(c_int), value :: st
     end function
     integer(c_size_t) function c_strlen(s) bind(C, name='strlen')
       import :: c_size_t, c_ptr
       type(c_ptr), value :: s
     end function
     integer(c_int) function c_device_count(count) bind(C, name='cufort_device_count')
       import :: c_int
       integer(c_int) :: count
     end function
     integer(c_int) function c_set_device(device) bind(C, name='cufort_set_device')
       import :: c_int
       integer(c_int), value :: device
     end function
     integer(c_int) function c_get_device(device) bind(C, name='cufort_get_device')
       import :: c_int
       integer(c_int) :: device
     end function
     integer(c_int) function c_get_device_properties(device, props) &
          bind(C, name='cufort_get_device_properties')
       import :: c_int, c_device_properties
       integer(c_int), value :: device
       type(c_device_properties) :: props
     end function
     integer(c_int) function c_device_synchronize() bind(C, name='cufort_device_synchronize')
       import :: c_int
     end function
     integer(c_int) function c_mem_info(free_bytes, total_bytes) bind(C, name='cufort_mem_info')
       import :: c_int, c_int64_t
       integer(c_int64_t) :: free_bytes, total_bytes
     end function
     integer(c_int) function c_version(major, minor, patch) bind(C, name='cufort_version')
       import :: c_int
       integer(c_int) :: major, minor, patch
     end function
     type(c_ptr) function c_version_string() bind(C, name='cufort_version_string')
       import :: c_ptr
     end function
  end interface

contains

  ! ---- errors -------------------------------------------------------------------------------------

  !> A C string as a Fortran string ('' for NULL).
  function cf_c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
       s = ''
       return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
       s(i:i) = chars(i)
    end do
  end function cf_c_string

  function cf_itoa(i) result(s)
    integer(int64), intent(in) :: i
    character(len=:), allocatable :: s
    character(len=24) :: buf
    write(buf, '(i0)') i
    s = trim(buf)
  end function cf_itoa

  !> Extents joined by 'x' ("37x53"), for messages.
  function cf_shape_string(e) result(s)
    integer(int64), intent(in) :: e(:)
    character(len=:), allocatable :: s
    integer :: i
    s = cf_itoa(e(1))
    do i = 2, size(e)
       s = s // 'x' // cf_itoa(e(i))
    end do
  end function cf_shape_string

  !> The shape-mismatch error of the generics: names the routine, the argument and both extents.
  subroutine cf_shape_mismatch(me, arg, what, act, exp, stat, errmsg)
    character(len=*), intent(in) :: me, arg, what
    integer(int64), intent(in) :: act, exp
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call cf_raise(me, CF_INVALID_VALUE, 'shape mismatch: argument ' // arg // ' has ' // cf_itoa(act) // &
                  ' ' // what // ', expected ' // cf_itoa(exp), stat, errmsg)
  end subroutine cf_shape_mismatch

  !> This thread's last message from the C ABI ('' when none).
  function cf_last_error() result(s)
    character(len=:), allocatable :: s
    s = cf_c_string(c_last_error())
  end function cf_last_error

  !> The name of a status code.
  function cf_status_string(st) result(s)
    integer, intent(in) :: st
    character(len=:), allocatable :: s
    s = cf_c_string(c_status_string(int(st, c_int)))
  end function cf_status_string

  !> Reports an error found on the Fortran side: stat/errmsg, or one line and error stop.
  subroutine cf_raise(proc, st, msg, stat, errmsg)
    character(len=*), intent(in) :: proc, msg
    integer, intent(in) :: st
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (present(stat)) stat = st
    if (present(errmsg)) errmsg = proc // ': ' // msg
    if (.not. present(stat)) then
       write(error_unit, '(a)') proc // ': ' // msg
       error stop
    end if
  end subroutine cf_raise

  !> Ends a procedure after a C ABI call that returned st: success sets stat = 0; failure reports
  !> the C ABI's message.
  subroutine cf_finish(proc, st, stat, errmsg)
    character(len=*), intent(in) :: proc
    integer(c_int), intent(in) :: st
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=:), allocatable :: cause
    if (st == 0) then
       if (present(stat)) stat = 0
       return
    end if
    cause = cf_last_error()
    if (len(cause) == 0) cause = cf_status_string(int(st))
    call cf_raise(proc, int(st), cause, stat, errmsg)
  end subroutine cf_finish

  !> Initialises cufort on first use (CUFORT_BACKEND decides the backend); .false. after reporting
  !> the failure.
  logical function cf_ready(proc, stat, errmsg)
    character(len=*), intent(in) :: proc
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: st
    cf_ready = .true.
    if (present(stat)) stat = 0
    if (c_is_initialized() /= 0) return
    st = c_init()
    if (st /= 0) then
       cf_ready = .false.
       call cf_finish(proc, st, stat, errmsg)
    end if
  end function cf_ready

  ! ---- helpers for the generated modules --------------------------------------------------------------

  !> p advanced by `elements` elements of elem_size bytes (device or host address).
  function cf_offset(p, elements, elem_size) result(q)
    type(c_ptr), intent(in) :: p
    integer(int64), intent(in) :: elements
    integer, intent(in) :: elem_size
    type(c_ptr) :: q
    integer(c_intptr_t) :: a
    if (.not. c_associated(p)) then
       q = c_null_ptr
       return
    end if
    a = transfer(p, a)
    q = transfer(a + int(elements * elem_size, c_intptr_t), q)
  end function cf_offset

  logical function cf_notr(c)
    character(kind=c_char), intent(in) :: c
    cf_notr = c == 'N' .or. c == 'n'
  end function cf_notr

  logical function cf_left(c)
    character(kind=c_char), intent(in) :: c
    cf_left = c == 'L' .or. c == 'l'
  end function cf_left

  !> An optional option letter or its default.
  function cf_opt(c, default) result(r)
    character(len=*), intent(in), optional :: c
    character(len=1), intent(in) :: default
    character(kind=c_char) :: r
    r = default
    if (present(c)) then
       if (len(c) > 0) r = c(1:1)
    end if
  end function cf_opt

  !> .true. (after reporting it) when an option argument is present but not one of `allowed`
  !> (either case; its first character counts, as in the BLAS; '' is illegal, not the default).
  !> The generics ask before any shape: a wrong letter must not be read as the other transposition.
  logical function cf_bad_option(proc, name, allowed, c, stat, errmsg)
    character(len=*), intent(in) :: proc, name, allowed
    character(len=*), intent(in), optional :: c
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=:), allocatable :: list
    character :: first
    integer :: i
    cf_bad_option = .false.
    if (.not. present(c)) return
    if (len(c) > 0) then
       first = c(1:1)
       if (first >= 'a' .and. first <= 'z') first = achar(iachar(first) - 32)
       if (index(allowed, first) > 0) return
    end if
    list = "'" // allowed(1:1) // "'"
    do i = 2, len(allowed)
       list = list // ", '" // allowed(i:i) // "'"
    end do
    cf_bad_option = .true.
    call cf_raise(proc, CF_INVALID_VALUE, 'argument ' // name // " = '" // c // "' is illegal: " // &
                  'expected ' // list, stat, errmsg)
  end function cf_bad_option

  !> bytes = product(extents) * elem_size when that fits int64 (.true.), else .false. with bytes = -1:
  !> an absurd shape is refused instead of wrapping to a small allocation.
  logical function cf_bytes(extents, elem_size, bytes)
    integer(int64), intent(in) :: extents(:)
    integer, intent(in) :: elem_size
    integer(int64), intent(out) :: bytes
    integer :: i
    cf_bytes = .false.
    bytes = -1
    if (any(extents < 0)) return
    cf_bytes = .true.
    bytes = 0
    if (any(extents == 0)) return
    bytes = elem_size
    do i = 1, size(extents)
       if (bytes > huge(bytes) / extents(i)) then
          cf_bytes = .false.
          bytes = -1
          return
       end if
       bytes = bytes * extents(i)
    end do
  end function cf_bytes

  subroutine cf_count_alloc(delta)
    integer, intent(in) :: delta
    live_allocations = live_allocations + delta
  end subroutine cf_count_alloc

  !> Number of device blocks the Fortran API has allocated and not yet freed.
  integer(int64) function cf_live_allocations()
    cf_live_allocations = live_allocations
  end function cf_live_allocations

  ! ---- version --------------------------------------------------------------------------------------

  !> The version of the cufort library the program runs with ("1.0.0"), and its three parts.  Needs
  !> no initialisation.
  function cf_version(major, minor, patch) result(s)
    integer, intent(out), optional :: major, minor, patch
    character(len=:), allocatable :: s
    integer(c_int) :: ma, mi, pa
    integer(c_int) :: st
    st = c_version(ma, mi, pa)
    if (present(major)) major = int(ma)
    if (present(minor)) minor = int(mi)
    if (present(patch)) patch = int(pa)
    s = cf_c_string(c_version_string())
  end function cf_version

  ! ---- context --------------------------------------------------------------------------------------

  !> Initialises cufort (optional: the first call of any cf_* procedure does it).  backend:
  !> CF_BACKEND_CUDA, CF_BACKEND_HOST or CF_BACKEND_AUTO (default: CUFORT_BACKEND, else auto).
  subroutine cf_init(backend, stat, errmsg)
    integer, intent(in), optional :: backend
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: st
    if (present(backend)) then
       st = c_init_backend(int(backend, c_int))
    else
       st = c_init()
    end if
    call cf_finish('cf_init', st, stat, errmsg)
  end subroutine cf_init

  !> Frees everything cufort allocated and releases the device (device arrays still alive become
  !> invalid; let them go out of scope first).
  subroutine cf_shutdown(stat, errmsg)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call cf_finish('cf_shutdown', c_shutdown(), stat, errmsg)
    live_allocations = 0
  end subroutine cf_shutdown

  logical function cf_is_initialized()
    cf_is_initialized = c_is_initialized() /= 0
  end function cf_is_initialized

  !> CF_BACKEND_CUDA or CF_BACKEND_HOST (initialises cufort when needed).
  integer function cf_backend(stat, errmsg)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    cf_backend = 0
    if (.not. cf_ready('cf_backend', stat, errmsg)) return
    cf_backend = int(c_backend())
  end function cf_backend

  !> "cuda" or "host" (initialises cufort when needed).
  function cf_backend_name(stat, errmsg) result(s)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=:), allocatable :: s
    s = 'none'
    if (.not. cf_ready('cf_backend_name', stat, errmsg)) return
    s = cf_c_string(c_backend_name())
  end function cf_backend_name

  ! ---- devices --------------------------------------------------------------------------------------

  integer function cf_device_count(stat, errmsg)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: n
    n = 0
    cf_device_count = 0
    if (.not. cf_ready('cf_device_count', stat, errmsg)) return
    call cf_finish('cf_device_count', c_device_count(n), stat, errmsg)
    cf_device_count = int(n)
  end function cf_device_count

  !> Selects the GPU (0-based, as CUFORT_DEVICE).
  subroutine cf_set_device(device, stat, errmsg)
    integer, intent(in) :: device
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call cf_finish('cf_set_device', c_set_device(int(device, c_int)), stat, errmsg)
  end subroutine cf_set_device

  integer function cf_get_device(stat, errmsg)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: d
    d = 0
    cf_get_device = 0
    if (.not. cf_ready('cf_get_device', stat, errmsg)) return
    call cf_finish('cf_get_device', c_get_device(d), stat, errmsg)
    cf_get_device = int(d)
  end function cf_get_device

  !> Properties of a device (default: the current one).
  function cf_get_device_properties(device, stat, errmsg) result(p)
    integer, intent(in), optional :: device
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(cf_device_properties) :: p
    type(c_device_properties) :: c
    integer(c_int) :: d, st
    integer :: i
    if (.not. cf_ready('cf_get_device_properties', stat, errmsg)) return
    d = 0
    if (present(device)) then
       d = int(device, c_int)
    else
       st = c_get_device(d)
    end if
    c%name = c_null_char
    st = c_get_device_properties(d, c)
    if (st == 0) then
       do i = 1, 256
          if (c%name(i) == c_null_char) exit
          p%name(i:i) = c%name(i)
       end do
       p%total_memory = c%total_memory
       p%multiprocessors = c%multiprocessors
       p%major = c%major
       p%minor = c%minor
       p%memory_clock_khz = c%memory_clock_khz
       p%memory_bus_width = c%memory_bus_width
    end if
    call cf_finish('cf_get_device_properties', st, stat, errmsg)
  end function cf_get_device_properties

  !> Waits for all work on the device.
  subroutine cf_synchronize(stat, errmsg)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. cf_ready('cf_synchronize', stat, errmsg)) return
    call cf_finish('cf_synchronize', c_device_synchronize(), stat, errmsg)
  end subroutine cf_synchronize

  !> Free and total device memory in bytes (host memory on the host backend).
  subroutine cf_mem_info(free_bytes, total_bytes, stat, errmsg)
    integer(int64), intent(out) :: free_bytes
    integer(int64), intent(out), optional :: total_bytes
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: f, t
    f = 0
    t = 0
    free_bytes = 0
    if (present(total_bytes)) total_bytes = 0
    if (.not. cf_ready('cf_mem_info', stat, errmsg)) return
    call cf_finish('cf_mem_info', c_mem_info(f, t), stat, errmsg)
    free_bytes = f
    if (present(total_bytes)) total_bytes = t
  end subroutine cf_mem_info

end module cufort_core
