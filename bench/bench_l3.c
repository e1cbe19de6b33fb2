/* bench_l3.c — the Level-3 routines on host arrays, double precision, n x n, as a legacy program
 * calls them (the same routine on the same malloc'd arrays again and again), side by side in one
 * process; wall clock around a call that returns with the result on the host:
 *   engine     cufort_d*_host: the GEMM engine (gemm) or the panel engine (the others)
 *   pinned     the same on arrays from cufort_host_alloc
 *   whole      the arrays staged whole, the device routine, the result staged back, one step
 *              after another (the thunk layer's generic path, which these routines took before)
 *   naive      cudaMalloc, cudaMemcpy from the pageable arrays, the device routine, the result
 *              copied back, cudaFree (NVIDIA's fortran_thunking.c way)
 *   device     the device-pointer routine on arrays already on the GPU (the compute limit)
 *   roofline   max(device, bytes up / pinned H2D rate, bytes down / pinned D2H rate), the bytes
 *              being what the routine must move: a triangle only once, C of a rank-k update only
 *              its triangle
 * First calls (fresh arrays) and repeated calls (the median of BENCH_REPS, default 6, after them)
 * are both reported.  The repeated calls of engine, pinned and whole take turns call by call;
 * naive's come after them, on their own: the device memory that each naive call allocates and
 * frees delays whichever call comes next, in proportion to its size (3 x 512 MiB allocated and
 * freed before each DTRSM n = 8192 on the H100: 23.9 against 20.8 ms; 64 MiB: no change).
 * With --nvblas it times only the Fortran names the process resolves (dgemm_, dtrsm_, ...), which
 * are NVBLAS's under LD_PRELOAD=libnvblas.so (bench/l3_run.sh sets that up), as mode nvblas.
 * BENCH_TAG is appended to the mode names (runs with another CUFORT_L3_PANEL, say).
 * Usage: bench_l3 [--sizes 4096,8192] [--routines gemm,trsm,trmm,syrk,symm] [--nvblas] (trsmR: a right-side
 *        solve, syrkT: the transposed update, whose blocks are contiguous on the host)
 *        bench_l3 --ooc trsm|syrk N [K]   one single-precision call larger than the GPU, checked
 *                                         (TRSM: A N x N, B N x K; SYRK: A N x K, C N x N; K
 *                                         defaults to N for TRSM)
 *        bench_l3 --copy2d                 pinned copy rates of blocks of rows against whole columns
 * Prints a table and appends "routine,n,mode,first_ms,ms,tflops" rows to $OUT/bench_l3.csv (else ./). */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "cufort.h"
#include "thunk.h"

