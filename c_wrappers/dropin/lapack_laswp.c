/* lapack_laswp.c — LAPACK's row interchanges (SLASWP, DLASWP, CLASWP, ZLASWP), which its LU
 * factorizations apply across the whole matrix after every panel.  Reference LAPACK runs them on
 * one core; with the factorization's Level-3 calls on the GPU they took most of a DGETRF
 * (docs/dropin-blas.md, "LAPACK on the drop-in").  Here the columns, which need nothing of each
 * other, are shared among OpenMP threads; each column takes the interchanges in LAPACK's order.
 * Loaded first (LD_PRELOAD, or linked before -llapack), these replace the LAPACK's own. */
#include <omp.h>
#include <pthread.h>

#include "dropin.h"

/* fewer interchanges than this run on the calling thread alone */
enum { PARALLEL_SWAPS = 1 << 16 };

/* libgomp's threads do not survive fork(): a child's first parallel region waits for them forever.
 * A child of a process that has run one, and its children, run the interchanges on one thread. */
static int team_started, forked_after_team;
static void child_after_fork(void)
{
    if (__atomic_load_n(&team_started, __ATOMIC_RELAXED))
        __atomic_store_n(&forked_after_team, 1, __ATOMIC_RELAXED);
}
__attribute__((constructor)) static void watch_fork(void)
{
    pthread_atfork(NULL, NULL, child_after_fork);
}

typedef struct { uint64_t lo, hi; } pair;

#define SWAP_COLUMN(T)                                                                            \
    do {                                                                                          \
        T *col = (T *)a + (size_t)j * (size_t)lda;                                                \
        int64_t ix = ix0;                                                                         \
        for (int64_t i = i1; step > 0 ? i <= i2 : i >= i2; i += step, ix += inc) {                \
            int64_t ip = ipiv[ix - 1];                                                            \
            if (ip != i) {                                                                        \
                T x = col[i - 1];                                                                 \
                col[i - 1] = col[ip - 1];                                                         \
                col[ip - 1] = x;                                                                  \
            }                                                                                     \
        }                                                                                         \
    } while (0)

static void laswp(size_t es, const f77_int *p_n, void *a, const f77_int *p_lda, const f77_int *p_k1,
                  const f77_int *p_k2, const f77_int *ipiv, const f77_int *p_incx)
{
    int64_t n = *p_n, lda = *p_lda, k1 = *p_k1, k2 = *p_k2, inc = *p_incx;
    if (inc == 0 || n <= 0 || k2 < k1)
        return;
    /* LAPACK's order: k1 up to k2 for a positive increment, k2 down to k1 for a negative one */
    int64_t ix0 = inc > 0 ? k1 : k1 + (k1 - k2) * inc, i1 = inc > 0 ? k1 : k2, i2 = inc > 0 ? k2 : k1;
    int64_t step = inc > 0 ? 1 : -1, swaps = (k2 - k1 + 1) * n;
    int threads = swaps < PARALLEL_SWAPS || __atomic_load_n(&forked_after_team, __ATOMIC_RELAXED)
                      ? 1 : omp_get_max_threads();
    if ((int64_t)threads > n)
        threads = (int)n;
    if (threads > 1)
        __atomic_store_n(&team_started, 1, __ATOMIC_RELAXED);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int64_t j = 0; j < n; j++) {
        switch (es) {
        case 4: SWAP_COLUMN(uint32_t); break;
        case 8: SWAP_COLUMN(uint64_t); break;
        default: SWAP_COLUMN(pair); break;
        }
    }
}

#define LASWP(lower, UPPER, ES)                                                                   \
    void F77_PLAIN_NAME(lower, UPPER)(const f77_int *n, void *a, const f77_int *lda,              \
                                      const f77_int *k1, const f77_int *k2, const f77_int *ipiv,  \
                                      const f77_int *incx)                                        \
    {                                                                                             \
        laswp(ES, n, a, lda, k1, k2, ipiv, incx);                                                 \
    }

LASWP(slaswp, SLASWP, 4)
LASWP(dlaswp, DLASWP, 8)
LASWP(claswp, CLASWP, 8)
LASWP(zlaswp, ZLASWP, 16)
