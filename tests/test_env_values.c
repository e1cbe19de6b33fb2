/* test_env_values.c — every environment variable cufort reads, set to values nobody meant: empty,
 * a word, signs, zero, numbers past any integer or double, NaN, junk around a number, empty list
 * items, a page of digits.
 * Each setting runs a small workload in a child process (host-array GEMM, on one tile and on
 * several, TRSM, a reduction, a transpose, a round-trip FFT, and the drop-in's DGEMM): the child
 * must not crash or hang, and every call must succeed with the right result or fail with a status
 * and a message.  (CUFORT_REPORT_FILE and CUFORT_STAGE_TRACE name files to write: left out.)
 * A numeric setting given a value it does not take says so on stderr once, however often it is
 * read, and a value it takes says nothing: the child checks its own stderr for that. */
#include "check.h"

#include <complex.h>
#include <dlfcn.h>

static const char *const VARS[] = {
    "CUFORT_BACKEND", "CUFORT_DEVICE", "CUFORT_DEVICES", "CUFORT_DEVICES_PER_RANK",
    "CUFORT_RANKS_PER_DEVICE", "CUFORT_MULTI_GPU_MIN_FLOPS", "CUFORT_MULTI_GPU_MIN_INTENSITY",
    "CUFORT_MULTI_GPU_MIN_BYTES", "CUFORT_HOST_DEVICES", "CUFORT_HOST_DEVICES_BROKEN",
    "CUFORT_HOST_DEVICES_NO_PEER", "CUFORT_HOST_GUARD_PAGES", "CUFORT_CPU_BLAS", "CUFORT_CPU_FFTW",
    "CUFORT_CPU_FFTWF", "CUFORT_STAGING_THREADS", "CUFORT_STAGING_THREADS_ALONE",
    "CUFORT_PIN_CACHE_MB", "CUFORT_DEVICE_MEMORY_CAP", "CUFORT_L3_PANEL", "CUFORT_L3_BLOCK",
    "CUFORT_L3_WHOLE_BYTES", "CUFORT_GEMM_TILE", "CUFORT_GEMM_HOST_BETA", "CUFORT_L3_HOST_BETA",
    "CUFORT_ALLOW_TF32", "CUFORT_GPU_THRESHOLD", "CUFORT_GPU_MIN_DIM", "CUFORT_DROPIN_FORCE_GPU",
    "CUFORT_PBLAS_NB", "CUFORT_LAPACK_NB", "CUFORT_DROPIN_ADAPT", "CUFORT_DROPIN_TRACE",
    "CUFORT_DROPIN_RECHECK", "CUFORT_DROPIN_GAP_US", "CUFORT_REPORT",
    "CUFORT_REDUCE_GRID", "CUFORT_TRANSPOSE_VARIANT", "OMP_NUM_THREADS"};

static const char *const VALUES[] = {"", "abc", "-1", "0", "-9223372036854775808",
                                     "99999999999999999999999", "1e400", "nan", " 7x", "3,,-2",
                                     NULL /* a page of 9s */};
enum { NVARS = sizeof VARS / sizeof *VARS, NVALUES = sizeof VALUES / sizeof *VALUES };

/* Numeric settings the workload reads on every backend, and for each value above whether it is
 * refused (1: one line on stderr).  '1': a whole number from 1, '0': from 0 (past the most a
 * setting takes reads as that most), 'b': a byte count (1e400 is past any). */
static const struct {
    const char *name;
    char kind;
} READ_ALWAYS[] = {{"CUFORT_GEMM_TILE", '1'},         {"CUFORT_STAGING_THREADS", '1'},
                   {"CUFORT_PIN_CACHE_MB", '0'},      {"CUFORT_DEVICE_MEMORY_CAP", 'b'},
                   {"CUFORT_L3_WHOLE_BYTES", 'b'}};
static const char REFUSED[3][NVALUES + 1] = {"01111011110", "01101011110", "01101001110"};
/* read by libcufort and again by the drop-in, each of which reports once */
static const char *const READ_TWICE[] = {"CUFORT_RANKS_PER_DEVICE", "CUFORT_DEVICES_PER_RANK"};

static int bad;
static void fail(const char *what, int st)
{
    printf("FAIL test_env_values %s: status %d (%s), message \"%s\"\n", what, st, ck_status_name(st), ck_err());
    bad++;
}

/* a call's status: success, or a failure that says why; 1 when it succeeded */
static int judged(const char *what, int st)
{
    if (st == CUFORT_SUCCESS)
        return 1;
    if (!ck_err()[0])
        fail(ckf("%s failed without a message", what), st);
    return 0;
}

