/* host_blas_extra.c — the host backend's BLAS that the CPU BLAS lacks: i?amin, crot/zrot with a
 * complex sine, complex symmetric symv/syr/syr2, i?amax, scal and the complex dot products (which
 * the CPU BLAS has, but gets wrong), and the cuBLAS extensions gemm3m, syrkx, herkx,
 * gemm_strided_batched, geam, dgmm.
 *
 * One body per routine, written once over the element type T (real type R) and instantiated per
 * precision by the FOR_* lists at the end.  Arguments arrive validated by the C ABI (blas_api.c):
 * column-major, 0-based, host memory.  Plain loops in reference-BLAS order and with its rules
 * (beta == 0 sets rather than scales, alpha == 0 reads no A/B/x): the host backend is an oracle and
 * a fallback, not a fast path.  The C ABI returns before calling here when m or n is 0; the loops
 * over columns still stop at once on an empty column, so no caller can make them walk n for
 * nothing. */

#include <complex.h>
#include <math.h>

#include "host_internal.h"
#include "blas_backends.h"

#define CJ(v) _Generic((v), cufort_cfloat: conjf(v), cufort_cdouble: conj(v), default: (v))
#define RE(v) _Generic((v), cufort_cfloat: crealf(v), cufort_cdouble: creal(v), default: (v))
static inline float abs1_c(cufort_cfloat v) { return fabsf(crealf(v)) + fabsf(cimagf(v)); }
static inline double abs1_z(cufort_cdouble v) { return fabs(creal(v)) + fabs(cimag(v)); }
#define ABS1(v)                                                                                    \
    _Generic((v), cufort_cfloat: abs1_c, cufort_cdouble: abs1_z, float: fabsf, default: fabs)(v)
#define UPPER(c) (toupper((unsigned char)(c)) == 'U')
#define CONJT(c) (toupper((unsigned char)(c)) == 'C')

#define vix cufort_blas_vix   /* host_internal.h; short for the loops below */

/* Rows lo <= i < hi of column j that lie in the uplo triangle of an n x n matrix. */
#define TRI(up, j, n) int64_t lo = (up) ? 0 : (j), hi = (up) ? (j) + 1 : (n)

/* Element (i, j) of op(M): N as is, T transposed, C conjugate-transposed (C is T for real). */
#define OPEL(nt, cj, M, ld, i, j)                                                                  \
    ((nt) ? (M)[(i) + (j) * (ld)] : (cj) ? CJ((M)[(j) + (i) * (ld)]) : (M)[(j) + (i) * (ld)])

/* ---- i?amax, i?amin: first element of largest (smallest) |re| + |im|, 0-based (n > 0, incx > 0
 * here).  Reference BLAS's loop: an element that compares false (NaN) never replaces the one held,
 * so a NaN counts only in first place.  i?amax is not the CPU BLAS's: OpenBLAS's kernels return a
 * NaN's index or not depending on the increment, so the same vector gave two answers. -------- */
#define IAMAXMIN(p, T, R, name, BETTER)                                                            \
    int cufort_host_i##p##name(int64_t n, const T *x, int64_t incx, int64_t *result)               \
    {                                                                                              \
        int64_t best = n > 0 ? 0 : -1;                                                             \
        R held = n > 0 ? ABS1(x[0]) : 0;                                                           \
        for (int64_t i = 1; i < n; i++) {                                                          \
            R v = ABS1(x[i * incx]);                                                               \
            if (v BETTER held) held = v, best = i;                                                 \
        }                                                                                          \
        *result = best;                                                                            \
        return CUFORT_SUCCESS;                                                                     \
    }
#define AMAX(p, T, R) IAMAXMIN(p, T, R, amax, >)
#define AMIN(p, T, R) IAMAXMIN(p, T, R, amin, <)

/* ---- scal: x = alpha*x by multiplication, as reference BLAS (incx > 0 here), complex products
 * formed as Fortran forms them.  Not the CPU BLAS's: OpenBLAS 0.3.21 sets x to 0 when alpha = 0,
 * turning NaN and Inf into 0 where reference BLAS gives NaN, and its sscal gives 0 for
 * alpha = NaN. */
