/* test_streams.c — streams and events, and the per-thread BLAS stream. */
#include "check.h"

#include <pthread.h>

static void streams(void)
{
    cufort_stream s = NULL;
    CHECK_OK(cufort_stream_create(&s), "stream_create");
    CHECK(s != NULL, "stream_create gives a handle", "NULL (that is the default stream)");
    CHECK_OK(cufort_stream_synchronize(s), "stream_synchronize idle stream");
    CHECK_OK(cufort_stream_synchronize(NULL), "stream_synchronize default stream");
    CHECK_OK(cufort_stream_destroy(s), "stream_destroy");
    CHECK_FAILS_MSG(cufort_stream_destroy(s), CUFORT_INVALID_VALUE, "not a live stream",
                    "stream_destroy a second time (a copy of the handle) refused");
    CHECK_OK(cufort_stream_destroy(NULL), "stream_destroy(NULL) is a no-op");
    CHECK_ST(cufort_stream_create(NULL), CUFORT_INVALID_VALUE, "stream_create(NULL)");

    enum { N = 16 };
    cufort_stream many[N];
    int ok = 1, distinct = 1;
    for (int i = 0; i < N; i++) ok &= cufort_stream_create(&many[i]) == CUFORT_SUCCESS;
    CHECK(ok, "16 streams created", "%s", ck_err());
    for (int i = 0; ok && i < N; i++)
        for (int j = 0; j < i; j++) distinct &= many[i] != many[j];
    CHECK(ok && distinct, "16 streams distinct", "two handles are equal");
    /* work on every stream at once, then synchronize each */
    enum { LEN = 4096 };
    static float src[N][LEN], dst[N][LEN];
    void *d[N];
    for (int i = 0; i < N; i++) {
        ck_fill_f(src[i], LEN);
        d[i] = NULL;
        cufort_alloc(&d[i], LEN * 4);
        ok &= cufort_set_vector_async(LEN, 4, src[i], 1, d[i], 1, many[i]) == CUFORT_SUCCESS;
        ok &= cufort_get_vector_async(LEN, 4, d[i], 1, dst[i], 1, many[i]) == CUFORT_SUCCESS;
    }
    CHECK(ok, "async round trips queued on 16 streams", "%s", ck_err());
    int sync_ok = 1, same = 1;
    for (int i = 0; i < N; i++) {
        sync_ok &= cufort_stream_synchronize(many[i]) == CUFORT_SUCCESS;
        same &= !memcmp(src[i], dst[i], sizeof src[i]);
    }
    CHECK(sync_ok, "16 streams synchronize", "%s", ck_err());
    CHECK(same, "16 streams round trips exact", "data differs");
    int destroyed = 1;
    for (int i = 0; i < N; i++) {
        cufort_free(d[i]);
        destroyed &= cufort_stream_destroy(many[i]) == CUFORT_SUCCESS;
    }
    CHECK(destroyed, "16 streams destroyed", "%s", ck_err());
}

