/* cpu_blas.c — the drop-in library's CPU path: libcufort's CPU BLAS loader (c_wrappers/host/
 * cpu_blas.c, which never picks the drop-in itself), compiled into this library too, so that CPU
 * calls never open libcufort.  A BLAS call cannot return an error: without a CPU BLAS there is
 * nothing to do but say why and stop. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "dropin.h"
#include "host_internal.h"

/* OpenBLAS's threads spin for 2^28 cycles (~0.1 s) after every call before they sleep.  A GEMM the
 * drop-in sends to the GPU right after a CPU call then fights sixteen spinning threads for the
 * cores its staging copies need: on the H100 host such GEMMs took 10-25 times longer (ZGEMM n = 768
 * 24 ms against 1.8 ms; docs/performance.md).  Unless the user chose a value, the threads sleep
 * at once; the CPU BLAS is loaded later, on first use, so it reads this.  At load time: no other
 * thread is reading the environment yet. */
__attribute__((constructor)) static void quiet_openblas_threads(void)
{
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
}

const char *dropin_cpu_path(void) { return cufort_cpu_blas_opened(); }

void *dropin_cpu(void **slot, const char *symbol)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    char why[1024];
    if (cufort_cpu_blas_find(symbol, slot, why, sizeof why)) {
        fprintf(stderr, "cufort drop-in BLAS: %s: %s\n", symbol, why);
        exit(1);
    }
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}
