/* bench_gemm.c — the GEMM benchmark: C = A*B + C on host arrays, n x n, side by side in one
 * process, each path timed the same way (wall clock around a call that returns with C on the host;
 * one warm-up, then the median of several; the engine, the CPU BLAS and the drop-in take turns in
 * short runs, see interleaved()):
 *   engine_pageable  cufort_?gemm_host on malloc'd arrays (the thunk engine)
 *   engine_pinned    the same on cufort_host_alloc'd arrays
 *   naive            cudaMalloc, cudaMemcpy from the pageable arrays, cublas?gemm, copy back, free
 *                    (NVIDIA's fortran_thunking.c way)
 *   xt_pageable, xt_pinned   cublasXt?gemm on one GPU (BENCH_XT_DEVICES: on that many)
 *   device           cublas?gemm on device arrays, no transfers (cudaEvents)
 *   roofline         max(device, bytes in / pinned H2D rate, bytes out / pinned D2H rate)
 *   cpu              the CPU BLAS (dlopen'd: $BENCH_CPU_BLAS, default libopenblas.so.0)
 *   dropin           sgemm_/dgemm_/zgemm_ of build/lib/libcufort_blas.so (dlopen'd), the drop-in
 * With --nvblas[=tag] it times only the sgemm_ that the process resolves, which is NVBLAS's under
 * LD_PRELOAD=libnvblas.so (bench/gemm_run.sh sets that up), reported as mode nvblas[_tag].
 *
 * The engine spreads over the devices CUFORT_DEVICES names (default: all); BENCH_PIN_CACHE=1 keeps
 * the pin cache on, so repeated calls on the same pageable arrays DMA them directly (else every
 * call is timed as a first call, through staging).
 * BENCH_TAG is appended to every mode name (runs with CUFORT_ALLOW_TF32=1 or a memory cap).
 * BENCH_AB compares engine settings rep by rep (see ab_engine); BENCH_REPS sets the repetitions;
 * BENCH_PLAN=1 prints how the engine's first call of each size went over the devices.
 * Usage: bench_gemm [--precs sdz] [--sizes 256,512,...] [--modes a,b,...] [--nvblas[=tag]]
 * Prints a table and appends rows "prec,n,mode,ms,tflops" to $OUT/bench_gemm.csv (else ./). */
#define _GNU_SOURCE
#include <complex.h>
#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "cufort.h"
#include "../c_wrappers/thunk/gemm_engine.h"

/* c_wrappers/thunk/staging.h (internal, exported) */
int cufort_stage_to_device(void *dev, const void *host, size_t hpitch, size_t width, size_t cols);
int cufort_stage_to_host(void *host, size_t hpitch, const void *dev, size_t width, size_t cols);

