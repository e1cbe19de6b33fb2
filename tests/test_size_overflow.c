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

/* Host-array Level-3 calls with one-column operands, whose ld BLAS allows to be anything of at least
 * the rows: 2^62 times the element size wraps, so no copy may step by it.  Pinned arrays go by DMA,
 * pageable ones are staged; the Level-3 routines both whole and through their pipelines. */
static double *one_col_buf(int pinned, size_t n)
{
    void *p = NULL;
    if (pinned ? cufort_host_alloc(&p, n * sizeof(double)) != CUFORT_SUCCESS
               : !(p = malloc(n * sizeof(double))))
        return NULL;
    double *d = p;
    for (size_t i = 0; i < n; i++)
        d[i] = ck_randd();
    return d;
}
static void one_col_free(int pinned, double *p) { pinned ? (void)cufort_host_free(p) : free(p); }
static double max_err(const double *x, const double *want, int n)
{
    double e = 0;
    for (int i = 0; i < n; i++)
        e = fmax(e, fabs(x[i] - want[i]));
    return e;
}

static void one_column_lds(int pinned, const char *mode)
{
    enum { M = 6, K = 3, N = 4 };
    const double al = 1.5, be = -0.5;
    double *A = one_col_buf(pinned, M * M), *B = one_col_buf(pinned, M * N);
    double *C = one_col_buf(pinned, M * N);
    double want[M * N], c0[M * N];
    const char *pin = pinned ? "pinned" : "pageable";
    if (!CHECK(A && B && C, ckf("one column (%s, %s): arrays", pin, mode), "allocation failed"))
        goto out;
    /* GEMM: B and C of one column (n = 1, ldb = ldc = 2^62) */
    memcpy(c0, C, sizeof c0);
    for (int i = 0; i < M; i++) {
        double s = 0;
        for (int l = 0; l < K; l++)
            s += A[i + l * M] * B[l];
        want[i] = al * s + be * c0[i];
    }
    if (CHECK_OK(cufort_dgemm_host('N', 'N', M, 1, K, al, A, M, B, HUGE_LD, be, C, HUGE_LD),
                 ckf("dgemm_host n = 1, ldb = ldc = 2^62 (%s, %s)", pin, mode)))
        CHECK(max_err(C, want, M) < 1e-12, ckf("dgemm_host n = 1 (%s, %s): values", pin, mode),
              "max error %g", max_err(C, want, M));
    /* GEMM: A of one column (k = 1, lda = 2^62) */
    memcpy(c0, C, sizeof c0);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            want[i + j * M] = al * A[i] * B[j] + be * c0[i + j * M];
    if (CHECK_OK(cufort_dgemm_host('N', 'N', M, N, 1, al, A, HUGE_LD, B, 1, be, C, M),
                 ckf("dgemm_host k = 1, lda = 2^62 (%s, %s)", pin, mode)))
        CHECK(max_err(C, want, M * N) < 1e-12, ckf("dgemm_host k = 1 (%s, %s): values", pin, mode),
              "max error %g", max_err(C, want, M * N));
    /* TRSM on the left, B of one column: L x = alpha b, checked by multiplying back */
    for (int i = 0; i < M; i++)
        A[i + i * M] = 4 + fabs(A[i + i * M]);
    memcpy(c0, C, sizeof c0);
    if (CHECK_OK(cufort_dtrsm_host('L', 'L', 'N', 'N', M, 1, al, A, M, C, HUGE_LD),
                 ckf("dtrsm_host n = 1, ldb = 2^62 (%s, %s)", pin, mode))) {
        for (int i = 0; i < M; i++) {
            double s = 0;
            for (int l = 0; l <= i; l++)
                s += A[i + l * M] * C[l];
            want[i] = s;
            c0[i] *= al;
        }
        CHECK(max_err(want, c0, M) < 1e-12, ckf("dtrsm_host n = 1 (%s, %s): L x = alpha b", pin, mode),
              "max error %g", max_err(want, c0, M));
    }
    /* SYRK, A of one column (k = 1, lda = 2^62): the lower triangle of C */
    double cs[M * M], ws[M * M];
    for (int i = 0; i < M * M; i++)
        cs[i] = ck_randd();
    memcpy(ws, cs, sizeof ws);
    for (int j = 0; j < M; j++)
        for (int i = j; i < M; i++)
            ws[i + j * M] = al * B[i] * B[j] + be * cs[i + j * M];
    double *Cs = one_col_buf(pinned, M * M);
    if (Cs) {
        memcpy(Cs, cs, sizeof cs);
        if (CHECK_OK(cufort_dsyrk_host('L', 'N', M, 1, al, B, HUGE_LD, be, Cs, M),
                     ckf("dsyrk_host k = 1, lda = 2^62 (%s, %s)", pin, mode)))
            CHECK(max_err(Cs, ws, M * M) < 1e-12, ckf("dsyrk_host k = 1 (%s, %s): values", pin, mode),
                  "max error %g", max_err(Cs, ws, M * M));
        one_col_free(pinned, Cs);
    }
    /* SYMM on the right, n = 1: A of order 1, B and C of one column, every ld 2^62 */
    memcpy(c0, C, sizeof c0);
    for (int i = 0; i < M; i++)
        want[i] = al * B[i] * A[0] + be * c0[i];
    if (CHECK_OK(cufort_dsymm_host('R', 'U', M, 1, al, A, HUGE_LD, B, HUGE_LD, be, C, HUGE_LD),
                 ckf("dsymm_host right n = 1, every ld 2^62 (%s, %s)", pin, mode)))
        CHECK(max_err(C, want, M) < 1e-12, ckf("dsymm_host right n = 1 (%s, %s): values", pin, mode),
              "max error %g", max_err(C, want, M));
out:
    one_col_free(pinned, A);
    one_col_free(pinned, B);
    one_col_free(pinned, C);
}

static void one_columns(void)
{
    for (int pinned = 0; pinned < 2; pinned++) {
        one_column_lds(pinned, "whole");
        setenv("CUFORT_L3_WHOLE_BYTES", "0", 1);   /* the Level-3 pipelines, whatever the size */
        one_column_lds(pinned, "pipelined");
        unsetenv("CUFORT_L3_WHOLE_BYTES");
    }
}

int main(void)
{
    ck_begin("size_overflow", 120);
    if (!CHECK_OK(cufort_init(), "init")) return ck_end();
    transfers();
    thunks();
    reductions();
    products();
    one_columns();
    cufort_shutdown();
    return ck_end();
}
