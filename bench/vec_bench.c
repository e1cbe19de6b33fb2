/* vec_bench.c — level-1 BLAS on host arrays (thunking): cufort against what NVIDIA's fortran.c
 * thunking does (cublasSetVector from the caller's pageable array, the cuBLAS call, cublasGetVector
 * back) and against the floor (the vector's bytes at the pinned DMA rate, each way).  Cases, single
 * precision, 64 MiB spans of pageable memory:
 *   sscal   n = 16M, incx 1          x in and out
 *   sscal   n = 8M,  incx 2          every other element in and out, the gaps untouched
 *   saxpy   n = 16M, incx = incy = 1 x in, y in and out
 * All calls take turns rep by rep (a slow spell of this shared host falls on every case alike), by
 * the wall clock (each call is synchronous), 3 warm-ups and 11 reps, medians.  The library is
 * whatever libcufort.so the loader finds, so one binary times two builds (LD_LIBRARY_PATH).  Each
 * case's last cufort call is checked against the CPU, gaps included.  Table on stdout; CSV to
 * $OUT/vec_bench.csv when OUT is set. */
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
    const char *name;
    int64_t n, inc;
    int axpy;
} vcase;

static const vcase cases[] = {
    {"sscal n=16M inc 1", SPAN, 1, 0},
    {"sscal n=8M inc 2", SPAN / 2, 2, 0},
    {"saxpy n=16M inc 1", SPAN, 1, 1},
};
enum { NCASES = sizeof cases / sizeof cases[0], WAYS = 3 /* cufort, fortran.c, floor */ };

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

/* alpha alternates 2 and 1/2, so repeated calls keep the values exact and bounded */
static float alpha_of(int call) { return call % 2 ? 0.5f : 2.0f; }

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
                double t0 = now_ms();
                if (w == 0)
                    run_cufort(&cases[k], alpha_of(r));
                else if (w == 1)
                    run_fortran_c(&cases[k], alpha_of(r));
                else
                    run_floor(&cases[k]);
                if (r >= 0)
                    t[k][w][r] = now_ms() - t0;
            }

    const char *dir = getenv("OUT");
    char path[4096];
    snprintf(path, sizeof path, "%s/vec_bench.csv", dir && *dir ? dir : ".");
    FILE *csv = fopen(path, "w");
    if (csv)
        fprintf(csv, "case,cufort_ms,fortran_c_ms,floor_ms,cufort_x_floor,fortran_c_x_floor,wrong\n");
    printf("%-20s %10s %12s %9s %8s %11s  %s\n", "case", "cufort ms", "fortran.c ms", "floor ms",
           "x floor", "fortran.c x", "check");
    int failed = 0;
    for (int k = 0; k < NCASES; k++) {
        double m[WAYS];
        for (int w = 0; w < WAYS; w++) {
            qsort(t[k][w], REPS, sizeof(double), by_value);
            m[w] = t[k][w][REPS / 2];
        }
        int wrong = check(&cases[k]);
        failed |= wrong != 0;
        printf("%-20s %10.2f %12.2f %9.2f %8.2f %11.2f  %s (%d wrong)\n", cases[k].name, m[0], m[1],
               m[2], m[0] / m[2], m[1] / m[2], wrong ? "FAIL" : "ok", wrong);
        if (csv)
            fprintf(csv, "%s,%.3f,%.3f,%.3f,%.3f,%.3f,%d\n", cases[k].name, m[0], m[1], m[2],
                    m[0] / m[2], m[1] / m[2], wrong);
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
