/* test_staging.c — host arrays large enough to take the thunk engine's staged path (pinned slots,
 * chunks, host threads): packed arrays spanning several chunks, strided matrices cut by columns
 * whose gaps must survive, pinned arrays taking the direct path, several threads at once (a
 * large copy's extra threads leaving it when another copy starts), and gated downloads.
 * Results are exact (scaling by 2, copying), so every element is checked bit for bit. */
#define _GNU_SOURCE
#include <complex.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cufort.h"
#include "cufort_blas.h"
#include "staging.h"

static float value(int64_t i) { return 1.0f + (float)(i % 9973) * 0.25f; }   /* never zero, exact */

/* sscal by 2 through the thunk: n floats value(i + shift), any size; doubles are exact.  Returns
 * the number of wrong elements (-1: the call failed) and reports the first one. */
static int64_t scaled_wrong_from(float *x, int64_t n, int64_t shift)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = value(i + shift);
    if (cufort_sscal_host(n, 2.0f, x, 1))
        return -1;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        if (x[i] != 2.0f * value(i + shift) && bad++ == 0)
            printf("# first wrong element of %lld: x[%lld] = %g, want %g\n", (long long)n,
                   (long long)i, x[i], 2.0f * value(i + shift));
    return bad;
}

static int64_t scaled_wrong(float *x, int64_t n) { return scaled_wrong_from(x, n, 0); }

static void packed(void)
{
    /* 64 KiB + 4 bytes (just past the threshold: a 64 KiB piece and a 4-byte one), 300 KiB + 12
     * bytes (four pieces of 76, 76, 76 and 72 KiB + 12 bytes), 1 MiB + 4 bytes (four pieces and 4
     * bytes: the last group up and the first down are 4 bytes), 8 MiB exactly (four 2 MiB groups
     * up, the download's ramp of four down), 8 MiB + 1 float (3 MiB groups up, the last 2 MiB + 4
     * bytes), 21 MiB + odd (6 MiB groups), 14 MiB + 1 float, 40 MiB (5 groups of 8 MiB up, 8 down:
     * two slots used twice), 60 MiB + 3 floats (8 groups up, the last 4 MiB + 12 bytes; 11 down) */
    static const int64_t sizes[] = {(1 << 14) + 1,   (75 << 10) + 3, (1 << 18) + 1,
                                    2 << 20,         (2 << 20) + 1,  (21 << 18) + 77,
                                    (7 << 19) + 1,   10 << 20,       (15 << 20) + 3};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        float *x = malloc((size_t)sizes[k] * sizeof *x);
        int64_t bad = scaled_wrong(x, sizes[k]);
        CHECK(bad == 0, ckf("packed pageable %lld floats round trip", (long long)sizes[k]),
              "%lld elements wrong (-1: the call failed: %s)", (long long)bad, cufort_last_error());
        free(x);
    }
}

/* A gated download (the GEMM engine brings its last tile back while the tile is still being
 * computed): before each DMA the gate is asked for the image's bytes up to where that DMA ends,
 * once per group, the last ending at the image's end; the download waits for what the gate names,
 * here an event after 41 scalings of the device array on another stream (x2 and x0.5 in turn:
 * x2 in all); with no combine it lands as a copy, into a pinned array too (through the slots, not
 * the direct path, which would not wait); and a gate's failure fails the call with its message. */
typedef struct {
    cufort_event ev;
    size_t ends[64];
    int calls, fail_at;   /* fail_at < 0: never */
} gate_log;

static int log_gate(cufort_stream s, size_t end, const void *ctx)
{
    gate_log *g = (gate_log *)ctx;
    int k = __atomic_fetch_add(&g->calls, 1, __ATOMIC_RELAXED);
    if (k < 64)
        g->ends[k] = end;
    if (g->fail_at >= 0 && k >= g->fail_at)
        return cufort_fail(CUFORT_EXECUTION_FAILED, "the test's gate refused group %d", k);
    return cufort_ops()->stream_wait(s, g->ev);
}