#define CK(x)                                                                                     \
    do {                                                                                          \
        if ((x) != 0) {                                                                           \
            fprintf(stderr, "bench_l3: %s failed at line %d (%s)\n", #x, __LINE__,                \
                    cufort_last_error());                                                         \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

/* A (well conditioned: a dominant diagonal), B, C for one routine */
typedef struct { double *A, *B, *C; } arrays;

static void fill(double *x, size_t n, unsigned seed, double scale)
{
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) {
        unsigned s = seed * 2654435761u + (unsigned)i * 40503u;
        s ^= s >> 13, s *= 0x5bd1e995u, s ^= s >> 15;
        x[i] = scale * ((double)(s % 2000001u) / 1e6 - 1.0);
        if (x[i] == 0) x[i] = scale * 0.5;
    }
}
static arrays make(int n)
{
    size_t nn = (size_t)n * n;
    arrays a = {malloc(nn * 8), malloc(nn * 8), malloc(nn * 8)};
    if (!a.A || !a.B || !a.C) { fprintf(stderr, "bench_l3: out of host memory\n"); exit(1); }
    fill(a.A, nn, 1, 1.0 / n);
    for (int i = 0; i < n; i++) a.A[(size_t)i * n + i] = 2.0 + (i % 7) * 0.25;
    fill(a.B, nn, 2, 1.0);
    fill(a.C, nn, 3, 1.0);
    return a;
}
static void release(arrays a) { free(a.A), free(a.B), free(a.C); }

static double flops(const char *r, int n) { return (!strcmp(r, "gemm") || !strcmp(r, "symm") ? 2.0 : 1.0) * n * (double)n * n; }

/* bytes up and down that the routine cannot avoid */
static void traffic(const char *r, int n, double *up, double *down)
{
    double m = 8.0 * n * n;
    if (!strcmp(r, "gemm") || !strcmp(r, "symm")) *up = 3 * m - (!strcmp(r, "symm") ? m / 2 : 0), *down = m;
    else if (!strncmp(r, "syrk", 4)) *up = m + m / 2, *down = m / 2;
    else *up = m + m / 2, *down = m;
}

static void engine(const char *r, int n, arrays *a)
{
    if (!strcmp(r, "gemm")) CK(cufort_dgemm_host('N', 'N', n, n, n, 1.0, a->A, n, a->B, n, 0.5, a->C, n));
    else if (!strcmp(r, "trsm")) CK(cufort_dtrsm_host('L', 'L', 'N', 'N', n, n, 1.0, a->A, n, a->B, n));
    else if (!strcmp(r, "trsmR")) CK(cufort_dtrsm_host('R', 'L', 'T', 'N', n, n, 1.0, a->A, n, a->B, n));
    else if (!strcmp(r, "syrkT")) CK(cufort_dsyrk_host('L', 'T', n, n, 1.0, a->A, n, 0.5, a->C, n));
    else if (!strcmp(r, "trmm")) CK(cufort_dtrmm_host('L', 'U', 'N', 'N', n, n, 1.0, a->A, n, a->B, n));
    else if (!strcmp(r, "syrk")) CK(cufort_dsyrk_host('L', 'N', n, n, 1.0, a->A, n, 0.5, a->C, n));
    else CK(cufort_dsymm_host('L', 'L', n, n, 1.0, a->A, n, a->B, n, 0.5, a->C, n));
}

/* the device routine on device arrays (dA, dB, dC) */
static void device_call(const char *r, int n, double *dA, double *dB, double *dC)
{
    if (!strcmp(r, "gemm")) CK(cufort_dgemm('N', 'N', n, n, n, 1.0, dA, n, dB, n, 0.5, dC, n));
    else if (!strcmp(r, "trsm")) CK(cufort_dtrsm('L', 'L', 'N', 'N', n, n, 1.0, dA, n, dB, n));
    else if (!strcmp(r, "trsmR")) CK(cufort_dtrsm('R', 'L', 'T', 'N', n, n, 1.0, dA, n, dB, n));
    else if (!strcmp(r, "syrkT")) CK(cufort_dsyrk('L', 'T', n, n, 1.0, dA, n, 0.5, dC, n));
    else if (!strcmp(r, "trmm")) CK(cufort_dtrmm('L', 'U', 'N', 'N', n, n, 1.0, dA, n, dB, n));
    else if (!strcmp(r, "syrk")) CK(cufort_dsyrk('L', 'N', n, n, 1.0, dA, n, 0.5, dC, n));
    else CK(cufort_dsymm('L', 'L', n, n, 1.0, dA, n, dB, n, 0.5, dC, n));
}

/* the generic thunk path: every array whole, staged in, the device routine, staged out */
static void whole(const char *r, int n, arrays *a)
{
    cufort_thunk t;
    CK(cufort_thunk_begin(&t, "bench_l3"));
    int tri = !strncmp(r, "tr", 2), syrk = !strncmp(r, "syrk", 4);
    int iA = cufort_thunk_matrix(&t, a->A, n, n, n, 8, CUFORT_IN);
    int iB = syrk ? -1 : cufort_thunk_matrix(&t, a->B, n, n, n, 8, tri ? CUFORT_INOUT : CUFORT_IN);
    int iC = tri ? -1 : cufort_thunk_matrix(&t, a->C, n, n, n, 8, CUFORT_INOUT);
    int st = cufort_thunk_stage_in(&t);
    if (!st)
        device_call(r, n, cufort_thunk_ptr(&t, iA), iB < 0 ? NULL : cufort_thunk_ptr(&t, iB),
                    iC < 0 ? NULL : cufort_thunk_ptr(&t, iC));
    CK(cufort_thunk_finish(&t, st));
}

static double rate(int up)
{
    size_t bytes = (size_t)512 << 20;
    void *h, *d;
    CK(cudaMallocHost(&h, bytes));
    CK(cudaMalloc(&d, bytes));
    double best = 1e30;
    for (int i = 0; i < 5; i++) {
        double t0 = bench_now();
        CK(up ? cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) : cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
        double t = bench_now() - t0;
        best = t < best ? t : best;
    }
    cudaFreeHost(h);
    cudaFree(d);
    return bytes / best;
}

/* pinned H2D/D2H rates of the blocks the pipelines move: whole columns (one 1-D copy) against
 * blocks of rows (2-D copies of `width` bytes per column, pitch 64 KiB), alone and beside DGEMMs
 * (the pipelines copy while the GPU computes) */
static void copy2d_rates(void)
{
    size_t pitch = 65536, cols = 8192, bytes = pitch * cols;
    int n = 8192;
    char *h, *d;
    double *g[3];
    cudaStream_t s;
    CK(cudaMallocHost((void **)&h, bytes));
    CK(cudaMalloc((void **)&d, bytes));
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int k = 0; k < 3; k++) {
        CK(cufort_alloc((void **)&g[k], (int64_t)n * n * 8));
        CK(cudaMemset(g[k], 0, (size_t)n * n * 8));
    }
    size_t widths[] = {2048, 8192, 16384, 32768, 65536};
    for (int busy = 0; busy < 2; busy++)
        for (int up = 1; up >= 0; up--)
            for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) {
                size_t w = widths[i];
                double best = 1e30;
                for (int rep = 0; rep < 5; rep++) {
                    for (int k = 0; k < 3 * busy; k++)   /* ~60 ms of work, queued on cufort's stream */
                        CK(cufort_dgemm('N', 'N', n, n, n, 1.0, g[0], n, g[1], n, 1.0, g[2], n));
                    double t0 = bench_now();
                    CK(up ? cudaMemcpy2DAsync(d, w, h, pitch, w, cols, cudaMemcpyHostToDevice, s)
                          : cudaMemcpy2DAsync(h, pitch, d, w, w, cols, cudaMemcpyDeviceToHost, s));
                    CK(cudaStreamSynchronize(s));
                    double t = bench_now() - t0;
                    best = t < best ? t : best;
                    CK(cudaDeviceSynchronize());
                }
                printf("copy2d %s%s: %6zu bytes x %zu columns, pitch %zu: %.1f GB/s\n", up ? "H2D" : "D2H",
                       busy ? " beside DGEMMs" : "", w, cols, pitch, w * cols / best / 1e9);
            }
    for (int k = 0; k < 3; k++)
        cufort_free(g[k]);
    cudaStreamDestroy(s);
    cudaFreeHost(h);
    cudaFree(d);
}

