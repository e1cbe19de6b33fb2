/* test_fft_threads.c — one FFT plan run on host arrays by several threads at once
 * (cufort_fft_exec_host), as FFTW allows for its plans and the FFTW drop-in needs.
 *
 * The plan object must not be written by an execution (a stream swapped into it by one thread would
 * be restored by another to the wrong value), and cuFFT's plan and work area serve one execution at a
 * time: an execution that finds its plan busy runs on a twin from the plan cache.  Checked: every
 * thread's results equal the serial ones, the plan keeps the stream it was given, and twins were
 * taken from the cache while the plan was busy.
 *
 * Then plans from the plan cache (as `use cufort` takes and gives back its plan variables) run on
 * device arrays, each thread on a stream of its own, and go back with their transforms still in
 * flight: the next thread to take one must not run on its work area before they are done. */
#include "check.h"

#include <complex.h>

#include "cufort.h"
#include "fft_internal.h"   /* the plan cache's counters */

enum { N = 3000, BATCH = 3, THREADS = 4, ROUNDS = 40 };

static cufort_fft_plan plan;
static double complex *reference_in, *reference_out;

/* one round's result against k times the reference: the first failure is described in err */
static void check_round(int r, int st, const double complex *out, const double complex *ref,
                        double k, size_t n, int *fails, char *err, size_t errlen)
{
    double worst = 0, norm = 0;
    for (size_t i = 0; i < n && !st; i++) {
        worst = fmax(worst, cabs(out[i] - k * ref[i]));
        norm = fmax(norm, cabs(k * ref[i]));
    }
    if ((st != CUFORT_SUCCESS || !(worst <= 1e-12 * norm)) && !(*fails)++)
        snprintf(err, errlen, "round %d: status %s (%s), error %.3g of %.3g", r,
                 cufort_status_string(st), ck_err(), worst, norm);
}

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
        check_round(r, st, out, reference_out, k, total, &fails, err, errlen);
    }
    free(in);
    free(out);
    return fails;
}

enum { DN = 65537, DROUNDS = 25 };   /* a prime: cuFFT needs a work area */
static double complex *device_ref_in, *device_ref_out;

static int run_device_thread(int id, char *err, size_t errlen)
{
    size_t bytes = (size_t)DN * sizeof(double complex);
    double complex *in = malloc(bytes), *out = malloc(bytes);
    void *d_in = NULL, *d_out = NULL;
    cufort_stream s = NULL;
    int fails = 0, st;
    double k = 1.0 + id;   /* each thread's input: the reference scaled by its own factor */
    for (size_t i = 0; i < DN; i++)
        in[i] = k * device_ref_in[i];
    /* on a GPU, transforms enough to be still queued when the plan goes back, as the other
     * threads take it */
    int queued = cufort_backend() == CUFORT_BACKEND_CUDA ? 64 : 2;
    if ((st = cufort_stream_create(&s)) || (st = cufort_alloc(&d_in, bytes)) ||
        (st = cufort_alloc(&d_out, bytes)) || (st = cufort_set_vector(DN, 16, in, 1, d_in, 1))) {
        snprintf(err, errlen, "setup: %s (%s)", cufort_status_string(st), ck_err());
        fails = 1;
    }
    for (int r = 0; r < DROUNDS && !fails; r++) {
        cufort_fft_plan p = NULL;
        int generation = 0;
        int64_t n = DN;
        st = cufort_fft_plan_acquire(&p, &generation, CUFORT_FFT_Z2Z, 1, &n, 1, NULL, 0, 0, NULL,
                                     0, 0);
        if (!st)
            st = cufort_fft_set_stream(p, s);
        for (int q = 0; q < queued && !st; q++)
            st = cufort_fft_exec(p, d_in, d_out, CUFORT_FFT_FORWARD);
        if (p)
            cufort_fft_plan_release(p, generation);   /* the transform may still be running */
        for (size_t i = 0; i < DN; i++)
            out[i] = NAN;
        if (!st && !(st = cufort_get_vector_async(DN, 16, d_out, 1, out, 1, s)))
            st = cufort_stream_synchronize(s);
        check_round(r, st, out, device_ref_out, k, DN, &fails, err, errlen);
    }
    cufort_free(d_in);
    cufort_free(d_out);
    if (s)
        cufort_stream_destroy(s);
    free(in);
    free(out);
    return fails;
}

static void cached_plans_on_device_arrays(void)
{
    size_t bytes = (size_t)DN * sizeof(double complex);
    device_ref_in = malloc(bytes);
    device_ref_out = malloc(bytes);
    for (size_t i = 0; i < DN; i++)
        device_ref_in[i] = ck_randd() + I * ck_randd();
    cufort_fft_plan p = NULL;
    if (CHECK_OK(cufort_fft_plan_1d(&p, CUFORT_FFT_Z2Z, DN, 1), "plan Z2Z n=65537") &&
        CHECK_OK(cufort_fft_exec_host(p, device_ref_in, device_ref_out, CUFORT_FFT_FORWARD),
                 "the serial result, n=65537"))
        ck_threads(THREADS, run_device_thread,
                   "takes a cached plan 25 times, runs it on its stream and gives it back in flight: "
                   "the serial results");
    cufort_fft_destroy(p);
    free(device_ref_in);
    free(device_ref_out);
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
    cached_plans_on_device_arrays();
    free(reference_in);
    free(reference_out);
    CHECK_OK(cufort_shutdown(), "shutdown");
    return ck_end();
}