#define CK(x)                                                                                     \
    do {                                                                                          \
        if ((x) != 0) {                                                                           \
            fprintf(stderr, "bench_gemm: %s failed at line %d (%s)\n", #x, __LINE__,              \
                    cufort_last_error());                                                         \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

typedef void (*f77_gemm)(const char *, const char *, const int *, const int *, const int *,
                         const void *, const void *, const int *, const void *, const int *,
                         const void *, void *, const int *, size_t, size_t);

static size_t esize(char p) { return p == 's' ? 4 : p == 'd' ? 8 : 16; }
static double flops(char p, int n) { return (p == 'z' ? 8.0 : 2.0) * n * (double)n * n; }

/* ---- one problem: the arrays every path shares ---- */
typedef struct {
    char p;
    int n;
    size_t bytes;                    /* one matrix */
    void *A, *B, *C;                 /* pageable */
    void *pA, *pB, *pC;              /* pinned */
    double alpha[2], beta[2];        /* 1 and 1 in every precision (double[2] holds a zgemm scalar) */
    float falpha, fbeta;
} problem;

static void fill(void *x, size_t bytes, unsigned seed)
{
    size_t n = bytes / 4;
    float *f = x;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        unsigned h = (unsigned)(i * 2654435761u) ^ seed;
        h ^= h >> 13;
        h *= 0x5bd1e995u;
        f[i] = 0.5f + (float)(h & 0xffff) / 65536.0f;   /* finite in float; a small double otherwise */
    }
}

static void *ctype_scalar(problem *pr, int which)   /* alpha (0) or beta (1), in the precision */
{
    if (pr->p == 's') return which ? (void *)&pr->fbeta : (void *)&pr->falpha;
    return which ? (void *)pr->beta : (void *)pr->alpha;
}

/* ---- timing ---- */
enum { MAX_REPS = 512 };   /* the timing arrays' size */
/* repetitions of the paths timed alone (pinned engine, naive, cublasXt, device) */
static int reps_for(int n)
{
    const char *env = getenv("BENCH_REPS");   /* more repetitions where the machine is noisy */
    if (env && atoi(env) > 0) return atoi(env) < MAX_REPS / 2 ? atoi(env) : MAX_REPS / 2;
    return n <= 512 ? 240 : n <= 1024 ? 120 : n <= 4096 ? 16 : n <= 8192 ? 4 : 2;
}

typedef void (*runner)(problem *, void *ctx);

static double median_ms(problem *pr, runner run, void *ctx)
{
    int reps = reps_for(pr->n);
    double t[MAX_REPS];
    run(pr, ctx);   /* warm-up: plans, handles, buffers */
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now();
        run(pr, ctx);
        t[r] = (bench_now() - t0) * 1e3;
    }
    return bench_median(t, reps);
}

/* ---- the paths ---- */
static void engine(problem *pr, void *ctx)
{
    int pinned = ctx != NULL;
    void *A = pinned ? pr->pA : pr->A, *B = pinned ? pr->pB : pr->B, *C = pinned ? pr->pC : pr->C;
    int n = pr->n;
    switch (pr->p) {
    case 's': CK(cufort_sgemm_host('N', 'N', n, n, n, 1.0f, A, n, B, n, 1.0f, C, n)); break;
    case 'd': CK(cufort_dgemm_host('N', 'N', n, n, n, 1.0, A, n, B, n, 1.0, C, n)); break;
    default: CK(cufort_zgemm_host('N', 'N', n, n, n, 1.0, A, n, B, n, 1.0, C, n));
    }
    static char shown[64];   /* BENCH_PLAN=1: how each kind's first call went over the devices */
    char key[64];
    snprintf(key, sizeof key, "%c%d%d", pr->p, n, pinned);
    if (getenv("BENCH_PLAN") && strcmp(key, shown)) {
        cufort_gemm_plan_info info;
        cufort_thunk_gemm_last_plan(&info);
        printf("# plan %c n=%d %s: %d devices, tiles %lld x %lld, panels", pr->p, n,
               pinned ? "pinned" : "pageable", info.devices, (long long)info.mb,
               (long long)info.nb);
        for (int i = 0; i < info.devices; i++)
            printf(" %lld", (long long)info.device_panels[i]);
        printf("; MB in %.0f, out %.0f, between devices %.0f\n", info.bytes_in / 1048576.0,
               info.bytes_out / 1048576.0, info.bytes_peer / 1048576.0);
        snprintf(shown, sizeof shown, "%s", key);
    }
}

static void emit(problem *pr, const char *mode_base, double ms);

/* BENCH_AB="VAR=a;VAR=b;..." (VAR= unsets VAR): the engine on pageable arrays under each setting,
 * the settings taking turns rep by rep, so that a slow spell of this shared host falls on all of
 * them alike; one row per setting, mode engine_pageable[setting] */
static void ab_engine(problem *pr, const char *spec)
{
    char buf[512], *set[8], *save;
    int ns = 0, reps = reps_for(pr->n);
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *tok = strtok_r(buf, ";", &save); tok && ns < 8; tok = strtok_r(NULL, ";", &save))
        set[ns++] = tok;
    double t[8][MAX_REPS];
    for (int r = -1; r < reps; r++)   /* r = -1: a warm-up of each */
        for (int k = 0; k < ns; k++) {
            char var[128], *eq;
            snprintf(var, sizeof var, "%s", set[k]);
            if (!(eq = strchr(var, '='))) continue;
            *eq = 0;
            if (eq[1]) setenv(var, eq + 1, 1); else unsetenv(var);
            double t0 = bench_now();
            engine(pr, NULL);
            if (r >= 0) t[k][r] = (bench_now() - t0) * 1e3;
            unsetenv(var);
        }
    for (int k = 0; k < ns; k++) {
        char mode[160];
        double med = bench_median(t[k], reps);
        snprintf(mode, sizeof mode, "engine_pageable[%s] (min %.1f)", set[k], t[k][0]);
        emit(pr, mode, med);
    }
}

