/* f77_fft_device.c — legacy FFT execute names, non-thunking: idata/odata are integer*8 device
 * addresses (cublas_alloc'd); idata = odata is in place.  Every FFT name of this library needs
 * cublas_init first.  Into libcufort_f77 only. */
#include "f77_fft.h"

#define DEVICE_ADDRESS(arg) cufort_f77_ptr(*(arg))

int cufort_f77_fft_start(const char *name)
{
    (void)name;
    return CUFORT_SUCCESS;
}

CUFORT_F77_FFT_EXECS(const cufort_devptr *, const cufort_devptr *, DEVICE_ADDRESS, cufort_fft_exec)