static inline float mul_s(float a, float v) { return a * v; }
static inline double mul_d(double a, double v) { return a * v; }
static inline cufort_cfloat mul_c(cufort_cfloat a, cufort_cfloat v)
{
    return CMPLXF(crealf(a) * crealf(v) - cimagf(a) * cimagf(v),
                  crealf(a) * cimagf(v) + cimagf(a) * crealf(v));
}
static inline cufort_cdouble mul_z(cufort_cdouble a, cufort_cdouble v)
{
    return CMPLX(creal(a) * creal(v) - cimag(a) * cimag(v),
                 creal(a) * cimag(v) + cimag(a) * creal(v));
}
static inline cufort_cfloat mul_cs(float a, cufort_cfloat v)
{
    return CMPLXF(a * crealf(v), a * cimagf(v));
}
static inline cufort_cdouble mul_zd(double a, cufort_cdouble v)
{
    return CMPLX(a * creal(v), a * cimag(v));
}
#define SCAL(name, T, A, mul)                                                                      \
    int cufort_host_##name(int64_t n, A alpha, T *x, int64_t incx)                                 \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++) x[i * incx] = mul(alpha, x[i * incx]);                     \
        return CUFORT_SUCCESS;                                                                     \
    }
SCAL(sscal, float, float, mul_s)
SCAL(dscal, double, double, mul_d)
SCAL(cscal, cufort_cfloat, cufort_cfloat, mul_c)
SCAL(zscal, cufort_cdouble, cufort_cdouble, mul_z)
SCAL(csscal, cufort_cfloat, float, mul_cs)
SCAL(zdscal, cufort_cdouble, double, mul_zd)

/* ---- syrkx / herkx: C = alpha*op(A)*op(B)^T (herm: ^H) + beta*C on one triangle, laid out as
 * reference xSYRK/xHERK; herm also makes the diagonal real, as xHERK does. --------------------- */
#define SYRKX(p, T, R)                                                                             \
    static void syrkx_##p(char uplo, char trans, int herm, int64_t n, int64_t k, T alpha,          \
                          const T *A, int64_t lda, const T *B, int64_t ldb, T beta, T *C,          \
                          int64_t ldc)                                                             \
    {                                                                                              \
        if (n == 0 || ((alpha == 0 || k == 0) && beta == 1)) return;                               \
        int up = UPPER(uplo), nt = NOTR(trans);                                                    \
        for (int64_t j = 0; j < n; j++) {                                                          \
            T *c = C + j * ldc;                                                                    \
            TRI(up, j, n);                                                                         \
            if (beta != 1)                                                                         \
                for (int64_t i = lo; i < hi; i++) c[i] = beta == 0 ? 0 : beta * c[i];              \
            for (int64_t l = 0; alpha != 0 && nt && l < k; l++) {                                  \
                T b = B[j + l * ldb];                                                              \
                if (b == 0) continue;                                                              \
                T t = alpha * (herm ? CJ(b) : b);                                                  \
                for (int64_t i = lo; i < hi; i++) c[i] += t * A[i + l * lda];                      \
            }                                                                                      \
            for (int64_t i = lo; alpha != 0 && !nt && i < hi; i++) {                               \
                T s = 0;                                                                           \
                for (int64_t l = 0; l < k; l++)                                                    \
                    s += OPEL(0, herm, A, lda, i, l) * B[l + j * ldb];                             \
                c[i] += alpha * s;                                                                 \
            }                                                                                      \
            if (herm) c[j] = RE(c[j]);                                                             \
        }                                                                                          \
    }                                                                                              \
    int cufort_host_##p##syrkx(char uplo, char trans, int64_t n, int64_t k, T alpha, const T *A,   \
                               int64_t lda, const T *B, int64_t ldb, T beta, T *C, int64_t ldc)    \
    {                                                                                              \
        syrkx_##p(uplo, trans, 0, n, k, alpha, A, lda, B, ldb, beta, C, ldc);                      \
        return CUFORT_SUCCESS;                                                                     \
    }

#define HERKX(p, T, R)                                                                             \
    int cufort_host_##p##herkx(char uplo, char trans, int64_t n, int64_t k, T alpha, const T *A,   \
                               int64_t lda, const T *B, int64_t ldb, R beta, T *C, int64_t ldc)    \
    {                                                                                              \
        syrkx_##p(uplo, trans, 1, n, k, alpha, A, lda, B, ldb, beta, C, ldc);                      \
        return CUFORT_SUCCESS;                                                                     \
    }

/* ---- gemm_strided_batched: the CPU gemm once per matrix; gemm3m: gemm (same result) --------
 * With k = 0, A and B are empty and their strides unchecked (any value is legal): they are not
 * stepped, as b * stride may not even be representable. */
