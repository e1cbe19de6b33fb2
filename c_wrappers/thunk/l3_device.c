/* l3_device.c — the Level-3 engine's device work: the C ABI's own device-pointer routines (so
 * cuBLAS or the host backend's CPU BLAS is reached exactly as a device-pointer call reaches it),
 * with the call's scalars converted to its precision. */
#include <complex.h>

#include "l3_internal.h"

#define R4(x) ((float)creal(x))
#define C4(x) ((cufort_cfloat)(x))

int cufort_l3_gemm(char p, char ta, char tb, int64_t m, int64_t n, int64_t k, double complex al,
                   const void *A, int64_t lda, const void *B, int64_t ldb, double complex be, void *C,
                   int64_t ldc)
{
    switch (p) {
    case 's': return cufort_sgemm(ta, tb, m, n, k, R4(al), A, lda, B, ldb, R4(be), C, ldc);
    case 'd': return cufort_dgemm(ta, tb, m, n, k, creal(al), A, lda, B, ldb, creal(be), C, ldc);
    case 'c': return cufort_cgemm(ta, tb, m, n, k, C4(al), A, lda, B, ldb, C4(be), C, ldc);
    default: return cufort_zgemm(ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
    }
}

int cufort_l3_tri(const cufort_l3 *c, double complex al, int64_t m, int64_t n, const void *A,
                  int64_t lda, void *B, int64_t ldb)
{
    char s = c->side, u = c->uplo, t = c->trans, d = c->diag;
    if (c->op == CUFORT_L3_TRSM)
        switch (c->prec) {
        case 's': return cufort_strsm(s, u, t, d, m, n, R4(al), A, lda, B, ldb);
        case 'd': return cufort_dtrsm(s, u, t, d, m, n, creal(al), A, lda, B, ldb);
        case 'c': return cufort_ctrsm(s, u, t, d, m, n, C4(al), A, lda, B, ldb);
        default: return cufort_ztrsm(s, u, t, d, m, n, al, A, lda, B, ldb);
        }
    switch (c->prec) {
    case 's': return cufort_strmm(s, u, t, d, m, n, R4(al), A, lda, B, ldb);
    case 'd': return cufort_dtrmm(s, u, t, d, m, n, creal(al), A, lda, B, ldb);
    case 'c': return cufort_ctrmm(s, u, t, d, m, n, C4(al), A, lda, B, ldb);
    default: return cufort_ztrmm(s, u, t, d, m, n, al, A, lda, B, ldb);
    }
}

int cufort_l3_symm(const cufort_l3 *c, int64_t m, int64_t n, const void *A, int64_t lda,
                   const void *B, int64_t ldb, void *C, int64_t ldc)
{
    double complex al = c->alpha, be = c->beta;
    char s = c->side, u = c->uplo;
    switch (c->prec) {
    case 's': return cufort_ssymm(s, u, m, n, R4(al), A, lda, B, ldb, R4(be), C, ldc);
    case 'd': return cufort_dsymm(s, u, m, n, creal(al), A, lda, B, ldb, creal(be), C, ldc);
    case 'c':
        return c->op == CUFORT_L3_HEMM ? cufort_chemm(s, u, m, n, C4(al), A, lda, B, ldb, C4(be), C, ldc)
                                       : cufort_csymm(s, u, m, n, C4(al), A, lda, B, ldb, C4(be), C, ldc);
    default:
        return c->op == CUFORT_L3_HEMM ? cufort_zhemm(s, u, m, n, al, A, lda, B, ldb, be, C, ldc)
                                       : cufort_zsymm(s, u, m, n, al, A, lda, B, ldb, be, C, ldc);
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
        return p == 's' ? cufort_ssyrk(u, t, n, k, R4(al), A, lda, R4(be), C, ldc)
             : p == 'd' ? cufort_dsyrk(u, t, n, k, creal(al), A, lda, creal(be), C, ldc)
             : p == 'c' ? cufort_csyrk(u, t, n, k, C4(al), A, lda, C4(be), C, ldc)
                        : cufort_zsyrk(u, t, n, k, al, A, lda, be, C, ldc);
    case CUFORT_L3_HERK:
        return p == 'c' ? cufort_cherk(u, t, n, k, R4(al), A, lda, R4(be), C, ldc)
                        : cufort_zherk(u, t, n, k, creal(al), A, lda, creal(be), C, ldc);
    case CUFORT_L3_SYR2K:
        return p == 's' ? cufort_ssyr2k(u, t, n, k, R4(al), A, lda, B, ldb, R4(be), C, ldc)
             : p == 'd' ? cufort_dsyr2k(u, t, n, k, creal(al), A, lda, B, ldb, creal(be), C, ldc)
             : p == 'c' ? cufort_csyr2k(u, t, n, k, C4(al), A, lda, B, ldb, C4(be), C, ldc)
                        : cufort_zsyr2k(u, t, n, k, al, A, lda, B, ldb, be, C, ldc);
    case CUFORT_L3_HER2K:
        return p == 'c' ? cufort_cher2k(u, t, n, k, C4(al), A, lda, B, ldb, R4(be), C, ldc)
                        : cufort_zher2k(u, t, n, k, al, A, lda, B, ldb, creal(be), C, ldc);
    case CUFORT_L3_SYRKX:
        return p == 's' ? cufort_ssyrkx(u, t, n, k, R4(al), A, lda, B, ldb, R4(be), C, ldc)
             : p == 'd' ? cufort_dsyrkx(u, t, n, k, creal(al), A, lda, B, ldb, creal(be), C, ldc)
             : p == 'c' ? cufort_csyrkx(u, t, n, k, C4(al), A, lda, B, ldb, C4(be), C, ldc)
                        : cufort_zsyrkx(u, t, n, k, al, A, lda, B, ldb, be, C, ldc);
    default:
        return p == 'c' ? cufort_cherkx(u, t, n, k, C4(al), A, lda, B, ldb, R4(be), C, ldc)
                        : cufort_zherkx(u, t, n, k, al, A, lda, B, ldb, creal(be), C, ldc);
    }
}