typedef void dgemm_fn(const char *, const char *, const int *, const int *, const int *, const double *,
                      const double *, const int *, const double *, const int *, const double *, double *,
                      const int *, size_t, size_t);

static double gemm_error(int64_t n, int use_dropin)
{
    double *a = malloc((size_t)(n * n) * 8), *b = malloc((size_t)(n * n) * 8), *c = malloc((size_t)(n * n) * 8);
    for (int64_t i = 0; i < n * n; i++) a[i] = (double)(i % 7) - 3, b[i] = (double)(i % 5) - 2, c[i] = 1;
    int st;
    if (use_dropin) {
        void *lib = dlopen("libcufort_blas.so.1", RTLD_NOW | RTLD_LOCAL);
        dgemm_fn *dgemm = lib ? (dgemm_fn *)dlsym(lib, "dgemm_") : NULL;
        if (!dgemm) {
            printf("# no drop-in to call (%s)\n", dlerror());
            free(a), free(b), free(c);
            return 0;
        }
        int in = (int)n;
        double one = 1, two = 2;
        dgemm("N", "N", &in, &in, &in, &one, a, &in, b, &in, &two, c, &in, 1, 1);
        st = CUFORT_SUCCESS;
    } else {
        st = cufort_dgemm_host('N', 'N', n, n, n, 1.0, a, n, b, n, 2.0, c, n);
    }
    double worst = -1;
    if (judged(ckf("dgemm n=%lld", (long long)n), st)) {
        worst = 0;
        for (int64_t j = 0; j < n; j += 37)
            for (int64_t i = 0; i < n; i += 11) {
                double s = 2;
                for (int64_t k = 0; k < n; k++) s += a[i + k * n] * b[k + j * n];
                worst = fmax(worst, fabs(c[i + j * n] - s));
            }
    }
    free(a), free(b), free(c);
    return worst;
}

static void workload(void)
{
    if (!judged("init", cufort_init()))
        return;
    {
        double e = gemm_error(257, 0);
        if (e > 0) fail(ckf("dgemm n=257 wrong by %g", e), 0);
        e = gemm_error(700, 0);   /* tiles and threads that the variables tune */
        if (e > 0) fail(ckf("dgemm n=700 wrong by %g", e), 0);
        /* the drop-in has no status to return: with no CPU BLAS to open it ends the program with
         * a message, as the reference BLAS's xerbla does (tests/test_dropin.c) */
        const char *cpu = getenv("CUFORT_CPU_BLAS");
        void *opened = cpu && *cpu ? dlopen(cpu, RTLD_NOW | RTLD_LOCAL) : NULL;
        if (cpu && *cpu && !opened)
            printf("# the drop-in left out: no CPU BLAS at %s\n", cpu);
        else if ((e = gemm_error(300, 1)) > 0)
            fail(ckf("drop-in dgemm n=300 wrong by %g", e), 0);
        if (opened) dlclose(opened);

        int64_t n = 300;
        double *t = malloc((size_t)(n * n) * 8), *x = malloc((size_t)(n * 4) * 8), *x0 = malloc((size_t)(n * 4) * 8);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) t[i + j * n] = i == j ? 4 : i < j ? 1.0 / (1 + i + j) : 0;
        for (int64_t i = 0; i < n * 4; i++) x0[i] = x[i] = (double)(i % 9) - 4;
        if (judged("dtrsm", cufort_dtrsm_host('L', 'U', 'N', 'N', n, 4, 1.0, t, n, x, n))) {
            double worst = 0;   /* T x == x0 */
            for (int64_t c = 0; c < 4; c++)
                for (int64_t i = 0; i < n; i++) {
                    double s = 0;
                    for (int64_t k = i; k < n; k++) s += t[i + k * n] * x[k + c * n];
                    worst = fmax(worst, fabs(s - x0[i + c * n]));
                }
            if (worst > 1e-10) fail(ckf("dtrsm residual %g", worst), 0);
        }
        double sum = 0;
        if (judged("dreduce_sum_host", cufort_dreduce_sum_host(n * 4, x0, 1, &sum))) {
            double want = 0;
            for (int64_t i = 0; i < n * 4; i++) want += x0[i];
            if (sum != want) fail(ckf("dreduce_sum_host %g against %g", sum, want), 0);
        }
        if (judged("dtranspose_host", cufort_dtranspose_host('T', n, 4, 1.0, x0, n, x, 4)))
            for (int64_t i = 0; i < n * 4; i++)
                if (x[(i / n) + (i % n) * 4] != x0[i]) {
                    fail("dtranspose_host wrong", 0);
                    break;
                }
        free(t), free(x), free(x0);

        enum { NF = 1000 };
        double complex *f = malloc(NF * sizeof *f), *g = malloc(NF * sizeof *g);
        for (int i = 0; i < NF; i++) f[i] = (double)(i % 13) - 6 + I * (double)(i % 3);
        cufort_fft_plan p = NULL;
        if (judged("fft plan", cufort_fft_plan_1d(&p, CUFORT_FFT_Z2Z, NF, 1)) &&
            judged("fft forward", cufort_fft_exec_host(p, f, g, CUFORT_FFT_FORWARD)) &&
            judged("fft inverse", cufort_fft_exec_host(p, g, g, CUFORT_FFT_INVERSE))) {
            double worst = 0;
            for (int i = 0; i < NF; i++) worst = fmax(worst, cabs(g[i] / NF - f[i]));
            if (worst > 1e-9) fail(ckf("fft round trip off by %g", worst), 0);
        }
        if (p) cufort_fft_destroy(p);
        free(f), free(g);
    }
    cufort_shutdown();
}

