! main.f90 — calling your own CUDA kernel (csquare.cu) from Fortran on cufort's device arrays and
! one of its streams.  Everything is plain ISO_C_BINDING: interfaces onto cufort's C ABI
! (cufort.h) and onto the kernel's C launcher.  Steps: allocate device memory, copy in, create a
! stream and make it this thread's cufort stream, launch the kernel on it, reduce the result with
! cufort's own kernel on the same stream (ordered after it, no synchronisation in between), copy
! back, free.
program user_kernel
  use iso_c_binding
  implicit none
  interface
    integer(c_int) function cufort_init() bind(C)
      import
    end function
    integer(c_int) function cufort_shutdown() bind(C)
      import
    end function
    integer(c_int) function cufort_backend() bind(C)   ! 1 cuda, 2 host
      import
    end function
    integer(c_int) function cufort_alloc(p, bytes) bind(C)
      import
      type(c_ptr) :: p
      integer(c_int64_t), value :: bytes
    end function
    integer(c_int) function cufort_free(p) bind(C)
      import
      type(c_ptr), value :: p
    end function
    integer(c_int) function cufort_set_vector(n, elem, x, incx, dy, incy) bind(C)
      import
      integer(c_int64_t), value :: n, elem, incx, incy
      type(c_ptr), value :: x, dy
    end function
    integer(c_int) function cufort_get_vector(n, elem, dx, incx, y, incy) bind(C)
      import
      integer(c_int64_t), value :: n, elem, incx, incy
      type(c_ptr), value :: dx, y
    end function
    integer(c_int) function cufort_stream_create(s) bind(C)
      import
      type(c_ptr) :: s
    end function
    integer(c_int) function cufort_stream_destroy(s) bind(C)
      import
      type(c_ptr), value :: s
    end function
    integer(c_int) function cufort_set_stream(s) bind(C)
      import
      type(c_ptr), value :: s
    end function
    integer(c_int) function cufort_stream_synchronize(s) bind(C)
      import
      type(c_ptr), value :: s
    end function
    integer(c_int) function cufort_creduce_sum_dev(n, x, incx, result) bind(C)
      import
      integer(c_int64_t), value :: n, incx
      type(c_ptr), value :: x, result
    end function
    ! your kernel's launcher (csquare.cu)
    integer(c_int) function csquare_launch(n, a, b, stream) bind(C)
      import
      integer(c_int64_t), value :: n
      type(c_ptr), value :: a, b, stream
    end function
  end interface
  integer, parameter :: n = 100
  complex(c_float_complex), target :: a(n), b(n), total
  type(c_ptr) :: d_a, d_b, d_sum, stream
  integer :: i, st

  do i = 1, n
    a(i) = cmplx(real(i), 0.5 * i - 3.0, c_float_complex)
  end do
  st = cufort_init()
  if (cufort_backend() == 1) then
    write (*, '(a)') 'backend: cuda (the kernel runs on the GPU)'
  else
    write (*, '(a)') 'backend: host (the launcher runs the kernel body on the CPU)'
  end if
  st = st + cufort_alloc(d_a, int(n * 8, c_int64_t)) + cufort_alloc(d_b, int(n * 8, c_int64_t))
  st = st + cufort_alloc(d_sum, 8_c_int64_t)
  st = st + cufort_set_vector(int(n, c_int64_t), 8_c_int64_t, c_loc(a), 1_c_int64_t, d_a, 1_c_int64_t)
  st = st + cufort_stream_create(stream) + cufort_set_stream(stream)
  st = st + csquare_launch(int(n, c_int64_t), d_a, d_b, stream)               ! your kernel
  st = st + cufort_creduce_sum_dev(int(n, c_int64_t), d_b, 1_c_int64_t, d_sum)  ! cufort's, same stream
  st = st + cufort_stream_synchronize(stream)
  st = st + cufort_get_vector(int(n, c_int64_t), 8_c_int64_t, d_b, 1_c_int64_t, c_loc(b), 1_c_int64_t)
  st = st + cufort_get_vector(1_c_int64_t, 8_c_int64_t, d_sum, 1_c_int64_t, c_loc(total), 1_c_int64_t)
  if (st /= 0) then
    write (*, '(a, i0)') 'a cufort or CUDA call failed, status sum ', st
    stop 1
  end if
  do i = 1, n
    if (i <= 3 .or. i == n) write (*, '(i5, 2f14.2)') i, b(i)
  end do
  write (*, '(a, 2f14.2)') '  sum', total
  st = cufort_set_stream(c_null_ptr) + cufort_stream_destroy(stream)
  st = st + cufort_free(d_a) + cufort_free(d_b) + cufort_free(d_sum) + cufort_shutdown()
  if (st /= 0) stop 1
end program
