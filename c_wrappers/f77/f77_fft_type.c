/* f77_fft_type.c — the typed legacy execute names (cufft_exec_c2c, ...) refuse a plan of another
 * type, and a type or direction that no C int holds (an INTEGER*8 build) is refused rather than
 * cut to its low bits (both F77 libraries). */
#include <limits.h>

#include "f77_fft.h"
#include "internal.h"

int cufort_f77_fft_int(f77_int value, int *out, const char *name, const char *what)
{
    int64_t wide = value;
    if (wide < INT_MIN || wide > INT_MAX)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: %s %lld is not a cuFFT %s", name, what,
                           (long long)wide, what);
    *out = (int)wide;
    return 0;
}

int cufort_f77_fft_type_is(int64_t plan, int type, const char *name)
{
    int actual = 0;
    int st = cufort_fft_get_type(cufort_f77_plan(plan), &actual);
    if (!st && actual != type)
        st = cufort_fail(CUFORT_INVALID_VALUE, "%s: the plan is of cuFFT type %#x, not %#x", name,
                         actual, type);
    return st;
}
