/* test_context.c — init/shutdown, backend and device selection, errors and status strings.
 * Backend-agnostic: runs as CUFORT_BACKEND says (host here, cuda on a GPU machine). */
#include "check.h"

#include <pthread.h>

#define NTHREADS 8

static const char *env_backend(void)
{
    const char *b = getenv("CUFORT_BACKEND");
    return b ? b : "";
}

/* ---- every call before cufort_init fails cleanly and names itself ---- */
static void not_initialized_calls(const char *when)
{
    float hx[16], hy[16];
    ck_fill_f(hx, 16);
    ck_fill_f(hy, 16);
    void *p = (void *)0x1;
    void *fake = hy; /* never dereferenced: the call must stop at the init check */

#define NOT_INIT(call, name)                                                                      \
    CHECK_FAILS_MSG(call, CUFORT_NOT_INITIALIZED, name, ckf("%s %s", when, name))

    NOT_INIT(cufort_alloc(&p, 64), "cufort_alloc");
    NOT_INIT(cufort_free(fake), "cufort_free");
    NOT_INIT(cufort_host_alloc(&p, 64), "cufort_host_alloc");
    NOT_INIT(cufort_host_register(hx, sizeof hx), "cufort_host_register");
    NOT_INIT(cufort_set_vector(4, 4, hx, 1, fake, 1), "cufort_set_vector");
    NOT_INIT(cufort_get_vector(4, 4, fake, 1, hx, 1), "cufort_get_vector");
    NOT_INIT(cufort_set_matrix(2, 2, 4, hx, 2, fake, 2), "cufort_set_matrix");
    NOT_INIT(cufort_get_matrix(2, 2, 4, fake, 2, hx, 2), "cufort_get_matrix");
    NOT_INIT(cufort_copy_matrix(2, 2, 4, fake, 2, fake, 2), "cufort_copy_matrix");
    NOT_INIT(cufort_set_vector_async(4, 4, hx, 1, fake, 1, NULL), "cufort_set_vector_async");
    NOT_INIT(cufort_get_vector_async(4, 4, fake, 1, hx, 1, NULL), "cufort_get_vector_async");
    NOT_INIT(cufort_set_matrix_async(2, 2, 4, hx, 2, fake, 2, NULL), "cufort_set_matrix_async");
    NOT_INIT(cufort_get_matrix_async(2, 2, 4, fake, 2, hx, 2, NULL), "cufort_get_matrix_async");
    NOT_INIT(cufort_sgemm('N', 'N', 2, 2, 2, 1.0f, hx, 2, hx + 4, 2, 0.0f, hy, 2), "cufort_sgemm");
    NOT_INIT(cufort_daxpy(2, 1.0, (const double *)hx, 1, (double *)hy, 1), "cufort_daxpy");
    double r = 0;
    NOT_INIT(cufort_dnrm2(2, (const double *)hx, 1, &r), "cufort_dnrm2");
    cufort_stream s = NULL;
    NOT_INIT(cufort_stream_create(&s), "cufort_stream_create");
    cufort_event e = NULL;
    NOT_INIT(cufort_event_create(&e), "cufort_event_create");
    NOT_INIT(cufort_device_synchronize(), "cufort_device_synchronize");
    int64_t fr = 0, tot = 0;
    NOT_INIT(cufort_mem_info(&fr, &tot), "cufort_mem_info");
#undef NOT_INIT

    CHECK(cufort_is_initialized() == 0, ckf("%s is_initialized", when), "cufort_is_initialized() = %d",
          cufort_is_initialized());
    CHECK(cufort_backend() == 0, ckf("%s backend", when), "cufort_backend() = %d, expected 0",
          cufort_backend());
    const char *bn = cufort_backend_name();
    CHECK(bn && !strcmp(bn, "none"), ckf("%s backend_name", when), "cufort_backend_name() = \"%s\"",
          bn ? bn : "(null)");
    /* the host arrays were never touched */
    int zeros = 0;
    for (int i = 0; i < 16; i++) zeros += hy[i] == 0.0f;
    CHECK(zeros == 0, ckf("%s arrays untouched", when), "%d zeros appeared in a host array", zeros);
}

