/* test_fftw.c — the FFTW drop-in (libcufort_fftw) against the real FFTW, in one process: the program
 * links the drop-in, the real FFTW is opened apart (RTLD_LOCAL|RTLD_DEEPBIND) as the oracle, and
 * every case runs through both (tests/fftw/cases.inc, double and single precision).  Results agree
 * to 1e-12 (double) / 1e-5 (single) relative, gaps of a layout untouched alike.
 *
 * Two binaries: test_fftw (default routing: on the host backend everything runs on FFTW) and
 * test_fftw_engine (tests/fftw/force_engine.c: CUFORT_FFTW_FORCE_GPU=1, so every transform cuFFT's
 * layouts express runs through the thunk engine, here the host backend's FFTW behind a copy, and
 * each case checks where it ran).  Also: FFTW_MEASURE keeps the arrays, FFTW's NULL answers, new-array
 * execution, one plan on several threads, split arrays and r2r forwarded, plan queries, wisdom,
 * threads, the plan cache reused by a plan of a shape seen before, the report at exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fftw3.h>

#include "check.h"
#include "cufort_fftw.h"
#include "fft_internal.h"   /* the core plan cache's counters */

extern const int test_fftw_engine __attribute__((weak));   /* force_engine.c */
static int engine_mode(void) { return &test_fftw_engine != NULL && test_fftw_engine; }

/* Before main, so before the first plan reads the environment: counters on, routing fixed. */
__attribute__((constructor)) static void fix_routing(void)
{
    if (getenv("TEST_FFTW_CHILD"))
        return;   /* a scenario of its own: its environment as the parent gave it */
    const char *report = getenv("CUFORT_REPORT");
    if (!report || !*report || !strcmp(report, "0"))
        setenv("CUFORT_REPORT_FILE", "/dev/null", 1);
    setenv("CUFORT_REPORT", "1", 1);
    unsetenv("CUFORT_FFTW_THRESHOLD");
    unsetenv("CUFORT_FFTW_ADAPT");
    if (engine_mode())
        setenv("CUFORT_FFTW_FORCE_GPU", "1", 1);
    else
        unsetenv("CUFORT_FFTW_FORCE_GPU");
}

#define X(name) fftw_##name
#define R double
#define TOL 1e-12
#define PREC "fftw_"
#include "cases.inc"
#undef X
#undef R
#undef TOL
#undef PREC
#define X(name) fftwf_##name
#define R float
#define TOL 1e-5
#define PREC "fftwf_"
#include "cases.inc"

/* a shape planned before costs no cuFFT planning: the engine's plan comes back from the cache */
static void plan_cache_reuse(void)
{
    fftwf_complex *a = fftwf_alloc_complex(1 << 16);
    cufort_fft_cache_stats s0, s1;
    fftwf_plan p = fftwf_plan_dft_1d(1 << 16, a, a, FFTW_FORWARD, FFTW_ESTIMATE);
    fftwf_destroy_plan(p);
    cufort_fft_cache_get_stats(&s0);
    p = fftwf_plan_dft_1d(1 << 16, a, a, FFTW_FORWARD, FFTW_ESTIMATE);
    cufort_fft_cache_get_stats(&s1);
    CHECK(s1.hits == s0.hits + 1 && s1.misses == s0.misses,
          "the engine's plan of a shape planned before comes from the plan cache",
          "hits %lld -> %lld, misses %lld -> %lld", (long long)s0.hits, (long long)s1.hits,
          (long long)s0.misses, (long long)s1.misses);
    fftwf_destroy_plan(p);
    fftwf_free(a);
}

/* the report at exit: one line per kind and precision that ran */
static int report_child(void)
{
    double *x = fftw_alloc_real(64);
    fftw_complex *y = fftw_alloc_complex(33);
    fftw_plan p = fftw_plan_dft_r2c_1d(64, x, y, FFTW_ESTIMATE);
    for (int i = 0; i < 64; i++)
        x[i] = i;
    fftw_execute(p);
    fftw_execute(p);
    fftw_destroy_plan(p);
    return 0;
}

