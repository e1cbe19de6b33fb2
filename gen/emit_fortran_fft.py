"""Emits fortran/generated/cufort_fft.f90, module cufort_fft (FFT plans of `use cufort`), from
gen/fft_table.py: the plan type and the procedures that make, check and execute plans are written
once below (HEAD, SHARED); the generics' specific procedures, one per kind, rank and mode, come from
the table.  Standard Fortran 2008 + ISO_C_BINDING."""

from fft_table import GENERICS, KINDS, RANKS, SHAPE_SPECIFICS
from fortran_text import FT, fheader, generic_block

ME = "emit_fortran_fft.py"
TABLE = "fft_table.py"

DOC = """! cufort_fft.f90 -- FFT plans of `use cufort` (cuFFT on the GPU, FFTW3 on the host backend) in Fortran
! terms: a plan is made from an array (its shape in Fortran order, its kind, optionally its last
! dimension as the batch), executed on device arrays or host arrays, and released by its finalizer.
!
!   type(cf_fft_plan) :: p
!   call cf_fft_plan_create(p, x, batch=10)   ! complex x(256,10): ten 1-D transforms of 256
!   call cf_fft_forward(p, x)                 ! in place, host array (thunked) or device array
!   call cf_fft_inverse(p, x)                 ! unnormalised: x is now 256*x (normalize=.true.: x)
!   call cf_fft_plan_create(q, r, c)          ! real r(n1,n2), complex c(n1/2+1,n2): R2C and C2R
!   call cf_fft_forward(q, r, c);  call cf_fft_inverse(q, c, r)
!
! The C ABI takes dimensions in C order; this module reverses them, so the halved dimension of a real
! transform is the first one here.  Real transforms are out of place (the C ABI also has cuFFT's padded
! in-place layout); C2R may overwrite a device x, as cuFFT and FFTW do, never a host x (it is copied
! in).  Device-array calls run on stream= or else on the thread's stream (cf_set_stream), like BLAS
! calls; host-array calls are synchronous and reuse the thunk engine's device buffer.  Plans come from
! the C plan cache (fft_cache.c), so a plan declared in a routine called in a loop costs a cuFFT plan
! only the first time.  A plan is not to be executed from two threads at once; give each thread its"""

