/* kernels_api.c — the C ABI of cufort's own kernels (cufort_kernels.h): argument checks with clear
 * errors, device arrays checked against their allocations, dispatch to the cuda backend
 * (cuda/cuda_kernels.c) or the host backend (host/host_kernels.c), and the host-array (_host)
 * forms through the thunk engine.  The typed entry points are thin: the work is in the generic
 * reduce_* and transpose_* functions below. */
#include <float.h>
#include <math.h>

#include "kernels_internal.h"
#include "thunk.h"

static size_t result_bytes(int kind, int op)
{
    switch (op) {
    case CUFORT_RMINLOC: case CUFORT_RMAXLOC: case CUFORT_RCOUNT: return sizeof(int64_t);
    case CUFORT_RASUM: case CUFORT_RNRM2: return kind == CUFORT_KS || kind == CUFORT_KC ? 4 : 8;
    default: return cufort_kelem_size(kind);
    }
}

/* the result of an empty reduction, written to host memory */
static void empty_result(int kind, int op, void *r)
{
    switch (op) {
    case CUFORT_RMINLOC: case CUFORT_RMAXLOC: *(int64_t *)r = -1; return;
    case CUFORT_RCOUNT: *(int64_t *)r = 0; return;
    case CUFORT_RMIN: case CUFORT_RMAX: {
        int neg = op == CUFORT_RMAX;
        if (kind == CUFORT_KS) *(float *)r = neg ? -FLT_MAX : FLT_MAX;
        else *(double *)r = neg ? -DBL_MAX : DBL_MAX;
        return;
    }
    default: memset(r, 0, result_bytes(kind, op)); return;
    }
}

static int parse_pred(const char *fn, const char *pred, int *code)
{
    static const struct { const char *name; int code; } names[] = {
        {"LT", CUFORT_PRED_LT}, {"<", CUFORT_PRED_LT}, {"LE", CUFORT_PRED_LE}, {"<=", CUFORT_PRED_LE},
        {"GT", CUFORT_PRED_GT}, {">", CUFORT_PRED_GT}, {"GE", CUFORT_PRED_GE}, {">=", CUFORT_PRED_GE},
        {"EQ", CUFORT_PRED_EQ}, {"==", CUFORT_PRED_EQ}, {"NE", CUFORT_PRED_NE}, {"/=", CUFORT_PRED_NE},
        {"!=", CUFORT_PRED_NE}};
    if (!pred) return cufort_null_arg(fn, "pred");
    char up[3] = {0};
    size_t len = 0;
    while (pred[len] && pred[len] != ' ' && len < 3) len++;
    if (len == 0 || len > 2)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: pred \"%s\" is not one of lt le gt ge eq ne "
                           "(< <= > >= == /=)", fn, pred);
    for (size_t i = 0; i < len; i++) up[i] = (char)toupper((unsigned char)pred[i]);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(up, names[i].name)) {
            *code = names[i].code;
            return CUFORT_SUCCESS;
        }
    return cufort_fail(CUFORT_INVALID_VALUE, "%s: pred \"%s\" is not one of lt le gt ge eq ne "
                       "(< <= > >= == /=)", fn, pred);
}

/* |INT64_MIN| has no int64 value: that increment is refused whatever n is, as by the BLAS */
static int check_incs(const char *fn, int two, int64_t incx, int64_t incy)
{
    if (incx == INT64_MIN) return cufort_bad_inc(fn, 3, "incx");
    if (two && incy == INT64_MIN) return cufort_bad_inc(fn, 5, "incy");
    return CUFORT_SUCCESS;
}