static int by_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* the gate's ends: distinct, the largest the image's end, at least `least` of them */
static int ends_ok(gate_log *g, size_t total, int least)
{
    int n = g->calls < 64 ? g->calls : 64;
    qsort(g->ends, (size_t)n, sizeof *g->ends, by_size);
    for (int i = 1; i < n; i++)
        if (g->ends[i] == g->ends[i - 1])
            return 0;
    return n >= least && n == g->calls && g->ends[n - 1] == total;
}

static void gated(void)
{
    const int64_t n = (5 << 20) + 7;   /* 20 MiB and 28 bytes: groups of 4, 8, 4, 2, 1, 1 MiB */
    size_t bytes = (size_t)n * sizeof(float);
    float *src = malloc(bytes), *x = malloc(bytes), *pinned = NULL;
    void *dev = NULL;
    cufort_stream s = NULL, work = NULL;
    gate_log g = {.fail_at = -1};
    int ready = src && x;
    for (int64_t i = 0; ready && i < n; i++)
        src[i] = value(i), x[i] = -1.0f;
    if (!ready || cufort_alloc(&dev, (int64_t)bytes) || cufort_stream_create(&s) ||
        cufort_stream_create(&work) || cufort_event_create(&g.ev) ||
        cufort_host_alloc((void **)&pinned, (int64_t)bytes) ||
        cufort_stage_to_device_on(s, dev, src, bytes, bytes, 1) || cufort_stream_synchronize(s)) {
        CHECK(0, "gated download: set-up", "%s", ready ? cufort_last_error() : "no memory");
        goto out;
    }
    for (int round = 0; round < 2; round++) {
        float *to = round ? pinned : x;
        for (int64_t i = 0; i < n; i++)
            to[i] = -1.0f;
        /* the rewrite runs on `work`; the download on s is ordered after it by the gate alone */
        int rc = cufort_set_stream(work);
        for (int k = 0; k < 41 && !rc; k++)
            rc = cufort_sscal(n, k % 2 ? 0.5f : 2.0f, dev, 1);
        rc = rc ? rc : cufort_event_record(g.ev, work);
        cufort_set_stream(NULL);
        g.calls = 0;
        if (!rc)
            rc = cufort_stage_to_host_combined(s, to, bytes, dev, bytes, 1, NULL, log_gate, &g);
        int64_t bad = 0;
        for (int64_t i = 0; i < n; i++)
            bad += to[i] != 2.0f * value(i);
        const char *what = round ? "into a pinned array" : "into a pageable array";
        CHECK(rc == 0 && bad == 0, ckf("gated download %s: waits for the gate's work", what),
              "status %d, %lld elements wrong: %s", rc, (long long)bad, cufort_last_error());
        CHECK(ends_ok(&g, bytes, 6), ckf("gated download %s: the gate asked once per group", what),
              "%d calls, largest end %zu of %zu", g.calls,
              g.calls ? g.ends[(g.calls < 64 ? g.calls : 64) - 1] : 0, bytes);
        if (cufort_stream_synchronize(work) ||
            cufort_stage_to_device_on(s, dev, src, bytes, bytes, 1) || cufort_stream_synchronize(s))
            break;
    }
    g.calls = 0;
    g.fail_at = 2;
    int rc = cufort_stage_to_host_combined(s, x, bytes, dev, bytes, 1, NULL, log_gate, &g);
    CHECK(rc == CUFORT_EXECUTION_FAILED && strstr(cufort_last_error(), "gate refused"),
          "gated download: the gate's failure is the call's", "status %d, \"%s\"", rc,
          cufort_last_error());
out:
    if (s)
        cufort_stream_synchronize(s), cufort_stream_destroy(s);
    if (work)
        cufort_stream_synchronize(work), cufort_stream_destroy(work);
    if (g.ev)
        cufort_event_destroy(g.ev);
    cufort_free(dev);
    cufort_host_free(pinned);
    free(src), free(x);
}

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The threads that help with a copy must not keep cores busy once it is done: OpenMP's idle
 * threads spun for milliseconds and made the program's next CPU work (its CPU BLAS) slower.  Run
 * first, before anything in this process starts an OpenMP team of its own. */