static void before_init(void)
{
    CHECK(cufort_is_initialized() == 0, "fresh not initialized", "cufort_is_initialized() = %d",
          cufort_is_initialized());
    const char *m = cufort_last_error();
    CHECK(m != NULL && m[0] == 0, "fresh last_error empty", "cufort_last_error() = \"%s\"", ck_err());
    CHECK(cufort_last_info() == 0, "fresh last_info 0", "cufort_last_info() = %d", cufort_last_info());
    ck_seed(11);
    not_initialized_calls("before_init");
    int st = cufort_shutdown();
    CHECK(st == CUFORT_SUCCESS || st == CUFORT_NOT_INITIALIZED, "shutdown before init",
          "cufort_shutdown() = %d (%s)", st, ck_status_name(st));
    int count = -1;
    st = cufort_device_count(&count);
    CHECK(st == CUFORT_SUCCESS || st == CUFORT_NOT_INITIALIZED, "device_count before init no crash",
          "cufort_device_count = %d (%s)", st, ck_status_name(st));
}

static void status_strings(void)
{
    static const int codes[] = {CUFORT_SUCCESS, CUFORT_NOT_INITIALIZED, CUFORT_ALLOC_FAILED,
                                CUFORT_INVALID_VALUE, CUFORT_ARCH_MISMATCH, CUFORT_MAPPING_ERROR,
                                CUFORT_EXECUTION_FAILED, CUFORT_INTERNAL_ERROR,
                                CUFORT_NOT_SUPPORTED, CUFORT_NO_DEVICE, CUFORT_BAD_POINTER};
    const int n = (int)(sizeof codes / sizeof codes[0]);
    for (int i = 0; i < n; i++) {
        const char *s = cufort_status_string(codes[i]);
        CHECK(s && s[0], ckf("status_string %s", ck_status_name(codes[i])),
              "cufort_status_string(%d) = %s", codes[i], s ? "\"\"" : "NULL");
        int dup = -1;
        for (int j = 0; s && j < i; j++) {
            const char *t = cufort_status_string(codes[j]);
            if (t && !strcmp(s, t)) dup = codes[j];
        }
        CHECK(dup < 0, ckf("status_string %s distinct", ck_status_name(codes[i])),
              "cufort_status_string(%d) = \"%s\" equals that of %d", codes[i], s ? s : "", dup);
    }
    const int unknown[] = {-1, 2, 9999};
    for (int i = 0; i < 3; i++) {
        const char *s = cufort_status_string(unknown[i]);
        CHECK(s && s[0], ckf("status_string unknown %d", unknown[i]),
              "cufort_status_string(%d) = %s", unknown[i], s ? "\"\"" : "NULL");
    }
}

static void init_idempotent(void)
{
    CHECK_OK(cufort_init(), "init");
    CHECK(cufort_is_initialized() == 1, "init is_initialized", "cufort_is_initialized() = %d",
          cufort_is_initialized());
    int b = cufort_backend();
    CHECK(b == CUFORT_BACKEND_CUDA || b == CUFORT_BACKEND_HOST, "init backend valid",
          "cufort_backend() = %d", b);
    const char *eb = env_backend();
    if (!strcmp(eb, "host"))
        CHECK(b == CUFORT_BACKEND_HOST, "init honours CUFORT_BACKEND=host", "cufort_backend() = %d", b);
    if (!strcmp(eb, "cuda"))
        CHECK(b == CUFORT_BACKEND_CUDA, "init honours CUFORT_BACKEND=cuda", "cufort_backend() = %d", b);
    const char *bn = cufort_backend_name();
    const char *want = b == CUFORT_BACKEND_CUDA ? "cuda" : "host";
    CHECK(bn && !strcmp(bn, want), "backend_name matches backend", "cufort_backend_name() = \"%s\", expected \"%s\"",
          bn ? bn : "(null)", want);

    void *p = NULL;
    CHECK_OK(cufort_alloc(&p, 256), "alloc after init");
    CHECK_OK(cufort_init(), "init twice");
    CHECK(cufort_backend() == b, "init twice backend unchanged", "cufort_backend() = %d, was %d",
          cufort_backend(), b);
    /* a second init must not drop what the first one set up */
    float x[64], y[64];
    ck_fill_f(x, 64);
    CHECK_OK(cufort_set_vector(64, 4, x, 1, p, 1), "set_vector after second init");
    CHECK_OK(cufort_get_vector(64, 4, p, 1, y, 1), "get_vector after second init");
    CHECK(!memcmp(x, y, sizeof x), "allocation survives second init", "data differs");
    CHECK_OK(cufort_free(p), "free after second init");
}

