! cufort_fft.f90 -- placeholder, filled in by the FFT work (issue 4)
module cufort_fft
  use cufort_memory
  implicit none
  private
end module cufort_fft
