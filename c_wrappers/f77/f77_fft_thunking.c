/* f77_fft_thunking.c — legacy FFT execute names, thunking: idata/odata are host arrays, copied to
 * the GPU and back; idata = odata is in place.  Every FFT name of this library initialises cufort
 * on first use.  Into libcufort_f77_thunking only. */
#include "f77_fft.h"
#include "internal.h"

#define HOST_ARRAY(arg) (arg)

int cufort_f77_fft_start(const char *name) { return cufort_ensure_init(name); }

CUFORT_F77_FFT_EXECS(const void *, void *, HOST_ARRAY, cufort_fft_exec_host)