static cublasHandle_t handle;

static void device_gemm(problem *pr, void *A, void *B, void *C)
{
    int n = pr->n;
    cublasStatus_t s;
    if (pr->p == 's')
        s = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &pr->falpha, A, n, B, n, &pr->fbeta, C, n);
    else if (pr->p == 'd')
        s = cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, pr->alpha, A, n, B, n, pr->beta, C, n);
    else
        s = cublasZgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, (cuDoubleComplex *)pr->alpha, A, n,
                        B, n, (cuDoubleComplex *)pr->beta, C, n);
    CK(s != CUBLAS_STATUS_SUCCESS);
}

static void naive(problem *pr, void *ctx)
{
    (void)ctx;
    void *dA, *dB, *dC;
    CK(cudaMalloc(&dA, pr->bytes));
    CK(cudaMalloc(&dB, pr->bytes));
    CK(cudaMalloc(&dC, pr->bytes));
    CK(cudaMemcpy(dA, pr->A, pr->bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, pr->B, pr->bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, pr->C, pr->bytes, cudaMemcpyHostToDevice));
    device_gemm(pr, dA, dB, dC);
    CK(cudaMemcpy(pr->C, dC, pr->bytes, cudaMemcpyDeviceToHost));
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
}

static cublasXtHandle_t xt;

static void xt_gemm(problem *pr, void *ctx)
{
    int pinned = ctx != NULL;
    void *A = pinned ? pr->pA : pr->A, *B = pinned ? pr->pB : pr->B, *C = pinned ? pr->pC : pr->C;
    size_t n = (size_t)pr->n;
    cublasStatus_t s;
    if (pr->p == 's')
        s = cublasXtSgemm(xt, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &pr->falpha, A, n, B, n, &pr->fbeta, C, n);
    else if (pr->p == 'd')
        s = cublasXtDgemm(xt, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, pr->alpha, A, n, B, n, pr->beta, C, n);
    else
        s = cublasXtZgemm(xt, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, (cuDoubleComplex *)pr->alpha, A, n,
                          B, n, (cuDoubleComplex *)pr->beta, C, n);
    CK(s != CUBLAS_STATUS_SUCCESS);
}

/* a Fortran-ABI ?gemm_ (CPU BLAS, drop-in, or NVBLAS), ctx = the function triple s/d/z */
static void f77(problem *pr, void *ctx)
{
    f77_gemm *fns = ctx;
    f77_gemm f = fns[pr->p == 's' ? 0 : pr->p == 'd' ? 1 : 2];
    int n = pr->n;
    f("N", "N", &n, &n, &n, ctype_scalar(pr, 0), pr->A, &n, pr->B, &n, ctype_scalar(pr, 1), pr->C, &n, 1, 1);
}

static int load_f77(void *lib, f77_gemm fns[3])
{
    static const char *names[] = {"sgemm_", "dgemm_", "zgemm_"};
    for (int i = 0; i < 3; i++)
        if (!(fns[i] = (f77_gemm)dlsym(lib, names[i])))
            return 0;
    return 1;
}

/* ---- pinned bandwidth, for the roofline ---- */
static void pinned_rates(double *h2d, double *d2h)
{
    size_t bytes = 256u << 20;
    void *h, *d;
    CK(cudaMallocHost(&h, bytes));
    CK(cudaMalloc(&d, bytes));
    memset(h, 1, bytes);
    double t[2][5];
    for (int r = 0; r < 6; r++)
        for (int dir = 0; dir < 2; dir++) {
            double t0 = bench_now();
            CK(cudaMemcpy(dir ? h : d, dir ? d : h, bytes, dir ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice));
            if (r) t[dir][r - 1] = bench_now() - t0;
        }
    for (int dir = 0; dir < 2; dir++) qsort(t[dir], 5, sizeof(double), bench_cmp);
    *h2d = bytes / t[0][2];
    *d2h = bytes / t[1][2];
    cudaFreeHost(h);
    cudaFree(d);
}

