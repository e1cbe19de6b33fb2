/* fft_bench.c — cufort's FFT against cuFFT called directly, and thunked transforms against the
 * transfer floor, side by side in one run.  Cases: one 2^24-point C2C transform and a
 * batch of 4096 C2C transforms of 4096 points (single precision, out of place).
 *   device   cufort_fft_exec on device memory        vs  cufftExecC2C on the same sizes
 *   thunked  cufort_fft_exec_host on host arrays     vs  floor = bytes in / pinned H2D bandwidth
 *                                                        + bytes out / pinned D2H bandwidth
 * Each comparison is timed in turns, rep by rep, so that a slow spell of this shared host falls on
 * both sides alike: cuFFT and cufort on device memory (CUDA events, 5 warm-ups, 30 reps), and the
 * thunked call beside the pinned copies that make its floor (20 reps; the thunked calls by wall
 * clock, the call being synchronous).  Medians, and for the thunked calls also the median of each
 * rep's thunked time over that rep's floor ("paired").  Timed one after the other, the floor's
 * copies sometimes read 40-49 GB/s, and the device calls once read 1.096 of cuFFT.  The thunked calls' last results are checked against the device call's;
 * a difference fails the run (exit 1).
 * The thunked calls run twice: first with the pin cache off ("staged": every call packs the
 * pageable arrays through pinned slots), then on ("cached", in turns with a floor of its own): the
 * third call pins both arrays in place, and its first three calls are printed one by one, the cost
 * of pinning included.  Table on stdout; CSV to $OUT/fft_bench.csv when OUT is set, else
 * fft_bench.csv. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime.h>
#include <cufft.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cufort.h"

#define CHECK_CUDA(call)                                                                          \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));                  \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)
#define CHECK_CUFORT(call)                                                                        \
    do {                                                                                          \
        int s_ = (call);                                                                          \
        if (s_) {                                                                                 \
            fprintf(stderr, "%s failed: %s\n", #call, cufort_last_error());                     \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

enum { WARM = 5, REPS = 30, HOST_WARM = 3, HOST_REPS = 20 };

static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static float median(float *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* milliseconds of one fn(arg) between two events on the default stream */
static float device_ms(void (*fn)(void *), void *arg, cudaEvent_t a, cudaEvent_t b)
{
    float ms;
    CHECK_CUDA(cudaEventRecord(a, 0));
    fn(arg);
    CHECK_CUDA(cudaEventRecord(b, 0));
    CHECK_CUDA(cudaEventSynchronize(b));
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

/* fn[0..n) in turns, reps times after warm warm-ups; t[k][r]: rep r of fn[k], ms.  wall[k]: time
 * fn[k] by the wall clock (a synchronous call), else between events */
enum { MAX_FNS = 4 };
static void in_turns(void (*const *fn)(void *), const int *wall, int n, void *arg, int warm, int reps,
                     float t[][REPS])
{
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    for (int k = 0; k < n; k++)
        for (int i = 0; i < warm; i++)
            fn[k](arg);
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < n; k++) {
            if (!wall[k]) {
                t[k][r] = device_ms(fn[k], arg, a, b);
                continue;
            }
            double t0 = now_ms();
            fn[k](arg);
            t[k][r] = (float)(now_ms() - t0);
        }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
}

typedef struct {
    cufftHandle direct;
    cufort_fft_plan plan;
    void *d_in, *d_out, *h_in, *h_out;
    void *p_in, *p_out;                 /* pinned copies, for the bandwidth floor */
    size_t bytes;
} bench;

static void run_direct(void *a)
{
    bench *b = a;
    if (cufftExecC2C(b->direct, b->d_in, b->d_out, CUFFT_FORWARD) != CUFFT_SUCCESS)
        exit(1);
}
static void run_cufort(void *a)
{
    bench *b = a;
    CHECK_CUFORT(cufort_fft_exec(b->plan, b->d_in, b->d_out, CUFORT_FFT_FORWARD));
}
static void run_thunked(void *a)
{
    bench *b = a;
    CHECK_CUFORT(cufort_fft_exec_host(b->plan, b->h_in, b->h_out, CUFORT_FFT_FORWARD));
}
static void run_thunked_pinned(void *a)
{
    bench *b = a;
    CHECK_CUFORT(cufort_fft_exec_host(b->plan, b->p_in, b->p_out, CUFORT_FFT_FORWARD));
}
static void run_h2d(void *a)
{
    bench *b = a;
    CHECK_CUDA(cudaMemcpy(b->d_in, b->p_in, b->bytes, cudaMemcpyHostToDevice));
}
static void run_d2h(void *a)
{
    bench *b = a;
    CHECK_CUDA(cudaMemcpy(b->p_out, b->d_out, b->bytes, cudaMemcpyDeviceToHost));
}