/* ---- reductions on device arrays ---- */
static int reduce_dev(const char *fn, int kind, int op, int64_t n, const void *x, int64_t incx,
                      const void *y, int64_t incy, const char *pred, double value, void *result,
                      int on_device)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter(fn);
    if (st) return st;
    if (!result) return cufort_null_arg(fn, "result");
    int code = 0;
    if (op == CUFORT_RCOUNT && (st = parse_pred(fn, pred, &code))) return st;
    const size_t es = cufort_kelem_size(kind), rb = result_bytes(kind, op);
    if (on_device && (st = cufort_check_array(fn, "result", result, 1, rb))) return st;
    const int two = op == CUFORT_RDOT || op == CUFORT_RDOTC;
    if ((st = check_incs(fn, two, incx, incy))) return st;
    if (n <= 0) {
        _Alignas(16) unsigned char empty[16];   /* within one page: see cuda_kernels.c */
        empty_result(kind, op, empty);
        if (!on_device || cufort_on_host()) {
            memcpy(result, empty, rb);
            return CUFORT_SUCCESS;
        }
        return cufort_in(fn, cufort_ops()->copy2d(result, rb, empty, rb, rb, 1, CUFORT_H2D,
                                                  cufort_thread_stream(), 0));
    }
    if ((st = cufort_check_array(fn, "x", x, cufort_extent_vec(n, incx), es))) return st;
    if (two && (st = cufort_check_array(fn, "y", y, cufort_extent_vec(n, incy), es))) return st;
    if (cufort_on_host())
        return cufort_in(fn, cufort_host_kreduce(kind, op, n, x, incx, y, incy, code, value, result, on_device));
    return cufort_in(fn, cufort_cuda_kreduce(kind, op, n, x, incx, y, incy, code, value, result, on_device));
}

/* ---- reductions on host arrays: staged through the thunk engine ---- */
static int reduce_host(const char *fn, int kind, int op, int64_t n, const void *x, int64_t incx,
                       const void *y, int64_t incy, const char *pred, double value, void *result)
{
    CUFORT_HOLD_GATE;
    cufort_clear_error();   /* a refusal below must not leave an earlier call's BLAS position */
    if (!result) return cufort_null_arg(fn, "result");
    if (op == CUFORT_RCOUNT) {
        int code, st = parse_pred(fn, pred, &code);
        if (st) return st;
    }
    const int two = op == CUFORT_RDOT || op == CUFORT_RDOTC;
    int st = check_incs(fn, two, incx, incy);
    if (st) return st;
    if (n <= 0) {
        empty_result(kind, op, result);
        return CUFORT_SUCCESS;
    }
    const size_t es = cufort_kelem_size(kind);
    cufort_thunk t;
    st = cufort_thunk_begin(&t, fn);
    if (st) return st;
    int ix = cufort_thunk_vector(&t, x, n, incx, es, CUFORT_IN);
    int iy = two ? cufort_thunk_vector(&t, y, n, incy, es, CUFORT_IN) : -1;
    st = cufort_thunk_stage_in(&t);
    if (st == CUFORT_SUCCESS)
        st = reduce_dev(fn, kind, op, n, cufort_thunk_ptr(&t, ix), cufort_thunk_inc(&t, ix),
                        two ? cufort_thunk_ptr(&t, iy) : NULL, two ? cufort_thunk_inc(&t, iy) : 0, pred,
                        value, result, 0);
    return cufort_thunk_finish(&t, st);
}

/* ---- transposes ---- */
static int check_trans(const char *fn, char trans, char *out)
{
    char t = (char)toupper((unsigned char)trans);
    if (t != 'N' && t != 'T' && t != 'C')
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: trans = '%c' (%d) must be 'N', 'T' or 'C'", fn,
                           trans >= 32 && trans < 127 ? trans : '?', (int)trans);
    *out = t;
    return CUFORT_SUCCESS;
}

static int transpose_args(const char *fn, char trans, int64_t m, int64_t n, int64_t lda, int64_t ldb,
                          char *t, int64_t *brows, int64_t *bcols)
{
    int st = check_trans(fn, trans, t);
    if (st) return st;
    if (m < 0 || n < 0)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: m = %lld and n = %lld must not be negative", fn,
                           (long long)m, (long long)n);
    *brows = *t == 'N' ? m : n;
    *bcols = *t == 'N' ? n : m;
    if (lda < IMAX(1, m))
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: lda = %lld must be at least max(1, m) = %lld", fn,
                           (long long)lda, (long long)IMAX(1, m));
    if (ldb < IMAX(1, *brows))
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: ldb = %lld must be at least max(1, %s) = %lld", fn,
                           (long long)ldb, *t == 'N' ? "m" : "n", (long long)IMAX(1, *brows));
    return CUFORT_SUCCESS;
}