static void events(void)
{
    cufort_event a = NULL, b = NULL;
    CHECK_OK(cufort_event_create(&a), "event_create a");
    CHECK_OK(cufort_event_create(&b), "event_create b");
    CHECK(a && b && a != b, "events distinct non-NULL handles", "a %p, b %p", (void *)a, (void *)b);
    CHECK_ST(cufort_event_create(NULL), CUFORT_INVALID_VALUE, "event_create(NULL)");

    cufort_stream s = NULL;
    cufort_stream_create(&s);
    const int64_t n = (int64_t)8 << 20; /* 32 MiB of floats */
    float *h = malloc((size_t)n * 4), *g = malloc((size_t)n * 4);
    ck_fill_f(h, (size_t)n);
    void *d = NULL;
    CHECK_OK(cufort_alloc(&d, n * 4), "alloc for timed work");
    CHECK_OK(cufort_event_record(a, s), "event_record start on stream");
    CHECK_OK(cufort_set_vector_async(n, 4, h, 1, d, 1, s), "timed set_vector_async");
    CHECK_OK(cufort_get_vector_async(n, 4, d, 1, g, 1, s), "timed get_vector_async");
    CHECK_OK(cufort_event_record(b, s), "event_record stop on stream");
    CHECK_OK(cufort_event_synchronize(b), "event_synchronize stop");
    CHECK(!memcmp(h, g, (size_t)n * 4), "timed round trip exact after event_synchronize", "data differs");
    float ms = -1.0f;
    CHECK_OK(cufort_event_elapsed_ms(&ms, a, b), "event_elapsed_ms");
    CHECK(ms >= 0.0f && isfinite(ms) && ms < 60000.0f, "elapsed_ms >= 0 and finite", "%g ms", ms);
    printf("# 2 x 32 MiB copies took %.3f ms on the %s backend\n", ms, cufort_backend_name());

    /* default stream */
    CHECK_OK(cufort_event_record(a, NULL), "event_record on default stream");
    CHECK_OK(cufort_set_vector(n, 4, g, 1, d, 1), "work on default stream");
    CHECK_OK(cufort_event_record(b, NULL), "event_record on default stream (2)");
    CHECK_OK(cufort_event_synchronize(b), "event_synchronize default stream");
    ms = -1.0f;
    CHECK_OK(cufort_event_elapsed_ms(&ms, a, b), "event_elapsed_ms default stream");
    CHECK(ms >= 0.0f && isfinite(ms), "elapsed_ms default stream >= 0", "%g ms", ms);

    CHECK_ST(cufort_event_elapsed_ms(NULL, a, b), CUFORT_INVALID_VALUE, "elapsed_ms(NULL ms)");
    CHECK_ST(cufort_event_elapsed_ms(&ms, NULL, b), CUFORT_INVALID_VALUE, "elapsed_ms(NULL start)");
    CHECK_ST(cufort_event_record(NULL, s), CUFORT_INVALID_VALUE, "event_record(NULL)");
    CHECK_ST(cufort_event_synchronize(NULL), CUFORT_INVALID_VALUE, "event_synchronize(NULL)");
    CHECK_OK(cufort_event_destroy(a), "event_destroy a");
    CHECK_FAILS_MSG(cufort_event_destroy(a), CUFORT_INVALID_VALUE, "not a live event",
                    "event_destroy a second time (a copy of the handle) refused");
    CHECK_OK(cufort_event_destroy(b), "event_destroy b");
    CHECK_OK(cufort_event_destroy(NULL), "event_destroy(NULL) is a no-op");
    CHECK_OK(cufort_stream_destroy(s), "stream_destroy after events");
    cufort_free(d);
    free(h);
    free(g);
}

/* ---- per-thread BLAS stream ---- */
typedef struct {
    cufort_stream seen_at_start, own, seen_after;
    int st_get, st_set, blas_ok;
    char err[256];
} thr_arg;

static pthread_barrier_t bar;

static void *stream_thread(void *vp)
{
    thr_arg *a = vp;
    a->st_get = cufort_get_stream(&a->seen_at_start);
    cufort_stream_create(&a->own);
    a->st_set = cufort_set_stream(a->own);
    pthread_barrier_wait(&bar); /* main checks its own stream while this one is set */
    pthread_barrier_wait(&bar);
    cufort_get_stream(&a->seen_after);
    /* a BLAS call on this thread's stream, then synchronize that stream */
    float x[5] = {1, 2, 3, 4, 5}, y[5] = {10, 20, 30, 40, 50}, r[5];
    void *dx = NULL, *dy = NULL;
    a->blas_ok = !cufort_alloc(&dx, sizeof x) && !cufort_alloc(&dy, sizeof y) &&
                 !cufort_set_vector(5, 4, x, 1, dx, 1) && !cufort_set_vector(5, 4, y, 1, dy, 1) &&
                 !cufort_saxpy(5, 2.0f, dx, 1, dy, 1) && !cufort_stream_synchronize(a->own) &&
                 !cufort_get_vector(5, 4, dy, 1, r, 1);
    for (int i = 0; a->blas_ok && i < 5; i++) a->blas_ok &= r[i] == y[i] + 2.0f * x[i];
    if (!a->blas_ok) snprintf(a->err, sizeof a->err, "%s", ck_err());
    cufort_free(dx);
    cufort_free(dy);
    cufort_set_stream(NULL);
    cufort_stream_destroy(a->own);
    return NULL;
}

