/* lapack_nb.c — the block size of LAPACK's blocked routines, for a program whose LAPACK runs on
 * this library's BLAS.  LAPACK asks its ILAENV for it; reference LAPACK answers 32-64, sizes
 * chosen for CPU caches, and every block step then makes Level-3 calls too thin to pay for their
 * trip over PCIe (docs/dropin-blas.md, "LAPACK on the drop-in").  This ILAENV answers the
 * block-size question (ISPEC = 1):
 *   CUFORT_LAPACK_NB=nb > 0   nb, for every routine;
 *   CUFORT_LAPACK_NB=0        LAPACK's own answer;
 *   unset                     DEFAULT_NB for the Cholesky and LU factorizations (xPOTRF, xGETRF),
 *                             whose panels LAPACK factors recursively, so that wide blocks cost the
 *                             CPU nothing; LAPACK's own answer for the others (a wide QR panel, say,
 *                             is factored one column at a time).
 * Every other question goes to the ILAENV of the LAPACK loaded after this library.  It takes
 * effect where this library comes first: under LD_PRELOAD, or linked before -llapack. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "dropin.h"
#include "env.h"

enum { DEFAULT_NB = 1024, NOT_SET = -1 };   /* NOT_SET: as dropin_block_size says */

typedef f77_int ilaenv_fn(const f77_int *, const char *, const char *, const f77_int *,
                          const f77_int *, const f77_int *, const f77_int *, size_t, size_t);

/* A block-size variable, read once into *cache (-1 when unset or not a whole number from 0; more
 * than 2^20 reads as 2^20): the environment may change later, the answer may not, or one
 * factorization would mix block sizes between its queries */
f77_int dropin_block_size(const char *variable, f77_int *cache)
{
    f77_int v = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (v == -2) {
        int64_t x = -1;
        cufort_env_int(variable, 0, 1 << 20, &x);
        v = (f77_int)x;
        __atomic_store_n(cache, v, __ATOMIC_RELEASE);
    }
    return v;
}

/* xPOTRF or xGETRF, as LAPACK passes the name (any case, blank-padded) */
static int recursive_panels(const char *name, size_t len)
{
    if (len < 6 || !strchr("SDCZsdcz", name[0]) || (len > 6 && name[6] != ' '))
        return 0;
    char up[6];
    for (int i = 1; i < 6; i++)
        up[i] = (char)toupper((unsigned char)name[i]);
    return !memcmp(up + 1, "POTRF", 5) || !memcmp(up + 1, "GETRF", 5);
}

f77_int F77_PLAIN_NAME(ilaenv, ILAENV)(const f77_int *ispec, const char *name, const char *opts,
                                 const f77_int *n1, const f77_int *n2, const f77_int *n3,
                                 const f77_int *n4, size_t name_len, size_t opts_len)
{
    static void *next;
    static f77_int cache = -2;
    f77_int nb = dropin_block_size("CUFORT_LAPACK_NB", &cache);
    if (*ispec == 1 && nb > 0)
        return nb;
    if (*ispec == 1 && nb == NOT_SET && recursive_panels(name, name_len))
        return DEFAULT_NB;
    void *f = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, "ilaenv_");
        if (!f)   /* no LAPACK after us: 1, which for the block size means "unblocked" */
            return 1;
        __atomic_store_n(&next, f, __ATOMIC_RELEASE);
    }
    return ((ilaenv_fn *)f)(ispec, name, opts, n1, n2, n3, n4, name_len, opts_len);
}
