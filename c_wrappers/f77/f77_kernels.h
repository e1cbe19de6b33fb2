/* f77_kernels.h — the legacy F77 names of cufort's own kernels (cufort_kernels.h), shared by both F77
 * libraries: f77_kernels_device.c (libcufort_f77: arrays are integer*8 device addresses) and
 * f77_kernels_thunking.c (libcufort_f77_thunking: arrays are ordinary Fortran arrays).  The same
 * names in both, as fortran.c's cublas_* names: the library linked decides.
 *
 * Names carry the prefix cuf_ so that they can clash neither with cuBLAS's nor with the C ABI's
 * cufort_* names, whatever the external-name scheme (F77_MANGLING=3 has no underscore):
 *   REAL/DOUBLE/COMPLEX/COMPLEX*16 functions (n, x, incx):
 *     cuf_ssum cuf_dsum cuf_csum cuf_zsum        cuf_ssumk cuf_dsumk (compensated)
 *     cuf_sasum cuf_dasum cuf_scasum cuf_dzasum  cuf_snrm2 cuf_dnrm2 cuf_scnrm2 cuf_dznrm2
 *     cuf_smin cuf_dmin cuf_smax cuf_dmax
 *   functions (n, x, incx, y, incy): cuf_sdot cuf_ddot cuf_cdotu cuf_zdotu cuf_cdotc cuf_zdotc
 *   INTEGER functions (n, x, incx): cuf_sminloc cuf_dminloc cuf_smaxloc cuf_dmaxloc — 1-based, the
 *     first occurrence, as MINLOC/MAXLOC; 0 when n < 1
 *   INTEGER functions (n, x, incx, pred, value): cuf_scount cuf_dcount — pred 'LT' 'LE' 'GT' 'GE'
 *     'EQ' 'NE' (or '<' '<=' '>' '>=' '==' '/=')
 *   subroutines: cuf_<p>transpose(trans, m, n, alpha, a, lda, b, ldb)     p = s d c z
 *                cuf_<p>transpose_inplace(trans, n, alpha, a, lda)
 *   libcufort_f77 only, result left in device memory (integer*8 address), no wait:
 *     cuf_<name>_dev(n, x, incx, [y, incy,] result) for sum, sumk, asum, dot/dotu/dotc, nrm2, min, max
 * Errors are kept for cublas_get_error (a function's value is then 0). */
#ifndef CUFORT_F77_KERNELS_H
#define CUFORT_F77_KERNELS_H

#include "f77.h"

/* ARR(T): the Fortran argument type of an array of T; MARR(T) a written one; PTR(arg) the pointer
 * it stands for; CALL(cname) the C ABI entry point (device or _host form). */

