/* test_dropin.c — the drop-in BLAS (libcufort_blas) beyond what the generated suite covers
 * (test_blas_dropin*, every table routine through its standard name):
 *   - the netlib routines outside the routine table (sdsdot, dsdot, scabs1, dcabs1, lsame) against
 *     netlib itself, renamed ref_* (mk/dropin.mk);
 *   - routing: the flop threshold, the minimum dimension, the host-backend rule, forcing;
 *   - the counters behind CUFORT_REPORT: flops and bytes by the documented formulas, exact counts
 *     from 8 threads at once;
 *   - in child processes: the report written at exit (CUFORT_REPORT_FILE with %p), the default
 *     xerbla's reference message on both paths, xerbla_array, the engine unavailable (fallback),
 *     and a CUFORT_CPU_BLAS that is missing or is the drop-in itself.
 * This binary defines no xerbla_: the library's default one is under test here. */
#include "check.h"

#include <complex.h>
#include <dirent.h>
#include <dlfcn.h>

#include "cufort_dropin.h"
#include "f77.h"

typedef double _Complex zc;
typedef float _Complex cc;

/* the library under test: the standard names */
void dgemm_(const char *, const char *, const f77_int *, const f77_int *, const f77_int *,
            const double *, const double *, const f77_int *, const double *, const f77_int *,
            const double *, double *, const f77_int *, size_t, size_t);
void zgemm_(const char *, const char *, const f77_int *, const f77_int *, const f77_int *, const zc *,
            const zc *, const f77_int *, const zc *, const f77_int *, const zc *, zc *,
            const f77_int *, size_t, size_t);
void dtrsm_(const char *, const char *, const char *, const char *, const f77_int *, const f77_int *,
            const double *, const double *, const f77_int *, double *, const f77_int *, size_t, size_t,
            size_t, size_t);
void dsymm_(const char *, const char *, const f77_int *, const f77_int *, const double *,
            const double *, const f77_int *, const double *, const f77_int *, const double *,
            double *, const f77_int *, size_t, size_t);
void zherk_(const char *, const char *, const f77_int *, const f77_int *, const double *, const zc *,
            const f77_int *, const double *, zc *, const f77_int *, size_t, size_t);
void daxpy_(const f77_int *, const double *, const double *, const f77_int *, double *,
            const f77_int *);
double ddot_(const f77_int *, const double *, const f77_int *, const double *, const f77_int *);
float sdsdot_(const f77_int *, const float *, const float *, const f77_int *, const float *,
              const f77_int *);
double dsdot_(const f77_int *, const float *, const f77_int *, const float *, const f77_int *);
float scabs1_(const cc *);
double dcabs1_(const zc *);
f77_int lsame_(const char *, const char *, size_t, size_t);
void xerbla_array_(const char *, const f77_int *, const f77_int *, size_t);

/* the oracle: netlib, renamed */
void ref_dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
                const double *, const int *, const double *, const int *, const double *, double *,
                const int *, size_t, size_t);
float ref_sdsdot_(const int *, const float *, const float *, const int *, const float *, const int *);
double ref_dsdot_(const int *, const float *, const int *, const float *, const int *);
float ref_scabs1_(const cc *);
double ref_dcabs1_(const zc *);
int ref_lsame_(const char *, const char *, size_t, size_t);

#define FI(v) (&(f77_int){(f77_int)(v)})
#define RI(v) (&(int){(int)(v)})

static int on_cuda(void) { return cufort_backend() == CUFORT_BACKEND_CUDA; }

/* the threshold rule alone unless adapt is given (CUFORT_DROPIN_ADAPT) */
static void set_routing_adapt(const char *threshold, const char *min_dim, const char *force,
                              const char *adapt)
{
    setenv("CUFORT_DROPIN_ADAPT", adapt ? adapt : "0", 1);
    setenv("CUFORT_REPORT", "1", 1);
    setenv("CUFORT_REPORT_FILE", "/dev/null", 1);
    threshold ? setenv("CUFORT_GPU_THRESHOLD", threshold, 1) : unsetenv("CUFORT_GPU_THRESHOLD");
    min_dim ? setenv("CUFORT_GPU_MIN_DIM", min_dim, 1) : unsetenv("CUFORT_GPU_MIN_DIM");
    force ? setenv("CUFORT_DROPIN_FORCE_GPU", force, 1) : unsetenv("CUFORT_DROPIN_FORCE_GPU");
    cufort_dropin_configure();
}

static void set_routing(const char *threshold, const char *min_dim, const char *force)
{
    set_routing_adapt(threshold, min_dim, force, NULL);
}

static cufort_dropin_stats stats(const char *name)
{
    cufort_dropin_stats s;
    memset(&s, 0, sizeof s);
    if (cufort_dropin_stats_of(name, &s) != 0)
        CHECK(0, ckf("stats of %s", name), "cufort_dropin_stats_of returned -1");
    return s;
}

