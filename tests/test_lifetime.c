/* test_lifetime.c — what outlives what: calls racing a shutdown, per-thread state of threads that
 * exit, and stream and event handles (destroyed twice, made up, left at shutdown).
 *
 * Environment: CUFORT_TEST_SHUTDOWN_RUNS (races run, default 10), CUFORT_TEST_CHURN_THREADS
 * (short-lived threads, default 1000). */
#include "check.h"

#include <complex.h>
#include <stdatomic.h>
#include <time.h>

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib;
}

/* ---- host-array work whose results are checked ---- */

enum { GN = 48, CHURN_GN = 256, VN = 1000, FN = 256 };

typedef struct {
    uint64_t seed;
    int calls, lost, bad;        /* calls made; failures a shutdown explains; anything else */
    char first[256];
} worker;

static void bad(worker *w, const char *what, int st)
{
    if (w->bad++ == 0)
        snprintf(w->first, sizeof w->first, "%s: status %d (%s), message \"%s\"", what, st,
                 cufort_status_string(st), cufort_last_error());
}

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static float rnd(uint64_t *s) { return 0.5f + (float)(next(s) >> 40) / (float)(1 << 24); }

static void sscal_round(worker *w)
{
    float x[VN], want[VN];
    for (int i = 0; i < VN; i++)
        want[i] = 2 * (x[i] = rnd(&w->seed));
    int st = cufort_sscal_host(VN, 2.0f, x, 1);
    w->calls++;
    if (st)
        return bad(w, "sscal_host", st);
    if (memcmp(x, want, sizeof x))
        bad(w, "sscal_host result", 0);
}

