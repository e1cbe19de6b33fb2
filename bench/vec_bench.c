/* vec_bench.c — level-1 BLAS on host arrays (thunking): cufort against what NVIDIA's fortran.c
 * thunking does (cublasSetVector from the caller's pageable array, the cuBLAS call, cublasGetVector
 * back) and against the floor (the vector's bytes as pinned DMAs, each way).  Cases, single
 * precision, pageable memory, at 4 KiB, 256 KiB, 4 MiB and 64 MiB:
 *   sscal   incx 1         x in and out
 *   sscal   incx 2         every other element of the span in and out, the gaps untouched
 *   saxpy   incx = incy = 1 x in, y in and out
 * All calls take turns rep by rep (a slow spell of this shared host falls on every case alike), by
 * the wall clock (each call is synchronous), 3 warm-ups and 11 reps, medians; a rep of a small case
 * is a run of calls (16 Mi elements' worth, at most 1000) divided by their number.  The library is
 * whatever libcufort.so the loader finds, so one binary times two builds (LD_LIBRARY_PATH).  Each
 * case's cufort call is checked on fresh data against the CPU, gaps included.  The cufort calls
 * run with the pin cache off (the staged path: "cufort"), then again case by case with it on
 * ("cached"; contiguous arrays pinned where they lie from their third copy, as the pin cache
 * takes them: these, malloc'd, any over 32 MiB, from 1 MiB those with a mapping of their own).
 * Table on stdout (ms per call); CSV to $OUT/vec_bench.csv when OUT is set. */
#define _POSIX_C_SOURCE 200809L
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cufort.h"

