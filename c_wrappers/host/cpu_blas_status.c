/* cpu_blas_status.c — the CPU BLAS loader (cpu_blas.c) in libcufort's terms: a symbol not found
 * is a failed call with its reason; an INTEGER that does not fit the CPU BLAS, too. */
#include <limits.h>

#include "host_internal.h"

int cufort_cpu_blas_symbol(const char *symbol, void **slot, void **fn)
{
    if (!(*fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE))) {
        char why[1024];
        if (cufort_cpu_blas_find(symbol, slot, why, sizeof why))
            return cufort_fail(CUFORT_NOT_SUPPORTED, "%s", why);
        *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    }
    return CUFORT_SUCCESS;
}

int cufort_host_int(int *out, int64_t v, const char *name)
{
    if (v > INT_MAX || v < INT_MIN)
        return cufort_fail(CUFORT_NOT_SUPPORTED,
                           "host backend: %s = %lld does not fit the CPU BLAS's 32-bit integers",
                           name, (long long)v);
    *out = (int)v;
    return CUFORT_SUCCESS;
}
