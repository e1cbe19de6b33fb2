/* cufort_kernels.h — cufort's own CUDA kernels in the C ABI (included by cufort.h): deterministic
 * reductions and matrix transposes at the memory-bandwidth limit (kernels/reduce.cu,
 * kernels/transpose.cu), with C reference implementations on the host backend.
 *
 * Names and forms
 *   cufort_<p>reduce_<op>(n, x, incx, [y, incy,] result)        x (y) device arrays, result on the
 *                                                                host; the call waits for it
 *   cufort_<p>reduce_<op>_dev(...)                               result is device memory (one
 *                                                                element); the call does not wait:
 *                                                                order with the thread's stream
 *   cufort_<p>reduce_<op>_host(...)                              x (y) host arrays (thunked)
 *   cufort_<p>transpose[_host](trans, m, n, alpha, a, lda, b, ldb)
 *   cufort_<p>transpose_inplace[_host](trans, n, alpha, a, lda)
 * <p> = s, d, c, z (float, double, cufort_cfloat, cufort_cdouble).  Everything runs on this
 * thread's stream (cufort_set_stream).
 *
 * Vectors: n elements, any increment in BLAS order (incx < 0: element i at x[(n-1-i)*|incx|];
 * incx == 0 repeats x[0]).  n <= 0 gives the empty result: 0 for sum/sumk/asum/dot/dotc/nrm2 and
 * count, +HUGE for min, -HUGE for max (Fortran's MINVAL/MAXVAL of nothing), -1 for minloc/maxloc.
 *
 * Determinism: the result's bits depend on n and the data only — not on the run, the launch
 * configuration, the device, or the backend (the host backend replays the GPU's summation order).
 * No floating-point atomics; two passes with a fixed-order second pass.
 *
 * Semantics
 *   sum, dot, dotc, asum  accumulate in the element precision (asum of complex: |re| + |im|, dotc
 *                         conjugates x, as BLAS); NaN and Inf propagate as IEEE says
 *   sumk                  compensated: error about one ulp of the result even for 10^8
 *                         ill-conditioned terms (double-precision TwoSum pairs), same bandwidth
 *   nrm2                  float kinds: squares summed in double; double kinds: Blue's algorithm
 *                         (LAPACK 3.10); no overflow or harmful underflow; Inf -> Inf, NaN -> NaN
 *   min, max              NaN elements are ignored unless all are NaN (then NaN), as gfortran's
 *                         MINVAL/MAXVAL and IEEE minNum/maxNum
 *   minloc, maxloc        0-based index of the first minimum/maximum (Fortran MINLOC/MAXLOC - 1),
 *                         NaNs ignored as above; all NaN: 0; n <= 0: -1.  Result int64_t
 *   count                 number of i with x(i) <pred> value; pred "lt", "le", "gt", "ge", "eq",
 *                         "ne" (or "<", "<=", ">", ">=", "==", "/=", "!="), any case.  Result int64_t
 *
 * Transpose: A is m x n (lda >= max(1, m)); trans 'N': B = alpha*A (m x n), 'T': B = alpha*A^T,
 * 'C': B = alpha*A^H (n x m, ldb >= max(1, n)); any case.  A and B must not overlap (except 'N'
 * with b == a and ldb == lda).  alpha == 1 copies bits exactly.  _inplace: A (n x n) becomes
 * alpha*op(A).  m, n < 0 or a bad lda/ldb/trans: CUFORT_INVALID_VALUE. */
#ifndef CUFORT_KERNELS_H
#define CUFORT_KERNELS_H

