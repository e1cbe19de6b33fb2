/* cpu_blas_vec.c — a Level-2 routine's vectors handed to the CPU BLAS as contiguous copies with
 * room on both sides.  OpenBLAS 0.3.21 to 0.3.23 built by gcc 12 or later (Debian 12's) loads past
 * the ends of the vectors in its Level-2 kernels (gemv, hemv, and trsv, trmv through them), by up
 * to several strides: a vector ending or starting at the edge of a mapping made the call fault.
 * A copy costs O(n) beside the routine's O(n^2); its element i is the vector's element i, so the
 * CPU BLAS walks it with increment 1 and computes what it would have on the original. */
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"

enum { PAD = 256 };   /* bytes on each side: more than any vector load reaches past an end */

int cufort_cpu_vec_in(cufort_cpu_vec *v, const void *x, int64_t n, int64_t inc, size_t es)
{
    size_t count = n > 0 ? (size_t)n : 0;
    *v = (cufort_cpu_vec){0};
    if (count > (SIZE_MAX - 2 * PAD) / es || !(v->buf = malloc(count * es + 2 * PAD)))
        return cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory (a copy of a vector of %lld)",
                           (long long)n);
    v->p = v->buf + PAD;
    memset(v->buf, 0, PAD);
    memset(v->p + count * es, 0, PAD);
    for (size_t i = 0; i < count; i++)
        memcpy(v->p + i * es, (const char *)x + cufort_blas_vix(n, inc, (int64_t)i) * (int64_t)es, es);
    return CUFORT_SUCCESS;
}

void cufort_cpu_vec_out(const cufort_cpu_vec *v, void *x, int64_t n, int64_t inc, size_t es)
{
    for (int64_t i = 0; i < n; i++)
        memcpy((char *)x + cufort_blas_vix(n, inc, i) * (int64_t)es, v->p + (size_t)i * es, es);
}

void cufort_cpu_vec_free(cufort_cpu_vec *v)
{
    free(v->buf);
    *v = (cufort_cpu_vec){0};
}
