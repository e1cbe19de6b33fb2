! cufort.f90 -- `use cufort`: the modern Fortran API in one module.  It re-exports
!   cufort_core     kinds, CF_* status codes, cf_init/cf_shutdown, errors, devices, cf_synchronize
!   cufort_streams  cf_stream, cf_event and their procedures
!   cufort_memory   device arrays cf_vector_<k>, cf_matrix_<k>, cf_array3_<k> (k = r32, r64, c32, c64),
!                   cf_allocate/cf_deallocate/cf_allocated, assignment and cf_memcpy both ways, views,
!                   pinned host arrays (cf_pinned_allocate, cf_pin, ...)
!   cufort_blas     generic BLAS cf_gemm, cf_axpy, ... on device arrays or host arrays
! The raw bind(C) interfaces of the BLAS entry points are in module cufort_c_blas (not re-exported).
module cufort
  use cufort_core
  use cufort_streams
  use cufort_memory
  use cufort_blas
  implicit none
  public
end module cufort