static int transpose_dev(const char *fn, int kind, char trans, int64_t m, int64_t n, const void *alpha,
                         const void *a, int64_t lda, void *b, int64_t ldb)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter(fn);
    if (st) return st;
    char t;
    int64_t br, bc;
    if ((st = transpose_args(fn, trans, m, n, lda, ldb, &t, &br, &bc))) return st;
    if (m == 0 || n == 0) return CUFORT_SUCCESS;
    const size_t es = cufort_kelem_size(kind);
    const int64_t ea = cufort_extent_mat(m, n, lda), eb = cufort_extent_mat(br, bc, ldb);
    if ((st = cufort_check_array(fn, "a", a, ea, es))) return st;
    if ((st = cufort_check_array(fn, "b", b, eb, es))) return st;
    uintptr_t a0 = (uintptr_t)a, a1 = a0 + (uintptr_t)ea * es, b0 = (uintptr_t)b, b1 = b0 + (uintptr_t)eb * es;
    if (a0 < b1 && b0 < a1 && !(t == 'N' && a == b && lda == ldb))
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: a and b overlap; a square matrix is transposed in "
                           "place by cufort_<p>transpose_inplace", fn);
    if (cufort_on_host())
        return cufort_in(fn, cufort_host_ktranspose(kind, t, m, n, alpha, a, lda, b, ldb));
    return cufort_in(fn, cufort_cuda_ktranspose(kind, t, m, n, alpha, a, lda, b, ldb));
}

static int transpose_host(const char *fn, int kind, char trans, int64_t m, int64_t n, const void *alpha,
                          const void *a, int64_t lda, void *b, int64_t ldb)
{
    CUFORT_HOLD_GATE;
    char t;
    int64_t br, bc;
    cufort_clear_error();
    int st = transpose_args(fn, trans, m, n, lda, ldb, &t, &br, &bc);
    if (st || m == 0 || n == 0) return st;
    const size_t es = cufort_kelem_size(kind);
    cufort_thunk th;
    if ((st = cufort_thunk_begin(&th, fn))) return st;
    int ia = cufort_thunk_matrix(&th, a, m, n, lda, es, CUFORT_IN);
    int ib = cufort_thunk_matrix(&th, b, br, bc, ldb, es, CUFORT_OUT);
    st = cufort_thunk_stage_in(&th);
    if (st == CUFORT_SUCCESS)
        st = transpose_dev(fn, kind, t, m, n, alpha, cufort_thunk_ptr(&th, ia), cufort_thunk_ld(&th, ia),
                           cufort_thunk_ptr(&th, ib), cufort_thunk_ld(&th, ib));
    return cufort_thunk_finish(&th, st);
}

static int inplace_args(const char *fn, char trans, int64_t n, int64_t lda, char *t)
{
    int st = check_trans(fn, trans, t);
    if (st) return st;
    if (n < 0)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: n = %lld must not be negative", fn, (long long)n);
    if (lda < IMAX(1, n))
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: lda = %lld must be at least max(1, n) = %lld", fn,
                           (long long)lda, (long long)IMAX(1, n));
    return CUFORT_SUCCESS;
}

static int inplace_dev(const char *fn, int kind, char trans, int64_t n, const void *alpha, void *a,
                       int64_t lda)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter(fn);
    if (st) return st;
    char t;
    if ((st = inplace_args(fn, trans, n, lda, &t)) || n == 0) return st;
    if ((st = cufort_check_array(fn, "a", a, cufort_extent_mat(n, n, lda), cufort_kelem_size(kind))))
        return st;
    if (cufort_on_host()) return cufort_in(fn, cufort_host_ktranspose_inplace(kind, t, n, alpha, a, lda));
    return cufort_in(fn, cufort_cuda_ktranspose_inplace(kind, t, n, alpha, a, lda));
}