static void cycles(void)
{
    int b0 = cufort_backend();
    for (int i = 0; i < 5; i++) {
        CHECK_OK(cufort_shutdown(), ckf("cycle %d shutdown", i));
        CHECK(cufort_is_initialized() == 0, ckf("cycle %d not initialized", i),
              "cufort_is_initialized() = %d", cufort_is_initialized());
        if (i == 0) not_initialized_calls("after_shutdown");
        CHECK_OK(cufort_init(), ckf("cycle %d init", i));
        CHECK(cufort_backend() == b0, ckf("cycle %d same backend", i), "cufort_backend() = %d, was %d",
              cufort_backend(), b0);
        void *p = NULL;
        double x[10], y[10];
        ck_fill_d(x, 10);
        CHECK_OK(cufort_alloc(&p, sizeof x), ckf("cycle %d alloc", i));
        CHECK_OK(cufort_set_vector(10, 8, x, 1, p, 1), ckf("cycle %d set_vector", i));
        CHECK_OK(cufort_get_vector(10, 8, p, 1, y, 1), ckf("cycle %d get_vector", i));
        CHECK(!memcmp(x, y, sizeof x), ckf("cycle %d round trip", i), "data differs");
        if (i % 2 == 0) CHECK_OK(cufort_free(p), ckf("cycle %d free", i));
        /* odd cycles leave p allocated: shutdown must free it without complaint */
    }
    CHECK_OK(cufort_shutdown(), "shutdown twice (1)");
    int st = cufort_shutdown();
    CHECK(st == CUFORT_SUCCESS || st == CUFORT_NOT_INITIALIZED, "shutdown twice (2)",
          "second cufort_shutdown() = %d (%s)", st, ck_status_name(st));
}

/* ---- concurrent init ---- */
static pthread_barrier_t barrier;
typedef struct {
    int id, init_status, backend, work_ok;
    char err[256];
} init_arg;

static void *init_thread(void *vp)
{
    init_arg *a = vp;
    pthread_barrier_wait(&barrier);
    a->init_status = cufort_init();
    snprintf(a->err, sizeof a->err, "%s", ck_err());
    a->backend = cufort_backend();
    /* some work right away, concurrently with the other threads */
    a->work_ok = 1;
    for (int it = 0; it < 50 && a->work_ok; it++) {
        double x[33], y[33];
        for (int i = 0; i < 33; i++) x[i] = 1.0 + a->id * 1000 + it * 33 + i;
        void *p = NULL;
        if (cufort_alloc(&p, sizeof x) || cufort_set_vector(33, 8, x, 1, p, 1) ||
            cufort_get_vector(33, 8, p, 1, y, 1) || cufort_free(p) || memcmp(x, y, sizeof x)) {
            a->work_ok = 0;
            snprintf(a->err, sizeof a->err, "iteration %d: %s", it, ck_err());
        }
    }
    return NULL;
}