/* near the threshold the faster path is measured: both paths run (CUFORT_FFTW_ADAPT=1 makes the
 * host backend take part), the report lists the measured class, the results stay right; a smaller
 * transform planned for one thread is never measured, only run on the real FFTW */
static int adapt_child(void)
{
    for (int small = 0; small < 2; small++) {
        int n = small ? 4096 : 8192;
        fftw_complex *in = fftw_alloc_complex(n), *out = fftw_alloc_complex(n), *ref = fftw_alloc_complex(n);
        for (int i = 0; i < n; i++)
            in[i][0] = sin(0.1 * i), in[i][1] = cos(0.3 * i);
        fftw_plan p = fftw_plan_dft_1d(n, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
        fftw_execute_dft(p, in, ref);
        cufort_fftw_stats s0, s1;
        cufort_fftw_stats_of("c2c_double", &s0);
        double worst = 0;
        for (int k = 0; k < 40; k++) {
            fftw_execute(p);
            for (int i = 0; i < n; i++)
                worst = fmax(worst, fabs(out[i][0] - ref[i][0]) + fabs(out[i][1] - ref[i][1]));
        }
        cufort_fftw_stats_of("c2c_double", &s1);
        long long gpu = s1.gpu - s0.gpu, cpu = s1.cpu - s0.cpu;
        if (small)
            CHECK(gpu == 0 && cpu == 40 && worst < 1e-9,
                  "a 4096-point transform planned for one thread: the real FFTW only",
                  "engine %lld, FFTW %lld, largest difference %.3g", gpu, cpu, worst);
        else
            CHECK(gpu > 0 && cpu > 0 && worst < 1e-9,
                  "near the threshold both paths are measured, the results the same",
                  "engine %lld, FFTW %lld, largest difference %.3g", gpu, cpu, worst);
        fftw_destroy_plan(p);
        fftw_free(in), fftw_free(out), fftw_free(ref);
    }
    return 0;
}

/* fftw_cleanup with no plan alive, on the engine over the host backend, whose plans hold the real
 * FFTW's: a plan of the same shape after it, and the exit, must not touch what the cleanup freed
 * (they did: the engine's idle plan went back to the plan cache and was reused, then destroyed at
 * exit, after FFTW had freed its state). */
static int cleanup_child(void)
{
    enum { N = 1000 };
    double *x = fftw_alloc_real(N);
    fftw_complex *y = fftw_alloc_complex(N / 2 + 1);
    double worst = 0;
    int64_t idle_after_cleanup = 0;
    cufort_fftw_stats s0, s1;
    cufort_fftw_stats_of("r2c_double", &s0);
    for (int round = 0; round < 2; round++) {
        fftw_plan p = fftw_plan_dft_r2c_1d(N, x, y, round ? FFTW_ESTIMATE : FFTW_MEASURE);
        for (int i = 0; i < N; i++)
            x[i] = sin(0.37 * i + round) + 0.1 * i / N;
        fftw_execute(p);
        fftw_destroy_plan(p);
        for (int k = 0; k <= N / 2; k += 37) {
            double re = 0, im = 0;
            for (int i = 0; i < N; i++)
                re += x[i] * cos(2 * M_PI * k * i / N), im -= x[i] * sin(2 * M_PI * k * i / N);
            worst = fmax(worst, fabs(y[k][0] - re) + fabs(y[k][1] - im));
        }
        fftw_cleanup();
        cufort_fft_cache_stats cs;
        cufort_fft_cache_get_stats(&cs);
        idle_after_cleanup += cs.idle;
    }
    fftw_plan q = fftw_plan_dft_r2c_1d(64, x, y, FFTW_ESTIMATE);   /* a shape of its own */
    fftw_execute(q);
    fftw_destroy_plan(q);
    cufort_fftw_stats_of("r2c_double", &s1);
    CHECK(s1.gpu - s0.gpu == 3 && worst < 1e-9,
          "fftw_cleanup between two plans of one shape on the engine (host backend): both right",
          "engine %lld runs, largest difference from a direct DFT %.3g", (long long)(s1.gpu - s0.gpu),
          worst);
    CHECK(idle_after_cleanup == 0, "fftw_cleanup first destroys the engine's idle plans",
          "%lld left in the plan cache", (long long)idle_after_cleanup);
    fftw_free(x);
    fftw_free(y);
    return 0;
}

static void report_at_exit(void)
{
    char dir[] = "/tmp/test_fftw.XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "report at exit", "mkdtemp failed");
        return;
    }
    ck_child("report", "the report at exit", "TEST_FFTW_CHILD=1", "CUFORT_REPORT=1",
             ckf("CUFORT_REPORT_FILE=%s/r.txt", dir), "CUFORT_FFTW_FORCE_GPU=", NULL);
    char text[4096] = "";
    FILE *f = fopen(ckf("%s/r.txt", dir), "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f)
        fclose(f);
    CHECK(strstr(text, "# cufort drop-in FFTW report (libcufort_fftw 1.") && strstr(text, "\nr2c_double ") &&
              strstr(text, "real FFTW: libfftw3.so.3"),
          "CUFORT_REPORT: the header, the FFTW found, a line for r2c_double", "report:\n%s", text);
    unlink(ckf("%s/r.txt", dir));
    rmdir(dir);
}

/* A cuFFT plan that cannot be had when the FFTW plan is made (here in a fork's child, where cufort
 * refuses to start) sends the plan's executions to the real FFTW: the first of each plan counted
 * as a fallback, the reason in the report, the rest plain FFTW calls, the results right.  The child
 * answers in its exit status, one bit per check. */
static int engine_plan_fails_child(const char *report)
{
    enum { N = 1 << 12 };
    fftw_complex *a = fftw_alloc_complex(N), *orig = fftw_alloc_complex(N);
    if (!a || !orig)
        return 64;
    for (int i = 0; i < N; i++) {
        orig[i][0] = a[i][0] = 0.25 + (i * 37 % 101) / 101.0;
        orig[i][1] = a[i][1] = -0.5 + (i * 53 % 89) / 89.0;
    }
    cufort_fftw_stats s0, s1;
    cufort_fftw_stats_of("c2c_double", &s0);
    fftw_plan p = fftw_plan_dft_1d(N, a, a, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_plan q = fftw_plan_dft_1d(N, a, a, FFTW_BACKWARD, FFTW_ESTIMATE);
    if (!p || !q)
        return 64;
    for (int round = 0; round < 2; round++)
        fftw_execute(p), fftw_execute(q);   /* each round trip scales by N */
    cufort_fftw_stats_of("c2c_double", &s1);
    double worst = 0;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 2; k++)
            worst = fmax(worst, fabs(a[i][k] / ((double)N * N) - orig[i][k]));
    int bits = 0;
    bits |= (worst > 1e-12) << 0;
    bits |= (s1.calls - s0.calls != 4 || s1.cpu - s0.cpu != 4 || s1.gpu != s0.gpu) << 1;
    bits |= (s1.fallback - s0.fallback != 2) << 2;
    char text[4096] = "";
    if (cufort_fftw_write_report(report) == 0) {
        FILE *f = fopen(report, "r");
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        text[n] = 0;
        if (f)
            fclose(f);
    }
    bits |= !strstr(text, "planning: ") << 3;
    fftw_destroy_plan(p), fftw_destroy_plan(q);
    fftw_free(a), fftw_free(orig);
    return bits;
}

static void engine_plan_fails(void)
{
    char report[] = "/tmp/test_fftw_report.XXXXXX";
    int fd = mkstemp(report);
    if (fd < 0) {
        CHECK(0, "engine plan fails", "mkstemp failed");
        return;
    }
    close(fd);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60);
        _exit(engine_plan_fails_child(report));
    }
    int ws = 0;
    waitpid(pid, &ws, 0);
    int bits = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    const char *what = "a cuFFT plan refused when the FFTW plan is made (a fork's child): ";
    CHECK(bits >= 0 && bits < 64, ckf("%sthe child ran", what), "wait status %#x, exit %d", ws, bits);
    if (bits >= 0 && bits < 64) {
        CHECK(!(bits & 1), ckf("%sresults from the real FFTW", what), "round trips off by more than 1e-12");
        CHECK(!(bits & 2), ckf("%sall four executions counted on FFTW", what), "counts wrong");
        CHECK(!(bits & 4), ckf("%sone fallback per plan, not per execution", what), "fallbacks wrong");
        CHECK(!(bits & 8), ckf("%sthe report names the planning failure", what), "no 'planning:' reason");
    }
    unlink(report);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child")) {
        ck_child_main("fftw");
        return !strcmp(argv[2], "adapt") ? adapt_child() : !strcmp(argv[2], "cleanup") ? cleanup_child()
                                                                                       : report_child();
    }
    ck_begin(engine_mode() ? "fftw_engine" : "fftw", 600);