/* 2-D copies like the engine's tiles (rows of a column-major panel: `width` bytes out of each
 * `pitch`), both directions at once on two streams, against packed copies of the same bytes:
 * whether the DMA engines lose rate on strided panels. */
static void copy_rates(void)
{
    size_t pitch = 65536, width = 16384, cols = 8192, bytes = width * cols;
    void *h, *h2, *d, *d2;
    CK(cudaMallocHost(&h, pitch * cols));
    CK(cudaMallocHost(&h2, pitch * cols));
    CK(cudaMalloc(&d, bytes));
    CK(cudaMalloc(&d2, bytes));
    cudaStream_t s[2];
    cudaStreamCreate(&s[0]), cudaStreamCreate(&s[1]);
    for (int strided = 0; strided < 2; strided++)
        for (int both = 0; both < 2; both++) {
            double best = 1e9;
            for (int r = 0; r < 4; r++) {
                double t0 = bench_now();
                size_t hp = strided ? pitch : width;
                CK(cudaMemcpy2DAsync(d, width, h, hp, width, cols, cudaMemcpyHostToDevice, s[0]));
                if (both)
                    CK(cudaMemcpy2DAsync(h2, hp, d2, width, width, cols, cudaMemcpyDeviceToHost, s[1]));
                CK(cudaDeviceSynchronize());
                double t = bench_now() - t0;
                best = t < best ? t : best;
            }
            printf("# pinned copy %s, %s: %.1f GB/s each way\n", strided ? "16 KiB of each 64 KiB" : "packed",
                   both ? "H2D and D2H at once" : "H2D alone", bytes / best / 1e9);
        }
    cudaFreeHost(h), cudaFreeHost(h2), cudaFree(d), cudaFree(d2);
    cudaStreamDestroy(s[0]), cudaStreamDestroy(s[1]);
    /* pageable arrays through cufort's staging, in the shapes the engine moves at n = 8192 */
    struct { const char *what; size_t width, pitch, cols; } shapes[] = {
        {"packed 512 MiB", (size_t)512 << 20, (size_t)512 << 20, 1},
        {"16 KiB of each 64 KiB x 8192 (row panel, T = 2048)", 16384, 65536, 8192},
        {"32 KiB of each 64 KiB x 4096 (C tile, T = 4096)", 32768, 65536, 4096},
        {"packed 128 MiB", (size_t)128 << 20, (size_t)128 << 20, 1}};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        size_t span = shapes[k].pitch * shapes[k].cols, bytes = shapes[k].width * shapes[k].cols;
        char *ph = malloc(span);
        CK(!ph);
        memset(ph, 1, span);
        CK(cudaMalloc(&d, bytes));
        double t[2][5];
        for (int r = 0; r < 6; r++) {   /* the first is a warm-up */
            double t0 = bench_now();
            CK(cufort_stage_to_device(d, ph, shapes[k].pitch, shapes[k].width, shapes[k].cols));
            CK(cudaDeviceSynchronize());
            double t1 = bench_now();
            CK(cufort_stage_to_host(ph, shapes[k].pitch, d, shapes[k].width, shapes[k].cols));
            double t2 = bench_now();
            if (r) t[0][r - 1] = t1 - t0, t[1][r - 1] = t2 - t1;
        }
        qsort(t[0], 5, sizeof(double), bench_cmp), qsort(t[1], 5, sizeof(double), bench_cmp);
        printf("# staged pageable %s: H2D %.1f GB/s, D2H %.1f GB/s\n", shapes[k].what,
               bytes / t[0][2] / 1e9, bytes / t[1][2] / 1e9);
        cudaFree(d);
        free(ph);
    }
}

