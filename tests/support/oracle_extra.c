/* oracle_extra.c — naive double-precision oracles for the routines netlib BLAS lacks.
 * Deliberately simple loops: they are references, not implementations.  See oracle_extra.h. */
#include "oracle_extra.h"

#include <complex.h>
#include <ctype.h>
#include <math.h>
#include <stddef.h>

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *A, const int *lda, const double *B, const int *ldb,
            const double *beta, double *C, const int *ldc, size_t, size_t);
void zgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const zc *alpha, const zc *A, const int *lda, const zc *B, const int *ldb,
            const zc *beta, zc *C, const int *ldc, size_t, size_t);

/* Offset of element j (0-based) of a BLAS vector of n elements at stride inc. */
static int64_t vi(int64_t j, int64_t n, int64_t inc) { return inc >= 0 ? j * inc : (n - 1 - j) * -inc; }

static int up(char c) { return toupper((unsigned char)c); }

static double conj_d(double x) { return x; }
static zc conj_z(zc x) { return conj(x); }

/* Element (i, j) of op(A), op given by trans ('N', 'T', 'C'). */
#define OP_ELEM(T)                                                                              \
    static T op_##T(char trans, const T *A, int64_t lda, int64_t i, int64_t j)                  \
    {                                                                                           \
        switch (up(trans)) {                                                                    \
        case 'N': return A[i + j * lda];                                                        \
        case 'T': return A[j + i * lda];                                                        \
        default:  return conj_##T(A[j + i * lda]);                                              \
        }                                                                                       \
    }
#define conj_double conj_d
#define conj_zc conj_z
OP_ELEM(double)
OP_ELEM(zc)

/* ---- i?amin: first index of the smallest |re| + |im| ------------------------------------------ */
static void amin(int64_t n, const void *x, int64_t incx, int cplx, int64_t *result)
{
    *result = -1;
    if (n <= 0 || incx <= 0)
        return;
    double best = INFINITY;
    for (int64_t j = 0; j < n; j++) {
        double v = cplx ? fabs(creal(((const zc *)x)[j * incx])) + fabs(cimag(((const zc *)x)[j * incx]))
                        : fabs(((const double *)x)[j * incx]);
        if (v < best) {
            best = v;
            *result = j;
        }
    }
}

void oracle_idamin(int64_t n, const double *x, int64_t incx, int64_t *result)
{
    amin(n, x, incx, 0, result);
}

void oracle_izamin(int64_t n, const zc *x, int64_t incx, int64_t *result)
{
    amin(n, x, incx, 1, result);
}

/* ---- LAPACK ZROT: x <- c x + s y, y <- c y - conj(s) x ---------------------------------------- */
void oracle_zrot(int64_t n, zc *x, int64_t incx, zc *y, int64_t incy, double c, zc s)
{
    for (int64_t j = 0; j < n; j++) {
        zc *xj = &x[vi(j, n, incx)], *yj = &y[vi(j, n, incy)];
        zc t = c * *xj + s * *yj;
        *yj = c * *yj - conj(s) * *xj;
        *xj = t;
    }
}

/* ---- complex symmetric (no conjugation) ------------------------------------------------------- */
static int in_tri(char uplo, int64_t i, int64_t j) { return up(uplo) == 'U' ? i <= j : i >= j; }

static zc sym(char uplo, const zc *A, int64_t lda, int64_t i, int64_t j)
{
    return in_tri(uplo, i, j) ? A[i + j * lda] : A[j + i * lda];
}

void oracle_zsymv(char uplo, int64_t n, zc alpha, const zc *A, int64_t lda, const zc *x,
                  int64_t incx, zc beta, zc *y, int64_t incy)
{
    for (int64_t i = 0; i < n; i++) {
        zc s = 0;
        for (int64_t j = 0; j < n; j++)
            s += sym(uplo, A, lda, i, j) * x[vi(j, n, incx)];
        zc *yi = &y[vi(i, n, incy)];
        *yi = alpha * s + (beta == 0 ? 0 : beta * *yi);
    }
}

void oracle_zsyr(char uplo, int64_t n, zc alpha, const zc *x, int64_t incx, zc *A, int64_t lda)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            if (in_tri(uplo, i, j))
                A[i + j * lda] += alpha * x[vi(i, n, incx)] * x[vi(j, n, incx)];
}

void oracle_zsyr2(char uplo, int64_t n, zc alpha, const zc *x, int64_t incx, const zc *y,
                  int64_t incy, zc *A, int64_t lda)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            if (in_tri(uplo, i, j))
                A[i + j * lda] += alpha * (x[vi(i, n, incx)] * y[vi(j, n, incy)] +
                                           y[vi(i, n, incy)] * x[vi(j, n, incx)]);
}

