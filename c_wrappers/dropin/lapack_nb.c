/* lapack_nb.c — the block size of LAPACK's blocked routines, for a program whose LAPACK runs on
 * this library's BLAS.  LAPACK asks its ILAENV for it; reference LAPACK answers 32-64, sizes
 * chosen for CPU caches, and every block step then makes Level-3 calls too thin to pay for their
 * trip over PCIe (docs/dropin-blas.md, "LAPACK on the drop-in").  This ILAENV answers the
 * block-size question (ISPEC = 1) with CUFORT_LAPACK_NB where that is set to a positive number,
 * and passes every other question, and every question when it is not set, to the ILAENV of the
 * LAPACK loaded after this library.  It takes effect where this library comes first: under
 * LD_PRELOAD, or linked before -llapack. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#include "dropin.h"

typedef f77_int ilaenv_fn(const f77_int *, const char *, const char *, const f77_int *,
                          const f77_int *, const f77_int *, const f77_int *, size_t, size_t);

/* CUFORT_LAPACK_NB, read once (0: not set); the environment may change later, the answer may not,
 * or one factorization would mix block sizes between its queries */
static f77_int chosen_nb(void)
{
    static f77_int nb = -1;
    f77_int v = __atomic_load_n(&nb, __ATOMIC_ACQUIRE);
    if (v < 0) {
        const char *s = getenv("CUFORT_LAPACK_NB");
        long long x = s && *s ? atoll(s) : 0;
        v = x > 0 && x <= 1 << 20 ? (f77_int)x : 0;
        __atomic_store_n(&nb, v, __ATOMIC_RELEASE);
    }
    return v;
}

f77_int F77_NAME(ilaenv, ILAENV)(const f77_int *ispec, const char *name, const char *opts,
                                 const f77_int *n1, const f77_int *n2, const f77_int *n3,
                                 const f77_int *n4, size_t name_len, size_t opts_len)
{
    static void *next;
    f77_int nb = chosen_nb();
    if (*ispec == 1 && nb > 0)
        return nb;
    void *f = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, "ilaenv_");
        if (!f)   /* no LAPACK after us: ILAENV's answer for "unblocked" */
            return 1;
        __atomic_store_n(&next, f, __ATOMIC_RELEASE);
    }
    return ((ilaenv_fn *)f)(ispec, name, opts, n1, n2, n3, n4, name_len, opts_len);
}