/* ---- main ---- */
static int has(const char *list, const char *mode)
{
    if (!list) return 1;
    size_t l = strlen(mode);
    for (const char *p = list; (p = strstr(p, mode)); p += l)
        if ((p == list || p[-1] == ',') && (p[l] == ',' || !p[l])) return 1;
    return 0;
}

static FILE *csv;
static void emit(problem *pr, const char *mode_base, double ms);

/* Paths of one problem timed in turns, in runs: each round runs every path RUN + 1 times in a row
 * and times the last RUN calls, in an order that changes from round to round (order_of).  A timed
 * call thus always follows a call of its own path, as in a program's loop: the untimed first call
 * of a run pays for the switch (a CPU BLAS call right after a GPU call finds its threads asleep, an
 * engine call after a long CPU call finds the copy helpers and the GPU idle).  A slow spell of this
 * shared host still falls on every path alike.  (Single calls in a random order, seeded alike for every
 * size, made the drop-in follow the CPU BLAS call in 6 of 10 reps and the engine in 4, and read the
 * same engine call up to 15% slower through the drop-in.)
 * A path whose fastest call in two rounds took 3x the others' median leaves the turns: it cannot be
 * the better one (the drop-in stays).  The warm-up runs the drop-in WARM_DROPIN times, past the
 * first calls near its threshold that measure both of its paths (adapt.c).
 * Besides the medians, the drop-in's time over the better path's (by median) is printed per round,
 * runs next to each other in time, and its median: the paired ratio, which a slow spell of a few
 * rounds moves less.  (Over the better of the two per round it read 1.15 where the CPU BLAS and
 * the engine are about equal: the smaller of two noisy times is biased low.)
 * Only the engine, the CPU BLAS and the drop-in take turns: with cublasXt among them the call after
 * it ran 10-20% slower. */
enum { RUN = 2, WARM_DROPIN = 9 };

/* The order of round r: every path follows every other path equally often, across rounds too.
 * What ran just before still shows in a run's timed calls: in a plain rotation of (engine, CPU
 * BLAS, drop-in) the drop-in followed the CPU BLAS in two rounds of three and the engine in one, and
 * in the rounds where it followed the CPU BLAS and the engine followed the drop-in, the drop-in on
 * the engine's own path read 1.02-1.10 of the engine; 0.98-1.03 with no CPU BLAS in the turns.
 * Three paths go through the six orders below, in which each path is preceded
 * by each other path three times; two paths alternate (0 1) and (1 0). */
static int order_of(int r, int i, int np)
{
    static const int three[6][3] = {{0, 1, 2}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}};
    if (np == 3) return three[r % 6][i];
    if (np == 2) return r % 2 ? 1 - i : i;
    return (r + i) % np;
}
typedef struct { const char *mode; runner run; void *ctx; } timed_path;
/* Rounds of interleaved(), whole cycles of order_of's six orders.  The drop-in is judged on 5%, and
 * single runs on this shared host spread far more than that, on every path:
 * - up to n = 1024, runs of the CPU BLAS and the drop-in spread 0.6-1.7x their median; on a busy
 *   instance the drop-in's runs over the engine's, both on the engine, 0.5-3x (DGEMM 1024).  With
 *   60 rounds the drop-in's median over the CPU BLAS's, the drop-in running the CPU BLAS itself,
 *   read 0.93-1.10; with 120 the drop-in on the engine's own path read 1.053 of it (DGEMM 1024).
 *   These calls are short: 960 rounds of the three paths at n = 512 take 3-5 s;
 * - past n = 1024 only the engine and the drop-in, which runs the engine, take turns (the CPU BLAS
 *   leaves after two rounds): DGEMM 8192's staged copies spread 10-20%; with 6 rounds a slow spell
 *   read the drop-in 1.085 of the engine, with 18 single runs of 1.6-3x put DGEMM 4096 at 1.063.
 * A median's spread falls as 1/sqrt(rounds).  BENCH_REPS sets the rounds too (as repetitions). */
