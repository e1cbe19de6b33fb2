/* test_blas_alias.c — outputs that share memory with inputs.  geam and dgmm may run exactly in place
 * (C == A with op N and the same leading dimension); any other overlap of an output with an input is
 * refused before anything is written, while blocks, rows and columns of one matrix that share no
 * element (LAPACK's way of calling) still compute the right result.  Device-pointer and host-array
 * entry points alike; values are small integers, so every result is exact. */
#include "check.h"

/* a device copy of n doubles */
static double *dev_of(const double *h, int64_t n)
{
    void *d = NULL;
    if (cufort_alloc(&d, n * 8) || cufort_set_vector(n, 8, h, 1, d, 1))
        return NULL;
    return d;
}

static void fill_ints(double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (double)(int)(ck_rand64() % 19) - 9.0 + (i % 7 == 0 ? 0.5 : 0.0);
}

/* the first index where a and b differ, -1 when none */
static int64_t first_diff(const double *a, const double *b, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return -1;
}

/* Device memory after a refused call equals what was there before. */
static void check_untouched(const char *what, const double *d, const double *before, int64_t n)
{
    double *now = malloc((size_t)n * 8);
    cufort_get_vector(n, 8, d, 1, now, 1);
    int64_t at = first_diff(now, before, n);
    CHECK(at < 0, ckf("%s: nothing written", what), "element %lld changed", (long long)at);
    free(now);
}

/* ---- geam: C = alpha*A + beta*B on 4x4 matrices ---- */
static void geam_overlap(int host)
{
    const char *mode = host ? "host arrays" : "device";
    enum { N = 4, LD = 4, TOTAL = 64, BTOTAL = 24 };
    double h[TOTAL], hb[BTOTAL];
    fill_ints(h, TOTAL);
    fill_ints(hb, BTOTAL);
    double *buf = host ? h : dev_of(h, TOTAL), *B = host ? hb : dev_of(hb, BTOTAL);
    if (!CHECK(buf && B, ckf("geam %s: buffers", mode), "allocation failed"))
        return;
    double before[TOTAL];
    memcpy(before, h, sizeof before);

    /* C one element past A: the hostile case */
    int st = host ? cufort_dgeam_host('N', 'N', N, N, 2.0, buf, LD, 3.0, B, LD, buf + 1, LD)
                  : cufort_dgeam('N', 'N', N, N, 2.0, buf, LD, 3.0, B, LD, buf + 1, LD);
    CHECK(st == CUFORT_INVALID_VALUE && strstr(ck_err(), "overlaps the input A"),
          ckf("geam %s: C = A + 1 element refused", mode), "status %d (%s), \"%s\"", st,
          ck_status_name(st), ck_err());
    if (host)
        CHECK(first_diff(h, before, TOTAL) < 0, ckf("geam %s: C = A + 1: nothing written", mode),
              "A changed");
    else
        check_untouched(ckf("geam %s: C = A + 1", mode), buf, before, TOTAL);

    /* C overlapping B from below, and A transposed in place */
    st = host ? cufort_dgeam_host('N', 'N', N, N, 2.0, buf, LD, 3.0, B + 2, LD, B, LD)
              : cufort_dgeam('N', 'N', N, N, 2.0, buf, LD, 3.0, B + 2, LD, B, LD);
    CHECK(st == CUFORT_INVALID_VALUE && strstr(ck_err(), "overlaps the input B"),
          ckf("geam %s: C = B - 2 elements refused", mode), "status %d (%s), \"%s\"", st,
          ck_status_name(st), ck_err());
    st = host ? cufort_dgeam_host('T', 'N', N, N, 2.0, buf, LD, 3.0, B, LD, buf, LD)
              : cufort_dgeam('T', 'N', N, N, 2.0, buf, LD, 3.0, B, LD, buf, LD);
    CHECK(st == CUFORT_INVALID_VALUE && cufort_last_info() == 12,
          ckf("geam %s: C == A with transa = T refused (ldc, position 12)", mode),
          "status %d (%s), info %d, \"%s\"", st, ck_status_name(st), cufort_last_info(), ck_err());

    /* exactly in place: C == A, transa = N, ldc == lda */
    double want[N * LD];
    for (int i = 0; i < N * LD; i++)
        want[i] = 2.0 * h[i] + 3.0 * hb[i];
    st = host ? cufort_dgeam_host('N', 'N', N, N, 2.0, buf, LD, 3.0, B, LD, buf, LD)
              : cufort_dgeam('N', 'N', N, N, 2.0, buf, LD, 3.0, B, LD, buf, LD);
    CHECK(st == CUFORT_SUCCESS, ckf("geam %s: exactly in place accepted", mode), "status %d (%s), \"%s\"",
          st, ck_status_name(st), ck_err());
    double got[TOTAL];
    if (host)
        memcpy(got, h, sizeof got);
    else
        cufort_get_vector(TOTAL, 8, buf, 1, got, 1);
    int64_t at = first_diff(got, want, N * LD);
    CHECK(at < 0, ckf("geam %s: in place result", mode), "element %lld: %g, expected %g", (long long)at,
          at < 0 ? 0 : got[at], at < 0 ? 0 : want[at]);
    if (!host) {
        cufort_free(buf);
        cufort_free(B);
    }
}