static void thread_streams(void)
{
    cufort_stream cur = (cufort_stream)0x1;
    CHECK_OK(cufort_get_stream(&cur), "get_stream");
    CHECK(cur == NULL, "default BLAS stream is NULL", "%p", (void *)cur);
    CHECK_ST(cufort_get_stream(NULL), CUFORT_INVALID_VALUE, "get_stream(NULL)");
    cufort_stream mine = NULL;
    cufort_stream_create(&mine);
    CHECK_OK(cufort_set_stream(mine), "set_stream");
    CHECK_OK(cufort_get_stream(&cur), "get_stream after set");
    CHECK(cur == mine, "get_stream returns what was set", "got %p, set %p", (void *)cur, (void *)mine);

    thr_arg t;
    memset(&t, 0, sizeof t);
    pthread_barrier_init(&bar, NULL, 2);
    pthread_t th;
    pthread_create(&th, NULL, stream_thread, &t);
    pthread_barrier_wait(&bar);
    cufort_get_stream(&cur);
    CHECK(cur == mine, "main stream unchanged while other thread sets its own", "got %p, set %p",
          (void *)cur, (void *)mine);
    pthread_barrier_wait(&bar);
    pthread_join(th, NULL);
    pthread_barrier_destroy(&bar);
    CHECK(t.st_get == CUFORT_SUCCESS && t.seen_at_start == NULL, "new thread starts on the default stream",
          "status %d, stream %p (main's is %p)", t.st_get, (void *)t.seen_at_start, (void *)mine);
    CHECK(t.st_set == CUFORT_SUCCESS && t.seen_after == t.own, "other thread keeps its own stream",
          "status %d, got %p, set %p", t.st_set, (void *)t.seen_after, (void *)t.own);
    CHECK(t.blas_ok, "saxpy on the other thread's stream", "%s", t.err);

    /* BLAS on main's stream */
    double x[4] = {1.5, -2.5, 3.5, -4.5}, y[4] = {0.5, 0.25, -0.75, 2}, r[4];
    void *dx = NULL, *dy = NULL;
    cufort_alloc(&dx, sizeof x);
    cufort_alloc(&dy, sizeof y);
    cufort_set_vector(4, 8, x, 1, dx, 1);
    cufort_set_vector(4, 8, y, 1, dy, 1);
    CHECK_OK(cufort_daxpy(4, -1.0, dx, 1, dy, 1), "daxpy on main's stream");
    CHECK_OK(cufort_stream_synchronize(mine), "synchronize main's stream");
    CHECK_OK(cufort_get_vector(4, 8, dy, 1, r, 1), "get_vector after daxpy");
    int ok = 1;
    for (int i = 0; i < 4; i++) ok &= r[i] == y[i] - x[i];
    CHECK(ok, "daxpy result on main's stream", "r = %g %g %g %g", r[0], r[1], r[2], r[3]);
    cufort_free(dx);
    cufort_free(dy);
    CHECK_OK(cufort_set_stream(NULL), "set_stream(NULL)");
    cufort_get_stream(&cur);
    CHECK(cur == NULL, "back on the default stream", "%p", (void *)cur);
    CHECK_OK(cufort_stream_destroy(mine), "destroy main's stream");
}

/* A thread that switches its BLAS stream while GEMMs are still queued on the one before: both
 * streams' GEMMs then run at once, and each must still get its own result.  Shapes with a small C
 * and a long k are the ones cuBLAS splits along k through a workspace. */
static void switch_with_work_in_flight(void)
{
    const int on_gpu = !strcmp(cufort_backend_name(), "cuda");
    const int64_t k = on_gpu ? (int64_t)1 << 18 : 1024;
    enum { ROUNDS = 12, SHAPES = 3 };
    const int64_t shapes[SHAPES] = {64, 96, 160};
    cufort_stream s[2] = {NULL, NULL};
    void *a[2] = {NULL, NULL}, *b[2] = {NULL, NULL}, *c[2][ROUNDS] = {{NULL}};
    double *host = NULL, *want[2][SHAPES] = {{NULL}}, *got = NULL;
    const int64_t most = shapes[SHAPES - 1];
    int ok = !cufort_stream_create(&s[0]) && !cufort_stream_create(&s[1]);
    size_t panel = (size_t)k * (size_t)most;
    ok = ok && (host = malloc(panel * sizeof *host)) && (got = malloc((size_t)most * most * sizeof *got));
    for (int i = 0; ok && i < 2; i++) {
        ok = !cufort_alloc(&a[i], (int64_t)(panel * 8)) && !cufort_alloc(&b[i], (int64_t)(panel * 8));
        ck_fill_d(host, panel);
        ok = ok && !cufort_set_vector((int64_t)panel, 8, host, 1, a[i], 1);
        ck_fill_d(host, panel);
        ok = ok && !cufort_set_vector((int64_t)panel, 8, host, 1, b[i], 1);
        for (int r = 0; ok && r < ROUNDS; r++)
            ok = !cufort_alloc(&c[i][r], most * most * 8);
    }
    if (!CHECK(ok, "two streams, operands and results for the switching thread", "%s", ck_err()))
        goto out;
    for (int sh = 0; ok && sh < SHAPES; sh++) {
        int64_t n = shapes[sh];
        for (int i = 0; ok && i < 2; i++) {   /* each result alone, on the default stream */
            ok = (want[i][sh] = malloc((size_t)n * n * 8)) &&
                 !cufort_dgemm('T', 'N', n, n, k, 1.0, a[i], k, b[i], k, 0.0, c[i][0], n) &&
                 !cufort_device_synchronize() && !cufort_get_matrix(n, n, 8, c[i][0], n, want[i][sh], n);
        }
        int queued = 1, same = 1;
        for (int r = 0; ok && queued && r < ROUNDS; r++)
            for (int i = 0; queued && i < 2; i++)
                queued = !cufort_set_stream(s[i]) &&
                         !cufort_dgemm('T', 'N', n, n, k, 1.0, a[i], k, b[i], k, 0.0, c[i][r], n);
        cufort_set_stream(NULL);
        queued = queued && !cufort_stream_synchronize(s[0]) && !cufort_stream_synchronize(s[1]);
        CHECK(queued, ckf("DGEMM n = %lld, k = %lld queued on two streams in turns", (long long)n,
                          (long long)k), "%s", ck_err());
        double worst = 0;
        for (int r = 0; queued && r < ROUNDS; r++)
            for (int i = 0; i < 2; i++) {
                cufort_get_matrix(n, n, 8, c[i][r], n, got, n);
                for (int64_t e = 0; e < n * n; e++) {
                    double d = fabs(got[e] - want[i][sh][e]) / (1 + fabs(want[i][sh][e]));
                    worst = d > worst ? d : worst;
                    same &= d <= 1e-12;
                }
            }
        CHECK(queued && same, ckf("DGEMM n = %lld: each stream's %d results as computed alone",
                                  (long long)n, ROUNDS), "worst relative difference %.3g", worst);
    }
out:
    cufort_set_stream(NULL);
    for (int i = 0; i < 2; i++) {
        cufort_free(a[i]);
        cufort_free(b[i]);
        for (int r = 0; r < ROUNDS; r++) cufort_free(c[i][r]);
        for (int sh = 0; sh < SHAPES; sh++) free(want[i][sh]);
        cufort_stream_destroy(s[i]);
    }
    free(host);
    free(got);
}

