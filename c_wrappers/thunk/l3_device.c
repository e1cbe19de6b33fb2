/* l3_device.c — the Level-3 engine's device work: the backend's own routines (cuBLAS, or the host
 * backend's CPU BLAS), as a device-pointer call reaches them once its arguments are checked (the
 * engine's operands are its own device buffers), with the call's scalars in its precision. */
#include <complex.h>

#include "blas_backends.h"
#include "kernels_internal.h"
#include "l3_internal.h"

#define BACKEND(name, ...) \
    (cufort_on_host() ? cufort_host_##name(__VA_ARGS__) : cufort_cuda_##name(__VA_ARGS__))

#define R4(x) ((float)creal(x))
#define C4(x) ((cufort_cfloat)(x))

int cufort_l3_gemm(char p, char ta, char tb, int64_t m, int64_t n, int64_t k, double complex al,
                   const void *A, int64_t lda, const void *B, int64_t ldb, double complex be, void *C,
                   int64_t ldc)
{
    switch (p) {
    case 's': return BACKEND(sgemm, ta, tb, m, n, k, R4(al), A, lda, B, ldb, R4(be), C, ldc);
    case 'd': return BACKEND(dgemm, ta, tb, m, n, k, creal(al), A, lda, B, ldb, creal(be), C, ldc);
    case 'c': return BACKEND(cgemm, ta, tb, m, n, k, C4(al), A, lda, B, ldb, C4(be), C, ldc);
    default: return BACKEND(zgemm, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
    }
}

int cufort_l3_tri(const cufort_l3 *c, double complex al, int64_t m, int64_t n, const void *A,
                  int64_t lda, void *B, int64_t ldb)
{
    char s = c->side, u = c->uplo, t = c->trans, d = c->diag;
    if (c->op == CUFORT_L3_TRSM)
        switch (c->prec) {
        case 's': return BACKEND(strsm, s, u, t, d, m, n, R4(al), A, lda, B, ldb);
        case 'd': return BACKEND(dtrsm, s, u, t, d, m, n, creal(al), A, lda, B, ldb);
        case 'c': return BACKEND(ctrsm, s, u, t, d, m, n, C4(al), A, lda, B, ldb);
        default: return BACKEND(ztrsm, s, u, t, d, m, n, al, A, lda, B, ldb);
        }
    switch (c->prec) {
    case 's': return BACKEND(strmm, s, u, t, d, m, n, R4(al), A, lda, B, ldb);
    case 'd': return BACKEND(dtrmm, s, u, t, d, m, n, creal(al), A, lda, B, ldb);
    case 'c': return BACKEND(ctrmm, s, u, t, d, m, n, C4(al), A, lda, B, ldb);
    default: return BACKEND(ztrmm, s, u, t, d, m, n, al, A, lda, B, ldb);
    }
}

int cufort_l3_symm(const cufort_l3 *c, int64_t m, int64_t n, const void *A, int64_t lda,
                   const void *B, int64_t ldb, void *C, int64_t ldc)
{
    double complex al = c->alpha, be = c->beta;
    char s = c->side, u = c->uplo;
    switch (c->prec) {
    case 's': return BACKEND(ssymm, s, u, m, n, R4(al), A, lda, B, ldb, R4(be), C, ldc);
    case 'd': return BACKEND(dsymm, s, u, m, n, creal(al), A, lda, B, ldb, creal(be), C, ldc);
    case 'c':
        return c->op == CUFORT_L3_HEMM ? BACKEND(chemm, s, u, m, n, C4(al), A, lda, B, ldb, C4(be), C, ldc)
                                       : BACKEND(csymm, s, u, m, n, C4(al), A, lda, B, ldb, C4(be), C, ldc);
    default:
        return c->op == CUFORT_L3_HEMM ? BACKEND(zhemm, s, u, m, n, al, A, lda, B, ldb, be, C, ldc)
                                       : BACKEND(zsymm, s, u, m, n, al, A, lda, B, ldb, be, C, ldc);
    }
}

int cufort_l3_mirror(const cufort_l3 *c, int64_t n, void *A, int64_t lda)
{
    int kind = c->prec == 's' ? CUFORT_KS : c->prec == 'd' ? CUFORT_KD : c->prec == 'c' ? CUFORT_KC : CUFORT_KZ;
    return BACKEND(kmirror, kind, c->uplo, c->op == CUFORT_L3_HEMM, n, A, lda);
}

int cufort_l3_geam(char p, int64_t m, int64_t n, double complex al, const void *A, int64_t lda,
                   double complex be, void *C, int64_t ldc)
{
    switch (p) {
    case 's': return BACKEND(sgeam, 'N', 'N', m, n, R4(al), A, lda, R4(be), C, ldc, C, ldc);
    case 'd': return BACKEND(dgeam, 'N', 'N', m, n, creal(al), A, lda, creal(be), C, ldc, C, ldc);
    case 'c': return BACKEND(cgeam, 'N', 'N', m, n, C4(al), A, lda, C4(be), C, ldc, C, ldc);
    default: return BACKEND(zgeam, 'N', 'N', m, n, al, A, lda, be, C, ldc, C, ldc);
    }
}

/* the diagonal block of a rank-k update: n x n of C from n rows of op(A) (and op(B)) */
int cufort_l3_rank_k(const cufort_l3 *c, int64_t n, const void *A, int64_t lda, const void *B,
                     int64_t ldb, double complex be, void *C, int64_t ldc)
{
    double complex al = c->alpha;
    char u = c->uplo, t = c->trans, p = c->prec;
    int64_t k = c->k;
    switch (c->op) {
    case CUFORT_L3_SYRK:
        return p == 's' ? BACKEND(ssyrk, u, t, n, k, R4(al), A, lda, R4(be), C, ldc)
             : p == 'd' ? BACKEND(dsyrk, u, t, n, k, creal(al), A, lda, creal(be), C, ldc)
             : p == 'c' ? BACKEND(csyrk, u, t, n, k, C4(al), A, lda, C4(be), C, ldc)
                        : BACKEND(zsyrk, u, t, n, k, al, A, lda, be, C, ldc);
    case CUFORT_L3_HERK:
        return p == 'c' ? BACKEND(cherk, u, t, n, k, R4(al), A, lda, R4(be), C, ldc)
                        : BACKEND(zherk, u, t, n, k, creal(al), A, lda, creal(be), C, ldc);
    case CUFORT_L3_SYR2K:
        return p == 's' ? BACKEND(ssyr2k, u, t, n, k, R4(al), A, lda, B, ldb, R4(be), C, ldc)
             : p == 'd' ? BACKEND(dsyr2k, u, t, n, k, creal(al), A, lda, B, ldb, creal(be), C, ldc)
             : p == 'c' ? BACKEND(csyr2k, u, t, n, k, C4(al), A, lda, B, ldb, C4(be), C, ldc)
                        : BACKEND(zsyr2k, u, t, n, k, al, A, lda, B, ldb, be, C, ldc);
    case CUFORT_L3_HER2K:
        return p == 'c' ? BACKEND(cher2k, u, t, n, k, C4(al), A, lda, B, ldb, R4(be), C, ldc)
                        : BACKEND(zher2k, u, t, n, k, al, A, lda, B, ldb, creal(be), C, ldc);
    case CUFORT_L3_SYRKX:
        return p == 's' ? BACKEND(ssyrkx, u, t, n, k, R4(al), A, lda, B, ldb, R4(be), C, ldc)
             : p == 'd' ? BACKEND(dsyrkx, u, t, n, k, creal(al), A, lda, B, ldb, creal(be), C, ldc)
             : p == 'c' ? BACKEND(csyrkx, u, t, n, k, C4(al), A, lda, B, ldb, C4(be), C, ldc)
                        : BACKEND(zsyrkx, u, t, n, k, al, A, lda, B, ldb, be, C, ldc);
    default:
        return p == 'c' ? BACKEND(cherkx, u, t, n, k, C4(al), A, lda, B, ldb, R4(be), C, ldc)
                        : BACKEND(zherkx, u, t, n, k, al, A, lda, B, ldb, creal(be), C, ldc);
    }
}