#define GEMM_BATCH(p, T, R)                                                                        \
    int cufort_host_##p##gemm_strided_batched(                                                     \
        char transa, char transb, int64_t m, int64_t n, int64_t k, T alpha, const T *A,            \
        int64_t lda, int64_t strideA, const T *B, int64_t ldb, int64_t strideB, T beta, T *C,      \
        int64_t ldc, int64_t strideC, int64_t batch)                                               \
    {                                                                                              \
        for (int64_t b = 0; m > 0 && n > 0 && b < batch; b++) {                                    \
            int st = cufort_host_##p##gemm(transa, transb, m, n, k, alpha,                         \
                                           k > 0 ? A + b * strideA : A, lda,                       \
                                           k > 0 ? B + b * strideB : B, ldb, beta,                 \
                                           C + b * strideC, ldc);                                  \
            if (st) return st;                                                                     \
        }                                                                                          \
        return CUFORT_SUCCESS;                                                                     \
    }

#define GEMM3M(p, T, R)                                                                            \
    int cufort_host_##p##gemm3m(char transa, char transb, int64_t m, int64_t n, int64_t k,         \
                                T alpha, const T *A, int64_t lda, const T *B, int64_t ldb,         \
                                T beta, T *C, int64_t ldc)                                         \
    {                                                                                              \
        return cufort_host_##p##gemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,      \
                                     ldc);                                                         \
    }

/* ---- geam: C = alpha*op(A) + beta*op(B); a zero scalar's matrix is not read (in place: C may
 * be A or B with op N and the same leading dimension, as cuBLAS allows) ------------------------ */
#define GEAM(p, T, R)                                                                              \
    int cufort_host_##p##geam(char transa, char transb, int64_t m, int64_t n, T alpha,             \
                              const T *A, int64_t lda, T beta, const T *B, int64_t ldb, T *C,      \
                              int64_t ldc)                                                         \
    {                                                                                              \
        int na = NOTR(transa), ca = CONJT(transa), nb = NOTR(transb), cb = CONJT(transb);          \
        for (int64_t j = 0; m > 0 && j < n; j++)                                                   \
            for (int64_t i = 0; i < m; i++) {                                                      \
                T v = 0;                                                                           \
                if (alpha != 0) v = alpha * OPEL(na, ca, A, lda, i, j);                            \
                if (beta != 0) v += beta * OPEL(nb, cb, B, ldb, i, j);                             \
                C[i + j * ldc] = v;                                                                \
            }                                                                                      \
        return CUFORT_SUCCESS;                                                                     \
    }

/* ---- dgmm: C = A*diag(x) (side R) or diag(x)*A (side L); x a BLAS vector (any incx) --------- */
#define DGMM(p, T, R)                                                                              \
    int cufort_host_##p##dgmm(char side, int64_t m, int64_t n, const T *A, int64_t lda,            \
                              const T *x, int64_t incx, T *C, int64_t ldc)                         \
    {                                                                                              \
        int left = LEFT(side);                                                                     \
        int64_t len = left ? m : n;                                                                \
        for (int64_t j = 0; m > 0 && j < n; j++)                                                   \
            for (int64_t i = 0; i < m; i++)                                                        \
                C[i + j * ldc] = A[i + j * lda] * x[vix(len, incx, left ? i : j)];                 \
        return CUFORT_SUCCESS;                                                                     \
    }

/* ---- crot/zrot (LAPACK CROT): x' = c*x + s*y, y' = c*y - conj(s)*x --------------------------- */
#define ROT(p, T, R)                                                                               \
    int cufort_host_##p##rot(int64_t n, T *x, int64_t incx, T *y, int64_t incy, R c, T s)          \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T *xi = x + vix(n, incx, i), *yi = y + vix(n, incy, i), t = c * *xi + s * *yi;         \
            *yi = c * *yi - CJ(s) * *xi;                                                           \
            *xi = t;                                                                               \
        }                                                                                          \
        return CUFORT_SUCCESS;                                                                     \
    }

/* ---- cdotu/cdotc/zdotu/zdotc, in reference CDOTC's order ----------------------------------------
 * Not the CPU BLAS's: OpenBLAS 0.3.21 to 0.3.23 built by gcc 12 or later (Debian 12's) loads past
 * both ends of their vectors (gcc vectorised its strided loops; OpenBLAS 0.3.24 turned that off),
 * and a vector that ends or starts at the edge of a mapping faults there.  (Its Level-2 kernels do
 * too: blas_host.c hands those padded copies of the vectors, cpu_blas_vec.c.) */
