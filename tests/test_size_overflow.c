/* test_size_overflow.c — size arithmetic at the edge of int64 and of the address space: leading
 * dimensions and increments whose products with the element size or the column count do not fit,
 * packed triangles whose n * (n + 1) overflows, batch strides against ldc * n.  Each is refused with
 * a status and a message naming the argument, never a wrapped size, a wild copy or a crash. */
#include "check.h"

#include "thunk.h"

static const int64_t HUGE_LD = (int64_t)1 << 62;

/* set/get on a host side whose leading dimension makes it span more than the address space */
static void transfers(void)
{
    double host[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    void *d = NULL;
    if (!CHECK_OK(cufort_alloc(&d, 64), "transfers: device buffer"))
        return;
    CHECK_FAILS_MSG(cufort_set_matrix(2, 2, 8, host, HUGE_LD, d, 2), CUFORT_INVALID_VALUE,
                    "address space", "set_matrix: host lda 2^62 refused");
    CHECK_FAILS_MSG(cufort_get_matrix(2, 2, 8, d, 2, host, HUGE_LD), CUFORT_INVALID_VALUE,
                    "address space", "get_matrix: host ldb 2^62 refused");
    CHECK_FAILS_MSG(cufort_set_vector(2, 8, host, HUGE_LD, d, 1), CUFORT_INVALID_VALUE,
                    "address space", "set_vector: host incx 2^62 refused");
    /* one column or element: the pitch is never used, so any legal ld or increment is fine */
    CHECK_OK(cufort_set_matrix(2, 1, 8, host, HUGE_LD, d, HUGE_LD), "set_matrix: one column, ld 2^62");
    CHECK_OK(cufort_set_vector(1, 8, host, HUGE_LD, d, HUGE_LD), "set_vector: one element, inc 2^62");
    double back = 0;
    CHECK_OK(cufort_get_vector(1, 8, d, 1, &back, 1), "get_vector: the one element");
    CHECK(back == 1, "set_vector: one element, inc 2^62: value", "got %g", back);
    cufort_free(d);
}

/* the thunk engine itself, and host-array BLAS calls through it */
static void thunks(void)
{
    double a[8] = {0}, x[4] = {0}, y[4] = {0};
    cufort_thunk t;
    if (CHECK_OK(cufort_thunk_begin(&t, "test_size_overflow"), "thunk: begin (matrix)")) {
        cufort_thunk_matrix(&t, a, 2, 2, HUGE_LD, 8, CUFORT_IN);
        CHECK_FAILS_MSG(cufort_thunk_stage_in(&t), CUFORT_INVALID_VALUE, "address space",
                        "thunk: matrix at ld 2^62 refused");
        cufort_thunk_finish(&t, CUFORT_INVALID_VALUE);
    }
    if (CHECK_OK(cufort_thunk_begin(&t, "test_size_overflow"), "thunk: begin (vector)")) {
        cufort_thunk_vector(&t, x, 2, INT64_MIN, 8, CUFORT_IN);
        CHECK_FAILS_MSG(cufort_thunk_stage_in(&t), CUFORT_INVALID_VALUE, "INT64_MIN",
                        "thunk: vector at increment INT64_MIN refused");
        cufort_thunk_finish(&t, CUFORT_INVALID_VALUE);
    }
    CHECK_FAILS_MSG(cufort_dgemv_host('N', 2, 2, 1.0, a, HUGE_LD, x, 1, 0.0, y, 1),
                    CUFORT_INVALID_VALUE, "A would span", "dgemv_host: lda 2^62 refused");
    CHECK_FAILS_MSG(cufort_dgemm_host('N', 'N', 2, 2, 2, 1.0, a, 2, a, HUGE_LD, 0.0, x, 2),
                    CUFORT_INVALID_VALUE, "B would span", "dgemm_host: ldb 2^62 refused");
}

/* reductions take increments as the BLAS do: INT64_MIN is refused whatever n is */
static void reductions(void)
{
    float x[2] = {1, 2}, r = -1;
    void *d = NULL;
    if (!CHECK_OK(cufort_alloc(&d, 64), "reductions: device buffer"))
        return;
    CHECK_OK(cufort_set_vector(2, 4, x, 1, d, 1), "reductions: upload");
    for (int64_t n = 0; n < 3; n++) {
        CHECK_FAILS_MSG(cufort_sreduce_sum(n, d, INT64_MIN, &r), CUFORT_INVALID_VALUE, "INT64_MIN",
                        ckf("sreduce_sum: incx INT64_MIN, n = %lld", (long long)n));
        CHECK_FAILS_MSG(cufort_sreduce_sum_host(n, x, INT64_MIN, &r), CUFORT_INVALID_VALUE,
                        "INT64_MIN", ckf("sreduce_sum_host: incx INT64_MIN, n = %lld", (long long)n));
    }
    cufort_free(d);
}

/* checks whose products overflow int64 */
static void products(void)
{
    void *d = NULL;
    if (!CHECK_OK(cufort_alloc(&d, 1024), "products: device buffer"))
        return;
    float *f = d;
    /* batch > 1 needs strideC >= ldc * n: 2^32 * 2^32 must not wrap to 0 */
    const int64_t big = (int64_t)1 << 32;
    int st = cufort_sgemm_strided_batched('N', 'N', 1, big, 1, 1.0f, f, 1, 0, f + 8, 1, 0, 0.0f,
                                          f + 16, big, 0, 2);
    CHECK(st == CUFORT_INVALID_VALUE && cufort_last_info() == 16,
          "gemm_strided_batched: strideC against ldc * n = 2^64 refused (position 16)",
          "status %d (%s), info %d, \"%s\"", st, ck_status_name(st), cufort_last_info(), ck_err());
    /* n * (n + 1) / 2 for n = 2^32 - 1 wraps negative in int64: the packed AP must still be checked */
    CHECK_FAILS_MSG(cufort_stpmv('U', 'N', 'N', big - 1, f, f + 64, 1), CUFORT_BAD_POINTER, "AP",
                    "tpmv: AP of order 2^32 - 1 checked against its allocation");
    CHECK_FAILS_MSG(cufort_stpmv_host('U', 'N', 'N', (int64_t)1 << 62, f, f + 64, 1),
                    CUFORT_INVALID_VALUE, "AP would span", "tpmv_host: AP of order 2^62 refused");
    cufort_free(d);
}

int main(void)
{
    ck_begin("size_overflow", 120);
    if (!CHECK_OK(cufort_init(), "init")) return ck_end();
    transfers();
    thunks();
    reductions();
    products();
    cufort_shutdown();
    return ck_end();
}