static void concurrent_init(void)
{
    int st = cufort_shutdown();
    (void)st;
    pthread_t th[NTHREADS];
    init_arg args[NTHREADS];
    pthread_barrier_init(&barrier, NULL, NTHREADS);
    for (int i = 0; i < NTHREADS; i++) {
        memset(&args[i], 0, sizeof args[i]);
        args[i].id = i;
        pthread_create(&th[i], NULL, init_thread, &args[i]);
    }
    for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&barrier);
    int all_ok = 1, same = 1, work = 1;
    for (int i = 0; i < NTHREADS; i++) {
        if (args[i].init_status != CUFORT_SUCCESS) {
            all_ok = 0;
            CHECK(0, ckf("concurrent init thread %d", i), "cufort_init() = %d (%s): %s",
                  args[i].init_status, ck_status_name(args[i].init_status), args[i].err);
        }
        if (args[i].backend != args[0].backend) same = 0;
        if (!args[i].work_ok) {
            work = 0;
            CHECK(0, ckf("concurrent work thread %d", i), "%s", args[i].err);
        }
    }
    CHECK(all_ok, "concurrent init all succeed", "see above");
    CHECK(same && cufort_backend() == args[0].backend &&
              (args[0].backend == CUFORT_BACKEND_CUDA || args[0].backend == CUFORT_BACKEND_HOST),
          "concurrent init one backend", "thread backends differ or invalid (thread 0: %d, main: %d)",
          args[0].backend, cufort_backend());
    CHECK(work, "concurrent alloc/copy/free after init", "see above");
    CHECK(cufort_is_initialized() == 1, "concurrent init initialized", "cufort_is_initialized() = %d",
          cufort_is_initialized());
}

static void init_backend_host(void)
{
    CHECK_OK(cufort_shutdown(), "shutdown before init_backend");
    CHECK_OK(cufort_init_backend(CUFORT_BACKEND_HOST), "init_backend(HOST)");
    CHECK(cufort_backend() == CUFORT_BACKEND_HOST, "init_backend(HOST) backend", "cufort_backend() = %d",
          cufort_backend());
    const char *bn = cufort_backend_name();
    CHECK(bn && !strcmp(bn, "host"), "init_backend(HOST) backend_name", "\"%s\"", bn ? bn : "(null)");
    void *p = NULL;
    int x[5] = {1, 2, 3, 4, 5}, y[5] = {9, 9, 9, 9, 9};
    CHECK_OK(cufort_alloc(&p, sizeof x), "host backend alloc");
    CHECK_OK(cufort_set_vector(5, 4, x, 1, p, 1), "host backend set_vector");
    CHECK_OK(cufort_get_vector(5, 4, p, 1, y, 1), "host backend get_vector");
    CHECK(!memcmp(x, y, sizeof x), "host backend round trip", "data differs");
    CHECK_OK(cufort_free(p), "host backend free");
    CHECK_OK(cufort_init(), "init after init_backend(HOST)");
    CHECK(cufort_backend() == CUFORT_BACKEND_HOST, "init keeps the backend chosen", "cufort_backend() = %d",
          cufort_backend());
    CHECK_OK(cufort_shutdown(), "shutdown after init_backend(HOST)");

    CHECK_FAILS_MSG(cufort_init_backend(42), CUFORT_INVALID_VALUE, "cufort_init_backend",
                    "init_backend(42) invalid");
    CHECK(cufort_is_initialized() == 0, "init_backend(42) leaves uninitialized",
          "cufort_is_initialized() = %d", cufort_is_initialized());
    CHECK_OK(cufort_init(), "init from environment again");
}

/* ---- per-thread last error ---- */
typedef struct {
    char before[256], after[256], own[256];
    int own_status, info;
} err_arg;

static void *err_thread(void *vp)
{
    err_arg *a = vp;
    snprintf(a->before, sizeof a->before, "%s", ck_err());
    a->info = cufort_last_info();
    a->own_status = cufort_set_vector(-3, 4, NULL, 1, NULL, 1);
    snprintf(a->own, sizeof a->own, "%s", ck_err());
    return NULL;
}