/* ---- netlib routines outside the table ---- */
static void test_extras(void)
{
    float sx[40], sy[40];
    for (int i = 0; i < 40; i++) {
        sx[i] = (float)ck_randd() * 1e3f;
        sy[i] = (float)ck_randd() * 1e-3f;
    }
    const float sb = 0.25f;
    int cases[][3] = {{13, 1, 1}, {13, 2, -3}, {7, -1, 2}, {0, 1, 1}, {-2, 1, 1}, {5, 0, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int n = cases[c][0], ix = cases[c][1], iy = cases[c][2];
        float got = sdsdot_(FI(n), &sb, sx, FI(ix), sy, FI(iy));
        float want = ref_sdsdot_(RI(n), &sb, sx, RI(ix), sy, RI(iy));
        CHECK(got == want, ckf("sdsdot n=%d incx=%d incy=%d", n, ix, iy), "%.9g, netlib %.9g", got, want);
        double dgot = dsdot_(FI(n), sx, FI(ix), sy, FI(iy));
        double dwant = ref_dsdot_(RI(n), sx, RI(ix), sy, RI(iy));
        CHECK(dgot == dwant, ckf("dsdot n=%d incx=%d incy=%d", n, ix, iy), "%.17g, netlib %.17g", dgot,
              dwant);
    }
    cc zs[] = {3.0f - 4.0f * I, -1.5f + 0.25f * I, 0};
    zc zd[] = {3.0 - 4.0 * I, -1.5 + 0.25 * I, 0};
    for (int i = 0; i < 3; i++) {
        CHECK(scabs1_(&zs[i]) == ref_scabs1_(&zs[i]), ckf("scabs1 %d", i), "%g, netlib %g",
              scabs1_(&zs[i]), ref_scabs1_(&zs[i]));
        CHECK(dcabs1_(&zd[i]) == ref_dcabs1_(&zd[i]), ckf("dcabs1 %d", i), "%g, netlib %g",
              dcabs1_(&zd[i]), ref_dcabs1_(&zd[i]));
    }
    int bad = 0;
    char first[64] = "";
    for (int a = 32; a < 127; a++)
        for (int b = 32; b < 127; b++) {
            char ca = (char)a, cb = (char)b;
            int got = lsame_(&ca, &cb, 1, 1) != 0, want = ref_lsame_(&ca, &cb, 1, 1) != 0;
            if (got != want && !bad++)
                snprintf(first, sizeof first, "lsame('%c','%c') = %d, netlib %d", ca, cb, got, want);
        }
    CHECK(!bad, "lsame: every printable pair as netlib", "%d differ; first %s", bad, first);
}

/* ---- routing and counters ---- */
static double maxdiff(const double *a, const double *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

/* one dgemm m x n x k through the drop-in, checked against netlib; returns where it ran */
static const char *run_dgemm(int m, int n, int k, const char *what)
{
    double *A = malloc(sizeof(double) * (m * k + 1)), *B = malloc(sizeof(double) * (k * n + 1));
    double *C = malloc(sizeof(double) * (m * n + 1)), *R = malloc(sizeof(double) * (m * n + 1));
    const int lda = m > 0 ? m : 1, ldb = k > 0 ? k : 1;
    ck_fill_d(A, (size_t)m * k);
    ck_fill_d(B, (size_t)k * n);
    ck_fill_d(C, (size_t)m * n);
    memcpy(R, C, sizeof(double) * m * n);
    const double al = 0.75, be = -0.5;
    cufort_dropin_stats s0 = stats("dgemm");
    dgemm_("N", "N", FI(m), FI(n), FI(k), &al, A, FI(lda), B, FI(ldb), &be, C, FI(lda), 1, 1);
    cufort_dropin_stats s1 = stats("dgemm");
    ref_dgemm_("N", "N", RI(m), RI(n), RI(k), &al, A, RI(lda), B, RI(ldb), &be, R, RI(lda), 1, 1);
    double d = maxdiff(C, R, (size_t)m * n);
    CHECK(d <= 1e-12 * k, ckf("%s: dgemm %dx%dx%d result", what, m, n, k), "max difference %g", d);
    CHECK(s1.calls - s0.calls == 1 && fabs(s1.flops - s0.flops - 2.0 * m * n * k) < 0.5,
          ckf("%s: dgemm counted once, 2mnk flops", what), "calls +%lld, flops +%g (want %g)",
          (long long)(s1.calls - s0.calls), s1.flops - s0.flops, 2.0 * m * n * k);
    double want_bytes = s1.gpu > s0.gpu ? 8.0 * ((double)m * k + (double)k * n + 2.0 * m * n) : 0;
    CHECK(s1.bytes - s0.bytes == want_bytes, ckf("%s: dgemm bytes moved", what), "+%g, want %g",
          s1.bytes - s0.bytes, want_bytes);
    free(A), free(B), free(C), free(R);
    return s1.gpu > s0.gpu ? "engine" : s1.cpu > s0.cpu ? "cpu" : "nowhere";
}

#define WHERE(m, n, k, want, what)                                                                \
    do {                                                                                          \
        const char *got_ = run_dgemm(m, n, k, what);                                              \
        CHECK(!strcmp(got_, want), ckf("%s: dgemm %dx%dx%d runs on the %s", what, m, n, k, want), \
              "ran on the %s", got_);                                                             \
    } while (0)

/* GEMM with alpha = 0 reads neither A nor B, as in reference BLAS (which lets them be unset):
 * NaN in them, or NULL, must not reach C, on the CPU path and the engine's; beta = 1 leaves C alone */
static void test_gemm_alpha_zero(void)
{
    enum { N = 12 };
    double A[N * N], B[N * N], C[N * N], C0[N * N];
    for (int i = 0; i < N * N; i++)
        A[i] = B[i] = NAN, C0[i] = ck_randd();
    static const char *const paths[] = {NULL, "1"};
    for (int f = 0; f < 2; f++) {
        set_routing(NULL, NULL, paths[f]);
        const char *where = f ? "engine" : "cpu";
        for (int b = 0; b < 3; b++) {
            double beta = b == 0 ? 0.5 : b == 1 ? 0 : 1;
            memcpy(C, C0, sizeof C);
            dgemm_("N", "N", FI(N), FI(N), FI(N), &(double){0}, A, FI(N), B, FI(N), &beta, C, FI(N), 1, 1);
            int bad = 0;
            for (int i = 0; i < N * N; i++)
                bad += !(C[i] == beta * C0[i]);
            CHECK(bad == 0, ckf("dgemm alpha = 0, beta = %g, NaN in A and B (%s path): C = beta C", beta, where),
                  "%d elements wrong", bad);
        }
        memcpy(C, C0, sizeof C);
        dgemm_("N", "N", FI(3), FI(3), FI(3), &(double){0}, NULL, FI(3), NULL, FI(3), &(double){1}, C, FI(3), 1, 1);
        CHECK(!memcmp(C, C0, sizeof C), ckf("dgemm alpha = 0, beta = 1, A and B NULL (%s path): C untouched", where),
              "C changed");
    }
    set_routing(NULL, NULL, NULL);
}

static void test_routing(void)
{
    const char *big = on_cuda() ? "engine" : "cpu";    /* the host backend keeps everything */
    set_routing(NULL, NULL, NULL);
    WHERE(8, 8, 8, "cpu", "default thresholds");
    set_routing("1000", "4", NULL);
    WHERE(5, 5, 5, "cpu", "threshold 1000 flops, min dim 4 (250 flops)");
    WHERE(10, 10, 10, big, "threshold 1000 flops, min dim 4 (2000 flops)");
    WHERE(100, 100, 3, "cpu", "threshold 1000 flops, min dim 4 (k = 3)");
    set_routing("1", "20", NULL);
    WHERE(10, 30, 30, "cpu", "min dim 20 (m = 10)");
    WHERE(20, 20, 20, big, "min dim 20 (all 20)");
    set_routing("0", NULL, NULL);
    WHERE(3, 4, 5, "engine", "threshold 0 (forces the engine)");
    WHERE(0, 4, 5, "engine", "threshold 0, m = 0");
    set_routing("1e30", "100000", "1");
    WHERE(3, 4, 5, "engine", "CUFORT_DROPIN_FORCE_GPU=1 over any threshold");
    set_routing("x12", NULL, NULL);    /* malformed: a warning, then the default */
    WHERE(8, 8, 8, "cpu", "malformed threshold");
    set_routing(NULL, NULL, "off");    /* a word is no switch: the default (not forced) */
    WHERE(8, 8, 8, "cpu", "CUFORT_DROPIN_FORCE_GPU=off");
    set_routing("1", "1e30", NULL);    /* past any dimension: no call is large enough */
    WHERE(64, 64, 64, "cpu", "CUFORT_GPU_MIN_DIM=1e30");
    set_routing("1", "inf", NULL);
    WHERE(64, 64, 64, "cpu", "CUFORT_GPU_MIN_DIM=inf");
}

/* Near the threshold (within 8x) the drop-in times four calls on each path, the engine first, then
 * sends every later call of the size class to the faster one (adapt.c).  Which path wins is the
 * machine's business; that each class is measured this way, and results stay right, is checked
 * (test_adapt.c checks the policy itself on a simulated clock). */
static char tmpdir[256];
static int read_report(char *buf, size_t n, char *name, size_t namelen);

static long long ran(cufort_dropin_stats a, cufort_dropin_stats b, int gpu)
{
    return gpu ? b.gpu - a.gpu : b.cpu - a.cpu;
}

static void test_adaptive(void)
{
    /* the checks between calls take longer than adapt.c's GAP_US: every call is timed */
    setenv("CUFORT_DROPIN_GAP_US", "1e9", 1);
    set_routing_adapt("2e6", "64", NULL, "1");   /* the band: 2.5e5 to 1.6e7 flops, dims >= 32 */
    cufort_dropin_stats s0 = stats("dgemm"), s1;
    const char *first = run_dgemm(64, 64, 64, "adaptive, call 1");   /* 5.2e5 flops */
    CHECK(!strcmp(first, "engine"), "adaptive: a new size class tries the engine first",
          "call 1 ran on the %s", first);
    const char *path[9] = {first};
    for (int i = 2; i <= 8; i++)
        path[i] = run_dgemm(64, 64, 64, ckf("adaptive, call %d", i));
    CHECK(!strcmp(path[4], "engine") && !strcmp(path[5], "cpu") && !strcmp(path[8], "cpu"),
          "adaptive: the paths are tried in runs (four on the engine, then four on the CPU BLAS)",
          "calls 4, 5 and 8 ran on the %s, the %s and the %s", path[4], path[5], path[8]);
    s1 = stats("dgemm");
    CHECK(ran(s0, s1, 1) == 4 && ran(s0, s1, 0) == 4, "adaptive: calls 1-8, four on each path",
          "engine %lld, CPU BLAS %lld", ran(s0, s1, 1), ran(s0, s1, 0));
    /* CUFORT_REPORT lists the measured class with both times, as decided after call 8 (later
     * calls on the chosen path move its median) */
    char text[8192], name[256];
    cufort_dropin_write_report(ckf("%s/adaptive.txt", tmpdir));
    read_report(text, sizeof text, name, sizeof name);
    for (int i = 9; i <= 14; i++)
        run_dgemm(64, 64, 64, ckf("adaptive, call %d", i));
    cufort_dropin_stats s2 = stats("dgemm");
    CHECK((ran(s1, s2, 1) == 6) != (ran(s1, s2, 0) == 6), "adaptive: calls 9-14 all take one path",
          "engine %lld, CPU BLAS %lld", ran(s1, s2, 1), ran(s1, s2, 0));
    /* the path taken is the one whose median time was smaller, and calls 9-14 took it */
    const char *line = strstr(text, "\n# measured: dgemm of ~5.");
    double te = 0, tc = 0;
    char took[16] = "";
    int parsed = line && sscanf(strstr(line, "engine "),
                                "engine %lf ms, CPU BLAS %lf ms (medians of 3 and 3 timed calls in 1 "
                                "measurement) -> %15s", &te, &tc, took) == 3;
    int to_engine = !strcmp(took, "engine");
    CHECK(parsed && (te == tc || to_engine == (te < tc)) && ran(s1, s2, to_engine) == 6,
          "adaptive: the path with the smaller median time takes the class's later calls",
          "parsed %d: engine %g ms, CPU BLAS %g ms, took \"%s\"; calls 9-14: engine %lld, CPU %lld",
          parsed, te, tc, took, ran(s1, s2, 1), ran(s1, s2, 0));
    CHECK(line && strstr(text, "(medians of 3 and 3 timed calls in 1 measurement) -> ") &&
              (strstr(text, "classes near the threshold: 1 measured faster on the engine, 0 on the CPU BLAS") ||
               strstr(text, "classes near the threshold: 0 measured faster on the engine, 1 on the CPU BLAS")),
          "report: the measured class, its two times and the path taken", "report:\n%s", text);
    /* CUFORT_DROPIN_RECHECK=4: after 4 decided calls the class is measured again: four calls on
     * the path not taken (the first untimed), against the chosen path's own timed calls */
    setenv("CUFORT_DROPIN_RECHECK", "4", 1);
    set_routing_adapt("2e6", "64", NULL, "1");   /* a fresh table */
    const char *rp[23];
    for (int i = 1; i <= 22; i++)
        rp[i] = run_dgemm(64, 64, 64, ckf("recheck, call %d", i));
    /* calls 1-8 measure, 9-11 decided, 12-15 the other path (12 is the 4th after the decision),
     * 16-18 decided again, 19-22 the path not taken then.  Where the first measurement found the
     * medians FAR apart, a recheck ends at its first timed call when that call is still FAR slower
     * (two calls on the other path, not four): which happens depends on the machine's timings. */
    int same = 1;
    for (int i = 9; i <= 22 && same;) {
        const char *d = rp[i];
        for (int k = 0; k < 3 && i <= 22; k++, i++)
            same &= !strcmp(rp[i], d);
        int len = 0;
        for (; i <= 22 && len < 4 && strcmp(rp[i], d) != 0; len++, i++)
            ;
        same &= i > 22 || len == 4 || len == 2;
    }
    CHECK(same, "CUFORT_DROPIN_RECHECK: after 4 decided calls the other path is measured again, alone",
          "calls 9-22 ran on %s %s %s | %s %s %s %s | %s %s %s | %s %s %s %s", rp[9], rp[10], rp[11], rp[12],
          rp[13], rp[14], rp[15], rp[16], rp[17], rp[18], rp[19], rp[20], rp[21], rp[22]);
    cufort_dropin_write_report(ckf("%s/recheck.txt", tmpdir));
    read_report(text, sizeof text, name, sizeof name);
    CHECK(strstr(text, "timed calls in 3 measurements) -> "),
          "report: a class measured three times (at calls 8, 15 and 22)", "report:\n%s", text);
    unsetenv("CUFORT_DROPIN_RECHECK");
    set_routing_adapt("2e6", "64", NULL, "1");
    /* another size class (20% more work: the next 2^(1/4) step) is measured afresh */
    const char *other = run_dgemm(68, 68, 68, "adaptive, another class");
    CHECK(!strcmp(other, "engine"), "adaptive: another size class is measured from its first call",
          "ran on the %s", other);
    /* outside the band the threshold decides: under it the CPU BLAS, a dimension of 31 too */
    WHERE(40, 40, 40, "cpu", "adaptive, 1.3e5 flops (under the band)");
    WHERE(31, 400, 400, "cpu", "adaptive, m = 31 < half the minimum dimension");
    /* CUFORT_DROPIN_ADAPT=0: the threshold alone (5.2e5 < 2e6 flops: the CPU BLAS, every time) */
    set_routing_adapt("2e6", "64", NULL, "0");
    s0 = stats("dgemm");
    for (int i = 0; i < 3; i++)
        run_dgemm(64, 64, 64, "adapt off");
    s1 = stats("dgemm");
    CHECK(ran(s0, s1, 0) == 3 && ran(s0, s1, 1) == 0, "CUFORT_DROPIN_ADAPT=0: the threshold alone",
          "engine %lld, CPU BLAS %lld", ran(s0, s1, 1), ran(s0, s1, 0));
    unsetenv("CUFORT_DROPIN_GAP_US");
}

/* flops of the other Level-3 formulas, and bytes, with the engine forced */
static void test_formulas(void)
{
    set_routing(NULL, NULL, "1");
    enum { M = 6, N = 5, K = 4 };
    double A[64], B[64], C[64];
    zc Z[64], W[64];
    for (int i = 0; i < 64; i++) {
        A[i] = ck_randd() + (i % 9 == 0 ? 4 : 0);   /* diagonally heavy enough for trsm */
        B[i] = ck_randd();
        C[i] = ck_randd();
        Z[i] = ck_randd() + I * ck_randd();
        W[i] = ck_randd() + I * ck_randd();
    }
    const double one = 1;
    const zc zone = 1;
    cufort_dropin_stats s0, s1;

#define MEASURE(routine, call, fl, by)                                                            \
    do {                                                                                          \
        s0 = stats(routine);                                                                      \
        call;                                                                                     \
        s1 = stats(routine);                                                                      \
        CHECK(s1.gpu - s0.gpu == 1 && fabs(s1.flops - s0.flops - (fl)) < 0.5 &&                  \
              s1.bytes - s0.bytes == (by), ckf("formula %s: %s", routine, #fl),                   \
              "engine calls +%lld, flops +%g (want %g), bytes +%g (want %g)",                     \
              (long long)(s1.gpu - s0.gpu), s1.flops - s0.flops, (double)(fl),                    \
              s1.bytes - s0.bytes, (double)(by));                                                 \
    } while (0)

    MEASURE("zgemm", zgemm_("N", "C", FI(M), FI(N), FI(K), &zone, Z, FI(M), W, FI(N), &zone, Z + 32,
                            FI(M), 1, 1),
            4.0 * 2 * M * N * K, 16.0 * (M * K + K * N + 2 * M * N));
    MEASURE("dtrsm", dtrsm_("L", "U", "N", "N", FI(M), FI(N), &one, A, FI(M), B, FI(M), 1, 1, 1, 1),
            1.0 * M * M * N, 8.0 * (M * M + 2 * M * N));
    MEASURE("dtrsm", dtrsm_("R", "L", "T", "U", FI(M), FI(N), &one, A, FI(N), B, FI(M), 1, 1, 1, 1),
            1.0 * M * N * N, 8.0 * (N * N + 2 * M * N));
    MEASURE("dsymm", dsymm_("R", "U", FI(M), FI(N), &one, A, FI(N), B, FI(M), &one, C, FI(M), 1, 1),
            2.0 * M * N * N, 8.0 * (N * N + M * N + 2 * M * N));
    MEASURE("zherk", zherk_("L", "C", FI(N), FI(K), &one, Z, FI(K), &one, W, FI(N), 1, 1),
            4.0 * N * N * K, 16.0 * (K * N + 2 * N * N));
#undef MEASURE
}

/* 8 threads at once: every call counted, none lost */
static int axpy_body(int id, char *err, size_t errlen)
{
    double x[16], y[16];
    const double a = 0.5;
    for (int i = 0; i < 16; i++)
        x[i] = id + i, y[i] = 0;
    for (int r = 0; r < 500; r++)
        daxpy_(FI(16), &a, x, FI(1), y, FI(1));
    for (int i = 0; i < 16; i++)
        if (y[i] != 250.0 * (id + i)) {
            snprintf(err, errlen, "y[%d] = %g, want %g", i, y[i], 250.0 * (id + i));
            return 1;
        }
    return 0;
}

static int gemm_body(int id, char *err, size_t errlen)
{
    enum { n = 24 };
    double A[n * n], B[n * n], C[n * n], R[n * n];
    for (int i = 0; i < n * n; i++)
        A[i] = (i * 7 + id) % 11 - 5, B[i] = (i * 3 + id) % 7 - 3, C[i] = R[i] = i % 5;
    const double one = 1, half = 0.5;
    for (int r = 0; r < 20; r++) {
        dgemm_("N", "T", FI(n), FI(n), FI(n), &one, A, FI(n), B, FI(n), &half, C, FI(n), 1, 1);
        ref_dgemm_("N", "T", RI(n), RI(n), RI(n), &one, A, RI(n), B, RI(n), &half, R, RI(n), 1, 1);
    }
    double d = maxdiff(C, R, n * n);
    if (d != 0)
        snprintf(err, errlen, "max difference %g from netlib (exact data)", d);
    return d != 0;
}

static void test_threads(void)
{
    set_routing(NULL, NULL, NULL);
    cufort_dropin_stats a0 = stats("daxpy");
    ck_threads(8, axpy_body, "daxpy x500");
    cufort_dropin_stats a1 = stats("daxpy");
    CHECK(a1.calls - a0.calls == 4000 && a1.cpu - a0.cpu == 4000, "8 threads: 4000 daxpy calls counted",
          "counted %lld (%lld on the CPU BLAS)", (long long)(a1.calls - a0.calls),
          (long long)(a1.cpu - a0.cpu));
    CHECK(fabs(a1.flops - a0.flops - 4000 * 32.0) < 0.5, "8 threads: daxpy flops 2n each",
          "+%g, want %g", a1.flops - a0.flops, 4000 * 32.0);
    set_routing(NULL, NULL, "1");
    cufort_dropin_stats g0 = stats("dgemm");
    ck_threads(8, gemm_body, "dgemm x20 on the engine");
    cufort_dropin_stats g1 = stats("dgemm");
    CHECK(g1.gpu - g0.gpu == 160, "8 threads: 160 dgemm engine calls counted", "%lld",
          (long long)(g1.gpu - g0.gpu));
}

/* ---- child processes ---- */
/* Runs this binary with --child MODE and the given "VAR=value" settings ("VAR=" sets it empty,
 * "-VAR" unsets it); captures stdout and stderr together.  Returns the exit status, -1 on a signal. */
static int child(const char *mode, char *out, size_t outlen, const char *const *env)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -2;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[1]);
        for (; env && *env; env++) {
            const char *eq = strchr(*env, '=');
            if (**env == '-') {
                unsetenv(*env + 1);
            } else if (eq) {
                char name[128];
                snprintf(name, sizeof name, "%.*s", (int)(eq - *env), *env);
                setenv(name, eq + 1, 1);
            }
        }
        execl(ck_self, ck_self, "--child", mode, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t r;
    while (len + 1 < outlen && (r = read(fd[0], out + len, outlen - 1 - len)) > 0)
        len += (size_t)r;
    char sink[256];
    while (read(fd[0], sink, sizeof sink) > 0) {}
    out[len] = 0;
    close(fd[0]);
    int ws;
    waitpid(pid, &ws, 0);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

static int run_child(const char *mode)
{
    ck_child_main("test_dropin");
    double A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}, C[4] = {0};
    const double one = 1, zero = 0;
    if (!strcmp(mode, "bad-lda")) {               /* lda = 1 < m = 2: parameter 8 */
        dgemm_("N", "N", FI(2), FI(2), FI(2), &one, A, FI(1), B, FI(2), &zero, C, FI(2), 1, 1);
        printf("xerbla returned\n");
        return 3;
    }
    if (!strcmp(mode, "xerbla-array")) {
        const char name[] = "DGEMM_BATCH";
        xerbla_array_(name, FI(11), FI(3), 1);
        printf("xerbla returned\n");
        return 3;
    }
    if (!strcmp(mode, "calls")) {                 /* 3 dgemm, 5 ddot, 2 sdsdot, then exit */
        for (int i = 0; i < 3; i++)
            dgemm_("N", "N", FI(2), FI(2), FI(2), &one, A, FI(2), B, FI(2), &zero, C, FI(2), 1, 1);
        for (int i = 0; i < 5; i++)
            (void)ddot_(FI(4), A, FI(1), B, FI(1));
        float x[3] = {1, 2, 3};
        for (int i = 0; i < 2; i++)
            (void)sdsdot_(FI(3), &(float){0}, x, FI(1), x, FI(1));
        printf("C = %g %g %g %g\n", C[0], C[1], C[2], C[3]);
        return C[0] == 1 && C[1] == 2 && C[2] == 3 && C[3] == 4 ? 0 : 4;
    }
    return 2;
}

static const char XMSG[] = " ** On entry to DGEMM parameter number  8 had an illegal value\n";

static void test_xerbla_default(void)
{
    char out[4096];
    const char *cpu[] = {"-CUFORT_DROPIN_FORCE_GPU", "-CUFORT_GPU_THRESHOLD", NULL};
    const char *eng[] = {"CUFORT_DROPIN_FORCE_GPU=1", NULL};
    const struct { const char *what; const char *const *env; } paths[] = {
        {"CPU path", cpu}, {"engine path (cufort_last_info)", eng}};
    for (int p = 0; p < 2; p++) {
        int rc = child("bad-lda", out, sizeof out, paths[p].env);
        CHECK(rc == 1 && !strcmp(out, XMSG), ckf("default xerbla, %s: reference message, stop", paths[p].what),
              "exit status %d, output \"%s\", want status 1 and \"%.*s\"", rc, out, (int)strlen(XMSG) - 1,
              XMSG);
    }
    int rc = child("xerbla-array", out, sizeof out, NULL);
    CHECK(rc == 1 && !strcmp(out, " ** On entry to DGEMM_BATCH parameter number  3 had an illegal value\n"),
          "xerbla_array: the name from the array, then the default xerbla",
          "exit status %d, output \"%s\"", rc, out);
}

/* the one report file the child left in tmpdir; its text in buf */
static int read_report(char *buf, size_t n, char *name, size_t namelen)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    int found = 0;
    buf[0] = 0;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        found++;
        snprintf(name, namelen, "%s", e->d_name);
        FILE *f = fopen(ckf("%s/%s", tmpdir, e->d_name), "r");
        size_t len = f ? fread(buf, 1, n - 1, f) : 0;
        buf[len] = 0;
        if (f)
            fclose(f);
        unlink(ckf("%s/%s", tmpdir, e->d_name));
    }
    if (d)
        closedir(d);
    return found;
}