/* sum: sum of x(i) */
int cufort_sreduce_sum(int64_t n, const float *x, int64_t incx, float *result);
int cufort_sreduce_sum_dev(int64_t n, const float *x, int64_t incx, float *result);
int cufort_sreduce_sum_host(int64_t n, const float *x, int64_t incx, float *result);
int cufort_dreduce_sum(int64_t n, const double *x, int64_t incx, double *result);
int cufort_dreduce_sum_dev(int64_t n, const double *x, int64_t incx, double *result);
int cufort_dreduce_sum_host(int64_t n, const double *x, int64_t incx, double *result);
int cufort_creduce_sum(int64_t n, const cufort_cfloat *x, int64_t incx, cufort_cfloat *result);
int cufort_creduce_sum_dev(int64_t n, const cufort_cfloat *x, int64_t incx, cufort_cfloat *result);
int cufort_creduce_sum_host(int64_t n, const cufort_cfloat *x, int64_t incx, cufort_cfloat *result);
int cufort_zreduce_sum(int64_t n, const cufort_cdouble *x, int64_t incx, cufort_cdouble *result);
int cufort_zreduce_sum_dev(int64_t n, const cufort_cdouble *x, int64_t incx, cufort_cdouble *result);
int cufort_zreduce_sum_host(int64_t n, const cufort_cdouble *x, int64_t incx, cufort_cdouble *result);

/* sumk: compensated sum (pairs of double TwoSum partials): within ~1 ulp of the exact sum */
int cufort_sreduce_sumk(int64_t n, const float *x, int64_t incx, float *result);
int cufort_sreduce_sumk_dev(int64_t n, const float *x, int64_t incx, float *result);
int cufort_sreduce_sumk_host(int64_t n, const float *x, int64_t incx, float *result);
int cufort_dreduce_sumk(int64_t n, const double *x, int64_t incx, double *result);
int cufort_dreduce_sumk_dev(int64_t n, const double *x, int64_t incx, double *result);
int cufort_dreduce_sumk_host(int64_t n, const double *x, int64_t incx, double *result);

/* asum: sum of |x(i)| (complex: |re|+|im|, as BLAS) */
int cufort_sreduce_asum(int64_t n, const float *x, int64_t incx, float *result);
int cufort_sreduce_asum_dev(int64_t n, const float *x, int64_t incx, float *result);
int cufort_sreduce_asum_host(int64_t n, const float *x, int64_t incx, float *result);
int cufort_dreduce_asum(int64_t n, const double *x, int64_t incx, double *result);
int cufort_dreduce_asum_dev(int64_t n, const double *x, int64_t incx, double *result);
int cufort_dreduce_asum_host(int64_t n, const double *x, int64_t incx, double *result);
int cufort_creduce_asum(int64_t n, const cufort_cfloat *x, int64_t incx, float *result);
int cufort_creduce_asum_dev(int64_t n, const cufort_cfloat *x, int64_t incx, float *result);
int cufort_creduce_asum_host(int64_t n, const cufort_cfloat *x, int64_t incx, float *result);
int cufort_zreduce_asum(int64_t n, const cufort_cdouble *x, int64_t incx, double *result);
int cufort_zreduce_asum_dev(int64_t n, const cufort_cdouble *x, int64_t incx, double *result);
int cufort_zreduce_asum_host(int64_t n, const cufort_cdouble *x, int64_t incx, double *result);

/* dot: sum of x(i)*y(i) (unconjugated) */
int cufort_sreduce_dot(int64_t n, const float *x, int64_t incx, const float *y, int64_t incy, float *result);
int cufort_sreduce_dot_dev(int64_t n, const float *x, int64_t incx, const float *y, int64_t incy, float *result);
int cufort_sreduce_dot_host(int64_t n, const float *x, int64_t incx, const float *y, int64_t incy, float *result);
int cufort_dreduce_dot(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy, double *result);
int cufort_dreduce_dot_dev(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy, double *result);
int cufort_dreduce_dot_host(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy, double *result);
int cufort_creduce_dot(int64_t n, const cufort_cfloat *x, int64_t incx, const cufort_cfloat *y, int64_t incy, cufort_cfloat *result);
int cufort_creduce_dot_dev(int64_t n, const cufort_cfloat *x, int64_t incx, const cufort_cfloat *y, int64_t incy, cufort_cfloat *result);
int cufort_creduce_dot_host(int64_t n, const cufort_cfloat *x, int64_t incx, const cufort_cfloat *y, int64_t incy, cufort_cfloat *result);
int cufort_zreduce_dot(int64_t n, const cufort_cdouble *x, int64_t incx, const cufort_cdouble *y, int64_t incy, cufort_cdouble *result);
int cufort_zreduce_dot_dev(int64_t n, const cufort_cdouble *x, int64_t incx, const cufort_cdouble *y, int64_t incy, cufort_cdouble *result);
int cufort_zreduce_dot_host(int64_t n, const cufort_cdouble *x, int64_t incx, const cufort_cdouble *y, int64_t incy, cufort_cdouble *result);