/* pinned host arrays, filled as make() fills them */
static arrays make_pinned(int n)
{
    arrays m = make(n), p;
    size_t bytes = (size_t)n * n * 8;
    CK(cufort_host_alloc((void **)&p.A, (int64_t)bytes));
    CK(cufort_host_alloc((void **)&p.B, (int64_t)bytes));
    CK(cufort_host_alloc((void **)&p.C, (int64_t)bytes));
    memcpy(p.A, m.A, bytes), memcpy(p.B, m.B, bytes), memcpy(p.C, m.C, bytes);
    release(m);
    return p;
}
static void release_pinned(arrays a) { cufort_host_free(a.A), cufort_host_free(a.B), cufort_host_free(a.C); }

/* NVIDIA's thunking: device copies made and freed around every call, plain cudaMemcpy */
static void naive(const char *r, int n, arrays *a)
{
    size_t bytes = (size_t)n * n * 8;
    int tri = !strncmp(r, "tr", 2), syrk = !strncmp(r, "syrk", 4);
    double *d[3] = {NULL, NULL, NULL}, *h[3] = {a->A, a->B, a->C};
    int used[3] = {1, !syrk, !tri}, out = tri ? 1 : 2;
    for (int k = 0; k < 3; k++)
        if (used[k]) {
            CK(cudaMalloc((void **)&d[k], bytes));
            CK(cudaMemcpy(d[k], h[k], bytes, cudaMemcpyHostToDevice));
        }
    device_call(r, n, d[0], d[1], d[2]);
    CK(cudaMemcpy(h[out], d[out], bytes, cudaMemcpyDeviceToHost));
    for (int k = 0; k < 3; k++)
        cudaFree(d[k]);
}

