/* test_fft_threads.c — one FFT plan run on host arrays by several threads at once
 * (cufort_fft_exec_host), as FFTW allows for its plans and the FFTW drop-in needs.
 *
 * The plan object must not be written by an execution (a stream swapped into it by one thread would
 * be restored by another to the wrong value), and cuFFT's plan and work area serve one execution at a
 * time: an execution that finds its plan busy runs on a twin from the plan cache.  Checked: every
 * thread's results equal the serial ones, the plan keeps the stream it was given, and twins were
 * taken from the cache while the plan was busy. */
#include "check.h"

#include <complex.h>

#include "cufort.h"
#include "fft_internal.h"   /* the plan cache's counters */

enum { N = 3000, BATCH = 3, THREADS = 4, ROUNDS = 40 };

static cufort_fft_plan plan;
static double complex *reference_in, *reference_out;

static int run_thread(int id, char *err, size_t errlen)
{
    size_t total = (size_t)N * BATCH;
    double complex *in = malloc(total * sizeof *in), *out = malloc(total * sizeof *out);
    int fails = 0;
    for (int r = 0; r < ROUNDS; r++) {
        /* each thread's input: the reference scaled by its own factor, so a mix-up shows */
        double k = 1.0 + id + 0.01 * r;
        for (size_t i = 0; i < total; i++) {
            in[i] = k * reference_in[i];
            out[i] = NAN;
        }
        int st = cufort_fft_exec_host(plan, in, out, CUFORT_FFT_FORWARD);
        double worst = 0, norm = 0;
        for (size_t i = 0; i < total; i++) {
            worst = fmax(worst, cabs(out[i] - k * reference_out[i]));
            norm = fmax(norm, cabs(k * reference_out[i]));
        }
        if (st != CUFORT_SUCCESS || !(worst <= 1e-12 * norm)) {
            if (!fails++)
                snprintf(err, errlen, "round %d: status %s (%s), error %.3g of %.3g", r,
                         cufort_status_string(st), ck_err(), worst, norm);
        }
    }
    free(in);
    free(out);
    return fails;
}

int main(void)
{
    ck_begin("fft_threads", 300);
    CHECK_OK(cufort_init(), "cufort_init");
    size_t total = (size_t)N * BATCH;
    reference_in = malloc(total * sizeof *reference_in);
    reference_out = malloc(total * sizeof *reference_out);
    ck_seed(7);
    for (size_t i = 0; i < total; i++)
        reference_in[i] = ck_randd() + I * ck_randd();
    CHECK_OK(cufort_fft_plan_1d(&plan, CUFORT_FFT_Z2Z, N, BATCH), "plan Z2Z n=3000 batch 3");
    cufort_stream mine;
    CHECK_OK(cufort_stream_create(&mine), "a stream of the program's");
    CHECK_OK(cufort_fft_set_stream(plan, mine), "the plan is given it");
    CHECK_OK(cufort_fft_exec_host(plan, reference_in, reference_out, CUFORT_FFT_FORWARD),
             "the serial result");

    cufort_fft_cache_stats before, after;
    cufort_fft_cache_get_stats(&before);
    ck_threads(THREADS, run_thread, "runs the plan 40 times on its own arrays: the serial results");
    cufort_fft_cache_get_stats(&after);
    CHECK(after.hits + after.misses > before.hits + before.misses,
          "a busy plan lends its shape to twins from the plan cache",
          "cache hits %lld -> %lld, misses %lld -> %lld", (long long)before.hits,
          (long long)after.hits, (long long)before.misses, (long long)after.misses);
    CHECK(plan->stream == mine, "the plan keeps the stream it was given",
          "stream %p, given %p", (void *)plan->stream, (void *)mine);
    CHECK(plan->busy == 0, "the plan is not left busy", "busy = %d", plan->busy);

    /* the twins are plans like any other: the cache hands them out again, and they go at shutdown */
    CHECK_OK(cufort_fft_destroy(plan), "destroy");
    CHECK_OK(cufort_stream_destroy(mine), "stream destroy");
    free(reference_in);
    free(reference_out);
    CHECK_OK(cufort_shutdown(), "shutdown");
    return ck_end();
}
