! cufort.f90 -- `use cufort`: the modern Fortran API in one module.  It re-exports
!   cufort_core     kinds, CF_* status codes, cf_init/cf_shutdown, errors, devices, cf_synchronize,
!                   cf_version
!   cufort_streams  cf_stream, cf_event and their procedures
!   cufort_memory   device arrays cf_vector_<k>, cf_matrix_<k>, cf_array3_<k> (k = r32, r64, c32, c64),
!                   cf_allocate/cf_deallocate/cf_allocated, assignment and cf_memcpy both ways, views,
!                   pinned host arrays (cf_pinned_allocate, cf_pin, ...)
!   cufort_blas     generic BLAS cf_gemm, cf_axpy, ... on device arrays or host arrays
!   cufort_kernels  cufort's own reductions and transposes (cf_sum, cf_transpose, ...)
!   cufort_fft      cf_fft_plan: cuFFT/FFTW plans in Fortran order
! The raw bind(C) interfaces of the BLAS entry points are in module cufort_c_blas (not re-exported).
module cufort
  use cufort_core
  use cufort_streams
  use cufort_memory
  use cufort_blas
  use cufort_kernels
  use cufort_fft
  implicit none
  public
end module cufort