/* dotc: sum of conj(x(i))*y(i) */
int cufort_creduce_dotc(int64_t n, const cufort_cfloat *x, int64_t incx, const cufort_cfloat *y, int64_t incy, cufort_cfloat *result);
int cufort_creduce_dotc_dev(int64_t n, const cufort_cfloat *x, int64_t incx, const cufort_cfloat *y, int64_t incy, cufort_cfloat *result);
int cufort_creduce_dotc_host(int64_t n, const cufort_cfloat *x, int64_t incx, const cufort_cfloat *y, int64_t incy, cufort_cfloat *result);
int cufort_zreduce_dotc(int64_t n, const cufort_cdouble *x, int64_t incx, const cufort_cdouble *y, int64_t incy, cufort_cdouble *result);
int cufort_zreduce_dotc_dev(int64_t n, const cufort_cdouble *x, int64_t incx, const cufort_cdouble *y, int64_t incy, cufort_cdouble *result);
int cufort_zreduce_dotc_host(int64_t n, const cufort_cdouble *x, int64_t incx, const cufort_cdouble *y, int64_t incy, cufort_cdouble *result);

/* nrm2: sqrt(sum |x(i)|^2), overflow- and underflow-safe */
int cufort_sreduce_nrm2(int64_t n, const float *x, int64_t incx, float *result);
int cufort_sreduce_nrm2_dev(int64_t n, const float *x, int64_t incx, float *result);
int cufort_sreduce_nrm2_host(int64_t n, const float *x, int64_t incx, float *result);
int cufort_dreduce_nrm2(int64_t n, const double *x, int64_t incx, double *result);
int cufort_dreduce_nrm2_dev(int64_t n, const double *x, int64_t incx, double *result);
int cufort_dreduce_nrm2_host(int64_t n, const double *x, int64_t incx, double *result);
int cufort_creduce_nrm2(int64_t n, const cufort_cfloat *x, int64_t incx, float *result);
int cufort_creduce_nrm2_dev(int64_t n, const cufort_cfloat *x, int64_t incx, float *result);
int cufort_creduce_nrm2_host(int64_t n, const cufort_cfloat *x, int64_t incx, float *result);
int cufort_zreduce_nrm2(int64_t n, const cufort_cdouble *x, int64_t incx, double *result);
int cufort_zreduce_nrm2_dev(int64_t n, const cufort_cdouble *x, int64_t incx, double *result);
int cufort_zreduce_nrm2_host(int64_t n, const cufort_cdouble *x, int64_t incx, double *result);

/* min: MINVAL */
int cufort_sreduce_min(int64_t n, const float *x, int64_t incx, float *result);
int cufort_sreduce_min_dev(int64_t n, const float *x, int64_t incx, float *result);
int cufort_sreduce_min_host(int64_t n, const float *x, int64_t incx, float *result);
int cufort_dreduce_min(int64_t n, const double *x, int64_t incx, double *result);
int cufort_dreduce_min_dev(int64_t n, const double *x, int64_t incx, double *result);
int cufort_dreduce_min_host(int64_t n, const double *x, int64_t incx, double *result);

/* max: MAXVAL */
int cufort_sreduce_max(int64_t n, const float *x, int64_t incx, float *result);
int cufort_sreduce_max_dev(int64_t n, const float *x, int64_t incx, float *result);
int cufort_sreduce_max_host(int64_t n, const float *x, int64_t incx, float *result);
int cufort_dreduce_max(int64_t n, const double *x, int64_t incx, double *result);
int cufort_dreduce_max_dev(int64_t n, const double *x, int64_t incx, double *result);
int cufort_dreduce_max_host(int64_t n, const double *x, int64_t incx, double *result);

