/* ooc_gemm.c — one SGEMM on host arrays whose three matrices together exceed the GPU's memory
 * (out of core): n chosen from the device's total memory unless given, C = A*B + C through
 * cufort_sgemm_host, then 64 elements of C checked against a double-precision dot product.
 * Usage: ooc_gemm [n].  Prints the plan the engine chose, the time and the largest relative error. */
#define _GNU_SOURCE
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"
#include "cufort.h"
#include "../c_wrappers/thunk/gemm_engine.h"

static float value(size_t i, unsigned seed)   /* in [-1, 1), cheap, never the same pattern twice */
{
    unsigned h = (unsigned)(i * 2654435761u) ^ (seed * 0x9E3779B9u);
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return (float)(h & 0xffff) / 32768.0f - 1.0f + 1.0f / 65536.0f;
}

int main(int argc, char **argv)
{
    if (cufort_init()) { fprintf(stderr, "%s\n", cufort_last_error()); return 1; }
    cufort_device_properties props;
    cufort_get_device_properties(0, &props);
    int64_t n = argc > 1 ? atoll(argv[1]) : 0;
    if (n <= 0)   /* the smallest n (a multiple of 1000) with 3 n^2 floats > the device's memory */
        for (n = 1000; 3.0 * n * n * 4 <= (double)props.total_memory; n += 1000) {}
    size_t elems = (size_t)n * n;
    printf("device %s, %.1f GiB; n = %lld: three matrices of %.1f GiB, %.1f GiB together\n",
           props.name, props.total_memory / 1073741824.0, (long long)n, elems * 4 / 1073741824.0,
           3 * elems * 4 / 1073741824.0);
    float *A = malloc(elems * 4), *B = malloc(elems * 4), *C = malloc(elems * 4);
    if (!A || !B || !C) { printf("out of host memory\n"); return 1; }
    double t0 = bench_now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < elems; i++) A[i] = value(i, 1), B[i] = value(i, 2), C[i] = value(i, 3);
    printf("filled in %.1f s\n", bench_now() - t0);
    t0 = bench_now();
    int st = cufort_sgemm_host('N', 'N', n, n, n, 1.0f, A, n, B, n, 1.0f, C, n);
    double t = bench_now() - t0;
    cufort_gemm_plan_info info;
    cufort_thunk_gemm_last_plan(&info);
    printf("sgemm: status %d %s; %.2f s = %.1f TFLOP/s; plan: %s, tiles %lld x %lld x %lld, "
           "%.1f GiB on the device, %.1f GB in, %.1f GB out\n", st, cufort_last_error(), t,
           2.0 * n * n * (double)n / t / 1e12, info.resident ? "A and B resident" : "out of core",
           (long long)info.mb, (long long)info.nb, (long long)info.kb, info.device_bytes / 1073741824.0,
           info.bytes_in / 1e9, info.bytes_out / 1e9);
    double worst = 0;
#pragma omp parallel for reduction(max : worst)
    for (int s = 0; s < 64; s++) {
        size_t i = (size_t)((s * 7919ull) % n), j = (size_t)((s * 104729ull + 13) % n);
        double ref = value(i + j * n, 3), mag = fabs(ref);
        for (size_t l = 0; l < (size_t)n; l++) {
            double p = (double)value(i + l * n, 1) * value(l + j * n, 2);
            ref += p;
            mag += fabs(p);
        }
        double err = fabs(C[i + j * n] - ref) / mag;
        worst = err > worst ? err : worst;
    }
    printf("64 sampled elements: largest |error| / sum|terms| = %.3g (FP32 bound ~ n eps = %.3g)\n",
           worst, n * 1.19e-7);
    int ok = st == 0 && worst < n * 1.19e-7;
    printf("%s\n", ok ? "ooc_gemm: OK" : "ooc_gemm: FAILED");
    cufort_shutdown();
    return !ok;
}