static void idle_helpers_sleep(void)
{
    int64_t n = 10 << 20;
    float *x = malloc((size_t)n * sizeof *x);
    int64_t bad = scaled_wrong(x, n);
    CHECK(bad == 0, "40 MiB round trip before the idle check", "%lld wrong", (long long)bad);
    struct timespec wait = {0, 200000000};
    double c0 = cpu_seconds();
    nanosleep(&wait, NULL);
    double used = cpu_seconds() - c0;
    /* six helpers spinning 200 us each: 1.2 ms; OpenMP teams spun for milliseconds each on the H100 host */
    CHECK(used < 0.004, "after a staged copy the helper threads sleep (CPU time over 0.2 s idle)",
          "%.4f s of CPU used while the program slept", used);
    free(x);
}

static void pinned_arrays(void)
{
    int64_t n = (5 << 20) + 3;
    float *x = NULL;
    CHECK_OK(cufort_host_alloc((void **)&x, n * (int64_t)sizeof *x), "pinned alloc");
    int64_t bad = x ? scaled_wrong(x, n) : -1;
    CHECK(bad == 0, "pinned array round trip (direct path)", "%lld wrong", (long long)bad);
    cufort_host_free(x);
    float *y = malloc((size_t)n * sizeof *y);
    CHECK_OK(cufort_host_register(y, n * (int64_t)sizeof *y), "register a malloc'd array");
    bad = scaled_wrong(y, n);
    CHECK(bad == 0, "registered array round trip", "%lld wrong", (long long)bad);
    CHECK_OK(cufort_host_unregister(y), "unregister");
    free(y);
}

/* C = 2*A (m x n) with lda > m and ldc > m through sgeam_host: exact, and the gaps between C's
 * columns keep what they held */
static void doubled(const char *what, int64_t m, int64_t n, int64_t lda, int64_t ldc)
{
    float *a = malloc((size_t)(lda * n) * sizeof *a), *c = malloc((size_t)(ldc * n) * sizeof *c);
    for (int64_t i = 0; i < lda * n; i++)
        a[i] = value(i);
    for (int64_t i = 0; i < ldc * n; i++)
        c[i] = -7.0f;    /* the gaps must keep this */
    int st = cufort_sgeam_host('N', 'N', m, n, 2.0f, a, lda, 0.0f, a, lda, c, ldc);  /* B unread */
    CHECK_OK(st, ckf("%s: sgeam_host", what));
    int64_t wrong = 0, gaps = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < ldc; i++) {
            float got = c[i + j * ldc];
            if (i < m)
                wrong += got != 2.0f * a[i + j * lda];
            else
                gaps += got != -7.0f;
        }
    CHECK(wrong == 0, ckf("%s: result exact", what), "%lld elements wrong", (long long)wrong);
    CHECK(gaps == 0, ckf("%s: gaps between columns untouched", what), "%lld gap elements written",
          (long long)gaps);
    free(a);
    free(c);
}

static void strided(void)
{
    /* 12 MB of 4000-byte columns: pieces of many whole columns */
    doubled("strided", 1000, 3001, 1003, 1001);
    /* 2.8 MB columns, wider than a piece: pieces start and end inside columns */
    doubled("wide columns", 700001, 5, 700004, 700010);
}

/* vectors with an increment reach the staging as columns of one element (4, 8 or 16 bytes), packed
 * and unpacked an element at a time; the elements in between must keep their values.  A negative
 * increment walks the same elements from the other end.  n elements, step apart. */
enum { VEC_N = 300001 };
static int64_t span_of(int64_t step) { return (VEC_N - 1) * step + 1; }

static void vector_checks(int64_t inc, int64_t wrong, int64_t gaps)
{
    CHECK(wrong == 0, ckf("strided vector, increment %lld: elements right", (long long)inc),
          "%lld wrong", (long long)wrong);
    CHECK(gaps == 0, ckf("strided vector, increment %lld: the elements between untouched",
                         (long long)inc), "%lld changed", (long long)gaps);
}