/* Blocks of one 4 x 6 matrix P (ld 4): C = rows 3-4 of columns 1-3, A = rows 1-2 of columns 1-3
 * (their spans interleave, their elements do not), B = rows 1-2 of columns 4-6. */
static void geam_blocks(int host)
{
    const char *mode = host ? "host arrays" : "device";
    enum { LD = 4, COLS = 6, TOTAL = LD * COLS };
    double h[TOTAL], want[TOTAL];
    fill_ints(h, TOTAL);
    memcpy(want, h, sizeof want);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 2; i++)
            want[2 + i + j * LD] = 2.0 * h[i + j * LD] - h[i + (j + 3) * LD];
    double *P = host ? h : dev_of(h, TOTAL);
    if (!CHECK(P != NULL, ckf("geam blocks %s: buffer", mode), "allocation failed"))
        return;
    int st = host ? cufort_dgeam_host('N', 'N', 2, 3, 2.0, P, LD, -1.0, P + 3 * LD, LD, P + 2, LD)
                  : cufort_dgeam('N', 'N', 2, 3, 2.0, P, LD, -1.0, P + 3 * LD, LD, P + 2, LD);
    CHECK(st == CUFORT_SUCCESS, ckf("geam blocks %s: disjoint blocks of one matrix accepted", mode),
          "status %d (%s), \"%s\"", st, ck_status_name(st), ck_err());
    double got[TOTAL];
    if (host)
        memcpy(got, h, sizeof got);
    else
        cufort_get_vector(TOTAL, 8, P, 1, got, 1);
    int64_t at = first_diff(got, want, TOTAL);
    CHECK(at < 0, ckf("geam blocks %s: result, the rest untouched", mode), "element %lld: %g, expected %g",
          (long long)at, at < 0 ? 0 : got[at], at < 0 ? 0 : want[at]);
    if (!host)
        cufort_free(P);
}

/* ---- dgmm: C = A * diag(x) (side R) ---- */
static void dgmm(int host)
{
    const char *mode = host ? "host arrays" : "device";
    enum { M = 3, N = 4, LD = 5, TOTAL = 64 };
    double h[TOTAL];
    fill_ints(h, TOTAL);
    double *buf = host ? h : dev_of(h, TOTAL);
    if (!CHECK(buf != NULL, ckf("dgmm %s: buffer", mode), "allocation failed"))
        return;
    double *A = buf, *x = buf + 40;   /* A: 3 x 4 at ld 5 (elements 0..17); x: 4 elements */
    double before[TOTAL];
    memcpy(before, h, sizeof before);
    int st = host ? cufort_ddgmm_host('R', M, N, A, LD, x, 1, A + 1, LD)
                  : cufort_ddgmm('R', M, N, A, LD, x, 1, A + 1, LD);
    CHECK(st == CUFORT_INVALID_VALUE && strstr(ck_err(), "overlaps the input A"),
          ckf("dgmm %s: C = A + 1 element refused", mode), "status %d (%s), \"%s\"", st,
          ck_status_name(st), ck_err());
    st = host ? cufort_ddgmm_host('R', M, N, A, LD, x, 1, x - 2, LD)
              : cufort_ddgmm('R', M, N, A, LD, x, 1, x - 2, LD);
    CHECK(st == CUFORT_INVALID_VALUE && strstr(ck_err(), "overlaps the input x"),
          ckf("dgmm %s: C over x refused", mode), "status %d (%s), \"%s\"", st, ck_status_name(st),
          ck_err());
    st = host ? cufort_ddgmm_host('R', M, N, A, LD, x, 1, A, LD + 1)
              : cufort_ddgmm('R', M, N, A, LD, x, 1, A, LD + 1);
    CHECK(st == CUFORT_INVALID_VALUE && cufort_last_info() == 9,
          ckf("dgmm %s: C == A with ldc != lda refused (ldc, position 9)", mode),
          "status %d (%s), info %d, \"%s\"", st, ck_status_name(st), cufort_last_info(), ck_err());
    if (host)
        CHECK(first_diff(h, before, TOTAL) < 0, ckf("dgmm %s: refused calls wrote nothing", mode),
              "buffer changed");
    else
        check_untouched(ckf("dgmm %s: refused calls", mode), buf, before, TOTAL);

    /* exactly in place; then x as row 3 of the columns after A (ld 5), next to C: no element shared */
    double want[TOTAL];
    memcpy(want, h, sizeof want);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            want[i + j * LD] = h[i + j * LD] * h[40 + j];
    st = host ? cufort_ddgmm_host('R', M, N, A, LD, x, 1, A, LD)
              : cufort_ddgmm('R', M, N, A, LD, x, 1, A, LD);
    CHECK(st == CUFORT_SUCCESS, ckf("dgmm %s: exactly in place accepted", mode), "status %d (%s), \"%s\"",
          st, ck_status_name(st), ck_err());
    double got[TOTAL];
    if (host)
        memcpy(got, h, sizeof got);
    else
        cufort_get_vector(TOTAL, 8, buf, 1, got, 1);
    int64_t at = first_diff(got, want, TOTAL);
    CHECK(at < 0, ckf("dgmm %s: in place result", mode), "element %lld: %g, expected %g", (long long)at,
          at < 0 ? 0 : got[at], at < 0 ? 0 : want[at]);
    memcpy(h, got, sizeof got);
    for (int j = 0; j < N; j++)       /* x = elements 3, 8, 13, 18: row 4 of A's ld-5 columns */
        for (int i = 0; i < M; i++)
            want[i + j * LD] = got[i + j * LD] * got[3 + j * LD];
    st = host ? cufort_ddgmm_host('R', M, N, A, LD, A + 3, LD, A, LD)
              : cufort_ddgmm('R', M, N, A, LD, A + 3, LD, A, LD);
    CHECK(st == CUFORT_SUCCESS, ckf("dgmm %s: x a row beside C accepted", mode), "status %d (%s), \"%s\"",
          st, ck_status_name(st), ck_err());
    if (host)
        memcpy(got, h, sizeof got);
    else
        cufort_get_vector(TOTAL, 8, buf, 1, got, 1);
    at = first_diff(got, want, TOTAL);
    CHECK(at < 0, ckf("dgmm %s: x a row beside C: result", mode), "element %lld: %g, expected %g",
          (long long)at, at < 0 ? 0 : got[at], at < 0 ? 0 : want[at]);
    if (!host)
        cufort_free(buf);
}

