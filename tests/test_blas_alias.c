/* test_blas_alias.c — outputs that share memory with inputs.  geam and dgmm may run exactly in place
 * (C == A with op N and the same leading dimension); any other overlap of an output with an input is
 * refused before anything is written, while blocks, rows and columns of one matrix that share no
 * element (LAPACK's way of calling) still compute the right result.  Batches of matrices
 * (gemm_strided_batched) are compared matrix by matrix: interleaved batches that share no element
 * compute, and one shared element between any two of their matrices is refused.  Device-pointer and
 * host-array entry points alike; values are small integers, so every result is exact. */
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

/* ---- gemm_strided_batched: C's matrices against A's and B's, any two of them ---- */
enum { BM = 3, BMN = BM * BM, BTOTAL_X = 128, BTOTAL_B = 64 };

/* One batched call on X (A and C in it) and Bv (B, unless b_in_x: then B lies in X too): offsets
 * and strides in elements, every matrix BM x BM with leading dimension ld (A and C) and BM (B). */
typedef struct {
    const char *what;
    int64_t a, sa, c, sc, b, sb, batch, ld;
    int b_in_x;
    const char *refused;   /* NULL: accepted; else the input the message names */
} batch_case;

static void batched_case(int host, const batch_case *t)
{
    const char *mode = host ? "host arrays" : "device";
    double x[BTOTAL_X], bv[BTOTAL_B], want[BTOTAL_X], got[BTOTAL_X], before[BTOTAL_X];
    fill_ints(x, BTOTAL_X);
    fill_ints(bv, BTOTAL_B);
    double *X = host ? x : dev_of(x, BTOTAL_X), *Bv = host ? bv : dev_of(bv, BTOTAL_B);
    if (!CHECK(X && Bv, ckf("batched %s: %s: buffers", mode, t->what), "allocation failed"))
        return;
    const double *hb = t->b_in_x ? x : bv;
    double *B = t->b_in_x ? X : Bv;
    memcpy(want, x, sizeof want);
    memcpy(before, x, sizeof before);
    for (int64_t q = 0; q < t->batch; q++)   /* C = 2 A B - C, on the values before the call */
        for (int j = 0; j < BM; j++)
            for (int i = 0; i < BM; i++) {
                double sum = 0;
                for (int l = 0; l < BM; l++)
                    sum += x[t->a + q * t->sa + i + l * t->ld] * hb[t->b + q * t->sb + l + j * BM];
                int64_t at = t->c + q * t->sc + i + j * t->ld;
                want[at] = 2 * sum - x[at];
            }
    int st = host ? cufort_dgemm_strided_batched_host('N', 'N', BM, BM, BM, 2.0, X + t->a, t->ld,
                                                      t->sa, B + t->b, BM, t->sb, -1.0, X + t->c,
                                                      t->ld, t->sc, t->batch)
                  : cufort_dgemm_strided_batched('N', 'N', BM, BM, BM, 2.0, X + t->a, t->ld, t->sa,
                                                 B + t->b, BM, t->sb, -1.0, X + t->c, t->ld, t->sc,
                                                 t->batch);
    char err[256];   /* before the copy back, which clears it */
    snprintf(err, sizeof err, "%s", ck_err());
    int info = cufort_last_info();
    if (host)
        memcpy(got, x, sizeof got);
    else
        cufort_get_vector(BTOTAL_X, 8, X, 1, got, 1);
    if (t->refused) {
        char says[64];
        snprintf(says, sizeof says, "overlaps the input %s", t->refused);
        CHECK(st == CUFORT_INVALID_VALUE && strstr(err, says) && info == 0,
              ckf("batched %s: %s: refused (%s)", mode, t->what, says),
              "status %d (%s), info %d, \"%s\"", st, ck_status_name(st), info, err);
        int64_t at = first_diff(got, before, BTOTAL_X);
        CHECK(at < 0, ckf("batched %s: %s: nothing written", mode, t->what), "element %lld changed",
              (long long)at);
    } else {
        CHECK(st == CUFORT_SUCCESS, ckf("batched %s: %s: accepted", mode, t->what),
              "status %d (%s), \"%s\"", st, ck_status_name(st), err);
        int64_t at = first_diff(got, want, BTOTAL_X);
        CHECK(at < 0, ckf("batched %s: %s: result", mode, t->what), "element %lld: %g, expected %g",
              (long long)at, at < 0 ? 0 : got[at], at < 0 ? 0 : want[at]);
    }
    if (!host) {
        cufort_free(X);
        cufort_free(Bv);
    }
}

static void batched(int host)
{
    static const batch_case cases[] = {
        {"A and C taking turns", 0, 2 * BMN, BMN, 2 * BMN, 0, BMN, 4, BM, 0, NULL},
        {"C_i one element into A_(i+1)", 0, 2 * BMN, BMN + 1, 2 * BMN, 0, BMN, 4, BM, 0, "A"},
        {"C one element past A, one matrix each", 0, 2 * BMN, BMN + 1, 2 * BMN, 0, BMN, 1, BM, 0,
         NULL},
        {"one A for every batch, after C", 4 * BMN, 0, 0, BMN, 0, BMN, 4, BM, 0, NULL},
        {"one A for every batch, inside C's last", 3 * BMN + 1, 0, 0, BMN, 0, BMN, 4, BM, 0, "A"},
        {"strides 2 and 4 matrices, A even, C odd", 0, 2 * BMN, BMN, 4 * BMN, 0, BMN, 3, BM, 0,
         NULL},
        {"strides 2 and 3 matrices: C_1 on A_2", 0, 2 * BMN, BMN, 3 * BMN, 0, BMN, 3, BM, 0, "A"},
        {"A the top rows, C the bottom rows of each", 0, 2 * BMN, BM, 2 * BMN, 0, BMN, 4, 2 * BM, 0,
         NULL},
        {"C's first row on A's last", 0, 2 * BMN, BM - 1, 2 * BMN, 0, BMN, 4, 2 * BM, 0, "A"},
        {"B_3 on C_0", 0, BMN, 4 * BMN, BMN, 4 * BMN - 3 * BMN, BMN, 4, BM, 1, "B"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        batched_case(host, &cases[i]);
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
        batched(host);
    }
    cufort_shutdown();
    return ck_end();
}