HEAD = """! own (they are cheap).
module cufort_fft
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64
  use cufort_core
  use cufort_streams
  use cufort_memory
  implicit none
  private

  ! transform types of cf_fft_plan_create(p, n, fft_type): cuFFT's numbers, as the C ABI
  integer, parameter, public :: CF_FFT_C2C = 41, CF_FFT_R2C = 42, CF_FFT_C2R = 44, &
       CF_FFT_Z2Z = 105, CF_FFT_D2Z = 106, CF_FFT_Z2D = 108

  ! the kind of a plan's physical-space array, and of an operand
  integer, parameter :: C32 = 1, C64 = 2, R32 = 3, R64 = 4
  integer, parameter :: FWD = -1, INV = 1

  !> A plan: rank 1-3 transforms of one shape, batched, complex-to-complex or real (R2C forward,
  !> C2R inverse).  Assignment gives the left side a plan of its own; the finalizer releases it.
  type, public :: cf_fft_plan
     private
     type(c_ptr) :: fwd = c_null_ptr, inv = c_null_ptr   ! the same C plan for complex transforms
     type(c_ptr) :: owner = c_null_ptr  ! where the plan that owns fwd/inv lives (plan_here)
     integer(c_int) :: gen = 0       ! the cufort initialisation (generation) the C plans belong to
     integer :: code = 0, nrank = 0  ! code: kind of the physical-space array; 0 = no plan
     integer(int64) :: n(3) = 1, nbatch = 1
     logical :: norm = .false.
   contains
     procedure :: rank => plan_rank
     procedure :: shape => plan_shape
     procedure :: batch => plan_batch
     procedure :: is_real => plan_is_real
     procedure, private :: plan_assign
     generic :: assignment(=) => plan_assign
     final :: plan_final
  end type cf_fft_plan

  ! one side of an execution as this module checks it
  type :: operand
     type(c_ptr) :: p = c_null_ptr
     integer(int64) :: dims(3) = 1
     integer :: nd = 0, code = 0
     logical :: contiguous = .true.
  end type operand

  public :: cf_fft_plan_create, cf_fft_plan_destroy, cf_fft_forward, cf_fft_inverse, cf_fft_cache_clear

  interface
     integer(c_int) function c_acquire(plan, gen, fft_type, rank, n, batch, inembed, istride, idist, &
          onembed, ostride, odist) bind(C, name='cufort_fft_plan_acquire')
       import :: c_int, c_int64_t, c_ptr
       type(c_ptr) :: plan
       integer(c_int) :: gen
       integer(c_int), value :: fft_type, rank
       integer(c_int64_t), intent(in) :: n(*)
       integer(c_int64_t), value :: batch, istride, idist, ostride, odist
       type(c_ptr), value :: inembed, onembed
     end function
     integer(c_int) function c_release(plan, gen) bind(C, name='cufort_fft_plan_release')
       import :: c_int, c_ptr
       type(c_ptr), value :: plan
       integer(c_int), value :: gen
     end function
     integer(c_int) function c_generation() bind(C, name='cufort_fft_generation')
       import :: c_int
     end function
     integer(c_int) function c_cache_clear() bind(C, name='cufort_fft_cache_clear')
       import :: c_int
     end function
     integer(c_int) function c_set_normalize(plan, flag) bind(C, name='cufort_fft_set_normalize')
       import :: c_int, c_ptr
       type(c_ptr), value :: plan
       integer(c_int), value :: flag
     end function
     integer(c_int) function c_set_plan_stream(plan, s) bind(C, name='cufort_fft_set_stream')
       import :: c_int, c_ptr
       type(c_ptr), value :: plan, s
     end function
     integer(c_int) function c_thread_stream(s) bind(C, name='cufort_get_stream')
       import :: c_int, c_ptr
       type(c_ptr) :: s
     end function
     integer(c_int) function c_exec(plan, x, y, dir) bind(C, name='cufort_fft_exec')
       import :: c_int, c_ptr
       type(c_ptr), value :: plan, x, y
       integer(c_int), value :: dir
     end function
     integer(c_int) function c_exec_host(plan, x, y, dir) bind(C, name='cufort_fft_exec_host')
       import :: c_int, c_ptr
       type(c_ptr), value :: plan, x, y
       integer(c_int), value :: dir
     end function
  end interface"""