static int inplace_host(const char *fn, int kind, char trans, int64_t n, const void *alpha, void *a,
                        int64_t lda)
{
    CUFORT_HOLD_GATE;
    char t;
    cufort_clear_error();
    int st = inplace_args(fn, trans, n, lda, &t);
    if (st || n == 0) return st;
    cufort_thunk th;
    if ((st = cufort_thunk_begin(&th, fn))) return st;
    int ia = cufort_thunk_matrix(&th, a, n, n, lda, cufort_kelem_size(kind), CUFORT_INOUT);
    st = cufort_thunk_stage_in(&th);
    if (st == CUFORT_SUCCESS)
        st = inplace_dev(fn, kind, t, n, alpha, cufort_thunk_ptr(&th, ia), cufort_thunk_ld(&th, ia));
    return cufort_thunk_finish(&th, st);
}

/* ---- the typed entry points ---- */
#define FN(p, op, suf) "cufort_" #p "reduce_" #op suf

#define REDUCE1(p, K, T, RT, op, OP)                                                                   \
    int cufort_##p##reduce_##op(int64_t n, const T *x, int64_t incx, RT *result)                     \
    { return reduce_dev(FN(p, op, ""), K, OP, n, x, incx, NULL, 0, NULL, 0, result, 0); }           \
    int cufort_##p##reduce_##op##_dev(int64_t n, const T *x, int64_t incx, RT *result)               \
    { return reduce_dev(FN(p, op, "_dev"), K, OP, n, x, incx, NULL, 0, NULL, 0, result, 1); }       \
    int cufort_##p##reduce_##op##_host(int64_t n, const T *x, int64_t incx, RT *result)              \
    { return reduce_host(FN(p, op, "_host"), K, OP, n, x, incx, NULL, 0, NULL, 0, result); }

#define REDUCE2(p, K, T, op, OP)                                                                       \
    int cufort_##p##reduce_##op(int64_t n, const T *x, int64_t incx, const T *y, int64_t incy,       \
                                T *result)                                                           \
    { return reduce_dev(FN(p, op, ""), K, OP, n, x, incx, y, incy, NULL, 0, result, 0); }           \
    int cufort_##p##reduce_##op##_dev(int64_t n, const T *x, int64_t incx, const T *y, int64_t incy, \
                                      T *result)                                                     \
    { return reduce_dev(FN(p, op, "_dev"), K, OP, n, x, incx, y, incy, NULL, 0, result, 1); }       \
    int cufort_##p##reduce_##op##_host(int64_t n, const T *x, int64_t incx, const T *y,              \
                                       int64_t incy, T *result)                                      \
    { return reduce_host(FN(p, op, "_host"), K, OP, n, x, incx, y, incy, NULL, 0, result); }

#define COUNT(p, K, T)                                                                                 \
    int cufort_##p##reduce_count(int64_t n, const T *x, int64_t incx, const char *pred, T value,     \
                                 int64_t *result)                                                    \
    { return reduce_dev(FN(p, count, ""), K, CUFORT_RCOUNT, n, x, incx, NULL, 0, pred, value, result, 0); } \
    int cufort_##p##reduce_count_dev(int64_t n, const T *x, int64_t incx, const char *pred, T value, \
                                     int64_t *result)                                                \
    { return reduce_dev(FN(p, count, "_dev"), K, CUFORT_RCOUNT, n, x, incx, NULL, 0, pred, value, result, 1); } \
    int cufort_##p##reduce_count_host(int64_t n, const T *x, int64_t incx, const char *pred,         \
                                      T value, int64_t *result)                                      \
    { return reduce_host(FN(p, count, "_host"), K, CUFORT_RCOUNT, n, x, incx, NULL, 0, pred, value, result); }