enum { MAX_ROUNDS = 960 };
static int rounds_for(int n)
{
    int want = getenv("BENCH_REPS") ? reps_for(n) : n <= 512 ? 960 : n <= 1024 ? 480 : n <= 2048 ? 60
             : n <= 4096 ? 48 : n <= 8192 ? 24 : 12;
    int cycles = (want + 5) / 6, most = MAX_ROUNDS / 6;
    return 6 * (cycles < 2 ? 2 : cycles < most ? cycles : most);
}

static void interleaved(problem *pr, timed_path *p, int np)
{
    int rounds = rounds_for(pr->n);
    int got[8] = {0}, out[8] = {0}, drop = -1;
    static double t[8][MAX_ROUNDS * RUN], run_ms[8][MAX_ROUNDS], sorted[MAX_ROUNDS * RUN];
    double med[8], fastest[8];
    for (int k = 0; k < np; k++) {
        if (!strcmp(p[k].mode, "dropin")) drop = k;
        for (int w = k == drop ? WARM_DROPIN : 1; w > 0; w--)
            p[k].run(pr, p[k].ctx);   /* plans, handles, buffers; the drop-in's routing */
    }
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < np; i++) {
            int k = order_of(r, i, np);
            run_ms[k][r] = 0;   /* 0: not run this round */
            if (out[k]) continue;
            for (int c = 0; c <= RUN; c++) {
                double t0 = bench_now();
                p[k].run(pr, p[k].ctx);
                if (c > 0) run_ms[k][r] += (t[k][got[k]++] = (bench_now() - t0) * 1e3) / RUN;
            }
        }
        if (r != 1) continue;
        for (int j = 0; j < np; j++) {
            memcpy(sorted, t[j], got[j] * sizeof *sorted);
            med[j] = bench_median(sorted, got[j]);
            fastest[j] = sorted[0];
        }
        for (int k = 0; k < np; k++) {
            double best = 1e300;
            for (int j = 0; j < np; j++)
                if (j != k && med[j] < best) best = med[j];
            out[k] = k != drop && fastest[k] > 3 * best;
        }
    }
    for (int k = 0; k < np; k++)
        emit(pr, p[k].mode, med[k] = bench_median(t[k], got[k]));
    if (drop < 0 || np < 2) return;
    int better = -1;   /* the other path of the smaller median; it ran every round */
    for (int k = 0; k < np; k++)
        if (k != drop && (better < 0 || med[k] < med[better]))
            better = k;
    static double ratio[MAX_ROUNDS];
    int nr = 0;
    printf("# %c %d drop-in / %s, per round:", pr->p, pr->n, p[better].mode);
    for (int r = 0; r < rounds; r++)
        printf(" %.3f", ratio[nr++] = run_ms[drop][r] / run_ms[better][r]);
    printf("; median %.3f\n", bench_median(ratio, nr));
}

static void emit(problem *pr, const char *mode_base, double ms)
{
    char mode[96];   /* BENCH_TAG tells runs with other settings apart (TF32, a memory cap) */
    snprintf(mode, sizeof mode, "%s%s", mode_base, getenv("BENCH_TAG") ? getenv("BENCH_TAG") : "");
    double tf = flops(pr->p, pr->n) / (ms * 1e-3) / 1e12;
    printf("%c %6d %-16s %10.3f ms %8.2f TFLOP/s\n", pr->p, pr->n, mode, ms, tf);
    fflush(stdout);
    fprintf(csv, "%c,%d,%s,%.4f,%.4f\n", pr->p, pr->n, mode, ms, tf);
    fflush(csv);
}