#define DOT(p, T, R)                                                                               \
    static void dot_##p(int conjugate, int64_t n, const T *x, int64_t incx, const T *y,           \
                        int64_t incy, T *result)                                                   \
    {                                                                                              \
        T t = 0;                                                                                   \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T xi = x[vix(n, incx, i)];                                                             \
            t += (conjugate ? CJ(xi) : xi) * y[vix(n, incy, i)];                                   \
        }                                                                                          \
        *result = t;                                                                               \
    }                                                                                              \
    int cufort_host_##p##dotu(int64_t n, const T *x, int64_t incx, const T *y, int64_t incy,       \
                              T *result)                                                           \
    {                                                                                              \
        dot_##p(0, n, x, incx, y, incy, result);                                                   \
        return CUFORT_SUCCESS;                                                                     \
    }                                                                                              \
    int cufort_host_##p##dotc(int64_t n, const T *x, int64_t incx, const T *y, int64_t incy,       \
                              T *result)                                                           \
    {                                                                                              \
        dot_##p(1, n, x, incx, y, incy, result);                                                   \
        return CUFORT_SUCCESS;                                                                     \
    }

/* ---- complex symmetric (not Hermitian) Level 2, as reference SSYMV/SSYR/SSYR2 --------------- */
#define SYMV(p, T, R)                                                                              \
    int cufort_host_##p##symv(char uplo, int64_t n, T alpha, const T *A, int64_t lda, const T *x,  \
                              int64_t incx, T beta, T *y, int64_t incy)                            \
    {                                                                                              \
        if (n == 0 || (alpha == 0 && beta == 1)) return CUFORT_SUCCESS;                            \
        for (int64_t i = 0; beta != 1 && i < n; i++) {                                             \
            T *yi = y + vix(n, incy, i);                                                           \
            *yi = beta == 0 ? 0 : beta * *yi;                                                      \
        }                                                                                          \
        int up = UPPER(uplo);                                                                      \
        for (int64_t j = 0; alpha != 0 && j < n; j++) {                                            \
            T t1 = alpha * x[vix(n, incx, j)], t2 = 0;                                             \
            TRI(up, j, n);                                                                         \
            for (int64_t i = lo; i < hi; i++) {                                                    \
                y[vix(n, incy, i)] += t1 * A[i + j * lda];                                         \
                if (i != j) t2 += A[i + j * lda] * x[vix(n, incx, i)];                             \
            }                                                                                      \
            y[vix(n, incy, j)] += alpha * t2;                                                      \
        }                                                                                          \
        return CUFORT_SUCCESS;                                                                     \
    }

/* A += alpha*x*y^T + alpha*y*x^T on one triangle; y == NULL: A += alpha*x*x^T (syr). */
#define SYR(p, T, R)                                                                               \
    static void syr2_##p(char uplo, int64_t n, T alpha, const T *x, int64_t incx, const T *y,      \
                         int64_t incy, T *A, int64_t lda)                                          \
    {                                                                                              \
        int up = UPPER(uplo);                                                                      \
        for (int64_t j = 0; alpha != 0 && j < n; j++) {                                            \
            T xj = x[vix(n, incx, j)], yj = y ? y[vix(n, incy, j)] : 0;                            \
            if (xj == 0 && yj == 0) continue;                                                      \
            T t1 = alpha * (y ? yj : xj), t2 = alpha * xj;                                         \
            TRI(up, j, n);                                                                         \
            for (int64_t i = lo; i < hi; i++)                                                      \
                A[i + j * lda] += y ? x[vix(n, incx, i)] * t1 + y[vix(n, incy, i)] * t2            \
                                    : x[vix(n, incx, i)] * t1;                                     \
        }                                                                                          \
    }                                                                                              \
    int cufort_host_##p##syr(char uplo, int64_t n, T alpha, const T *x, int64_t incx, T *A,        \
                             int64_t lda)                                                          \
    {                                                                                              \
        syr2_##p(uplo, n, alpha, x, incx, NULL, 0, A, lda);                                        \
        return CUFORT_SUCCESS;                                                                     \
    }                                                                                              \
    int cufort_host_##p##syr2(char uplo, int64_t n, T alpha, const T *x, int64_t incx,             \
                              const T *y, int64_t incy, T *A, int64_t lda)                         \
    {                                                                                              \
        syr2_##p(uplo, n, alpha, x, incx, y, incy, A, lda);                                        \
        return CUFORT_SUCCESS;                                                                     \
    }

/* ---- instantiation -------------------------------------------------------------------------- */
#define FOR_CZ(X) X(c, cufort_cfloat, float) X(z, cufort_cdouble, double)
#define FOR_SDCZ(X) X(s, float, float) X(d, double, double) FOR_CZ(X)

FOR_SDCZ(AMAX)
FOR_SDCZ(AMIN)
FOR_SDCZ(SYRKX)
FOR_SDCZ(GEMM_BATCH)
FOR_SDCZ(GEAM)
FOR_SDCZ(DGMM)
FOR_CZ(HERKX)
FOR_CZ(GEMM3M)
FOR_CZ(ROT)
FOR_CZ(DOT)
FOR_CZ(SYMV)
FOR_CZ(SYR)