/* minloc: MINLOC - 1 */
int cufort_sreduce_minloc(int64_t n, const float *x, int64_t incx, int64_t *result);
int cufort_sreduce_minloc_dev(int64_t n, const float *x, int64_t incx, int64_t *result);
int cufort_sreduce_minloc_host(int64_t n, const float *x, int64_t incx, int64_t *result);
int cufort_dreduce_minloc(int64_t n, const double *x, int64_t incx, int64_t *result);
int cufort_dreduce_minloc_dev(int64_t n, const double *x, int64_t incx, int64_t *result);
int cufort_dreduce_minloc_host(int64_t n, const double *x, int64_t incx, int64_t *result);

/* maxloc: MAXLOC - 1 */
int cufort_sreduce_maxloc(int64_t n, const float *x, int64_t incx, int64_t *result);
int cufort_sreduce_maxloc_dev(int64_t n, const float *x, int64_t incx, int64_t *result);
int cufort_sreduce_maxloc_host(int64_t n, const float *x, int64_t incx, int64_t *result);
int cufort_dreduce_maxloc(int64_t n, const double *x, int64_t incx, int64_t *result);
int cufort_dreduce_maxloc_dev(int64_t n, const double *x, int64_t incx, int64_t *result);
int cufort_dreduce_maxloc_host(int64_t n, const double *x, int64_t incx, int64_t *result);

/* count: COUNT(x pred value) */
int cufort_sreduce_count(int64_t n, const float *x, int64_t incx, const char *pred, float value, int64_t *result);
int cufort_sreduce_count_dev(int64_t n, const float *x, int64_t incx, const char *pred, float value, int64_t *result);
int cufort_sreduce_count_host(int64_t n, const float *x, int64_t incx, const char *pred, float value, int64_t *result);
int cufort_dreduce_count(int64_t n, const double *x, int64_t incx, const char *pred, double value, int64_t *result);
int cufort_dreduce_count_dev(int64_t n, const double *x, int64_t incx, const char *pred, double value, int64_t *result);
int cufort_dreduce_count_host(int64_t n, const double *x, int64_t incx, const char *pred, double value, int64_t *result);

/* transpose: B = alpha * op(A) out of place; in place for square A */
int cufort_stranspose(char trans, int64_t m, int64_t n, float alpha, const float *a, int64_t lda,
        float *b, int64_t ldb);
int cufort_stranspose_host(char trans, int64_t m, int64_t n, float alpha, const float *a, int64_t lda,
        float *b, int64_t ldb);
int cufort_dtranspose(char trans, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
        double *b, int64_t ldb);
int cufort_dtranspose_host(char trans, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
        double *b, int64_t ldb);
int cufort_ctranspose(char trans, int64_t m, int64_t n, cufort_cfloat alpha, const cufort_cfloat *a, int64_t lda,
        cufort_cfloat *b, int64_t ldb);
int cufort_ctranspose_host(char trans, int64_t m, int64_t n, cufort_cfloat alpha, const cufort_cfloat *a, int64_t lda,
        cufort_cfloat *b, int64_t ldb);
int cufort_ztranspose(char trans, int64_t m, int64_t n, cufort_cdouble alpha, const cufort_cdouble *a, int64_t lda,
        cufort_cdouble *b, int64_t ldb);
int cufort_ztranspose_host(char trans, int64_t m, int64_t n, cufort_cdouble alpha, const cufort_cdouble *a, int64_t lda,
        cufort_cdouble *b, int64_t ldb);
int cufort_stranspose_inplace(char trans, int64_t n, float alpha, float *a, int64_t lda);
int cufort_stranspose_inplace_host(char trans, int64_t n, float alpha, float *a, int64_t lda);
int cufort_dtranspose_inplace(char trans, int64_t n, double alpha, double *a, int64_t lda);
int cufort_dtranspose_inplace_host(char trans, int64_t n, double alpha, double *a, int64_t lda);
int cufort_ctranspose_inplace(char trans, int64_t n, cufort_cfloat alpha, cufort_cfloat *a, int64_t lda);
int cufort_ctranspose_inplace_host(char trans, int64_t n, cufort_cfloat alpha, cufort_cfloat *a, int64_t lda);
int cufort_ztranspose_inplace(char trans, int64_t n, cufort_cdouble alpha, cufort_cdouble *a, int64_t lda);
int cufort_ztranspose_inplace_host(char trans, int64_t n, cufort_cdouble alpha, cufort_cdouble *a, int64_t lda);

#endif
