! test_pin_cache_f77_thunking.f90 — a legacy program's arrays in the pin cache, through
! libcufort_f77_thunking: a COMMON block and a SAVEd array of 4 MiB, passed again and again, are
! pinned where they lie (static data: nothing but the program's end takes their pages), and
! cublas_shutdown unpins them.  Every call's result is checked (scaling by 2 is exact).  Heap and
! stack arrays, and blocks with a mapping of their own, are test_pin_cache.c's: where gfortran puts
! an automatic array, and whether malloc maps it, depends on flags and on what was freed before.
! Prints ok/FAIL lines and "N passed, M failed".
program test_pin_cache_f77_thunking
  use iso_c_binding, only: c_int, c_int64_t
  implicit none
  interface
    integer(c_int) function cufort_pin_cache_info(bytes, arrays, can_watch) bind(c)
      import :: c_int, c_int64_t
      integer(c_int64_t), intent(out) :: bytes
      integer(c_int), intent(out) :: arrays, can_watch
    end function
  end interface
  integer, parameter :: n = 1048576
  real(4) :: work(n)
  common /work/ work
  real(4), save :: kept(n)
  integer :: npass, nfail, k
  integer(c_int) :: arrays, can_watch   ! the C function's own kind, whatever the default INTEGER
  integer :: cublas_shutdown
  integer(c_int64_t) :: bytes

  npass = 0
  nfail = 0
  k = cufort_pin_cache_info(bytes, arrays, can_watch)
  call check(k == 0 .and. arrays == 0, 'nothing pinned at the start')
  do k = 1, 3
    call scaled(work, n, k, 'COMMON block')
    call scaled(kept, n, k + 10, 'SAVEd array')
  end do
  k = cufort_pin_cache_info(bytes, arrays, can_watch)
  write (*, '(a, i0, a, i0, a)') '# ', arrays, ' arrays pinned, ', bytes, ' bytes'
  if (can_watch == 0) then
    write (*, '(a)') '# skipped: no userfaultfd on this host; the pin cache never pins'
  else
    call check(arrays == 2 .and. bytes >= 2 * (4 * n - 4096) .and. bytes <= 2 * 4 * n, &
               'COMMON block and SAVEd array pinned after three calls each')
  end if
  do k = 1, 2
    call scaled(work, n, k + 20, 'COMMON block, pinned')
    call scaled(kept, n, k + 30, 'SAVEd array, pinned')
  end do
  k = cufort_pin_cache_info(bytes, arrays, can_watch)
  call check(arrays == 2 * can_watch, 'still the two arrays pinned after more calls')
  k = cublas_shutdown()   ! returns every device allocation and pin: a clean leak check
  k = cufort_pin_cache_info(bytes, arrays, can_watch)
  call check(arrays == 0, 'shutdown unpins them')
  write (*, '(i0, a, i0, a)') npass, ' passed, ', nfail, ' failed'
  if (nfail > 0) stop 1
contains
  ! fill v with generation gen's values, scale by 2 through the thunk, check every element
  subroutine scaled(v, m, gen, what)
    integer, intent(in) :: m, gen
    real(4), intent(inout) :: v(m)
    character(*), intent(in) :: what
    integer :: i
    do i = 1, m
      v(i) = 1.0 + real(mod(i * 7 + gen * 131, 9973)) * 0.25
    end do
    call cublas_sscal(m, 2.0, v, 1)
    do i = 1, m
      if (v(i) /= 2.0 * (1.0 + real(mod(i * 7 + gen * 131, 9973)) * 0.25)) exit
    end do
    call check(i > m, what // ': every element scaled')
  end subroutine
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (cond) then
      npass = npass + 1
      write (*, '(a, a)') 'ok test_pin_cache_f77_thunking ', what
    else
      nfail = nfail + 1
      write (*, '(a, a)') 'FAIL test_pin_cache_f77_thunking ', what
    end if
  end subroutine
end program