/* the lines "cufort: ignoring NAME=..." in the captured stderr, for `name`; other names: a FAIL */
static int refusals(FILE *err, const char *name)
{
    char line[8192];
    int count = 0;
    rewind(err);
    while (fgets(line, sizeof line, err)) {
        fputs(line, stderr);
        if (strncmp(line, "cufort: ignoring ", 17)) continue;
        size_t len = strlen(name);
        if (!strncmp(line + 17, name, len) && line[17 + len] == '=')
            count++;
        else
            fail(ckf("a line about a variable not set: %.100s", line), 0);
    }
    return count;
}

/* spec: "k:NAME", the value VALUES[k] (or the nines) set in NAME */
static int child(const char *spec)
{
    ck_child_main("test_env_values");
    alarm(120);   /* a hang ends the child, and the parent reports it */
    int k = atoi(spec);
    const char *name = strchr(spec, ':') + 1, *value = getenv(name) ? getenv(name) : "";
    fflush(stderr);
    int saved = dup(2);
    FILE *err = tmpfile();
    if (err) dup2(fileno(err), 2);
    workload();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    if (err) {
        int lines = refusals(err, name), most = 1, want = -1;
        for (size_t i = 0; i < sizeof READ_TWICE / sizeof *READ_TWICE; i++)
            if (!strcmp(name, READ_TWICE[i])) most = 2;
        for (size_t i = 0; i < sizeof READ_ALWAYS / sizeof *READ_ALWAYS; i++)
            if (!strcmp(name, READ_ALWAYS[i].name))
                want = REFUSED[READ_ALWAYS[i].kind == '1' ? 0 : READ_ALWAYS[i].kind == '0' ? 1 : 2][k] - '0';
        if (lines > most)
            fail(ckf("%s reported %d times", name, lines), 0);
        if (want >= 0 && lines != want)
            fail(ckf("%s=\"%.24s\" reported %d times, not %d", name, value, lines, want), 0);
        fclose(err);
    }
    if (!bad) printf("ok test_env_values %s=\"%.24s%s\"\n", name, value, strlen(value) > 24 ? "..." : "");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child"))
        return child(argv[2]);
    ck_begin("test_env_values", 1200);
    static char nines[4097];
    memset(nines, '9', 4096);
    /* the report of the drop-in, when a variable turns it on, goes nowhere */
    setenv("CUFORT_REPORT_FILE", "/dev/null", 1);
    setenv("OPENBLAS_NUM_THREADS", "1", 0);   /* 440 children: thread start-up would dominate */
    /* A GPU context takes a child about 0.5 s to make: on the cuda backend every variable gets
     * four of the values (a word, -1, 10^23 and the page of nines; 78 s on an H100) */
    const char *backend = getenv("CUFORT_BACKEND");
    int on_host = backend && !strcmp(backend, "host");
    for (int v = 0; v < NVARS; v++)
        for (int k = 0; k < NVALUES; k++) {
            if (!on_host && k != 1 && k != 2 && k != 5 && VALUES[k])
                continue;
            const char *val = VALUES[k] ? VALUES[k] : nines;
            char spec[4200], what[256], mode[96];
            snprintf(spec, sizeof spec, "%s=%s", VARS[v], val);
            snprintf(what, sizeof what, "%s=\"%.24s%s\"", VARS[v], val, strlen(val) > 24 ? "..." : "");
            snprintf(mode, sizeof mode, "%d:%s", k, VARS[v]);
            /* an empty value is set, not unset: "VAR=" would unset it in ck_child */
            if (!*val) setenv(VARS[v], "", 1);
            ck_child(mode, what, *val ? spec : "CK_UNUSED=", NULL);
            if (!*val) unsetenv(VARS[v]);
        }
    return ck_end();
}