static void strided_vectors(void)
{
    int64_t n = VEC_N, wrong = 0, gaps = 0, span = span_of(3);
    float *x = malloc((size_t)span * sizeof *x);
    for (int64_t i = 0; i < span; i++)
        x[i] = value(i);
    CHECK_OK(cufort_sscal_host(n, 2.0f, x, 3), "sscal_host, increment 3");
    for (int64_t i = 0; i < span; i++)
        i % 3 ? (gaps += x[i] != value(i)) : (wrong += x[i] != 2.0f * value(i));
    free(x);
    vector_checks(3, wrong, gaps);

    /* (scal ignores increments <= 0, as BLAS does: a copy into the strided vector) */
    wrong = gaps = 0, span = span_of(2);
    double *d = malloc((size_t)span * sizeof *d), *y = malloc((size_t)n * sizeof *y);
    for (int64_t i = 0; i < span; i++)
        d[i] = value(i);
    for (int64_t j = 0; j < n; j++)
        y[j] = -value(j);
    CHECK_OK(cufort_dcopy_host(n, y, 1, d, -2), "dcopy_host into increment -2");
    for (int64_t i = 0; i < span; i++)   /* y[j] lands at (n - 1 - j) * 2 */
        i % 2 ? (gaps += d[i] != value(i)) : (wrong += d[i] != -value(n - 1 - i / 2));
    free(d);
    free(y);
    vector_checks(-2, wrong, gaps);

    wrong = gaps = 0, span = span_of(7);
    cufort_cdouble *z = malloc((size_t)span * sizeof *z);
    for (int64_t i = 0; i < span; i++)
        z[i] = value(i) - value(i + 1) * I;
    CHECK_OK(cufort_zscal_host(n, 2.0, z, 7), "zscal_host, increment 7");
    for (int64_t i = 0; i < span; i++) {
        double f = i % 7 ? 1.0 : 2.0;
        int bad = creal(z[i]) != f * value(i) || cimag(z[i]) != -f * value(i + 1);
        i % 7 ? (gaps += bad) : (wrong += bad);
    }
    free(z);
    vector_checks(7, wrong, gaps);
}

/* called from inside the caller's own OpenMP region: the staging team is then one thread */
static void nested(void)
{
    int64_t bad[3] = {-2, -2, -2};
#pragma omp parallel num_threads(3)
    {
        int64_t n = (5 << 18) + 13;
        float *x = malloc((size_t)n * sizeof *x);
        bad[omp_get_thread_num()] = scaled_wrong(x, n);
        free(x);
    }
    for (int i = 0; i < 3; i++)
        CHECK(bad[i] == 0, ckf("staged round trip from OpenMP thread %d", i), "%lld wrong",
              (long long)bad[i]);
}

/* three round trips of n floats through one thread's staging, each of values shifted by `first`,
 * then `step` more each round (a nonzero step: what a round failed to move must not pass for
 * moved) */
typedef struct { int64_t n, first, step, bad; } round_trips;

static void *round_trip_thread(void *arg)
{
    round_trips *t = arg;
    float *x = malloc((size_t)t->n * sizeof *x);
    t->bad = x ? 0 : -1;
    for (int r = 0; r < 3 && t->bad == 0; r++)
        t->bad = scaled_wrong_from(x, t->n, t->first + r * t->step);
    free(x);
    return NULL;
}

/* T (at most MOST_AT_ONCE) threads' round trips at once, each checked under the name `what` (a
 * format taking its index) */
enum { MOST_AT_ONCE = 4 };
static void at_once(int T, round_trips like, const char *what)
{
    pthread_t th[MOST_AT_ONCE];
    round_trips t[MOST_AT_ONCE];
    for (int i = 0; i < T; i++) {
        t[i] = like;
        pthread_create(&th[i], NULL, round_trip_thread, &t[i]);
    }
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        CHECK(t[i].bad == 0, ckf(what, i), "%lld wrong", (long long)t[i].bad);
    }
}

