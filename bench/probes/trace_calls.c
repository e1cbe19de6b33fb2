/* trace_calls.c — thunked calls on pageable arrays, each case WARM warm-ups then CALLS - WARM timed
 * calls, medians on stdout: sscal and saxpy from 256 KiB to 64 MiB, C2C FFTs of 2^24 and 4096 x
 * 4096, SGEMM (C = A B + C/2) of n = 2048 and 4096.  Built by `make trace-build` against the
 * library with the staging timeline (c_wrappers/thunk/stage_trace.h), it marks each timed call
 * with an event 'M' (case, call) before and, for the GEMMs, whose engine has no end event of its
 * own, 'Z' after; it writes the timeline to $CUFORT_STAGE_TRACE, which
 * bench/probes/trace_report.py reads; built by `make bench-build` it only times.  TRACE_ON_HOST=1
 * runs it on the host backend. */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>

#include "cufort.h"

#ifdef CUFORT_STAGE_TRACE
void cufort_trace_host(char code, long long a, long long b);
void cufort_trace_dump(void);
#define MARK(id, call) cufort_trace_host('M', (id), (call))
#define MARK_END(id, call) cufort_trace_host('Z', (id), (call))
#else
#define MARK(id, call) ((void)0)
#define MARK_END(id, call) ((void)0)
#define cufort_trace_dump() ((void)0)
#endif

#define CHECK(x) do { if ((x) != CUFORT_SUCCESS) { fprintf(stderr, "%s: %s\n", #x, cufort_last_error()); exit(1); } } while (0)

enum { CASES = 12, CALLS = 24, WARM = 6 };
static double t_us[CASES][CALLS];
static const char *names[CASES] = {"sscal 256KiB", "saxpy 256KiB", "sscal 4MiB", "saxpy 4MiB", "sscal 16MiB",
                                "saxpy 16MiB", "sscal 64MiB", "saxpy 64MiB", "fft 2^24", "fft 4096x4096",
                                "sgemm 2048", "sgemm 4096"};

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* CALLS calls of case id (call_expr may use `call`), the timed ones marked in the timeline (their
 * ends too where end_marked) */
#define TIME_CALLS_MARKED(id, call_expr, end_marked)                                              \
    for (int call = 0; call < CALLS; call++) {                                                    \
        if (call >= WARM)                                                                         \
            MARK(id, call);                                                                       \
        double t = now_us();                                                                      \
        CHECK(call_expr);                                                                         \
        t_us[id][call] = now_us() - t;                                                            \
        if (call >= WARM && (end_marked))                                                         \
            MARK_END(id, call);                                                                   \
    }
#define TIME_CALLS(id, call_expr) TIME_CALLS_MARKED(id, call_expr, 0)

int main(void)
{
    CHECK(cufort_init_backend(getenv("TRACE_ON_HOST") ? CUFORT_BACKEND_HOST : CUFORT_BACKEND_CUDA));
    /* the staged path, as in the earlier figures: the pin cache (fft_bench shows it) would pin
     * the arrays these calls pass again and again */
    cufort_pin_cache_limit(0);
    const int64_t floats = 64 << 20;   /* 256 MiB each: 64 MiB vectors, 2^24 complex in and out */
    float *x = malloc(floats * sizeof(float)), *y = malloc(floats * sizeof(float));
    if (!x || !y) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    for (int64_t i = 0; i < floats; i++)
        x[i] = (float)(i % 1000) * 1e-3f + 0.5f, y[i] = 1.0f - (float)(i % 777) * 1e-3f;
    static const int64_t sizes[] = {64 << 10, 1 << 20, 4 << 20, 16 << 20};   /* floats */
    int id = 0;
    for (int s = 0; s < 4; s++, id += 2) {
        TIME_CALLS(id, cufort_sscal_host(sizes[s], call % 2 ? 1.0001f : 0.9999f, x, 1));
        TIME_CALLS(id + 1, cufort_saxpy_host(sizes[s], call % 2 ? 1.0001f : 0.9999f, x, 1, y, 1));
    }
    static const int64_t shapes[2][2] = {{1 << 24, 1}, {4096, 4096}};   /* length, batch */
    for (int f = 0; f < 2; f++, id++) {
        cufort_fft_plan plan;
        CHECK(cufort_fft_plan_1d(&plan, CUFORT_FFT_C2C, shapes[f][0], shapes[f][1]));
        TIME_CALLS(id, cufort_fft_exec_host(plan, x, y, CUFORT_FFT_FORWARD));
        CHECK(cufort_fft_destroy(plan));
    }
    /* on pageable arrays, in the engine's plan (CUFORT_GEMM_TILE=4096: one tile each): A and B
     * staged up, the GEMM, C back with beta C added */
    float *z = malloc((size_t)4096 * 4096 * sizeof(float));
    if (!z) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    for (int64_t i = 0; i < 4096 * 4096; i++)
        z[i] = (float)(i % 555) * 1e-3f;
    for (int n = 2048; n <= 4096; n *= 2, id++)
        TIME_CALLS_MARKED(id, cufort_sgemm_host('N', 'N', n, n, n, 1.0f, x, n, y, n, 0.5f, z, n), 1);
    free(z);
    for (int c = 0; c < id; c++) {
        qsort(t_us[c] + WARM, CALLS - WARM, sizeof(double), by_value);
        printf("%-16s median %8.1f us  [%.1f - %.1f]\n", names[c], t_us[c][WARM + (CALLS - WARM) / 2],
               t_us[c][WARM], t_us[c][CALLS - 1]);
    }
    cufort_trace_dump();
    cufort_shutdown();
    free(x);
    free(y);
    return 0;
}
