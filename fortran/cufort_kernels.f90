! cufort_kernels.f90 -- placeholder, filled in by the kernels work (issue 5)
module cufort_kernels
  use cufort_memory
  implicit none
  private
end module cufort_kernels