static void last_error_per_thread(void)
{
    void *p = NULL;
    cufort_clear_error();
    CHECK(ck_err()[0] == 0, "clear_error empties message", "\"%s\"", ck_err());
    CHECK_FAILS_MSG(cufort_alloc(&p, -5), CUFORT_INVALID_VALUE, "cufort_alloc", "alloc(-5) in main thread");
    char mine[512];
    snprintf(mine, sizeof mine, "%s", ck_err());
    CHECK(mine[0] != 0, "main thread has a message", "empty");
    /* sgemm with a bad transa: last_info is the reference BLAS position (1) */
    float a[4] = {1, 2, 3, 4};
    int st = cufort_sgemm('X', 'N', 2, 2, 2, 1.0f, a, 2, a, 2, 0.0f, a, 2);
    CHECK(st == CUFORT_INVALID_VALUE && cufort_last_info() == 1, "sgemm bad transa last_info 1",
          "status %d, last_info %d; \"%s\"", st, cufort_last_info(), ck_err());
    snprintf(mine, sizeof mine, "%s", ck_err());
    int my_info = cufort_last_info();

    err_arg t;
    memset(&t, 0, sizeof t);
    pthread_t th;
    pthread_create(&th, NULL, err_thread, &t);
    pthread_join(th, NULL);
    CHECK(t.before[0] == 0, "other thread starts with no message",
          "new thread sees \"%s\" (main thread's error leaked)", t.before);
    CHECK(t.info == 0, "other thread starts with last_info 0", "new thread sees last_info %d", t.info);
    CHECK(t.own_status == CUFORT_INVALID_VALUE, "other thread set_vector(n=-3) invalid",
          "status %d (%s)", t.own_status, ck_status_name(t.own_status));
    CHECK(t.own[0] && strstr(t.own, "cufort_set_vector"), "other thread message names its call",
          "\"%s\"", t.own);
    CHECK(!strcmp(mine, ck_err()), "main thread message unchanged by other thread",
          "was \"%s\", now \"%s\"", mine, ck_err());
    CHECK(cufort_last_info() == my_info, "main thread last_info unchanged by other thread",
          "was %d, now %d", my_info, cufort_last_info());
    cufort_clear_error();
    CHECK(ck_err()[0] == 0 && cufort_last_info() == 0, "clear_error resets message and info",
          "\"%s\", info %d", ck_err(), cufort_last_info());
}

