/* host_internal.h — the host backend's helpers: the CPU BLAS found at run time, int narrowing. */
#ifndef CUFORT_HOST_INTERNAL_H
#define CUFORT_HOST_INTERNAL_H

#include "internal.h"

/* Resolves a Fortran BLAS symbol (e.g. "sgemm_") in the CPU BLAS: $CUFORT_CPU_BLAS if set, else
 * libopenblas.so.0, libblas.so.3 (never the drop-in library).  Caches into *fn; fails with
 * CUFORT_NOT_SUPPORTED.  Also used by the drop-in library for its CPU path. */
int cufort_cpu_blas_symbol(const char *symbol, void **fn);
const char *cufort_cpu_blas_path(void);     /* opens it first */
const char *cufort_cpu_blas_opened(void);   /* "(not opened)" until something needed it */

/* CPU BLAS takes 32-bit integers: narrowing that would truncate is an error, never silent. */
int cufort_host_int(int *out, int64_t v, const char *name);

#endif
