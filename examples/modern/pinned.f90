! examples/modern/pinned.f90 -- seed 001's "Using pinned memory in Fortran" with `use cufort`: no
! cudaMallocHost interface block, no type(C_PTR), no c_f_pointer by hand.  cf_pinned_allocate gives
! a page-locked Fortran pointer array (it is c_f_pointer over cufort_host_alloc underneath);
! asynchronous copies on a stream go at full PCIe speed from it; cf_pin pins an array one already has.
!   gfortran pinned.f90 -Ibuild/include -Lbuild/lib -lcufort_fortran -lcufort -Wl,-rpath,$PWD/build/lib
program pinned
  use cufort
  implicit none
  integer, parameter :: m1 = 1024
  real, dimension(:,:), pointer :: A, B       ! pinned
  real, allocatable :: P(:,:)                 ! ordinary, pinned later with cf_pin
  type(cf_matrix_r32) :: d_A
  type(cf_stream) :: s
  type(cf_event) :: t0, t1
  real :: ms
  integer :: i, j, npass, nfail
  npass = 0
  nfail = 0

  ! equivalent to allocate(A(m1,m1)), but page-locked
  call cf_pinned_allocate(A, m1, m1)
  call cf_pinned_allocate(B, m1, m1)
  do j = 1, m1
    do i = 1, m1
      A(i, j) = real(i + m1 * (j - 1))
    end do
  end do
  B = 0

  call cf_stream_create(s)
  call cf_event_create(t0)
  call cf_event_create(t1)
  call cf_allocate(d_A, mold=A)
  call cf_event_record(t0, s)
  call cf_memcpy(d_A, A, stream=s)            ! asynchronous host-to-device on stream s
  call cf_memcpy(B, d_A, stream=s)            ! and back
  call cf_event_record(t1, s)
  call cf_stream_synchronize(s)
  ms = cf_elapsed_ms(t0, t1)
  write(*, '(a,f0.3,a,f0.2,a)') 'pinned round trip of 4 MiB: ', ms, ' ms (', &
       2 * 4.0 * m1 * m1 / 1e6 / max(ms, 1e-3), ' GB/s)'
  call check('async round trip through pinned arrays', all(B == A))

  ! pin an existing array, copy through it, unpin it
  allocate(P(m1, m1))
  P = 2 * A
  call cf_pin(P)
  d_A = P
  P = 0
  P = d_A
  call cf_unpin(P)
  call check('copy through an array pinned with cf_pin', all(P == 2 * A))

  call cf_pinned_deallocate(A)
  call cf_pinned_deallocate(B)
  call check('cf_pinned_deallocate nullifies', .not. associated(A) .and. .not. associated(B))
  call cf_event_destroy(t0)
  call cf_event_destroy(t1)
  call cf_stream_destroy(s)
  call cf_shutdown()               ! frees what is left on the device
  write(*, '(i0,a,i0,a)') npass, ' passed, ', nfail, ' failed'
  if (nfail /= 0) error stop 1

contains

  subroutine check(what, good)
    character(len=*), intent(in) :: what
    logical, intent(in) :: good
    if (good) then
      write(*, '(a,a)') 'ok ', what
      npass = npass + 1
    else
      write(*, '(a,a)') 'FAIL ', what
      nfail = nfail + 1
    end if
  end subroutine check

end program pinned