#define TRANSPOSE(p, K, T)                                                                             \
    int cufort_##p##transpose(char trans, int64_t m, int64_t n, T alpha, const T *a, int64_t lda,    \
                              T *b, int64_t ldb)                                                     \
    { return transpose_dev("cufort_" #p "transpose", K, trans, m, n, &alpha, a, lda, b, ldb); }      \
    int cufort_##p##transpose_host(char trans, int64_t m, int64_t n, T alpha, const T *a,            \
                                   int64_t lda, T *b, int64_t ldb)                                   \
    { return transpose_host("cufort_" #p "transpose_host", K, trans, m, n, &alpha, a, lda, b, ldb); } \
    int cufort_##p##transpose_inplace(char trans, int64_t n, T alpha, T *a, int64_t lda)             \
    { return inplace_dev("cufort_" #p "transpose_inplace", K, trans, n, &alpha, a, lda); }           \
    int cufort_##p##transpose_inplace_host(char trans, int64_t n, T alpha, T *a, int64_t lda)        \
    { return inplace_host("cufort_" #p "transpose_inplace_host", K, trans, n, &alpha, a, lda); }

REDUCE1(s, CUFORT_KS, float, float, sum, CUFORT_RSUM)
REDUCE1(d, CUFORT_KD, double, double, sum, CUFORT_RSUM)
REDUCE1(c, CUFORT_KC, cufort_cfloat, cufort_cfloat, sum, CUFORT_RSUM)
REDUCE1(z, CUFORT_KZ, cufort_cdouble, cufort_cdouble, sum, CUFORT_RSUM)
REDUCE1(s, CUFORT_KS, float, float, sumk, CUFORT_RSUMK)
REDUCE1(d, CUFORT_KD, double, double, sumk, CUFORT_RSUMK)
REDUCE1(s, CUFORT_KS, float, float, asum, CUFORT_RASUM)
REDUCE1(d, CUFORT_KD, double, double, asum, CUFORT_RASUM)
REDUCE1(c, CUFORT_KC, cufort_cfloat, float, asum, CUFORT_RASUM)
REDUCE1(z, CUFORT_KZ, cufort_cdouble, double, asum, CUFORT_RASUM)
REDUCE2(s, CUFORT_KS, float, dot, CUFORT_RDOT)
REDUCE2(d, CUFORT_KD, double, dot, CUFORT_RDOT)
REDUCE2(c, CUFORT_KC, cufort_cfloat, dot, CUFORT_RDOT)
REDUCE2(z, CUFORT_KZ, cufort_cdouble, dot, CUFORT_RDOT)
REDUCE2(c, CUFORT_KC, cufort_cfloat, dotc, CUFORT_RDOTC)
REDUCE2(z, CUFORT_KZ, cufort_cdouble, dotc, CUFORT_RDOTC)
REDUCE1(s, CUFORT_KS, float, float, nrm2, CUFORT_RNRM2)
REDUCE1(d, CUFORT_KD, double, double, nrm2, CUFORT_RNRM2)
REDUCE1(c, CUFORT_KC, cufort_cfloat, float, nrm2, CUFORT_RNRM2)
REDUCE1(z, CUFORT_KZ, cufort_cdouble, double, nrm2, CUFORT_RNRM2)
REDUCE1(s, CUFORT_KS, float, float, min, CUFORT_RMIN)
REDUCE1(d, CUFORT_KD, double, double, min, CUFORT_RMIN)
REDUCE1(s, CUFORT_KS, float, float, max, CUFORT_RMAX)
REDUCE1(d, CUFORT_KD, double, double, max, CUFORT_RMAX)
REDUCE1(s, CUFORT_KS, float, int64_t, minloc, CUFORT_RMINLOC)
REDUCE1(d, CUFORT_KD, double, int64_t, minloc, CUFORT_RMINLOC)
REDUCE1(s, CUFORT_KS, float, int64_t, maxloc, CUFORT_RMAXLOC)
REDUCE1(d, CUFORT_KD, double, int64_t, maxloc, CUFORT_RMAXLOC)
COUNT(s, CUFORT_KS, float)
COUNT(d, CUFORT_KD, double)
TRANSPOSE(s, CUFORT_KS, float)
TRANSPOSE(d, CUFORT_KD, double)
TRANSPOSE(c, CUFORT_KC, cufort_cfloat)
TRANSPOSE(z, CUFORT_KZ, cufort_cdouble)