/* the Fortran names this process resolves: NVBLAS's under LD_PRELOAD */
typedef void f77_fn();
static f77_fn *fortran(const char *name)
{
    f77_fn *f = (f77_fn *)dlsym(RTLD_DEFAULT, name);
    if (!f) { fprintf(stderr, "bench_l3: no %s in this process\n", name); exit(1); }
    return f;
}
static void nvblas(const char *r, int n, arrays *a)
{
    static const double one = 1.0, half = 0.5;
    if (!strcmp(r, "gemm")) fortran("dgemm_")("N", "N", &n, &n, &n, &one, a->A, &n, a->B, &n, &half, a->C, &n);
    else if (!strcmp(r, "trsm")) fortran("dtrsm_")("L", "L", "N", "N", &n, &n, &one, a->A, &n, a->B, &n);
    else if (!strcmp(r, "trsmR")) fortran("dtrsm_")("R", "L", "T", "N", &n, &n, &one, a->A, &n, a->B, &n);
    else if (!strcmp(r, "syrkT")) fortran("dsyrk_")("L", "T", &n, &n, &one, a->A, &n, &half, a->C, &n);
    else if (!strcmp(r, "trmm")) fortran("dtrmm_")("L", "U", "N", "N", &n, &n, &one, a->A, &n, a->B, &n);
    else if (!strcmp(r, "syrk")) fortran("dsyrk_")("L", "N", &n, &n, &one, a->A, &n, &half, a->C, &n);
    else fortran("dsymm_")("L", "L", &n, &n, &one, a->A, &n, a->B, &n, &half, a->C, &n);
}

static int nvblas_only;   /* --nvblas */

typedef void call_fn(const char *, int, arrays *);

static void run(const char *r, int n, double h2d, double d2h, FILE *csv)
{
    enum { MAX_MODES = 4 };
    const char *names[MAX_MODES] = {"engine", "pinned", "whole", "naive"};
    call_fn *calls[MAX_MODES] = {engine, engine, whole, naive};
    int modes = MAX_MODES;
    if (nvblas_only)
        names[0] = "nvblas", calls[0] = nvblas, modes = 1;
    double first[MAX_MODES], *t[MAX_MODES];
    int reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 6;
    /* first calls, each on fresh arrays */
    for (int m = 0; m < modes; m++) {
        int pin = !strcmp(names[m], "pinned");
        arrays a = pin ? make_pinned(n) : make(n);
        double t0 = bench_now();
        calls[m](r, n, &a);
        first[m] = bench_now() - t0;
        pin ? release_pinned(a) : release(a);
        t[m] = malloc(sizeof(double) * reps);
    }
    /* repeated calls on one set of arrays (and one of pinned arrays), the modes in turns (2
     * warm-up rounds: the pin cache pins an array at its third sighting).  The cache starts empty,
     * as in a program that allocates its arrays once: the arrays freed above lay where these lie,
     * and a range whose pages went needs more sightings the next time. */
    cufort_pin_cache_limit(0);
    cufort_pin_cache_limit(-1);
    arrays a = make(n), p = nvblas_only ? a : make_pinned(n);
    for (int rep = -2; rep < reps; rep++) {
        if (rep == 0 && n >= 2048 && !nvblas_only) {
            int64_t bytes;
            int pins, watch;
            CK(cufort_pin_cache_info(&bytes, &pins, &watch));
            printf("# %s %d: %d arrays pinned (%.0f MB) after the warm-up\n", r, n, pins, bytes / 1e6);
        }
        for (int m = 0; m < modes; m++)
            if (calls[m] != naive) {
                double t0 = bench_now();
                calls[m](r, n, !strcmp(names[m], "pinned") ? &p : &a);
                if (rep >= 0) t[m][rep] = bench_now() - t0;
            }
    }
    for (int m = 0; m < modes; m++)
        if (calls[m] == naive)
            for (int rep = -1; rep < reps; rep++) {
                double t0 = bench_now();
                naive(r, n, &a);
                if (rep >= 0) t[m][rep] = bench_now() - t0;
            }
    if (!nvblas_only)
        release_pinned(p);
    release(a);
    /* device: the compute alone */
    double *dA, *dB, *dC, dev[8];
    size_t bytes = (size_t)n * n * 8;
    CK(cufort_alloc((void **)&dA, (int64_t)bytes));
    CK(cufort_alloc((void **)&dB, (int64_t)bytes));
    CK(cufort_alloc((void **)&dC, (int64_t)bytes));
    arrays h = make(n);
    CK(cufort_set_matrix(n, n, 8, h.A, n, dA, n));
    CK(cufort_set_matrix(n, n, 8, h.B, n, dB, n));
    CK(cufort_set_matrix(n, n, 8, h.C, n, dC, n));
    release(h);
    for (int rep = -1; rep < 8; rep++) {
        cudaDeviceSynchronize();
        double t0 = bench_now();
        device_call(r, n, dA, dB, dC);
        cudaDeviceSynchronize();
        if (rep >= 0) dev[rep] = bench_now() - t0;
    }
    cufort_free(dA), cufort_free(dB), cufort_free(dC);
    double device = bench_median(dev, 8), up, down;
    traffic(r, n, &up, &down);
    double roof = fmax(device, fmax(up / h2d, down / d2h));
    double f = flops(r, n);
    const char *tag = getenv("BENCH_TAG") ? getenv("BENCH_TAG") : "";
    for (int m = 0; m < modes; m++) {
        double ms = bench_median(t[m], reps);
        char name[64];
        snprintf(name, sizeof name, "%s%s", names[m], tag);
        printf("%-5s %6d %-9s first %9.2f ms  repeated %9.2f ms  %6.1f TF/s  (%.0f%% of roofline)\n", r, n,
               name, first[m] * 1e3, ms * 1e3, f / ms / 1e12, 100 * roof / ms);
        fprintf(csv, "%s,%d,%s,%.3f,%.3f,%.2f\n", r, n, name, first[m] * 1e3, ms * 1e3, f / ms / 1e12);
        free(t[m]);
    }
    if (!nvblas_only) {   /* the run without --nvblas has them */
        printf("%-5s %6d %-9s %40.2f ms  %6.1f TF/s\n", r, n, "device", device * 1e3, f / device / 1e12);
        printf("%-5s %6d %-9s %40.2f ms  %6.1f TF/s\n", r, n, "roofline", roof * 1e3, f / roof / 1e12);
        fprintf(csv, "%s,%d,device,,%.3f,%.2f\n%s,%d,roofline,,%.3f,%.2f\n", r, n, device * 1e3,
                f / device / 1e12, r, n, roof * 1e3, f / roof / 1e12);
    }
    fflush(stdout);
    fflush(csv);
}