#define CHECK(ok, what)                                                                           \
    do {                                                                                          \
        if (!(ok)) {                                                                              \
            fprintf(stderr, "%s failed (%s)\n", what, cufort_last_error());                      \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

enum { WARM = 3, REPS = 11, SPAN = 16 << 20 /* floats */ };

typedef struct {
    char name[32];
    int64_t n, inc;
    int axpy, calls;   /* calls per rep */
} vcase;

static const int64_t spans[] = {1 << 10, 1 << 16, 1 << 20, SPAN};
enum { NSPANS = sizeof spans / sizeof spans[0], NKINDS = 3, NCASES = NSPANS * NKINDS };
enum { WAYS = 3 /* cufort, fortran.c, floor */ };
static vcase cases[NCASES];

static void make_cases(void)
{
    static const char *kinds[NKINDS] = {"sscal inc 1", "sscal inc 2", "saxpy inc 1"};
    for (int s = 0; s < NSPANS; s++)
        for (int k = 0; k < NKINDS; k++) {
            vcase *c = &cases[s * NKINDS + k];
            int64_t calls = SPAN / spans[s];
            c->inc = k == 1 ? 2 : 1;
            c->n = spans[s] / c->inc;
            c->axpy = k == 2;
            c->calls = (int)(calls > 1000 ? 1000 : calls);
            snprintf(c->name, sizeof c->name, "%s %lld KiB", kinds[k], (long long)spans[s] * 4 / 1024);
        }
}

static float *x, *y, *dx, *dy, *pinned;
static cublasHandle_t handle;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int by_value(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

/* alpha alternates 2 and 1/2 call by call, so repeated calls keep the values exact and bounded */
static float next_alpha(void)
{
    static unsigned calls;
    return calls++ % 2 ? 0.5f : 2.0f;
}

static void run_cufort(const vcase *c, float alpha)
{
    int st = c->axpy ? cufort_saxpy_host(c->n, alpha, x, c->inc, y, c->inc)
                     : cufort_sscal_host(c->n, alpha, x, c->inc);
    CHECK(st == CUFORT_SUCCESS, c->name);
}

static void run_fortran_c(const vcase *c, float alpha)
{
    int n = (int)c->n, inc = (int)c->inc;
    int ok = cublasSetVector(n, sizeof(float), x, inc, dx, inc) == CUBLAS_STATUS_SUCCESS;
    if (c->axpy) {
        ok = ok && cublasSetVector(n, sizeof(float), y, inc, dy, inc) == CUBLAS_STATUS_SUCCESS;
        ok = ok && cublasSaxpy(handle, n, &alpha, dx, inc, dy, inc) == CUBLAS_STATUS_SUCCESS;
        ok = ok && cublasGetVector(n, sizeof(float), dy, inc, y, inc) == CUBLAS_STATUS_SUCCESS;
    } else {
        ok = ok && cublasSscal(handle, n, &alpha, dx, inc) == CUBLAS_STATUS_SUCCESS;
        ok = ok && cublasGetVector(n, sizeof(float), dx, inc, x, inc) == CUBLAS_STATUS_SUCCESS;
    }
    CHECK(ok, "fortran.c-style thunking");
}

/* the vector's useful bytes in (x, and y for axpy) and out, as pinned DMAs */
static void run_floor(const vcase *c)
{
    size_t bytes = (size_t)c->n * sizeof(float);
    int copies_in = c->axpy ? 2 : 1;
    for (int i = 0; i < copies_in; i++)
        CHECK(cudaMemcpy(dx, pinned, bytes, cudaMemcpyHostToDevice) == cudaSuccess, "floor h2d");
    CHECK(cudaMemcpy(pinned, dx, bytes, cudaMemcpyDeviceToHost) == cudaSuccess, "floor d2h");
}

static void fill(void)
{
    srand(7);
    for (size_t i = 0; i < SPAN; i++) {
        x[i] = 1.0f + (float)rand() / RAND_MAX;
        y[i] = -1.0f - (float)rand() / RAND_MAX;
    }
}

/* one cufort call on fresh data against the CPU, every element of the span */
static int check(const vcase *c)
{
    fill();
    float *x0 = malloc(SPAN * sizeof(float)), *y0 = malloc(SPAN * sizeof(float));
    memcpy(x0, x, SPAN * sizeof(float));
    memcpy(y0, y, SPAN * sizeof(float));
    run_cufort(c, 2.0f);
    int64_t wrong = 0;
    for (int64_t i = 0; i < SPAN; i++) {
        int hit = i % c->inc == 0 && i / c->inc < c->n;
        float want_x = !c->axpy && hit ? 2.0f * x0[i] : x0[i];
        float want_y = c->axpy && hit ? y0[i] + 2.0f * x0[i] : y0[i];
        wrong += x[i] != want_x || y[i] != want_y;
    }
    free(x0);
    free(y0);
    return (int)(wrong > 0 ? (wrong > 1000000 ? 1000000 : wrong) : 0);
}

int main(void)
{
    CHECK(cufort_init() == CUFORT_SUCCESS, "cufort_init");
    /* the staged path first, as in the earlier figures; the cached calls come after */
    cufort_pin_cache_limit(0);
    make_cases();
    x = malloc(SPAN * sizeof(float));
    y = malloc(SPAN * sizeof(float));
    CHECK(x && y, "malloc");
    CHECK(cudaMalloc((void **)&dx, SPAN * sizeof(float)) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc((void **)&dy, SPAN * sizeof(float)) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMallocHost((void **)&pinned, SPAN * sizeof(float)) == cudaSuccess, "cudaMallocHost");
    CHECK(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
    fill();
    memset(pinned, 1, SPAN * sizeof(float));

    static double t[NCASES][WAYS][REPS];
    for (int r = -WARM; r < REPS; r++)
        for (int k = 0; k < NCASES; k++)
            for (int w = 0; w < WAYS; w++) {
                const vcase *c = &cases[k];
                double t0 = now_ms();
                for (int i = 0; i < c->calls; i++)
                    if (w == 0)
                        run_cufort(c, next_alpha());
                    else if (w == 1)
                        run_fortran_c(c, next_alpha());
                    else
                        run_floor(c);
                if (r >= 0)
                    t[k][w][r] = (now_ms() - t0) / c->calls;
            }

    /* the same cufort calls with the pin cache on, case by case: the arrays it takes are pinned
     * where they lie at their third copy (in the warm-ups), and go by DMA from there on */
    CHECK(cufort_pin_cache_limit(-1) == CUFORT_SUCCESS, "cufort_pin_cache_limit");
    static double cached[NCASES][REPS];
    for (int k = 0; k < NCASES; k++)
        for (int r = -WARM; r < REPS; r++) {
            const vcase *c = &cases[k];
            double t0 = now_ms();
            for (int i = 0; i < c->calls; i++)
                run_cufort(c, next_alpha());
            if (r >= 0)
                cached[k][r] = (now_ms() - t0) / c->calls;
        }

    const char *dir = getenv("OUT");
    char path[4096];
    snprintf(path, sizeof path, "%s/vec_bench.csv", dir && *dir ? dir : ".");
    FILE *csv = fopen(path, "w");
    if (csv)
        fprintf(csv, "case,cufort_ms,fortran_c_ms,floor_ms,cufort_x_floor,fortran_c_x_floor,"
                     "cached_ms,cached_x_floor,wrong\n");
    printf("%-24s %10s %12s %9s %8s %11s %10s %8s  %s\n", "case", "cufort ms", "fortran.c ms",
           "floor ms", "x floor", "fortran.c x", "cached ms", "x floor", "check");
    int failed = 0;
    for (int k = 0; k < NCASES; k++) {
        double m[WAYS];
        for (int w = 0; w < WAYS; w++) {
            qsort(t[k][w], REPS, sizeof(double), by_value);
            m[w] = t[k][w][REPS / 2];
        }
        qsort(cached[k], REPS, sizeof(double), by_value);
        double mc = cached[k][REPS / 2];
        int wrong = check(&cases[k]);   /* with the cache on: through the pinned arrays */
        failed |= wrong != 0;
        printf("%-24s %10.4f %12.4f %9.4f %8.2f %11.2f %10.4f %8.2f  %s (%d wrong)\n",
               cases[k].name, m[0], m[1], m[2], m[0] / m[2], m[1] / m[2], mc, mc / m[2],
               wrong ? "FAIL" : "ok", wrong);
        if (csv)
            fprintf(csv, "%s,%.5f,%.5f,%.5f,%.3f,%.3f,%.5f,%.3f,%d\n", cases[k].name, m[0], m[1],
                    m[2], m[0] / m[2], m[1] / m[2], mc, mc / m[2], wrong);
    }
    if (csv)
        fclose(csv);
    printf("library: %s backend\n", cufort_backend_name());
    cublasDestroy(handle);
    cudaFree(dx);
    cudaFree(dy);
    cudaFreeHost(pinned);
    cufort_shutdown();
    return failed;
}