/* ---- devices ---- */
static void devices(void)
{
    int count = -1;
    CHECK_OK(cufort_device_count(&count), "device_count");
    CHECK(count >= 1, "device_count >= 1", "count = %d", count);
    int dev = -1;
    CHECK_OK(cufort_get_device(&dev), "get_device");
    CHECK(dev >= 0 && dev < count, "get_device in range", "device %d of %d", dev, count);
    for (int d = 0; d < count && d < 16; d++) {
        cufort_device_properties pr;
        memset(&pr, 0x5a, sizeof pr);
        CHECK_OK(cufort_get_device_properties(d, &pr), ckf("properties(%d)", d));
        size_t len = strnlen(pr.name, sizeof pr.name);
        CHECK(len > 0 && len < sizeof pr.name, ckf("properties(%d) name", d), "name length %zu", len);
        CHECK(pr.total_memory > 0, ckf("properties(%d) total_memory", d), "total_memory = %lld",
              (long long)pr.total_memory);
        if (cufort_backend() == CUFORT_BACKEND_CUDA)
            CHECK(pr.major >= 1 && pr.multiprocessors >= 1, ckf("properties(%d) cuda fields", d),
                  "major %d, multiprocessors %d", pr.major, pr.multiprocessors);
        else
            CHECK(pr.major == 0 && pr.minor == 0, ckf("properties(%d) host capability 0.0", d),
                  "%d.%d", pr.major, pr.minor);
        printf("# device %d: %s, %lld MiB, cc %d.%d\n", d, len < sizeof pr.name ? pr.name : "?",
               (long long)(pr.total_memory >> 20), pr.major, pr.minor);
    }
    cufort_device_properties pr;
    CHECK_FAILS_MSG(cufort_get_device_properties(count, &pr), CUFORT_INVALID_VALUE,
                    "cufort_get_device_properties", "properties(count) out of range");
    CHECK_FAILS_MSG(cufort_get_device_properties(-1, &pr), CUFORT_INVALID_VALUE,
                    "cufort_get_device_properties", "properties(-1) out of range");
    CHECK_OK(cufort_set_device(dev), "set_device(current)");
    int d2 = -1;
    CHECK_OK(cufort_get_device(&d2), "get_device after set");
    CHECK(d2 == dev, "set/get device agree", "set %d, got %d", dev, d2);
    CHECK_FAILS_MSG(cufort_set_device(count), CUFORT_INVALID_VALUE, "cufort_set_device",
                    "set_device(count) out of range");
    CHECK_FAILS_MSG(cufort_set_device(-1), CUFORT_INVALID_VALUE, "cufort_set_device",
                    "set_device(-1) out of range");
    CHECK_OK(cufort_get_device(&d2), "get_device after bad set");
    CHECK(d2 == dev, "bad set_device keeps device", "device now %d, was %d", d2, dev);
    CHECK_OK(cufort_device_synchronize(), "device_synchronize");

    int64_t fr = -1, tot = -1;
    CHECK_OK(cufort_mem_info(&fr, &tot), "mem_info");
    CHECK(tot > 0 && fr >= 0 && fr <= tot, "mem_info values", "free %lld, total %lld", (long long)fr,
          (long long)tot);
    if (cufort_backend() == CUFORT_BACKEND_CUDA) {
        void *p = NULL;
        int64_t fr2 = -1, tot2 = -1;
        CHECK_OK(cufort_alloc(&p, (int64_t)256 << 20), "alloc 256 MiB");
        CHECK_OK(cufort_mem_info(&fr2, &tot2), "mem_info after alloc");
        CHECK(fr2 <= fr - ((int64_t)200 << 20), "mem_info sees 256 MiB allocation",
              "free before %lld, after %lld", (long long)fr, (long long)fr2);
        CHECK_OK(cufort_free(p), "free 256 MiB");
    }
}