/* A plan whose stream was destroyed after cufort_fft_set_stream: executing it is refused, not
 * handed to cuFFT with a dead stream; with another stream (or NULL) set it runs again. */
static void plan_stream_destroyed(void)
{
    cufort_fft_plan plan = NULL;
    cufort_stream s = NULL;
    void *in = NULL, *out = NULL;
    if (!CHECK_OK(cufort_fft_plan_1d(&plan, CUFORT_FFT_C2C, 64, 1), "plan for the stream test") ||
        !CHECK_OK(cufort_stream_create(&s), "stream for the plan") ||
        !CHECK_OK(cufort_alloc(&in, 64 * 8), "fft in") || !CHECK_OK(cufort_alloc(&out, 64 * 8), "fft out"))
        goto out;
    float x[128];
    ck_fill_f(x, 128);
    cufort_set_vector(128, 4, x, 1, in, 1);
    CHECK_OK(cufort_fft_set_stream(plan, s), "fft_set_stream");
    CHECK_OK(cufort_fft_exec(plan, in, out, CUFORT_FFT_FORWARD), "exec on the plan's stream");
    CHECK_OK(cufort_stream_destroy(s), "the plan's stream destroyed");
    CHECK_FAILS_MSG(cufort_fft_exec(plan, in, out, CUFORT_FFT_FORWARD), CUFORT_INVALID_VALUE,
                    "was destroyed after cufort_fft_set_stream", "exec on a plan whose stream is gone refused");
    CHECK_OK(cufort_fft_set_stream(plan, NULL), "the default stream set instead");
    CHECK_OK(cufort_fft_exec(plan, in, out, CUFORT_FFT_FORWARD), "exec on the default stream again");
out:
    cufort_fft_destroy(plan);
    cufort_free(in);
    cufort_free(out);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ck_begin("streams", 300);
    ck_seed(31337);
    if (!CHECK_OK(cufort_init(), "init")) return ck_end();
    printf("# backend %s\n", cufort_backend_name());
    streams();
    events();
    thread_streams();
    switch_with_work_in_flight();
    plan_stream_destroyed();
    /* a shutdown destroys the streams and events left; their handles are stale afterwards */
    cufort_stream left = NULL;
    cufort_event left_event = NULL;
    CHECK_OK(cufort_stream_create(&left), "a stream left at shutdown");
    CHECK_OK(cufort_event_create(&left_event), "an event left at shutdown");
    CHECK_OK(cufort_shutdown(), "shutdown");
    if (CHECK_OK(cufort_init(), "init again")) {
        CHECK_FAILS_MSG(cufort_stream_destroy(left), CUFORT_INVALID_VALUE, "not a live stream",
                        "a stream from before the shutdown is stale");
        CHECK_FAILS_MSG(cufort_event_destroy(left_event), CUFORT_INVALID_VALUE, "not a live event",
                        "an event from before the shutdown is stale");
        CHECK_OK(cufort_shutdown(), "shutdown again");
    }
    return ck_end();
}