/* ---- gemm: no overlap at all; LAPACK's trailing update (blocks of one matrix) still works ---- */
static void gemm(int host)
{
    const char *mode = host ? "host arrays" : "device";
    enum { LD = 6, COLS = 6, TOTAL = LD * COLS };
    double h[TOTAL], want[TOTAL];
    fill_ints(h, TOTAL);
    double *P = host ? h : dev_of(h, TOTAL);
    if (!CHECK(P != NULL, ckf("gemm %s: buffer", mode), "allocation failed"))
        return;
    int st = host ? cufort_dgemm_host('N', 'N', 3, 3, 2, 1.0, P, LD, P + 2 * LD, LD, 1.0, P + 1, LD)
                  : cufort_dgemm('N', 'N', 3, 3, 2, 1.0, P, LD, P + 2 * LD, LD, 1.0, P + 1, LD);
    CHECK(st == CUFORT_INVALID_VALUE && strstr(ck_err(), "overlaps the input A"),
          ckf("gemm %s: C overlapping A refused", mode), "status %d (%s), \"%s\"", st, ck_status_name(st),
          ck_err());
    /* A22 -= A21 * A12 with A21 = P(3:6, 1:2), A12 = P(1:2, 3:6), A22 = P(3:6, 3:6) */
    memcpy(want, h, sizeof want);
    for (int j = 2; j < 6; j++)
        for (int i = 2; i < 6; i++)
            for (int l = 0; l < 2; l++)
                want[i + j * LD] -= h[i + l * LD] * h[l + j * LD];
    st = host ? cufort_dgemm_host('N', 'N', 4, 4, 2, -1.0, P + 2, LD, P + 2 * LD, LD, 1.0, P + 2 + 2 * LD, LD)
              : cufort_dgemm('N', 'N', 4, 4, 2, -1.0, P + 2, LD, P + 2 * LD, LD, 1.0, P + 2 + 2 * LD, LD);
    CHECK(st == CUFORT_SUCCESS, ckf("gemm %s: trailing update of one matrix accepted", mode),
          "status %d (%s), \"%s\"", st, ck_status_name(st), ck_err());
    double got[TOTAL];
    if (host)
        memcpy(got, h, sizeof got);
    else
        cufort_get_vector(TOTAL, 8, P, 1, got, 1);
    int64_t at = first_diff(got, want, TOTAL);
    CHECK(at < 0, ckf("gemm %s: trailing update result", mode), "element %lld: %g, expected %g",
          (long long)at, at < 0 ? 0 : got[at], at < 0 ? 0 : want[at]);
    if (!host)
        cufort_free(P);
}

int main(void)
{
    ck_begin("blas_alias", 120);
    ck_seed(2024);
    if (!CHECK_OK(cufort_init(), "init")) return ck_end();
    for (int host = 0; host < 2; host++) {
        geam_overlap(host);
        geam_blocks(host);
        dgmm(host);
        gemm(host);
    }
    cufort_shutdown();
    return ck_end();
}
