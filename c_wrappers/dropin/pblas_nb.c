/* pblas_nb.c — the block size of ScaLAPACK's PBLAS, for a distributed program whose ranks run
 * their BLAS on this library.  PBLAS cuts every distributed operation (PDGEMM, PDSYRK, PDTRSM, ...)
 * into local BLAS calls PILAENV wide, and ScaLAPACK's PILAENV answers 32: a PDGEMM of any size
 * becomes rank-32 updates of each rank's part of C, each moving that part over PCIe twice for 64
 * flops per element, too thin for the GPU (docs/dropin-blas.md, "MPI and ScaLAPACK").  This
 * PILAENV answers
 *   CUFORT_PBLAS_NB=nb > 0   nb;
 *   CUFORT_PBLAS_NB=0        ScaLAPACK's own answer;
 *   unset                    DEFAULT_NB.
 * It takes effect where this library comes first: under LD_PRELOAD, or linked before
 * -lscalapack. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "dropin.h"

enum { DEFAULT_NB = 1024 };

typedef f77_int pilaenv_fn(const f77_int *, const char *, size_t);

f77_int F77_PLAIN_NAME(pilaenv, PILAENV)(const f77_int *ictxt, const char *prec, size_t prec_len)
{
    static void *next;
    static f77_int cache = -2;
    f77_int nb = dropin_block_size("CUFORT_PBLAS_NB", &cache);
    if (nb != 0)
        return nb > 0 ? nb : DEFAULT_NB;
    void *f = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, "pilaenv_");
        if (!f)   /* no ScaLAPACK after us: its documented default */
            return 32;
        __atomic_store_n(&next, f, __ATOMIC_RELEASE);
    }
    return ((pilaenv_fn *)f)(ictxt, prec, prec_len);
}