static void threads(void)
{
    at_once(4, (round_trips){.n = (3 << 20) + 11}, "thread %d staged round trips");
}

/* A large copy (36 MiB and 20 bytes) that starts alone takes CUFORT_STAGING_THREADS_ALONE threads;
 * once another starts beside it, its extra threads leave it, and what they would have packed must
 * still land. */
static void alone_then_beside(void)
{
    round_trips large = {.n = (9 << 20) + 5, .first = 1, .step = 4099};
    round_trip_thread(&large);
    CHECK(large.bad == 0, "36 MiB round trips, alone", "%lld wrong", (long long)large.bad);
    at_once(2, large, "36 MiB round trips beside another thread's (%d)");
}

/* Deterministic leave: a lone download A's unpacking holds every worker until all ALONE of them
 * hold a piece, then until a second download B runs (B's own unpacking waits for A's end, so B is
 * running throughout).  After B starts, only the usual count of A's workers may take new pieces. */
enum { ALONE = 11, USUAL = 7 };
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t moved;
    pthread_t seen[2][64];      /* threads unpacking A's pieces: before B ran, after */
    int count[2], a_started, b_running, a_done;
} leave_state;

static int saw(leave_state *ls, int after)
{
    pthread_t me = pthread_self();
    for (int i = 0; i < ls->count[after]; i++)
        if (pthread_equal(ls->seen[after][i], me))
            return 1;
    if (ls->count[after] < 64)
        ls->seen[after][ls->count[after]++] = me;
    return 0;
}

static void wait_until(leave_state *ls, const int *flag, int want, double seconds)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += (time_t)seconds;
    while (*flag < want && pthread_cond_timedwait(&ls->moved, &ls->lock, &t) == 0)
        ;
}

static void unpack_a(char *dst, const char *src, size_t bytes, const void *ctx)
{
    leave_state *ls = (leave_state *)ctx;
    pthread_mutex_lock(&ls->lock);
    if (!ls->b_running) {
        saw(ls, 0);
        pthread_cond_broadcast(&ls->moved);
        wait_until(ls, &ls->count[0], ALONE, 10);   /* every worker holds a piece */
        ls->a_started = 1;
        pthread_cond_broadcast(&ls->moved);
        wait_until(ls, &ls->b_running, 1, 10);
    } else {
        saw(ls, 1);
    }
    pthread_mutex_unlock(&ls->lock);
    memcpy(dst, src, bytes);
}

static void unpack_b(char *dst, const char *src, size_t bytes, const void *ctx)
{
    leave_state *ls = (leave_state *)ctx;
    pthread_mutex_lock(&ls->lock);
    ls->b_running = 1;
    pthread_cond_broadcast(&ls->moved);
    wait_until(ls, &ls->a_done, 1, 20);
    pthread_mutex_unlock(&ls->lock);
    memcpy(dst, src, bytes);
}

typedef struct { leave_state *ls; void *dev; float *host; size_t bytes; int rc; } download_b;

static void *second_download(void *arg)
{
    download_b *b = arg;
    cufort_stream s = NULL;
    pthread_mutex_lock(&b->ls->lock);
    wait_until(b->ls, &b->ls->a_started, 1, 20);
    pthread_mutex_unlock(&b->ls->lock);
    b->rc = cufort_stream_create(&s);
    if (!b->rc)
        b->rc = cufort_stage_to_host_combined(s, b->host, b->bytes, b->dev, b->bytes, 1, unpack_b,
                                              NULL, b->ls);
    if (s)
        cufort_stream_synchronize(s), cufort_stream_destroy(s);
    return NULL;
}

static int64_t differing(const float *x, const float *y, int64_t n)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += x[i] != y[i];
    return bad;
}

