/* f77_fft.h — shared by the legacy FFT names of both F77 libraries. */
#ifndef CUFORT_F77_FFT_H
#define CUFORT_F77_FFT_H

#include "f77.h"

/* Plans travel from Fortran as integer*8 handles. */
static inline cufort_fft_plan cufort_f77_plan(int64_t handle)
{
    return (cufort_fft_plan)(intptr_t)handle;
}

/* What every legacy FFT name does first; each library defines it.  The thunking one initialises
 * cufort on first use, as its other names do; the device-address one leaves cufort_init to the
 * caller, as cuFFT's own names do (the C ABI then says NOT_INITIALIZED). */
int cufort_f77_fft_start(const char *name);

/* The typed legacy names (cufft_exec_c2c, ...) refuse a plan of another type. */
int cufort_f77_fft_type_is(int64_t plan, int type, const char *name);

/* A type or direction as the C ABI's int; one that no int holds is an error naming WHAT. */
int cufort_f77_fft_int(f77_int value, int *out, const char *name, const char *what);

/* One typed execute name of a flavour: IN_T/OUT_T are the Fortran argument types of idata/odata,
 * PTR(arg) the pointer they stand for, EXEC the C ABI call; DIR_PARAM/DIR the direction argument
 * (real-to-complex names run forward and complex-to-real inverse, and take none). */
#define CUFORT_F77_FFT_EXEC(lower, UPPER, type, IN_T, OUT_T, PTR, EXEC, DIR_PARAM, DIR)           \
    f77_int F77_NAME(lower, UPPER)(const int64_t *plan, IN_T idata, OUT_T odata DIR_PARAM)         \
    {                                                                                              \
        int dir = 0;                                                                               \
        int st = cufort_f77_fft_start(#lower);                                                     \
        if (!st)                                                                                   \
            st = cufort_f77_fft_int(DIR, &dir, #lower, "direction");                               \
        if (!st)                                                                                   \
            st = cufort_f77_fft_type_is(*plan, type, #lower);                                      \
        return st ? st : EXEC(cufort_f77_plan(*plan), PTR(idata), PTR(odata), dir);                \
    }

#define CUFORT_F77_DIRECTION , const f77_int *direction
#define CUFORT_F77_NO_DIRECTION

/* Every execute name of a flavour. */
#define CUFORT_F77_FFT_EXECS(IN_T, OUT_T, PTR, EXEC)                                               \
    CUFORT_F77_FFT_EXEC(cufft_exec_c2c, CUFFT_EXEC_C2C, CUFORT_FFT_C2C, IN_T, OUT_T, PTR, EXEC,    \
                        CUFORT_F77_DIRECTION, *direction)                                          \
    CUFORT_F77_FFT_EXEC(cufft_exec_z2z, CUFFT_EXEC_Z2Z, CUFORT_FFT_Z2Z, IN_T, OUT_T, PTR, EXEC,    \
                        CUFORT_F77_DIRECTION, *direction)                                          \
    CUFORT_F77_FFT_EXEC(cufft_exec_r2c, CUFFT_EXEC_R2C, CUFORT_FFT_R2C, IN_T, OUT_T, PTR, EXEC,    \
                        CUFORT_F77_NO_DIRECTION, CUFORT_FFT_FORWARD)                               \
    CUFORT_F77_FFT_EXEC(cufft_exec_d2z, CUFFT_EXEC_D2Z, CUFORT_FFT_D2Z, IN_T, OUT_T, PTR, EXEC,    \
                        CUFORT_F77_NO_DIRECTION, CUFORT_FFT_FORWARD)                               \
    CUFORT_F77_FFT_EXEC(cufft_exec_c2r, CUFFT_EXEC_C2R, CUFORT_FFT_C2R, IN_T, OUT_T, PTR, EXEC,    \
                        CUFORT_F77_NO_DIRECTION, CUFORT_FFT_INVERSE)                               \
    CUFORT_F77_FFT_EXEC(cufft_exec_z2d, CUFFT_EXEC_Z2D, CUFORT_FFT_Z2D, IN_T, OUT_T, PTR, EXEC,    \
                        CUFORT_F77_NO_DIRECTION, CUFORT_FFT_INVERSE)

#endif