/* ---- one call larger than the GPU ---- */

static void fill_f(float *x, size_t n, unsigned seed, float scale)
{
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) {
        unsigned s = seed * 2654435761u + (unsigned)(i * 40503u) + (unsigned)(i >> 32);
        s ^= s >> 13, s *= 0x5bd1e995u, s ^= s >> 15;
        x[i] = scale * ((float)(s % 2000001u) / 1e6f - 1.0f);
        if (x[i] == 0) x[i] = scale * 0.5f;
    }
}

static int ooc(const char *r, long n, long k)
{
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)   /* the host backend: no GPU to size */
        total_b = 0;
    int trsm = !strcmp(r, "trsm");
    long nb = trsm && k > 0 ? k : n;   /* columns of B (TRSM) or C */
    size_t a_el = trsm ? (size_t)n * n : (size_t)n * k, b_el = (size_t)n * nb;
    printf("ooc %s: n = %ld, k = %ld, operands %.1f GB, GPU memory %.1f GB\n", r, n, trsm ? nb : k,
           (a_el + b_el) * 4e-9, total_b * 1e-9);
    float *A = malloc(a_el * 4), *B = malloc(b_el * 4);
    enum { SAMPLES = 4 };
    long col[SAMPLES] = {0, nb / 3, (2 * nb) / 3, nb - 1};
    float *keep = malloc(sizeof(float) * SAMPLES * n);
    if (!A || !B || !keep) { fprintf(stderr, "bench_l3: out of host memory\n"); return 1; }
    fill_f(A, a_el, 11, trsm ? 1.0f / n : 1.0f);
    if (trsm)
        for (long i = 0; i < n; i++) A[(size_t)i * n + i] = 2.0f + (i % 7) * 0.25f;
    fill_f(B, b_el, 12, 1.0f);
    for (int s = 0; s < SAMPLES; s++) memcpy(keep + (size_t)s * n, B + (size_t)col[s] * n, n * 4);
    double t0 = bench_now();
    int st = trsm ? cufort_strsm_host('L', 'L', 'N', 'N', n, nb, 1.0f, A, n, B, n)
                  : cufort_ssyrk_host('L', 'N', n, k, 1.0f, A, n, 0.5f, B, n);
    double t = bench_now() - t0;
    printf("ooc %s: status %d (%s), %.1f s, %.1f TF/s\n", r, st, st ? cufort_last_error() : "", t,
           (double)n * n * (trsm ? nb : k) / t / 1e12);
    int bad = st != 0;
    for (int s = 0; s < SAMPLES && !st; s++) {
        const float *x = B + (size_t)col[s] * n, *b0 = keep + (size_t)s * n;
        double worst = 0;
        long j = col[s];
#pragma omp parallel for reduction(max : worst)
        for (long i = 0; i < n; i++) {
            double v = 0, mag = 0;
            if (trsm) {   /* (A x)_i = b_i, A lower */
                for (long q = 0; q <= i; q++) v += (double)A[i + (size_t)q * n] * x[q], mag += fabs((double)A[i + (size_t)q * n] * x[q]);
                worst = fmax(worst, fabs(v - b0[i]) / (mag + fabs(b0[i])));
            } else if (i >= j) {   /* C_ij = A_i. A_j. + 0.5 C0_ij */
                for (long q = 0; q < k; q++) v += (double)A[i + (size_t)q * n] * A[j + (size_t)q * n], mag += fabs((double)A[i + (size_t)q * n] * A[j + (size_t)q * n]);
                v += 0.5 * b0[i];
                worst = fmax(worst, fabs(v - x[i]) / (mag + 0.5 * fabs(b0[i])));
            } else {   /* the upper triangle untouched */
                worst = fmax(worst, x[i] == b0[i] ? 0 : 1);
            }
        }
        int ok = worst < 1e-4;
        bad += !ok;
        printf("ooc %s: column %ld: largest relative error %.2e %s\n", r, j, worst, ok ? "ok" : "WRONG");
    }
    printf("ooc %s: %s\n", r, bad ? "FAILED" : "correct");
    free(A), free(B), free(keep);
    return bad != 0;
}