static void extra_threads_leave(void)
{
    char usual[16], alone[16];
    snprintf(usual, sizeof usual, "%d", USUAL);
    snprintf(alone, sizeof alone, "%d", ALONE);
    setenv("CUFORT_STAGING_THREADS", usual, 1);
    setenv("CUFORT_STAGING_THREADS_ALONE", alone, 1);
    const int64_t n = (9 << 20) + 3;   /* 36 MiB and 12 bytes */
    size_t bytes = (size_t)n * sizeof(float);
    float *src = malloc(bytes), *a = malloc(bytes), *b = malloc(bytes);
    void *dev = NULL;
    leave_state ls = {.lock = PTHREAD_MUTEX_INITIALIZER, .moved = PTHREAD_COND_INITIALIZER};
    cufort_stream s = NULL;
    int ready = src && a && b;
    for (int64_t i = 0; ready && i < n; i++)
        src[i] = value(i + 77), a[i] = b[i] = -1.0f;
    if (!ready || cufort_alloc(&dev, (int64_t)bytes) || cufort_stream_create(&s) ||
        cufort_stage_to_device_on(s, dev, src, bytes, bytes, 1) || cufort_stream_synchronize(s)) {
        CHECK(0, "extra threads leave: set-up", "%s", ready ? cufort_last_error() : "no memory");
        if (s)
            cufort_stream_destroy(s);
        cufort_free(dev);
        free(src), free(a), free(b);
        return;
    }
    download_b second = {&ls, dev, b, bytes, -1};
    pthread_t th;
    pthread_create(&th, NULL, second_download, &second);
    int rc = cufort_stage_to_host_combined(s, a, bytes, dev, bytes, 1, unpack_a, NULL, &ls);
    pthread_mutex_lock(&ls.lock);
    ls.a_done = 1;
    pthread_cond_broadcast(&ls.moved);
    pthread_mutex_unlock(&ls.lock);
    pthread_join(th, NULL);
    cufort_stream_synchronize(s);
    CHECK(rc == 0 && second.rc == 0, "extra threads leave: both downloads succeed", "%d %d: %s", rc,
          second.rc, cufort_last_error());
    CHECK(ls.count[0] == ALONE,
          "a lone 36 MiB copy is unpacked by CUFORT_STAGING_THREADS_ALONE threads",
          "%d threads", ls.count[0]);
    CHECK(ls.b_running && ls.count[1] >= 1 && ls.count[1] <= USUAL,
          "once another copy runs, at most CUFORT_STAGING_THREADS threads take its new pieces",
          "%d threads (second copy running: %d)", ls.count[1], ls.b_running);
    CHECK(differing(a, src, n) == 0 && differing(b, src, n) == 0,
          "extra threads leave: both downloads exact", "%lld and %lld wrong",
          (long long)differing(a, src, n), (long long)differing(b, src, n));
    cufort_stream_destroy(s);
    cufort_free(dev);
    free(src), free(a), free(b);
}

int main(void)
{
    /* the copies are cut between host threads: use more threads than this machine has cores, an
     * odd number, so that small blocks are split into more parts than they have pages */
    setenv("CUFORT_STAGING_THREADS", "7", 0);
    setenv("CUFORT_STAGING_THREADS_ALONE", "11", 0);
    /* the staged path itself: the pin cache would take arrays used again off it (test_pin_cache) */
    setenv("CUFORT_PIN_CACHE_MB", "0", 0);
    /* the host backend's CPU BLAS may be OpenBLAS, whose own threads spin ~0.1 s after a call
     * unless told otherwise: its business, not idle_helpers_sleep's */
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
    ck_begin("staging", 300);
    CHECK_OK(cufort_init(), "init");
    printf("# backend %s\n", cufort_backend_name());
    idle_helpers_sleep();
    packed();
    pinned_arrays();
    strided();
    strided_vectors();
    nested();
    threads();
    alone_then_beside();
    extra_threads_leave();
    gated();
    /* staging slots are per thread and go with shutdown; a second life must work too */
    cufort_shutdown();
    CHECK_OK(cufort_init(), "init again");
    packed();
    cufort_shutdown();
    return ck_end();
}