#define CUF_R1(lower, UPPER, RT, T, cname)                                                         \
    RT F77_NAME(lower, UPPER)(const f77_int *n, ARR(T) x, const f77_int *incx)                     \
    {                                                                                              \
        RT r = 0;                                                                                  \
        cufort_f77_done(CALL(cname)(*n, (const T *)PTR(x), *incx, &r), #UPPER);                    \
        return r;                                                                                  \
    }

#define CUF_R2(lower, UPPER, T, cname)                                                             \
    T F77_NAME(lower, UPPER)(const f77_int *n, ARR(T) x, const f77_int *incx, ARR(T) y,             \
                             const f77_int *incy)                                                  \
    {                                                                                              \
        T r = 0;                                                                                   \
        cufort_f77_done(CALL(cname)(*n, (const T *)PTR(x), *incx, (const T *)PTR(y), *incy, &r),   \
                        #UPPER);                                                                   \
        return r;                                                                                  \
    }

#define CUF_LOC(lower, UPPER, T, cname)                                                            \
    f77_int F77_NAME(lower, UPPER)(const f77_int *n, ARR(T) x, const f77_int *incx)                \
    {                                                                                              \
        int64_t r = -1;                                                                            \
        int st = CALL(cname)(*n, (const T *)PTR(x), *incx, &r);                                    \
        cufort_f77_done(st, #UPPER);                                                               \
        return st ? 0 : (f77_int)(r + 1);                                                          \
    }

#define CUF_COUNT(lower, UPPER, T, cname)                                                          \
    f77_int F77_NAME(lower, UPPER)(const f77_int *n, ARR(T) x, const f77_int *incx,                \
                                   const char *pred, const T *value, size_t pred_len)              \
    {                                                                                              \
        char p[4] = {0};                                                                           \
        size_t k = 0;                                                                              \
        for (size_t i = 0; i < pred_len && k < 3; i++)                                             \
            if (pred[i] != ' ') p[k++] = pred[i];                                                  \
        int64_t r = 0;                                                                             \
        int st = CALL(cname)(*n, (const T *)PTR(x), *incx, p, *value, &r);                         \
        cufort_f77_done(st, #UPPER);                                                               \
        return st ? 0 : (f77_int)r;                                                                \
    }

#define CUF_TRANSPOSE(p, P, T)                                                                     \
    void F77_NAME(cuf_##p##transpose, CUF_##P##TRANSPOSE)(                                         \
        const char *trans, const f77_int *m, const f77_int *n, const T *alpha, ARR(T) a,           \
        const f77_int *lda, MARR(T) b, const f77_int *ldb, size_t trans_len)                       \
    {                                                                                              \
        (void)trans_len;                                                                           \
        cufort_f77_done(CALL(cufort_##p##transpose)(*trans, *m, *n, *alpha, (const T *)PTR(a),     \
                                                    *lda, (T *)PTR(b), *ldb),                      \
                        "CUF_" #P "TRANSPOSE");                                                    \
    }                                                                                              \
    void F77_NAME(cuf_##p##transpose_inplace, CUF_##P##TRANSPOSE_INPLACE)(                         \
        const char *trans, const f77_int *n, const T *alpha, MARR(T) a, const f77_int *lda,        \
        size_t trans_len)                                                                          \
    {                                                                                              \
        (void)trans_len;                                                                           \
        cufort_f77_done(CALL(cufort_##p##transpose_inplace)(*trans, *n, *alpha, (T *)PTR(a), *lda), \
                        "CUF_" #P "TRANSPOSE_INPLACE");                                            \
    }

/* every name of both libraries */
#define CUF_ALL_NAMES                                                                              \
    CUF_R1(cuf_ssum, CUF_SSUM, float, float, cufort_sreduce_sum)                                   \
    CUF_R1(cuf_dsum, CUF_DSUM, double, double, cufort_dreduce_sum)                                 \
    CUF_R1(cuf_csum, CUF_CSUM, cufort_cfloat, cufort_cfloat, cufort_creduce_sum)                   \
    CUF_R1(cuf_zsum, CUF_ZSUM, cufort_cdouble, cufort_cdouble, cufort_zreduce_sum)                 \
    CUF_R1(cuf_ssumk, CUF_SSUMK, float, float, cufort_sreduce_sumk)                                \
    CUF_R1(cuf_dsumk, CUF_DSUMK, double, double, cufort_dreduce_sumk)                              \
    CUF_R1(cuf_sasum, CUF_SASUM, float, float, cufort_sreduce_asum)                                \
    CUF_R1(cuf_dasum, CUF_DASUM, double, double, cufort_dreduce_asum)                              \
    CUF_R1(cuf_scasum, CUF_SCASUM, float, cufort_cfloat, cufort_creduce_asum)                      \
    CUF_R1(cuf_dzasum, CUF_DZASUM, double, cufort_cdouble, cufort_zreduce_asum)                    \
    CUF_R1(cuf_snrm2, CUF_SNRM2, float, float, cufort_sreduce_nrm2)                                \
    CUF_R1(cuf_dnrm2, CUF_DNRM2, double, double, cufort_dreduce_nrm2)                              \
    CUF_R1(cuf_scnrm2, CUF_SCNRM2, float, cufort_cfloat, cufort_creduce_nrm2)                      \
    CUF_R1(cuf_dznrm2, CUF_DZNRM2, double, cufort_cdouble, cufort_zreduce_nrm2)                    \
    CUF_R1(cuf_smin, CUF_SMIN, float, float, cufort_sreduce_min)                                   \
    CUF_R1(cuf_dmin, CUF_DMIN, double, double, cufort_dreduce_min)                                 \
    CUF_R1(cuf_smax, CUF_SMAX, float, float, cufort_sreduce_max)                                   \
    CUF_R1(cuf_dmax, CUF_DMAX, double, double, cufort_dreduce_max)                                 \
    CUF_R2(cuf_sdot, CUF_SDOT, float, cufort_sreduce_dot)                                          \
    CUF_R2(cuf_ddot, CUF_DDOT, double, cufort_dreduce_dot)                                         \
    CUF_R2(cuf_cdotu, CUF_CDOTU, cufort_cfloat, cufort_creduce_dot)                                \
    CUF_R2(cuf_zdotu, CUF_ZDOTU, cufort_cdouble, cufort_zreduce_dot)                               \
    CUF_R2(cuf_cdotc, CUF_CDOTC, cufort_cfloat, cufort_creduce_dotc)                               \
    CUF_R2(cuf_zdotc, CUF_ZDOTC, cufort_cdouble, cufort_zreduce_dotc)                              \
    CUF_LOC(cuf_sminloc, CUF_SMINLOC, float, cufort_sreduce_minloc)                                \
    CUF_LOC(cuf_dminloc, CUF_DMINLOC, double, cufort_dreduce_minloc)                               \
    CUF_LOC(cuf_smaxloc, CUF_SMAXLOC, float, cufort_sreduce_maxloc)                                \
    CUF_LOC(cuf_dmaxloc, CUF_DMAXLOC, double, cufort_dreduce_maxloc)                               \
    CUF_COUNT(cuf_scount, CUF_SCOUNT, float, cufort_sreduce_count)                                 \
    CUF_COUNT(cuf_dcount, CUF_DCOUNT, double, cufort_dreduce_count)                                \
    CUF_TRANSPOSE(s, S, float)                                                                     \
    CUF_TRANSPOSE(d, D, double)                                                                    \
    CUF_TRANSPOSE(c, C, cufort_cfloat)                                                             \
    CUF_TRANSPOSE(z, Z, cufort_cdouble)

#endif