#ifdef __SANITIZE_ADDRESS__
    /* The oracle is the real FFTW opened beside the drop-in; AddressSanitizer refuses the
     * RTLD_DEEPBIND that keeps FFTW's calls of its own API inside it, so here they would land in
     * the drop-in.  tests/examples/fftw.sh still runs the drop-in's programs in this build. */
    printf("# skipped under AddressSanitizer: the real-FFTW oracle needs RTLD_DEEPBIND\n");
    return ck_end();
#endif
#ifdef __SANITIZE_ADDRESS__   /* AddressSanitizer refuses RTLD_DEEPBIND */
    const int how = RTLD_NOW | RTLD_LOCAL;
#else
    const int how = RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND;
#endif
    void *d = dlopen("libfftw3.so.3", how);
    void *f = dlopen("libfftw3f.so.3", how);
    fftw_load_real(d);
    fftwf_load_real(f);
    int e = engine_mode();
    fftw_compare_all("", e, FFTW_ESTIMATE, 0);
    fftwf_compare_all("", e, FFTW_ESTIMATE, 0);
    fftw_compare_all(" MEASURE", e, FFTW_MEASURE, 0);
    fftwf_compare_all("", e, FFTW_ESTIMATE, 1);
    fftw_compare_all("", e, FFTW_ESTIMATE, 1);
    fftw_measure_keeps_arrays();
    fftwf_measure_keeps_arrays();
    fftw_fftw_refusals();
    fftwf_fftw_refusals();
    fftw_threads_share_a_plan();
    fftwf_threads_share_a_plan();
    fftw_split_arrays();
    fftwf_split_arrays();
    fftw_plan_queries();
    fftwf_plan_queries();
    if (e) {
        plan_cache_reuse();
        engine_plan_fails();
    } else {
        report_at_exit();
        /* c2c of 4096 points: 5 N log2 N = 245760 flops, the threshold set there */
        ck_child("adapt", "measured routing", "TEST_FFTW_CHILD=1", "CUFORT_REPORT=1",
                 "CUFORT_REPORT_FILE=/dev/null", "CUFORT_FFTW_ADAPT=1", "CUFORT_FFTW_THRESHOLD=245760",
                 "CUFORT_FFTW_GAP_US=1e9", NULL);
    }
    ck_child("cleanup", "fftw_cleanup between plans, the engine on the host backend (exits cleanly)",
             "TEST_FFTW_CHILD=1", "CUFORT_FFTW_FORCE_GPU=1", "CUFORT_BACKEND=host", "CUFORT_REPORT=1",
             "CUFORT_REPORT_FILE=/dev/null",
             NULL);
    return ck_end();
}