/* ---- syrkx / herkx: C = alpha op(A) op(B)^T (^H) + beta C, one triangle ------------------------- */
#define RKX(NAME, T, BT, CONJB, HERM)                                                            \
    void NAME(char uplo, char trans, int64_t n, int64_t k, T alpha, const T *A, int64_t lda,     \
              const T *B, int64_t ldb, BT beta, T *C, int64_t ldc)                               \
    {                                                                                            \
        for (int64_t j = 0; j < n; j++)                                                          \
            for (int64_t i = 0; i < n; i++) {                                                    \
                if (!in_tri(uplo, i, j))                                                         \
                    continue;                                                                    \
                T s = 0;                                                                         \
                for (int64_t l = 0; l < k; l++)                                                  \
                    s += op_##T(trans, A, lda, i, l) * CONJB(op_##T(trans, B, ldb, j, l));       \
                T *c = &C[i + j * ldc];                                                          \
                *c = alpha * s + (beta == 0 ? 0 : beta * *c);                                    \
                if (HERM && i == j)                                                              \
                    *c = creal(*c);                                                              \
            }                                                                                    \
    }
#define NOCONJ(x) (x)
RKX(oracle_dsyrkx, double, double, NOCONJ, 0)
RKX(oracle_zsyrkx, zc, zc, NOCONJ, 0)
RKX(oracle_zherkx, zc, double, conj, 1)

/* ---- gemm strided batched: one netlib GEMM per matrix ------------------------------------------ */
void oracle_dgemm_strided_batched(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                  double alpha, const double *A, int64_t lda, int64_t strideA,
                                  const double *B, int64_t ldb, int64_t strideB, double beta,
                                  double *C, int64_t ldc, int64_t strideC, int64_t batch)
{
    int im = (int)m, in = (int)n, ik = (int)k, la = (int)lda, lb = (int)ldb, lc = (int)ldc;
    for (int64_t b = 0; b < batch && m > 0 && n > 0; b++)
        dgemm_(&transa, &transb, &im, &in, &ik, &alpha, A + b * strideA, &la, B + b * strideB, &lb,
               &beta, C + b * strideC, &lc, 1, 1);
}

void oracle_zgemm_strided_batched(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                  zc alpha, const zc *A, int64_t lda, int64_t strideA,
                                  const zc *B, int64_t ldb, int64_t strideB, zc beta, zc *C,
                                  int64_t ldc, int64_t strideC, int64_t batch)
{
    int im = (int)m, in = (int)n, ik = (int)k, la = (int)lda, lb = (int)ldb, lc = (int)ldc;
    for (int64_t b = 0; b < batch && m > 0 && n > 0; b++)
        zgemm_(&transa, &transb, &im, &in, &ik, &alpha, A + b * strideA, &la, B + b * strideB, &lb,
               &beta, C + b * strideC, &lc, 1, 1);
}

/* ---- geam: C = alpha op(A) + beta op(B); a zero scalar's matrix is not read -------------------- */
#define GEAM(NAME, T)                                                                            \
    void NAME(char transa, char transb, int64_t m, int64_t n, T alpha, const T *A, int64_t lda,  \
              T beta, const T *B, int64_t ldb, T *C, int64_t ldc)                                \
    {                                                                                            \
        for (int64_t j = 0; j < n; j++)                                                          \
            for (int64_t i = 0; i < m; i++)                                                      \
                C[i + j * ldc] = (alpha == 0 ? 0 : alpha * op_##T(transa, A, lda, i, j)) +       \
                                 (beta == 0 ? 0 : beta * op_##T(transb, B, ldb, i, j));          \
    }
GEAM(oracle_dgeam, double)
GEAM(oracle_zgeam, zc)

/* ---- dgmm: C = diag(x) A (side L, x of m) or A diag(x) (side R, x of n) ------------------------ */
#define DGMM(NAME, T)                                                                            \
    void NAME(char side, int64_t m, int64_t n, const T *A, int64_t lda, const T *x, int64_t incx, \
              T *C, int64_t ldc)                                                                 \
    {                                                                                            \
        int left = up(side) == 'L';                                                              \
        int64_t nx = left ? m : n;                                                               \
        for (int64_t j = 0; j < n; j++)                                                          \
            for (int64_t i = 0; i < m; i++)                                                      \
                C[i + j * ldc] = A[i + j * lda] * x[vi(left ? i : j, nx, incx)];                 \
    }
DGMM(oracle_ddgmm, double)
DGMM(oracle_zdgmm, zc)
