/* f77_fft_thunking.c — legacy FFT execute names, thunking: idata/odata are host arrays, copied to
 * the GPU and back; idata = odata is in place.  Into libcufort_f77_thunking only. */
#include "f77_fft.h"

#define HOST_ARRAY(arg) (arg)

CUFORT_F77_FFT_EXECS(const void *, void *, HOST_ARRAY, cufort_fft_exec_host)