int main(int argc, char **argv)
{
    const char *precs = "sdz", *modes = NULL, *nvblas = NULL;
    char sizes_buf[256] = "256,512,1024,2048,4096,8192,16384";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--precs") && i + 1 < argc) precs = argv[++i];
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) snprintf(sizes_buf, sizeof sizes_buf, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--modes") && i + 1 < argc) modes = argv[++i];
        else if (!strncmp(argv[i], "--nvblas", 8)) nvblas = argv[i][8] == '=' ? argv[i] + 9 : "";
    }
    const char *out = getenv("OUT");
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_gemm.csv", out && *out ? out : ".");
    csv = fopen(path, "a");
    if (!csv) { perror(path); return 1; }
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# bench_gemm on %s, %d OpenMP threads\n", prop.name, omp_get_max_threads());

    f77_gemm nv_fns[3], cpu_fns[3], drop_fns[3];
    int have_nv = 0, have_cpu = 0, have_drop = 0;
    if (nvblas) {
        have_nv = load_f77(RTLD_DEFAULT, nv_fns);
        if (!have_nv) { printf("# NVBLAS: no sgemm_ in this process (LD_PRELOAD libnvblas.so)\n"); return 0; }
    } else {
        CK(cufort_init());
        /* the staged path, as in the earlier figures: the pin cache (fft_bench shows it) would pin
         * the arrays these calls pass again and again */
        if (!getenv("BENCH_PIN_CACHE") || atoi(getenv("BENCH_PIN_CACHE")) == 0)
            cufort_pin_cache_limit(0);
        CK(cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS);
        CK(cublasXtCreate(&xt) != CUBLAS_STATUS_SUCCESS);
        int xt_devs[16] = {0}, n_xt = getenv("BENCH_XT_DEVICES") ? atoi(getenv("BENCH_XT_DEVICES")) : 1;
        n_xt = n_xt < 1 ? 1 : n_xt > 16 ? 16 : n_xt;
        for (int i = 0; i < n_xt; i++)
            xt_devs[i] = i;
        CK(cublasXtDeviceSelect(xt, n_xt, xt_devs) != CUBLAS_STATUS_SUCCESS);
        const char *cpu_name = getenv("BENCH_CPU_BLAS") ? getenv("BENCH_CPU_BLAS") : "libopenblas.so.0";
        void *cpu = dlopen(cpu_name, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
        have_cpu = cpu && load_f77(cpu, cpu_fns);
        printf("# CPU BLAS %s: %s\n", cpu_name, have_cpu ? "loaded" : dlerror());
        const char *drop_name = getenv("BENCH_DROPIN") ? getenv("BENCH_DROPIN") : "libcufort_blas.so";
        void *drop = dlopen(drop_name, RTLD_NOW | RTLD_LOCAL);
        have_drop = drop && load_f77(drop, drop_fns);
        printf("# drop-in %s: %s\n", drop_name, have_drop ? "loaded" : dlerror());
    }
    double h2d = 0, d2h = 0;
    if (!nvblas) {
        pinned_rates(&h2d, &d2h);
        printf("# pinned H2D %.1f GB/s, D2H %.1f GB/s\n", h2d / 1e9, d2h / 1e9);
        if (getenv("BENCH_COPY_RATES"))
            copy_rates();
    }

    for (const char *pc = precs; *pc; pc++)
        for (char *save, *tok = strtok_r(strdup(sizes_buf), ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            problem pr = {.p = *pc, .n = atoi(tok), .alpha = {1, 0}, .beta = {1, 0}, .falpha = 1, .fbeta = 1};
            if (pr.n <= 0) continue;
            pr.bytes = (size_t)pr.n * pr.n * esize(pr.p);
            if (pr.bytes > ((size_t)6 << 30)) continue;   /* 3 such matrices pageable + 3 pinned */
            pr.A = malloc(pr.bytes), pr.B = malloc(pr.bytes), pr.C = malloc(pr.bytes);
            CK(!pr.A || !pr.B || !pr.C);
            fill(pr.A, pr.bytes, 1), fill(pr.B, pr.bytes, 2), fill(pr.C, pr.bytes, 3);
            /* fill's OpenMP threads spin for a while after it (GOMP_SPINCOUNT: ~10-20 ms); a CPU
             * BLAS call in that window shares the cores with them, and the drop-in measures its
             * routing in the warm-up right here */
            usleep(100 * 1000);
            if (nvblas) {
                char mode[64];
                snprintf(mode, sizeof mode, "nvblas%s%s", *nvblas ? "_" : "", nvblas);
                emit(&pr, mode, median_ms(&pr, f77, nv_fns));
                free(pr.A), free(pr.B), free(pr.C);
                continue;
            }
            int big = pr.n >= 16384 && !getenv("BENCH_XT_BIG");
            int need_pinned = has(modes, "engine_pinned") || has(modes, "xt_pinned") || has(modes, "device");
            if (need_pinned) {
                CK(cufort_host_alloc(&pr.pA, (int64_t)pr.bytes));
                CK(cufort_host_alloc(&pr.pB, (int64_t)pr.bytes));
                CK(cufort_host_alloc(&pr.pC, (int64_t)pr.bytes));
                memcpy(pr.pA, pr.A, pr.bytes), memcpy(pr.pB, pr.B, pr.bytes), memcpy(pr.pC, pr.C, pr.bytes);
            }
            if (getenv("BENCH_AB")) ab_engine(&pr, getenv("BENCH_AB"));
            /* the drop-in is judged against the CPU BLAS and the engine: those three take turns */
            timed_path paths[3];
            int np = 0;
            if (has(modes, "engine_pageable")) paths[np++] = (timed_path){"engine_pageable", engine, NULL};
            if (has(modes, "cpu") && have_cpu && pr.n <= 4096) paths[np++] = (timed_path){"cpu", f77, cpu_fns};
            if (has(modes, "dropin") && have_drop) paths[np++] = (timed_path){"dropin", f77, drop_fns};
            interleaved(&pr, paths, np);
            if (has(modes, "engine_pinned")) emit(&pr, "engine_pinned", median_ms(&pr, engine, &pr));
            if (has(modes, "naive")) emit(&pr, "naive", median_ms(&pr, naive, NULL));
            if (has(modes, "xt_pageable") && !big) emit(&pr, "xt_pageable", median_ms(&pr, xt_gemm, NULL));
            if (has(modes, "xt_pinned")) emit(&pr, "xt_pinned", median_ms(&pr, xt_gemm, &pr));
            if (has(modes, "device")) {
                void *dA, *dB, *dC;
                CK(cudaMalloc(&dA, pr.bytes));
                CK(cudaMalloc(&dB, pr.bytes));
                CK(cudaMalloc(&dC, pr.bytes));
                CK(cudaMemcpy(dA, pr.pA, pr.bytes, cudaMemcpyHostToDevice));
                CK(cudaMemcpy(dB, pr.pB, pr.bytes, cudaMemcpyHostToDevice));
                CK(cudaMemcpy(dC, pr.pC, pr.bytes, cudaMemcpyHostToDevice));
                cudaEvent_t e0, e1;
                cudaEventCreate(&e0), cudaEventCreate(&e1);
                double t[MAX_REPS / 2 + 2];   /* reps_for() + 2 */
                int reps = reps_for(pr.n) + 2;
                device_gemm(&pr, dA, dB, dC);
                for (int r = 0; r < reps; r++) {
                    float ms;
                    cudaEventRecord(e0, 0);
                    device_gemm(&pr, dA, dB, dC);
                    cudaEventRecord(e1, 0);
                    cudaEventSynchronize(e1);
                    cudaEventElapsedTime(&ms, e0, e1);
                    t[r] = ms;
                }
                qsort(t, reps, sizeof *t, bench_cmp);
                double dev = t[reps / 2];
                emit(&pr, "device", dev);
                double roof = dev, tin = 3.0 * pr.bytes / h2d * 1e3, tout = pr.bytes / d2h * 1e3;
                roof = roof > tin ? roof : tin;
                roof = roof > tout ? roof : tout;
                emit(&pr, "roofline", roof);
                cudaFree(dA), cudaFree(dB), cudaFree(dC);
                cudaEventDestroy(e0), cudaEventDestroy(e1);
            }
            if (need_pinned) cufort_host_free(pr.pA), cufort_host_free(pr.pB), cufort_host_free(pr.pC);
            free(pr.A), free(pr.B), free(pr.C);
        }
    fclose(csv);
    if (!nvblas) {
        cublasXtDestroy(xt);
        cublasDestroy(handle);
        /* against the trace build (make trace-build): the timeline, while its GPU events still exist */
        void (*dump)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "cufort_trace_dump");
        if (dump)
            dump();
        cufort_shutdown();
    }
    return 0;
}