static void sgemm_round(worker *w, int n)
{
    float *a = malloc(3 * sizeof(float) * (size_t)n * (size_t)n), *b = a + n * n, *c = b + n * n;
    for (int i = 0; i < n * n; i++)
        a[i] = rnd(&w->seed), b[i] = rnd(&w->seed), c[i] = -7.0f;
    int st = cufort_sgemm_host('N', 'N', n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    w->calls++;
    if (st)
        bad(w, "sgemm_host", st);
    for (int j = 0; j < n && !st; j += 7)
        for (int i = 0; i < n; i += 5) {
            double ref = 0;
            for (int k = 0; k < n; k++)
                ref += (double)a[i + k * n] * b[k + j * n];
            if (fabs(c[i + j * n] - ref) > 1e-4 * fabs(ref)) {
                bad(w, "sgemm_host result", 0);
                break;
            }
        }
    free(a);
}

/* Plan, execute, destroy.  A shutdown in between destroys the plan: then execute and destroy
 * report a plan that is not live, which is the documented outcome, not a failure. */
static void fft_round(worker *w)
{
    float complex x[FN], y[FN];
    for (int i = 0; i < FN; i++)
        x[i] = rnd(&w->seed) + I * rnd(&w->seed);
    cufort_fft_plan p = NULL;
    int st = cufort_fft_plan_1d(&p, CUFORT_FFT_C2C, FN, 1);
    w->calls++;
    if (st == CUFORT_NOT_INITIALIZED) {   /* plans are device-side objects: no automatic init */
        w->lost++;
        return;
    }
    if (st)
        return bad(w, "fft_plan_1d", st);
    st = cufort_fft_exec_host(p, x, y, CUFORT_FFT_FORWARD);
    w->calls++;
    if (st == CUFORT_INVALID_VALUE && strstr(cufort_last_error(), "not a live FFT plan")) {
        w->lost++;
        return;
    }
    if (st)
        return bad(w, "fft_exec_host", st);
    double complex dc = 0;
    for (int i = 0; i < FN; i++)
        dc += x[i];
    if (cabs(y[0] - dc) > 1e-3 * cabs(dc))
        bad(w, "fft_exec_host result", 0);
    st = cufort_fft_destroy(p);
    w->calls++;
    if (st && !(st == CUFORT_INVALID_VALUE || st == CUFORT_NOT_INITIALIZED))
        bad(w, "fft_destroy", st);
    else if (st)
        w->lost++;
}

/* ---- row: calls racing shutdown and init ---- */

enum { RACE_THREADS = 16 };
static atomic_int race_stop;

static void *race_worker(void *p)
{
    worker *w = p;
    cufort_init();   /* may race a shutdown too; host-array calls initialise again anyway */
    while (!atomic_load(&race_stop)) {
        sscal_round(w);
        sgemm_round(w, GN);
        fft_round(w);
    }
    return NULL;
}

static int child_shutdown_race(void)
{
    worker w[RACE_THREADS] = {{0}};
    pthread_t t[RACE_THREADS];
    for (int i = 0; i < RACE_THREADS; i++) {
        w[i].seed = 0x1234567ull * (uint64_t)(i + 1);
        pthread_create(&t[i], NULL, race_worker, &w[i]);
    }
    int cycles = 0, failed_cycles = 0;
    for (double end = now_s() + 0.6; now_s() < end; cycles++) {
        if (cufort_shutdown() || cufort_init())
            failed_cycles++;
        usleep(1000);
    }
    atomic_store(&race_stop, 1);
    int calls = 0, lost = 0, bads = 0;
    const char *first = NULL;
    for (int i = 0; i < RACE_THREADS; i++) {
        pthread_join(t[i], NULL);
        calls += w[i].calls, lost += w[i].lost, bads += w[i].bad;
        if (w[i].bad && !first)
            first = w[i].first;
    }
    CHECK(bads == 0 && failed_cycles == 0 && calls > RACE_THREADS,
          "16 threads in host-array BLAS and FFT calls while shutdown and init run in a loop",
          "%d calls, %d failed (first: %s), %d plans lost to a shutdown, %d of %d shutdown/init "
          "cycles failed (%s)", calls, bads, first ? first : "-", lost, failed_cycles, cycles,
          cufort_last_error());
    return cufort_shutdown();
}

/* ---- row: threads that come and go ---- */

static void *churn_thread(void *p)
{
    worker *w = p;
    sgemm_round(w, CHURN_GN);
    sscal_round(w);
    fft_round(w);
    return NULL;
}

/* Host memory, and on a GPU the device memory in use, after `threads` short-lived threads, `at_once`
 * alive together; *bad collects their failures. */
static void churn(int threads, int at_once, long *rss, int64_t *dev_used, worker *total)
{
    for (int done = 0; done < threads;) {
        pthread_t t[16];
        worker w[16] = {{0}};
        int n = threads - done < at_once ? threads - done : at_once;
        for (int i = 0; i < n; i++) {
            w[i].seed = 0x9E37ull * (uint64_t)(done + i + 1);
            pthread_create(&t[i], NULL, churn_thread, &w[i]);
        }
        for (int i = 0; i < n; i++) {
            pthread_join(t[i], NULL);
            total->calls += w[i].calls;
            if (w[i].bad && !total->bad)
                snprintf(total->first, sizeof total->first, "%s", w[i].first);
            total->bad += w[i].bad;
        }
        done += n;
    }
    *rss = rss_kib();
    int64_t free_b = 0, total_b = 0;
    *dev_used = cufort_backend() == CUFORT_BACKEND_CUDA && !cufort_mem_info(&free_b, &total_b)
                    ? total_b - free_b : 0;
}

static void thread_churn(int at_once)
{
    int threads = env_int("CUFORT_TEST_CHURN_THREADS", 1000);
    worker total = {0};
    long rss0, rss1;
    int64_t dev0, dev1;
    churn(10, at_once, &rss0, &dev0, &total);
    churn(threads - 10, at_once, &rss1, &dev1, &total);
    CHECK(total.bad == 0, ckf("%d short-lived threads (%d at a time): every call right", threads,
                              at_once),
          "%d of %d calls failed; first: %s", total.bad, total.calls, total.first);
#ifdef __SANITIZE_ADDRESS__   /* its quarantine keeps freed memory out of reuse: RSS says nothing */
    printf("# host memory not checked under AddressSanitizer\n");
#else
    CHECK(rss1 - rss0 < 64 * 1024,
          ckf("%d short-lived threads (%d at a time): host memory within 64 MiB of its level after "
              "10", threads, at_once),
          "RSS %ld KiB after 10 threads, %ld KiB after %d", rss0, rss1, threads);
#endif
    if (cufort_backend() == CUFORT_BACKEND_CUDA)
        CHECK(dev1 - dev0 < ((int64_t)64 << 20),
              ckf("%d short-lived threads (%d at a time): device memory within 64 MiB of its "
                  "level after 10", threads, at_once),
              "%lld MiB in use after 10 threads, %lld MiB after %d", (long long)(dev0 >> 20),
              (long long)(dev1 >> 20), threads);
    printf("# %d threads, %d at a time: RSS %ld -> %ld KiB, device in use %lld -> %lld MiB\n",
           threads, at_once, rss0, rss1, (long long)(dev0 >> 20), (long long)(dev1 >> 20));
}

/* ---- rows: stream and event handles ---- */

static int child_handles(void)
{
    CHECK_OK(cufort_init(), "init");
    cufort_stream s = NULL, made_up = (cufort_stream)(uintptr_t)0x5a5a5a50;
    cufort_event e = NULL, e2 = NULL, made_up_e = (cufort_event)(void *)&s;
    CHECK_OK(cufort_stream_create(&s), "stream_create");
    CHECK_OK(cufort_stream_destroy(s), "stream_destroy");
    CHECK_FAILS_MSG(cufort_stream_destroy(s), CUFORT_INVALID_VALUE, "not a live stream",
                    "stream_destroy twice is refused");
    CHECK_FAILS_MSG(cufort_stream_destroy(made_up), CUFORT_INVALID_VALUE, "not a live stream",
                    "stream_destroy on a made-up handle is refused");
    CHECK_ST(cufort_stream_synchronize(made_up), CUFORT_INVALID_VALUE,
             "stream_synchronize on a made-up handle is refused");
    CHECK_ST(cufort_set_stream(s), CUFORT_INVALID_VALUE, "set_stream on a destroyed stream is refused");
    CHECK_OK(cufort_event_create(&e), "event_create");
    CHECK_ST(cufort_event_record(e, s), CUFORT_INVALID_VALUE,
             "event_record on a destroyed stream is refused");
    CHECK_OK(cufort_event_create(&e2), "event_create 2");
    CHECK_OK(cufort_event_record(e, NULL), "event_record");
    CHECK_OK(cufort_event_record(e2, NULL), "event_record 2");
    CHECK_OK(cufort_event_destroy(e), "event_destroy");
    float ms;
    CHECK_ST(cufort_event_elapsed_ms(&ms, e, e2), CUFORT_INVALID_VALUE,
             "event_elapsed_ms with a destroyed event is refused");
    CHECK_FAILS_MSG(cufort_event_destroy(e), CUFORT_INVALID_VALUE, "not a live event",
                    "event_destroy twice is refused");
    CHECK_FAILS_MSG(cufort_event_destroy(made_up_e), CUFORT_INVALID_VALUE, "not a live event",
                    "event_destroy on a made-up handle is refused");
    CHECK_ST(cufort_event_synchronize(made_up_e), CUFORT_INVALID_VALUE,
             "event_synchronize on a made-up handle is refused");
    CHECK_OK(cufort_event_destroy(e2), "event_destroy 2");

    /* destroying the thread's own stream puts it back on the default stream */
    cufort_stream cur = NULL, got = (cufort_stream)1;
    CHECK_OK(cufort_stream_create(&cur), "stream_create for set_stream");
    CHECK_OK(cufort_set_stream(cur), "set_stream");
    CHECK_OK(cufort_stream_destroy(cur), "stream_destroy of the current stream");
    CHECK(!cufort_get_stream(&got) && got == NULL, "the destroyed current stream is dropped",
          "get_stream gives %p", (void *)got);
    return cufort_shutdown();
}

/* Streams and events left at shutdown are destroyed by it: their handles are dead afterwards. */
static int child_shutdown_frees(void)
{
    CHECK_OK(cufort_init(), "init");
    cufort_stream s[8];
    cufort_event e[8];
    int ok = 1;
    for (int i = 0; i < 8; i++)
        ok &= !cufort_stream_create(&s[i]) && !cufort_event_create(&e[i]);
    CHECK(ok, "8 streams and 8 events created", "%s", ck_err());
    CHECK_OK(cufort_set_stream(s[3]), "set_stream");
    CHECK_OK(cufort_shutdown(), "shutdown with streams and events alive");
    CHECK_OK(cufort_init(), "init again");
    cufort_stream got = (cufort_stream)1;
    CHECK(!cufort_get_stream(&got) && got == NULL, "after a shutdown the thread is on the default stream",
          "get_stream gives %p", (void *)got);
    int refused = 0;
    for (int i = 0; i < 8; i++) {
        refused += cufort_stream_destroy(s[i]) == CUFORT_INVALID_VALUE;
        refused += cufort_event_destroy(e[i]) == CUFORT_INVALID_VALUE;
    }
    CHECK(refused == 16, "shutdown destroyed the streams and events left (their handles are dead)",
          "%d of 16 handles still accepted", 16 - refused);
    return cufort_shutdown();
}

/* A fork's child of a running cufort has only the forking thread: locks another thread held stay
 * held, and a CUDA context does not carry over.  It inherits cufort as shut down: shutdown returns
 * at once, and starting again is refused with a message, never a hang on an orphaned lock.  The
 * busy thread stays off threaded CPU BLAS calls: OpenBLAS stops its own thread pool around a fork
 * and hangs a GEMM that is using it. */
static atomic_int busy_stop;
static void *busy(void *p)
{
    worker *w = p;
    while (!atomic_load(&busy_stop)) {
        sscal_round(w);
        fft_round(w);
    }
    return NULL;
}

static int in_forked_child(void)
{
    alarm(10);
    if (cufort_shutdown() != CUFORT_SUCCESS)
        return 3;
    float x[4] = {1, 2, 3, 4};
    int st = cufort_sscal_host(4, 2.0f, x, 1);
    if (st == CUFORT_SUCCESS || !strstr(cufort_last_error(), "fork"))
        return 4;
    return cufort_init() == CUFORT_NOT_SUPPORTED ? 0 : 5;
}

static void fork_inside_call(void)
{
    worker w = {.seed = 99};
    pthread_t t;
    pthread_create(&t, NULL, busy, &w);
    usleep(50000);
    int hung = 0, failed = 0, last = 0;
    for (int i = 0; i < 5; i++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(in_forked_child());
        int ws = 0;
        waitpid(pid, &ws, 0);
        hung += WIFSIGNALED(ws) && WTERMSIG(ws) == SIGALRM;
        if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
            failed++, last = ws;
        usleep(2000);
    }
    atomic_store(&busy_stop, 1);
    pthread_join(t, NULL);
    CHECK(!failed && !w.bad,
          "a fork's child of a running cufort: shutdown returns, restarting is refused, nothing hangs",
          "%d of 5 children failed (%d hung; last wait status %#x); %d failed calls (%s)", failed,
          hung, last, w.bad, w.first);
}

static int run_child(const char *mode)
{
    ck_child_main("test_lifetime");
    alarm(120);   /* a hang ends the child, and the parent reports it */
    if (!strcmp(mode, "race"))
        return child_shutdown_race();
    if (!strcmp(mode, "handles"))
        return child_handles();
    if (!strcmp(mode, "frees"))
        return child_shutdown_frees();
    return 2;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child"))
        return run_child(argv[2]);
    ck_begin("test_lifetime", 600);
    ck_child("handles", "stream and event handles: twice, made up, destroyed", NULL);
    ck_child("frees", "shutdown destroys the streams and events left", NULL);
    int runs = env_int("CUFORT_TEST_SHUTDOWN_RUNS", 10);
    for (int i = 0; i < runs; i++)
        ck_child("race", ckf("shutdown race, run %d of %d", i + 1, runs), NULL);
    CHECK_OK(cufort_init(), "init for the thread churn");
    if (cufort_backend() == CUFORT_BACKEND_HOST)   /* a CUDA context does not survive a fork */
        fork_inside_call();
    thread_churn(1);
    thread_churn(8);
    CHECK_OK(cufort_shutdown(), "shutdown");
    return ck_end();
}