/* ---- scenarios that need a fresh process ---- */
static int run_child(const char *mode)
{
    ck_child_main("context");
    if (!strcmp(mode, "bad_backend")) {
        CHECK_FAILS_MSG(cufort_init(), CUFORT_INVALID_VALUE, "CUFORT_BACKEND",
                        "CUFORT_BACKEND=bogus init");
        CHECK_MSG("bogus", "CUFORT_BACKEND=bogus message quotes the value");
        CHECK(cufort_is_initialized() == 0, "CUFORT_BACKEND=bogus leaves uninitialized",
              "cufort_is_initialized() = %d", cufort_is_initialized());
        void *p = NULL;
        CHECK_ST(cufort_alloc(&p, 8), CUFORT_NOT_INITIALIZED, "CUFORT_BACKEND=bogus then alloc");
    } else if (!strcmp(mode, "env_host")) {
        CHECK_OK(cufort_init(), "CUFORT_BACKEND=host init");
        CHECK(cufort_backend() == CUFORT_BACKEND_HOST, "CUFORT_BACKEND=host backend", "%d (%s)",
              cufort_backend(), cufort_backend_name());
    } else if (!strcmp(mode, "env_auto")) {
        CHECK_OK(cufort_init(), "CUFORT_BACKEND=auto init");
        int b = cufort_backend();
        CHECK(b == CUFORT_BACKEND_CUDA || b == CUFORT_BACKEND_HOST, "CUFORT_BACKEND=auto backend",
              "%d", b);
        printf("# auto chose %s\n", cufort_backend_name());
    } else if (!strcmp(mode, "env_cuda")) {
        int st = cufort_init();
        if (st == CUFORT_SUCCESS)
            CHECK(cufort_backend() == CUFORT_BACKEND_CUDA, "CUFORT_BACKEND=cuda backend", "%d",
                  cufort_backend());
        else {
            CHECK(st == CUFORT_NO_DEVICE, "CUFORT_BACKEND=cuda without GPU: NO_DEVICE",
                  "cufort_init() = %d (%s): %s", st, ck_status_name(st), ck_err());
            CHECK(ck_err()[0] != 0, "CUFORT_BACKEND=cuda without GPU: message", "empty message");
        }
    } else if (!strcmp(mode, "unset_backend")) {
        CHECK_OK(cufort_init(), "CUFORT_BACKEND unset init (auto)");
    } else if (!strcmp(mode, "bad_device")) {
        int st = cufort_init();
        CHECK(st != CUFORT_SUCCESS, "CUFORT_DEVICE=9999 refused", "cufort_init() = %d, device accepted",
              st);
        CHECK(st == CUFORT_INVALID_VALUE || st == CUFORT_NO_DEVICE, "CUFORT_DEVICE=9999 status",
              "cufort_init() = %d (%s)", st, ck_status_name(st));
        CHECK_MSG("CUFORT_DEVICE", "CUFORT_DEVICE=9999 message names the variable");
        CHECK_MSG("9999", "CUFORT_DEVICE=9999 message quotes the value");
    } else if (!strcmp(mode, "junk_device")) {
        int st = cufort_init();
        CHECK(st == CUFORT_INVALID_VALUE, "CUFORT_DEVICE=abc refused", "cufort_init() = %d (%s): %s", st,
              ck_status_name(st), ck_err());
        CHECK_MSG("CUFORT_DEVICE", "CUFORT_DEVICE=abc message names the variable");
    } else if (!strcmp(mode, "mpi_rank")) {
        CHECK_OK(cufort_init(), "OMPI_COMM_WORLD_LOCAL_RANK=3 init");
        int count = 0, dev = -1;
        cufort_device_count(&count);
        cufort_get_device(&dev);
        CHECK(count > 0 && dev == 3 % count, "OMPI_COMM_WORLD_LOCAL_RANK=3 picks rank % count",
              "device %d of %d", dev, count);
    } else if (!strcmp(mode, "device_env_wins")) {
        CHECK_OK(cufort_init(), "CUFORT_DEVICE=0 with SLURM_LOCALID=5 init");
        int dev = -1;
        cufort_get_device(&dev);
        CHECK(dev == 0, "CUFORT_DEVICE wins over the MPI rank", "device %d", dev);
    } else {
        CHECK(0, "child mode", "unknown mode %s", mode);
    }
    cufort_shutdown();
    return ck_failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    ck_begin("context", 300);
    if (argc == 3 && !strcmp(argv[1], "--child")) return run_child(argv[2]);

    before_init();
    status_strings();
    init_idempotent();
    cycles();
    concurrent_init();
    last_error_per_thread();
    devices();
    init_backend_host();
    cufort_shutdown();

    /* fresh processes; environment values chosen per scenario, the rest inherited */
    ck_child("bad_backend", "child bad_backend", "CUFORT_BACKEND=bogus", NULL);
    ck_child("env_host", "child env_host", "CUFORT_BACKEND=host", "CUFORT_DEVICE=", NULL);
    ck_child("env_auto", "child env_auto", "CUFORT_BACKEND=auto", "CUFORT_DEVICE=", NULL);
    ck_child("env_cuda", "child env_cuda", "CUFORT_BACKEND=cuda", "CUFORT_DEVICE=", NULL);
    ck_child("unset_backend", "child unset_backend", "CUFORT_BACKEND=", "CUFORT_DEVICE=", NULL);
    ck_child("bad_device", "child bad_device", "CUFORT_DEVICE=9999", NULL);
    ck_child("junk_device", "child junk_device", "CUFORT_DEVICE=abc", NULL);
    ck_child("mpi_rank", "child mpi_rank", "CUFORT_DEVICE=", "OMPI_COMM_WORLD_LOCAL_RANK=3", NULL);
    ck_child("device_env_wins", "child device_env_wins", "CUFORT_DEVICE=0", "SLURM_LOCALID=5", NULL);
    return ck_end();
}