/* largest |a - ref| over the largest |ref|: the thunked results against the device call's */
static double rel_diff(const float *a, const float *ref, size_t n)
{
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)a[i] - ref[i]), r = fabs((double)ref[i]);
        if (isnan(e))
            return INFINITY;   /* fails the check */
        d = e > d ? e : d;
        m = r > m ? r : m;
    }
    return m > 0 ? d / m : 1;
}

int main(void)
{
    int bad = 0;
    CHECK_CUFORT(cufort_init_backend(CUFORT_BACKEND_CUDA));
    cufort_device_properties props;
    CHECK_CUFORT(cufort_get_device_properties(0, &props));
    const char *out_dir = getenv("OUT");
    char path[1024];
    snprintf(path, sizeof path, "%s/fft_bench.csv", out_dir ? out_dir : ".");
    FILE *csv = fopen(path, "w");
    if (!csv) {
        perror(path);
        return 2;
    }
    fprintf(csv, "case,points,batch,direct_ms,device_ms,device_over_direct,h2d_GBps,d2h_GBps,"
                 "floor_ms,thunked_ms,thunked_over_floor,paired_over_floor,thunked_pinned_ms,"
                 "pinned_over_floor,cached_floor_ms,cached_ms,cached_over_floor,cached_paired,"
                 "cached_first_ms,cached_second_ms,cached_third_ms\n");
    printf("device: %s\n", props.name);
    printf("%-22s %9s %9s %7s | %8s %8s %9s %7s %10s %7s %7s | %8s %7s %7s %7s\n", "case",
           "cuFFT ms", "cufort ms", "ratio", "H2D GB/s", "D2H GB/s", "floor ms", "thunk", "x floor",
           "paired", "pinned", "floor ms", "cached", "x floor", "paired");
    static const struct { const char *name; long long n, batch; } cases[] = {
        {"c2c 2^24 x 1", 1 << 24, 1}, {"c2c 4096 x 4096", 4096, 4096}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        bench b = {0};
        b.bytes = (size_t)cases[c].n * cases[c].batch * 8;
        int n = (int)cases[c].n;
        if (cufftPlanMany(&b.direct, 1, &n, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, (int)cases[c].batch) !=
            CUFFT_SUCCESS)
            return 1;
        CHECK_CUFORT(cufort_fft_plan_1d(&b.plan, CUFORT_FFT_C2C, cases[c].n, cases[c].batch));
        CHECK_CUFORT(cufort_alloc(&b.d_in, (int64_t)b.bytes));
        CHECK_CUFORT(cufort_alloc(&b.d_out, (int64_t)b.bytes));
        b.h_in = malloc(b.bytes);
        b.h_out = malloc(b.bytes);
        CHECK_CUFORT(cufort_host_alloc(&b.p_in, (int64_t)b.bytes));
        CHECK_CUFORT(cufort_host_alloc(&b.p_out, (int64_t)b.bytes));
        float *f = b.h_in;   /* random, never zero */
        for (size_t i = 0; i < b.bytes / 4; i++)
            f[i] = 0.1f + (float)((i * 2654435761u) % 1000u) / 1000.0f;
        memset(b.h_out, 0x7f, b.bytes);
        memcpy(b.p_in, b.h_in, b.bytes);
        CHECK_CUDA(cudaMemcpy(b.d_in, b.h_in, b.bytes, cudaMemcpyHostToDevice));

        float t[MAX_FNS][REPS], ratio[HOST_REPS];
        static void (*const device_fns[])(void *) = {run_direct, run_cufort};
        static const int by_events[] = {0, 0};
        in_turns(device_fns, by_events, 2, &b, WARM, REPS, t);
        float direct = median(t[0], REPS), device = median(t[1], REPS);
        /* the floor: bytes in at the pinned H2D rate plus bytes out at the D2H rate */
        static void (*const host_fns[])(void *) = {run_h2d, run_d2h, run_thunked, run_thunked_pinned};
        static const int by_wall[] = {0, 0, 1, 1};
        CHECK_CUFORT(cufort_pin_cache_limit(0));
        in_turns(host_fns, by_wall, 4, &b, HOST_WARM, HOST_REPS, t);
        for (int r = 0; r < HOST_REPS; r++)
            ratio[r] = t[2][r] / (t[0][r] + t[1][r]);
        /* the last thunked calls' results against the device call's (d_out: cufort's transform of
         * the same input; the floor's copies leave it as it was) */
        float *ref = malloc(b.bytes);
        CHECK_CUDA(cudaMemcpy(ref, b.d_out, b.bytes, cudaMemcpyDeviceToHost));
        double e_pageable = rel_diff(b.h_out, ref, b.bytes / 4);
        double e_pinned = rel_diff(b.p_out, ref, b.bytes / 4);
        printf("check %s: thunked pageable %.1e, pinned %.1e (relative to the device result)\n",
               cases[c].name, e_pageable, e_pinned);
        bad |= !(e_pageable < 1e-5) || !(e_pinned < 1e-5);
        float h2d = median(t[0], HOST_REPS), d2h = median(t[1], HOST_REPS);
        float thunked = median(t[2], HOST_REPS), pinned = median(t[3], HOST_REPS);
        float paired = median(ratio, HOST_REPS);
        double gb = b.bytes / 1e9, floor_ms = h2d + d2h;

        /* the same pageable arrays with the pin cache on */
        CHECK_CUFORT(cufort_pin_cache_limit(-1));
        double first[3];
        for (int i = 0; i < 3; i++) {
            double t0 = now_ms();
            run_thunked(&b);
            first[i] = now_ms() - t0;
        }
        int64_t held = 0;
        int arrays = 0, watch = 0;
        CHECK_CUFORT(cufort_pin_cache_info(&held, &arrays, &watch));
        static void (*const cached_fns[])(void *) = {run_h2d, run_d2h, run_thunked};
        memset(b.h_out, 0x7f, b.bytes);
        in_turns(cached_fns, by_wall, 3, &b, 0, HOST_REPS, t);
        for (int r = 0; r < HOST_REPS; r++)
            ratio[r] = t[2][r] / (t[0][r] + t[1][r]);
        double e_cached = rel_diff(b.h_out, ref, b.bytes / 4);
        bad |= !(e_cached < 1e-5);
        float cached_floor = median(t[0], HOST_REPS) + median(t[1], HOST_REPS);
        float cached = median(t[2], HOST_REPS), cached_paired = median(ratio, HOST_REPS);
        CHECK_CUFORT(cufort_pin_cache_limit(0));
        printf("cached %s: %d arrays pinned (%lld MiB; watching %s); first calls %.2f, %.2f, %.2f "
               "ms; result %.1e\n", cases[c].name, arrays, (long long)(held >> 20),
               watch ? "works" : "refused", first[0], first[1], first[2], e_cached);
        free(ref);

        printf("%-22s %9.3f %9.3f %7.3f | %8.1f %8.1f %9.3f %7.2f %10.2f %7.2f %7.2f | %8.3f %7.2f "
               "%7.2f %7.2f\n", cases[c].name, direct, device, device / direct, gb / h2d * 1e3,
               gb / d2h * 1e3, floor_ms, thunked, thunked / floor_ms, paired, pinned, cached_floor,
               cached, cached / cached_floor, cached_paired);
        fprintf(csv, "%s,%lld,%lld,%.4f,%.4f,%.4f,%.2f,%.2f,%.4f,%.4f,%.3f,%.3f,%.4f,%.3f,%.4f,%.4f,"
                "%.3f,%.3f,%.3f,%.3f,%.3f\n", cases[c].name, cases[c].n, cases[c].batch, direct,
                device, device / direct, gb / h2d * 1e3, gb / d2h * 1e3, floor_ms, thunked,
                thunked / floor_ms, paired, pinned, pinned / floor_ms, cached_floor, cached,
                cached / cached_floor, cached_paired, first[0], first[1], first[2]);
        cufftDestroy(b.direct);
        cufort_fft_destroy(b.plan);
        cufort_free(b.d_in);
        cufort_free(b.d_out);
        cufort_host_free(b.p_in);
        cufort_host_free(b.p_out);
        free(b.h_in);
        free(b.h_out);
    }
    fclose(csv);
    printf("csv: %s\n", path);
    cufort_shutdown();
    if (bad)
        printf("FAILED: a thunked result differs from the device result\n");
    return bad;
}
