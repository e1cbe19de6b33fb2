/* f77_fft_type.c — the typed legacy execute names (cufft_exec_c2c, ...) refuse a plan of another
 * type (both F77 libraries). */
#include "f77_fft.h"
#include "internal.h"

int cufort_f77_fft_type_is(int64_t plan, int type, const char *name)
{
    int actual = 0;
    int st = cufort_fft_get_type(cufort_f77_plan(plan), &actual);
    if (!st && actual != type)
        st = cufort_fail(CUFORT_INVALID_VALUE, "%s: the plan is of cuFFT type %#x, not %#x", name,
                         actual, type);
    return st;
}
