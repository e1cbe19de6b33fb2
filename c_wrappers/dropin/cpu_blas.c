/* cpu_blas.c — the drop-in library's CPU path: libcufort's CPU BLAS loader (c_wrappers/host/
 * cpu_blas.c, which never picks the drop-in itself).  A BLAS call cannot return an error: without
 * a CPU BLAS there is nothing to do but say why and stop. */
#include <stdio.h>
#include <stdlib.h>

#include "dropin.h"
#include "host_internal.h"

const char *dropin_cpu_path(void) { return cufort_cpu_blas_opened(); }

void *dropin_cpu(void **slot, const char *symbol)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    if (cufort_cpu_blas_symbol(symbol, slot) != CUFORT_SUCCESS) {
        fprintf(stderr, "cufort drop-in BLAS: %s: %s\n", symbol, cufort_last_error());
        exit(1);
    }
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}