SHARED = """contains

  ! ---- the plan object ----------------------------------------------------------------------------

  !> 1 to 3; 0 when no plan has been created.
  integer function plan_rank(self)
    class(cf_fft_plan), intent(in) :: self
    plan_rank = self%nrank
  end function plan_rank

  !> The transform's dimensions in Fortran order (the real array's for a real plan).
  function plan_shape(self) result(s)
    class(cf_fft_plan), intent(in) :: self
    integer(int64), allocatable :: s(:)
    s = self%n(1:self%nrank)
  end function plan_shape

  integer(int64) function plan_batch(self)
    class(cf_fft_plan), intent(in) :: self
    plan_batch = self%nbatch
  end function plan_batch

  logical function plan_is_real(self)
    class(cf_fft_plan), intent(in) :: self
    plan_is_real = self%code == R32 .or. self%code == R64
  end function plan_is_real

  impure elemental subroutine plan_final(self)
    type(cf_fft_plan), intent(inout) :: self
    call drop(self)
  end subroutine plan_final

  !> Where the plan object itself lives.  build() records it: a bitwise copy (an array constructor
  !> [p], transfer, intrinsic assignment of arrays of plans, none of which calls plan_assign) lives
  !> elsewhere and never releases the C plans it shares.
  function plan_here(p) result(a)
    type(cf_fft_plan), intent(in), target :: p
    type(c_ptr) :: a
    a = c_loc(p)
  end function plan_here

  !> Gives the C plans back to the cache (a no-op for plans a shutdown already destroyed, and for a
  !> bitwise copy, which only forgets them).
  subroutine drop(p)
    class(cf_fft_plan), intent(inout) :: p
    integer(c_int) :: st
    if (c_associated(p%owner, plan_here(p))) then
       if (c_associated(p%inv) .and. .not. c_associated(p%inv, p%fwd)) st = c_release(p%inv, p%gen)
       if (c_associated(p%fwd)) st = c_release(p%fwd, p%gen)
    end if
    p%owner = c_null_ptr
    p%fwd = c_null_ptr
    p%inv = c_null_ptr
    p%code = 0
    p%nrank = 0
    p%n = 1
    p%nbatch = 1
    p%norm = .false.
  end subroutine drop

  !> dst = src: dst gets a plan of its own with src's shape and settings, never src's C plans (two
  !> finalizers would release them twice).
  subroutine plan_assign(dst, src)
    class(cf_fft_plan), intent(inout) :: dst
    type(cf_fft_plan), intent(in) :: src
    if (c_associated(dst%fwd, src%fwd) .and. c_associated(dst%owner, plan_here(dst))) return
    call drop(dst)
    if (src%code /= 0) call build('cf_fft_plan assignment', dst, src%code, src%n(1:src%nrank), &
                                  src%nbatch, src%norm)
  end subroutine plan_assign

  !> Releases the plan now (the finalizer does it at the end of its scope); elemental.
  impure elemental subroutine cf_fft_plan_destroy(plan, stat, errmsg)
    type(cf_fft_plan), intent(inout) :: plan
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (present(stat)) stat = 0
    if (present(errmsg)) errmsg = errmsg
    call drop(plan)
  end subroutine cf_fft_plan_destroy

  !> Destroys the released plans the cache keeps (their cuFFT work areas are device memory).
  subroutine cf_fft_cache_clear()
    integer(c_int) :: cleared
    cleared = c_cache_clear()
  end subroutine cf_fft_cache_clear

  ! ---- creation -------------------------------------------------------------------------------------

  !> From a mold's shape: with batch=, its last dimension is the batch.
  subroutine make(me, plan, code, xdims, batch, normalize, stat, errmsg, ydims)
    character(len=*), intent(in) :: me
    class(cf_fft_plan), intent(inout) :: plan
    integer, intent(in) :: code
    integer(int64), intent(in) :: xdims(:)
    integer, intent(in), optional :: batch
    logical, intent(in), optional :: normalize
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64), intent(in), optional :: ydims(:)
    integer :: r
    integer(int64) :: nb
    if (.not. cf_ready(me, stat, errmsg)) return
    call drop(plan)
    r = size(xdims)
    nb = 1
    if (present(batch)) then
       if (r < 2) then
          call cf_raise(me, CF_INVALID_VALUE, 'with batch=, the last dimension of x is the batch, ' // &
               'but x has rank 1 (cf_fft_plan_create(p, [n], fft_type, batch=b) plans a flat array)', &
               stat, errmsg)
          return
       end if
       if (xdims(r) /= batch) then
          call cf_raise(me, CF_INVALID_VALUE, 'batch = ' // cf_itoa(int(batch, int64)) // &
               ' but the last dimension of x (the batch) has ' // cf_itoa(xdims(r)) // ' elements', &
               stat, errmsg)
          return
       end if
       nb = batch
       r = r - 1
    end if
    call shaped(me, plan, code, xdims(1:r), nb, normalize, stat, errmsg, ydims)
  end subroutine make

  subroutine shaped(me, plan, code, n, nb, normalize, stat, errmsg, ydims)
    character(len=*), intent(in) :: me
    class(cf_fft_plan), intent(inout) :: plan
    integer, intent(in) :: code
    integer(int64), intent(in) :: n(:), nb
    logical, intent(in), optional :: normalize
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64), intent(in), optional :: ydims(:)
    integer :: i
    logical :: norm
    if (size(n) < 1 .or. size(n) > 3) then
       call cf_raise(me, CF_INVALID_VALUE, 'a transform has rank 1 to 3, not ' // &
            cf_itoa(int(size(n), int64)), stat, errmsg)
       return
    end if
    do i = 1, size(n)
       if (n(i) < 1) then
          call cf_raise(me, CF_INVALID_VALUE, 'dimension ' // cf_itoa(int(i, int64)) // ' has ' // &
               cf_itoa(n(i)) // ' elements; a transform needs at least 1', stat, errmsg)
          return
       end if
    end do
    if (nb < 1) then
       call cf_raise(me, CF_INVALID_VALUE, 'batch = ' // cf_itoa(nb) // ' must be >= 1', stat, errmsg)
       return
    end if
    if (present(ydims)) then
       if (.not. fits(ydims, side_shape(code, n, nb, .true.))) then
          call mismatch(me, 'y', ydims, side_shape(code, n, nb, .true.), stat, errmsg)
          return
       end if
    end if
    norm = .false.
    if (present(normalize)) norm = normalize
    call build(me, plan, code, n, nb, norm, stat, errmsg)
  end subroutine shaped

  !> The C plans, dimensions reversed into C order.
  subroutine build(me, plan, code, n, nb, norm, stat, errmsg)
    character(len=*), intent(in) :: me
    class(cf_fft_plan), intent(inout) :: plan
    integer, intent(in) :: code
    integer(int64), intent(in) :: n(:), nb
    logical, intent(in) :: norm
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer, parameter :: fwd_type(4) = [CF_FFT_C2C, CF_FFT_Z2Z, CF_FFT_R2C, CF_FFT_D2Z]
    integer, parameter :: inv_type(4) = [CF_FFT_C2C, CF_FFT_Z2Z, CF_FFT_C2R, CF_FFT_Z2D]
    integer(c_int64_t) :: cn(3)
    integer(c_int) :: st, r
    r = int(size(n), c_int)
    cn(1:r) = n(r:1:-1)
    plan%owner = plan_here(plan)
    st = c_acquire(plan%fwd, plan%gen, int(fwd_type(code), c_int), r, cn, nb, c_null_ptr, 1_c_int64_t, &
                   0_c_int64_t, c_null_ptr, 1_c_int64_t, 0_c_int64_t)
    if (st == 0) then
       if (code == R32 .or. code == R64) then
          st = c_acquire(plan%inv, plan%gen, int(inv_type(code), c_int), r, cn, nb, c_null_ptr, &
                         1_c_int64_t, 0_c_int64_t, c_null_ptr, 1_c_int64_t, 0_c_int64_t)
       else
          plan%inv = plan%fwd
       end if
    end if
    if (st /= 0) then
       call drop(plan)
       call cf_finish(me, st, stat, errmsg)
       return
    end if
    plan%code = code
    plan%nrank = r
    plan%n(1:r) = n
    plan%nbatch = nb
    plan%norm = norm
    if (present(stat)) stat = 0
  end subroutine build

  !> From the transform's dimensions (Fortran order) and type: for a real plan, CF_FFT_R2C and
  !> CF_FFT_C2R (CF_FFT_D2Z and CF_FFT_Z2D) name the same plan, n the real array's dimensions.
  subroutine plan_n64(plan, n, fft_type, batch, normalize, stat, errmsg)
    type(cf_fft_plan), intent(inout) :: plan
    integer(int64), intent(in) :: n(:)
    integer, intent(in) :: fft_type
    integer, intent(in), optional :: batch
    logical, intent(in), optional :: normalize
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=*), parameter :: me = 'cf_fft_plan_create'
    integer :: code
    integer(int64) :: nb
    if (.not. cf_ready(me, stat, errmsg)) return
    call drop(plan)
    select case (fft_type)
    case (CF_FFT_C2C)
       code = C32
    case (CF_FFT_Z2Z)
       code = C64
    case (CF_FFT_R2C, CF_FFT_C2R)
       code = R32
    case (CF_FFT_D2Z, CF_FFT_Z2D)
       code = R64
    case default
       call cf_raise(me, CF_INVALID_VALUE, 'fft_type ' // cf_itoa(int(fft_type, int64)) // &
            ' is none of CF_FFT_C2C, CF_FFT_Z2Z, CF_FFT_R2C, CF_FFT_C2R, CF_FFT_D2Z, CF_FFT_Z2D', stat, errmsg)
       return
    end select
    nb = 1
    if (present(batch)) nb = batch
    call shaped(me, plan, code, n, nb, normalize, stat, errmsg)
  end subroutine plan_n64

  subroutine plan_n(plan, n, fft_type, batch, normalize, stat, errmsg)
    type(cf_fft_plan), intent(inout) :: plan
    integer, intent(in) :: n(:)
    integer, intent(in) :: fft_type
    integer, intent(in), optional :: batch
    logical, intent(in), optional :: normalize
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call plan_n64(plan, int(n, int64), fft_type, batch, normalize, stat, errmsg)
  end subroutine plan_n

  ! ---- execution --------------------------------------------------------------------------------------

  !> One side's full shape: the transform's dimensions (the first one halved on the complex side of
  !> a real transform), then the batch when there is one.
  function side_shape(code, n, nb, spectral) result(f)
    integer, intent(in) :: code
    integer(int64), intent(in) :: n(:), nb
    logical, intent(in) :: spectral
    integer(int64), allocatable :: f(:)
    f = n
    if (spectral .and. (code == R32 .or. code == R64)) f(1) = f(1) / 2 + 1
    if (nb > 1) f = [f, nb]
  end function side_shape

  !> An array fits a full shape when its dimensions are those, or when its last dimension holds the
  !> remaining ones collapsed (a flat buffer; a batch of 3-D transforms in a rank-3 array).
  logical function fits(dims, f)
    integer(int64), intent(in) :: dims(:), f(:)
    integer :: nd, nf
    nd = size(dims)
    nf = size(f)
    if (nd >= nf) then
       fits = all(dims(1:nf) == f) .and. all(dims(nf+1:nd) == 1)
    else
       fits = all(dims(1:nd-1) == f(1:nd-1)) .and. dims(nd) == product(f(nd:nf))
    end if
  end function fits

  subroutine mismatch(me, arg, dims, want, stat, errmsg)
    character(len=*), intent(in) :: me, arg
    integer(int64), intent(in) :: dims(:), want(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call cf_raise(me, CF_INVALID_VALUE, 'shape mismatch: argument ' // arg // ' is ' // &
         cf_shape_string(dims) // ', expected ' // cf_shape_string(want), stat, errmsg)
  end subroutine mismatch

  function kind_str(code) result(s)
    integer, intent(in) :: code
    character(len=:), allocatable :: s
    select case (code)
    case (C32)
       s = 'complex(c_float)'
    case (C64)
       s = 'complex(c_double)'
    case (R32)
       s = 'real(c_float)'
    case default
       s = 'real(c_double)'
    end select
  end function kind_str

  !> Kind, shape and contiguity of one side; spectral: the complex side of a real plan.
  logical function operand_ok(me, arg, o, plan, spectral, stat, errmsg)
    character(len=*), intent(in) :: me, arg
    type(operand), intent(in) :: o
    type(cf_fft_plan), intent(in) :: plan
    logical, intent(in) :: spectral
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer :: want
    operand_ok = .false.
    want = plan%code
    if (spectral .and. plan%code == R32) want = C32
    if (spectral .and. plan%code == R64) want = C64
    if (o%code /= want) then
       if (plan%code == R32 .or. plan%code == R64) then
          call cf_raise(me, CF_INVALID_VALUE, 'argument ' // arg // ' is ' // kind_str(o%code) // &
               ', expected ' // kind_str(want) // ' (a real plan: forward real x to complex y, ' // &
               'inverse complex x to real y)', stat, errmsg)
       else
          call cf_raise(me, CF_INVALID_VALUE, 'argument ' // arg // ' is ' // kind_str(o%code) // &
               ', expected ' // kind_str(want) // ' (the kind of the plan)', stat, errmsg)
       end if
       return
    end if
    if (.not. fits(o%dims(1:o%nd), side_shape(plan%code, plan%n(1:plan%nrank), plan%nbatch, spectral))) then
       call mismatch(me, arg, o%dims(1:o%nd), side_shape(plan%code, plan%n(1:plan%nrank), plan%nbatch, &
                     spectral), stat, errmsg)
       return
    end if
    if (.not. o%contiguous) then
       call cf_raise(me, CF_INVALID_VALUE, 'argument ' // arg // ' is a strided view; a transform ' // &
            'needs a contiguous device array (copy the view into one)', stat, errmsg)
       return
    end if
    operand_ok = .true.
  end function operand_ok

  subroutine run(me, plan, dir, a, b, on_host, stream, normalize, stat, errmsg)
    character(len=*), intent(in) :: me
    type(cf_fft_plan), intent(in) :: plan
    integer, intent(in) :: dir
    type(operand), intent(in) :: a, b
    logical, intent(in) :: on_host
    type(cf_stream), intent(in), optional :: stream
    logical, intent(in), optional :: normalize
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_ptr) :: h, s
    integer(c_int) :: st
    logical :: norm
    if (.not. cf_ready(me, stat, errmsg)) return
    if (plan%code == 0) then
       call cf_raise(me, CF_INVALID_VALUE, 'the plan has not been created (cf_fft_plan_create)', stat, errmsg)
       return
    end if
    if (plan%gen /= c_generation()) then
       call cf_raise(me, CF_INVALID_VALUE, 'the plan was destroyed by cf_shutdown or cf_set_device ' // &
            'since it was created; create it again', stat, errmsg)
       return
    end if
    if (.not. operand_ok(me, 'x', a, plan, dir == INV, stat, errmsg)) return
    if (.not. operand_ok(me, 'y', b, plan, dir == FWD, stat, errmsg)) return
    h = plan%fwd
    if (dir == INV) h = plan%inv
    norm = plan%norm
    if (present(normalize)) norm = normalize
    st = c_set_normalize(h, merge(1_c_int, 0_c_int, norm .and. dir == INV))
    if (st == 0 .and. on_host) then
       st = c_exec_host(h, a%p, b%p, int(dir, c_int))
    else if (st == 0) then
       s = c_null_ptr
       if (present(stream)) then
          s = stream%handle
       else
          st = c_thread_stream(s)   ! where BLAS calls and copies of this thread run
       end if
       if (st == 0) st = c_set_plan_stream(h, s)
       if (st == 0) st = c_exec(h, a%p, b%p, int(dir, c_int))
    end if
    call cf_finish(me, st, stat, errmsg)
  end subroutine run

  function host_op(dims, code) result(o)
    integer(int64), intent(in) :: dims(:)
    integer, intent(in) :: code
    type(operand) :: o
    o%nd = size(dims)
    o%dims(1:o%nd) = dims
    o%code = code
  end function host_op

  function dev_op(p, dims, code, contiguous) result(o)
    type(c_ptr), intent(in) :: p
    integer(int64), intent(in) :: dims(:)
    integer, intent(in) :: code
    logical, intent(in) :: contiguous
    type(operand) :: o
    o = host_op(dims, code)
    o%p = p
    o%contiguous = contiguous
  end function dev_op

  ! ---- the generics' specific procedures: one per kind and rank, each only describes its arrays ----"""