int main(int argc, char **argv)
{
    const char *sizes = "1024,2048,4096,8192,16384", *routines = "gemm,trsm,trmm,syrk,symm";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
        else if (!strcmp(argv[i], "--routines") && i + 1 < argc) routines = argv[++i];
        else if (!strcmp(argv[i], "--nvblas")) nvblas_only = 1;
        else if (!strcmp(argv[i], "--copy2d")) {
            CK(cufort_init());
            copy2d_rates();
            return 0;
        } else if (!strcmp(argv[i], "--ooc") && i + 2 < argc) {
            CK(cufort_init());
            return ooc(argv[i + 1], atol(argv[i + 2]), i + 3 < argc ? atol(argv[i + 3]) : 0);
        }
    }
    CK(cufort_init());
    {   /* the process's one-time costs (cuBLAS, the engines' streams) stay out of the first calls */
        arrays w = make(512);
        const char *all[] = {"gemm", "trsm", "syrk", "symm"};
        for (int i = 0; i < 4; i++)
            engine(all[i], 512, &w), whole(all[i], 512, &w);
        release(w);
    }
    double h2d = rate(1), d2h = rate(0);
    printf("pinned H2D %.1f GB/s, D2H %.1f GB/s\n", h2d / 1e9, d2h / 1e9);
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_l3.csv", getenv("OUT") ? getenv("OUT") : ".");
    FILE *csv = fopen(path, "a");
    if (!csv) return 1;
    char rl[256];
    snprintf(rl, sizeof rl, "%s", routines);
    for (char *r = strtok(rl, ","); r; r = strtok(NULL, ",")) {
        char sl[256];
        snprintf(sl, sizeof sl, "%s", sizes);
        char *save;
        for (char *s = strtok_r(sl, ",", &save); s; s = strtok_r(NULL, ",", &save))
            run(r, atoi(s), h2d, d2h, csv);
    }
    fclose(csv);
    /* against the trace build (make trace-build): the timeline, while its GPU events still exist */
    void (*dump)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "cufort_trace_dump");
    if (dump)
        dump();
    cufort_shutdown();
    return 0;
}