/* a report row: calls gpu cpu fallback time gflops bytes of routine, 0 when absent */
static int row(const char *text, const char *routine, double v[7])
{
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        char name[32];
        if (*l != '#' && sscanf(l, "%31s %lf %lf %lf %lf %lf %lf %lf", name, &v[0], &v[1], &v[2], &v[3],
                                &v[4], &v[5], &v[6]) == 8 && !strcmp(name, routine))
            return 1;
    }
    return 0;
}

static void test_report_file(void)
{
    char out[4096], text[8192], name[256];
    const char *pattern = ckf("CUFORT_REPORT_FILE=%s/report.%%p.txt", tmpdir);
    const char *env[] = {"CUFORT_REPORT=1", pattern, "CUFORT_DROPIN_FORCE_GPU=1", NULL};
    int rc = child("calls", out, sizeof out, env);
    CHECK(rc == 0, "report child: dgemm through the engine correct", "exit %d: %s", rc, out);
    int files = read_report(text, sizeof text, name, sizeof name);
    long pid = 0;
    CHECK(files == 1 && sscanf(name, "report.%ld.txt", &pid) == 1 && pid > 0,
          "report: one file, %p replaced by the pid", "%d files, last \"%s\"", files, name);
    CHECK(strstr(text, ckf("# cufort drop-in BLAS report (libcufort_blas %d.%d.%d), pid %ld;",
                           CUFORT_VERSION_MAJOR, CUFORT_VERSION_MINOR, CUFORT_VERSION_PATCH, pid)) != NULL &&
              strstr(text, "\n# routing: every Level-3 call to the engine (forced)") != NULL &&
              strstr(text, "\n# routine ") != NULL,
          "report: header, routing line, column names", "report:\n%s", text);
    double v[7];
    CHECK(row(text, "dgemm", v) && v[0] == 3 && v[1] == 3 && v[2] == 0 && v[3] == 0 && v[5] > 0 &&
              v[6] == 3 * 8.0 * (4 + 4 + 8),
          "report: dgemm 3 calls, 3 on the engine, GFLOP/s > 0, bytes 3 x (A + B + 2 C)", "report:\n%s",
          text);
    CHECK(row(text, "ddot", v) && v[0] == 5 && v[1] == 0 && v[2] == 5 && v[6] == 0,
          "report: ddot 5 calls on the CPU BLAS, no bytes", "report:\n%s", text);
    CHECK(row(text, "sdsdot", v) && v[0] == 2 && v[2] == 2, "report: sdsdot (outside the table) 2 calls",
          "report:\n%s", text);
    CHECK(!row(text, "sgemm", v) && !row(text, "daxpy", v), "report: routines never called are left out",
          "report:\n%s", text);

    const char *quiet[] = {"-CUFORT_REPORT", pattern, NULL};
    rc = child("calls", out, sizeof out, quiet);
    CHECK(rc == 0 && read_report(text, sizeof text, name, sizeof name) == 0 && !strstr(out, "# cufort"),
          "no CUFORT_REPORT: no report", "exit %d, output \"%s\", file \"%s\"", rc, out, name);

    const char *nogpu[] = {"CUFORT_REPORT=1", pattern, "CUFORT_DROPIN_FORCE_GPU=1", "CUFORT_BACKEND=cuda",
                           "CUDA_VISIBLE_DEVICES=", NULL};
    rc = child("calls", out, sizeof out, nogpu);
    read_report(text, sizeof text, name, sizeof name);
    CHECK(rc == 0 && row(text, "dgemm", v) && v[0] == 3 && v[1] == 0 && v[2] == 3 && v[3] == 3 &&
              strstr(text, "\n# first fallback to the CPU BLAS: dgemm: cufort_init: ") != NULL,
          "no GPU with the cuda backend asked for: correct results, 3 fallbacks and why",
          "exit %d (%s); report:\n%s", rc, out, text);

    /* an MPI rank: "%r" in the name is its rank in the job, and the report says where it ran */
    const char *ranked = ckf("CUFORT_REPORT_FILE=%s/report.%%r.txt", tmpdir);
    const char *mpi[] = {"CUFORT_REPORT=1", ranked, "OMPI_COMM_WORLD_RANK=13", "OMPI_COMM_WORLD_LOCAL_RANK=1",
                         "OMPI_COMM_WORLD_LOCAL_SIZE=4", NULL};
    rc = child("calls", out, sizeof out, mpi);
    files = read_report(text, sizeof text, name, sizeof name);
    CHECK(rc == 0 && files == 1 && !strcmp(name, "report.13.txt") &&
              strstr(text, "\n# rank 13 (local 1 of 4), ") != NULL,
          "report: %r replaced by the MPI rank; rank, local rank and device in the header",
          "exit %d, %d files, last \"%s\"; report:\n%s", rc, files, name, text);
}