OPTIONAL_TAIL = ["    integer, intent(out), optional :: stat",
                 "    character(len=*), intent(inout), optional :: errmsg"]


def specific_name(g, mode, kind, rank, inplace=False):
    return f"{g.prefix}_{mode}_{kind.name}_{rank.rank}" + ("_inplace" if inplace else "")


def device_type(rank, k):
    return f"cf_{rank.device}_{k}"


def sides(g, kind):
    """The kinds of x and y: physical to spectral forward (and for plans), the reverse inverse."""
    if g.direction == "INV":
        return kind.spectral, kind.name
    return kind.name, kind.spectral


def plan_specific(g, kind, rank, mode):
    name = specific_name(g, mode, kind, rank)
    if mode == "h":
        xdecl = f"{FT[kind.name]}, intent(in) :: x({rank.dims})"
        ydecl = f"{FT[kind.spectral]}, intent(in), optional :: y({rank.dims})"
        xs, ys = "shape(x, kind=int64)", "shape(y, kind=int64)"
    else:
        xdecl = f"type({device_type(rank, kind.name)}), intent(in) :: x"
        ydecl = f"type({device_type(rank, kind.spectral)}), intent(in), optional :: y"
        xs, ys = "x%shape()", "y%shape()"
    call = f"call make('{g.name}', plan, {kind.name.upper()}, {xs}, batch, normalize, stat, errmsg"
    with_y = f"{call}, {ys})" if mode == "d" else f"{call}, &\n                 {ys})"
    return [f"  subroutine {name}(plan, x, y, batch, normalize, stat, errmsg)",
            "    type(cf_fft_plan), intent(inout) :: plan",
            f"    {xdecl}",
            f"    {ydecl}",
            "    integer, intent(in), optional :: batch",
            "    logical, intent(in), optional :: normalize"] + OPTIONAL_TAIL + [
            "    if (present(y)) then",
            f"       {with_y}",
            "    else",
            f"       {call})",
            "    end if",
            f"  end subroutine {name}"]