static void test_cpu_blas_choice(void)
{
    char out[4096], text[8192], name[256];
    Dl_info self;
    dladdr((void *)&dgemm_, &self);
    const char *me = ckf("CUFORT_CPU_BLAS=%s", self.dli_fname);
    const char *env1[] = {me, "-CUFORT_DROPIN_FORCE_GPU", NULL};
    int rc = child("calls", out, sizeof out, env1);
    CHECK(rc == 1 && strstr(out, "is the drop-in library itself"), "CUFORT_CPU_BLAS = the drop-in: refused",
          "exit %d, output \"%s\"", rc, out);
    const char *env2[] = {"CUFORT_CPU_BLAS=/nonexistent/libblas.so", "-CUFORT_DROPIN_FORCE_GPU", NULL};
    rc = child("calls", out, sizeof out, env2);
    CHECK(rc == 1 && strstr(out, "none could be opened") && strstr(out, "CUFORT_CPU_BLAS"),
          "CUFORT_CPU_BLAS missing: a message naming CUFORT_CPU_BLAS, exit 1", "exit %d, output \"%s\"",
          rc, out);
    const char *netlib = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3";
    if (access(netlib, R_OK) == 0) {
        const char *pattern = ckf("CUFORT_REPORT_FILE=%s/r.txt", tmpdir);
        const char *env3[] = {ckf("CUFORT_CPU_BLAS=%s", netlib), "CUFORT_REPORT=1", pattern,
                              "-CUFORT_DROPIN_FORCE_GPU", NULL};
        rc = child("calls", out, sizeof out, env3);
        read_report(text, sizeof text, name, sizeof name);
        CHECK(rc == 0 && strstr(text, ckf("CPU BLAS: %s", netlib)), "CUFORT_CPU_BLAS names the CPU BLAS",
              "exit %d (%s); report:\n%s", rc, out, text);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child"))
        return run_child(argv[2]);
    ck_begin("test_dropin", 600);
    CHECK_OK(cufort_init(), "cufort_init");
    printf("# backend %s\n", cufort_backend_name());
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cufort_dropin_XXXXXX");
    if (!mkdtemp(tmpdir))
        snprintf(tmpdir, sizeof tmpdir, "/tmp");
    /* the drop-in quiets OpenBLAS's spinning threads at load time unless the user chose */
    const char *timeout = getenv("OPENBLAS_THREAD_TIMEOUT");
    CHECK(timeout != NULL, "OPENBLAS_THREAD_TIMEOUT set by the drop-in at load time",
          "it is unset");
    test_extras();
    test_routing();
    test_gemm_alpha_zero();
    test_adaptive();
    test_formulas();
    test_threads();
    test_xerbla_default();
    test_report_file();
    test_cpu_blas_choice();
    rmdir(tmpdir);
    return ck_end();
}