def host_operand(var, arr, k):
    return [f"    {var} = host_op(shape({arr}, kind=int64), {k.upper()})",
            f"    if (size({arr}) > 0) {var}%p = c_loc({arr})"]


def device_operand(arr, rank, k):
    return f"dev_op({arr}%cptr(), {arr}%shape(), {k.upper()}, {rank.contiguous.format(a=arr)})"


def exec_specific(g, kind, rank, mode, inplace=False):
    """cf_fft_forward / cf_fft_inverse: describe x and y, then run."""
    name = specific_name(g, mode, kind, rank, inplace)
    xk, yk = sides(g, kind)
    complex_plan = kind.name == kind.spectral
    norm = g.direction == "INV"
    args = ["plan", "x"] + ([] if inplace else ["y"]) + (["normalize"] if norm else []) + \
        (["stream"] if mode == "d" else []) + ["stat", "errmsg"]
    out = [f"  subroutine {name}({', '.join(args)})", "    type(cf_fft_plan), intent(in) :: plan"]
    if mode == "h":
        x_intent = "inout" if inplace else "in"
        out.append(f"    {FT[xk]}, intent({x_intent}), target, contiguous :: x({rank.dims})")
        if not inplace:
            out.append(f"    {FT[yk]}, intent(inout), target, contiguous :: y({rank.dims})")
    else:
        y_opt = ", optional" if complex_plan else ""
        out += [f"    type({device_type(rank, xk)}), intent(in) :: x",
                f"    type({device_type(rank, yk)}), intent(in){y_opt} :: y"]
    if norm:
        out.append("    logical, intent(in), optional :: normalize")
    if mode == "d":
        out.append("    type(cf_stream), intent(in), optional :: stream")
    out += OPTIONAL_TAIL
    if inplace:
        out += ["    type(operand) :: a"] + host_operand("a", "x", xk)
    elif mode == "h":
        out += ["    type(operand) :: a, b"] + host_operand("a", "x", xk) + host_operand("b", "y", yk)
    elif complex_plan:
        out += ["    type(operand) :: a, b",
                f"    a = {device_operand('x', rank, xk)}",
                "    b = a",
                f"    if (present(y)) b = {device_operand('y', rank, yk)}"]
    else:
        out += ["    type(operand) :: a, b",
                f"    a = {device_operand('x', rank, xk)}",
                f"    b = {device_operand('y', rank, yk)}"]
    b = "a" if inplace else "b"
    where = ".true.," if mode == "h" else ".false., stream,"
    keywords = ("normalize=normalize, " if norm else "") + "stat=stat, errmsg=errmsg"
    out += [f"    call run('{g.name}', plan, {g.direction}, a, {b}, {where} {keywords})",
            f"  end subroutine {name}"]
    return out


def modes(g, kind):
    """(mode, in place) of g's specifics for one kind and rank: host, host in place (complex
    transforms), device."""
    yield "h", False
    if g.direction and kind.name == kind.spectral:
        yield "h", True
    yield "d", False


def specific(g, kind, rank, mode, inplace):
    if g.direction is None:
        return plan_specific(g, kind, rank, mode)
    return exec_specific(g, kind, rank, mode, inplace)


def module():
    out = [fheader(DOC, ME, TABLE) + HEAD, ""]
    for g in GENERICS:
        names = [specific_name(g, m, k, r, i) for r in RANKS for k in KINDS for m, i in modes(g, k)]
        if g.direction is None:
            names = SHAPE_SPECIFICS + names
        out += generic_block(g.name, names, step="   ")
    out += ["", SHARED]
    for rank in RANKS:
        for kind in KINDS:
            for g in GENERICS:
                for mode, inplace in modes(g, kind):
                    out += [""] + specific(g, kind, rank, mode, inplace)
    out += ["", "end module cufort_fft", ""]
    return "\n".join(out)


def emit(write):
    write("fortran/generated/cufort_fft.f90", module())
