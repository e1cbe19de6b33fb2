/* test_memory.c — device alloc/free, pinned host memory, host register; error paths. */
#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "gate.h"
#include "internal.h"

static int on_cuda(void) { return cufort_backend() == CUFORT_BACKEND_CUDA; }

/* writes `bytes` random bytes through set_vector and reads them back */
static int roundtrip_bytes(void *d, int64_t bytes, const char *what)
{
    unsigned char *x = malloc((size_t)bytes), *y = malloc((size_t)bytes);
    ck_fill_bytes(x, (size_t)bytes);
    memset(y, 0, (size_t)bytes);
    int ok = CHECK_OK(cufort_set_vector(bytes, 1, x, 1, d, 1), ckf("%s set_vector", what));
    ok &= CHECK_OK(cufort_get_vector(bytes, 1, d, 1, y, 1), ckf("%s get_vector", what));
    ok &= CHECK(!memcmp(x, y, (size_t)bytes), ckf("%s round trip", what), "bytes differ");
    free(x);
    free(y);
    return ok;
}

static void sizes(void)
{
    static const int64_t sz[] = {1, 3, 8, 17, 1000, 4096, 65537, (int64_t)1 << 20, (int64_t)64 << 20};
    for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++) {
        void *p = NULL;
        const char *what = ckf("alloc %lld bytes", (long long)sz[i]);
        if (!CHECK_OK(cufort_alloc(&p, sz[i]), what)) continue;
        CHECK(p != NULL, ckf("%s non-NULL", what), "pointer is NULL");
        CHECK(((uintptr_t)p & 15) == 0, ckf("%s aligned", what), "pointer %p not 16-byte aligned", p);
        roundtrip_bytes(p, sz[i], what);
        CHECK_OK(cufort_free(p), ckf("free %lld bytes", (long long)sz[i]));
    }
    /* several live allocations are distinct and do not overlap */
    enum { N = 64 };
    void *p[N];
    int64_t b[N];
    int ok = 1;
    for (int i = 0; i < N; i++) {
        b[i] = 1 + (int64_t)(ck_rand64() % 5000);
        p[i] = NULL;
        if (cufort_alloc(&p[i], b[i]) != CUFORT_SUCCESS) ok = 0;
    }
    CHECK(ok, "64 live allocations", "an alloc failed: %s", ck_err());
    int overlap = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (i != j && p[i] && p[j] && (char *)p[i] <= (char *)p[j] &&
                (char *)p[j] < (char *)p[i] + b[i])
                overlap++;
    CHECK(overlap == 0, "64 live allocations do not overlap", "%d overlapping pairs", overlap);
    /* fill all, then read all: no allocation overwrote another */
    unsigned char *src[N];
    for (int i = 0; i < N; i++) {
        src[i] = malloc((size_t)b[i]);
        ck_fill_bytes(src[i], (size_t)b[i]);
        if (p[i]) cufort_set_vector(b[i], 1, src[i], 1, p[i], 1);
    }
    int bad = 0;
    for (int i = 0; i < N; i++) {
        unsigned char *y = malloc((size_t)b[i]);
        if (!p[i] || cufort_get_vector(b[i], 1, p[i], 1, y, 1) || memcmp(y, src[i], (size_t)b[i])) bad++;
        free(y);
        free(src[i]);
    }
    CHECK(bad == 0, "64 live allocations keep their data", "%d allocations differ", bad);
    /* free in a scrambled order */
    int fails = 0;
    for (int k = 0; k < N; k++) {
        int i = (k * 37) % N;
        if (p[i] && cufort_free(p[i]) != CUFORT_SUCCESS) fails++;
    }
    CHECK(fails == 0, "64 allocations freed out of order", "%d frees failed: %s", fails, ck_err());
}

static void zero_bytes(void)
{
    /* memory.c documents: a 0-byte allocation succeeds and gives NULL; cufort_free(NULL) is a no-op. */
    void *p = (void *)0x1;
    CHECK_OK(cufort_alloc(&p, 0), "alloc 0 bytes");
    CHECK(p == NULL, "alloc 0 bytes gives NULL", "pointer %p", p);
    CHECK_OK(cufort_free(p), "free of the 0-byte allocation");
    CHECK_OK(cufort_free(NULL), "free(NULL) is a no-op");
    /* a 0-element transfer touching the 0-byte allocation is fine */
    float x = 1.5f;
    CHECK_OK(cufort_set_vector(0, 4, &x, 1, p, 1), "set_vector n=0 onto 0-byte allocation");
}

static void errors(void)
{
    void *p = (void *)0x1;
    CHECK_FAILS_MSG(cufort_alloc(&p, (int64_t)1 << 60), CUFORT_ALLOC_FAILED, "cufort_alloc",
                    "alloc 2^60 bytes out of memory");
    {   /* one clean line: the routine named once, no text repeated into itself */
        const char *m = ck_err(), *first = strstr(m, "cufort_alloc");
        CHECK(first && !strstr(first + 1, "cufort_alloc"), "alloc 2^60 message names the call once",
              "\"%s\"", m);
        CHECK(p == NULL, "alloc 2^60 leaves NULL", "pointer %p", p);
    }
    p = (void *)0x1;
    CHECK_FAILS_MSG(cufort_alloc(&p, INT64_MAX), CUFORT_ALLOC_FAILED, "cufort_alloc",
                    "alloc INT64_MAX bytes out of memory");
    CHECK_FAILS_MSG(cufort_alloc(&p, -1), CUFORT_INVALID_VALUE, "cufort_alloc", "alloc -1 bytes");
    CHECK_FAILS_MSG(cufort_alloc(&p, INT64_MIN), CUFORT_INVALID_VALUE, "cufort_alloc",
                    "alloc INT64_MIN bytes");
    CHECK_FAILS_MSG(cufort_alloc(NULL, 16), CUFORT_INVALID_VALUE, "cufort_alloc", "alloc into NULL");
    /* the library still works after the failures */
    p = NULL;
    CHECK_OK(cufort_alloc(&p, 1024), "alloc after out of memory");
    roundtrip_bytes(p, 1024, "after out of memory");

    /* double free */
    CHECK_OK(cufort_free(p), "free once");
    CHECK_FAILS_MSG(cufort_free(p), CUFORT_BAD_POINTER, "cufort_free", "double free");

    /* a pointer cufort did not allocate; the caller can still free it afterwards */
    char *m = malloc(4096);
    memset(m, 7, 4096);
    CHECK_FAILS_MSG(cufort_free(m), CUFORT_BAD_POINTER, "cufort_free", "free of a malloc'd pointer");
    int intact = 1;
    for (int i = 0; i < 4096; i++) intact &= m[i] == 7;
    CHECK(intact, "malloc'd array intact after refused free", "contents changed");
    free(m); /* would abort if cufort_free had released it */
    int on_stack = 3;
    CHECK_FAILS_MSG(cufort_free(&on_stack), CUFORT_BAD_POINTER, "cufort_free", "free of a stack pointer");

    /* a pointer inside an allocation is not its base */
    void *q = NULL;
    CHECK_OK(cufort_alloc(&q, 4096), "alloc for interior free");
    CHECK_FAILS_MSG(cufort_free((char *)q + 64), CUFORT_BAD_POINTER, "cufort_free",
                    "free of an interior pointer");
    roundtrip_bytes(q, 4096, "allocation after refused interior free");
    CHECK_OK(cufort_free(q), "free base after refused interior free");

    /* device memory is not pinned host memory and vice versa */
    void *h = NULL;
    CHECK_OK(cufort_host_alloc(&h, 4096), "host_alloc for cross free");
    CHECK_FAILS_MSG(cufort_free(h), CUFORT_BAD_POINTER, "cufort_free", "cufort_free of pinned memory");
    CHECK_OK(cufort_host_free(h), "host_free after refused cufort_free");
}

static void pinned(void)
{
    static const int64_t sz[] = {1, 1000, (int64_t)4 << 20};
    for (int i = 0; i < 3; i++) {
        void *h = NULL;
        const char *what = ckf("host_alloc %lld bytes", (long long)sz[i]);
        if (!CHECK_OK(cufort_host_alloc(&h, sz[i]), what)) continue;
        CHECK(h != NULL, ckf("%s non-NULL", what), "NULL");
        unsigned char *b = h;
        for (int64_t k = 0; k < sz[i]; k++) b[k] = (unsigned char)(1 + k % 251);
        int ok = 1;
        for (int64_t k = 0; k < sz[i]; k++) ok &= b[k] == (unsigned char)(1 + k % 251);
        CHECK(ok, ckf("%s read/write", what), "contents differ");
        /* pinned memory as the host side of a transfer */
        void *d = NULL;
        if (CHECK_OK(cufort_alloc(&d, sz[i]), ckf("%s device twin", what))) {
            unsigned char *y = malloc((size_t)sz[i]);
            CHECK_OK(cufort_set_vector(sz[i], 1, h, 1, d, 1), ckf("%s set_vector from pinned", what));
            memset(h, 0, (size_t)sz[i]);
            CHECK_OK(cufort_get_vector(sz[i], 1, d, 1, h, 1), ckf("%s get_vector into pinned", what));
            ok = 1;
            for (int64_t k = 0; k < sz[i]; k++) ok &= b[k] == (unsigned char)(1 + k % 251);
            CHECK(ok, ckf("%s pinned round trip", what), "contents differ");
            free(y);
            cufort_free(d);
        }
        CHECK_OK(cufort_host_free(h), ckf("host_free %lld bytes", (long long)sz[i]));
    }
    void *h = (void *)0x1;
    CHECK_FAILS_MSG(cufort_host_alloc(&h, -8), CUFORT_INVALID_VALUE, "cufort_host_alloc",
                    "host_alloc -8 bytes");
    CHECK_FAILS_MSG(cufort_host_alloc(&h, (int64_t)1 << 60), CUFORT_ALLOC_FAILED, "cufort_host_alloc",
                    "host_alloc 2^60 bytes out of memory");
    {
        const char *m = ck_err(), *first = strstr(m, "cufort_host_alloc");
        CHECK(first && !strstr(first + 1, "cufort_host_alloc"), "host_alloc 2^60 message names the call once",
              "\"%s\"", m);
    }
    CHECK_OK(cufort_host_free(NULL), "host_free(NULL) is a no-op");
}

/* host_free of memory cufort_host_alloc did not return: refused, and the memory is left alone
 * (a child process: a library that frees it anyway makes the later free() abort) */
/* Pinned host memory is device-accessible on the GPU: an array running past a pinned block must be
 * refused like one running past a device block (a kernel reading on past it faults the context). */
static void pinned_as_device(void)
{
    float *h = NULL;
    if (!CHECK_OK(cufort_host_alloc((void **)&h, 64 * sizeof(float)), "host_alloc 64 floats"))
        return;
    ck_fill_f(h, 64);
    CHECK_FAILS_MSG(cufort_sscal(65, 2.0f, h, 1), CUFORT_BAD_POINTER, "pinned host array",
                    "a device-pointer call running one element past a pinned block is refused");
    CHECK_FAILS_MSG(cufort_sscal(33, 2.0f, h + 32, 1), CUFORT_BAD_POINTER, "pinned host array",
                    "the same from inside the block");
    CHECK_OK(cufort_host_free(h), "host_free");
}

static void host_free_foreign(int device_memory)
{
    const char *what = device_memory ? "host_free of device memory" : "host_free of a malloc'd pointer";
    void *m = NULL;
    if (device_memory) CHECK_OK(cufort_alloc(&m, 4096), "alloc for cross host_free");
    else m = malloc(4096);
    int st = cufort_host_free(m);
    CHECK(st != CUFORT_SUCCESS, what, "cufort_host_free(%p) returned success", m);
    CHECK(ck_err()[0] != 0, ckf("%s (message)", what), "no message");
    printf("# %s: %s\n", what, ck_err());
    if (device_memory) {
        CHECK_OK(cufort_set_vector(1, 1, "x", 1, m, 1), ckf("%s: allocation still usable", what));
        CHECK_OK(cufort_free(m), ckf("%s: cufort_free afterwards", what));
    } else {
        free(m);
        CHECK(1, ckf("%s: caller's free() afterwards", what), "-");
    }
}

static void registered(void)
{
    const int64_t n = 1 << 18; /* doubles: 2 MiB */
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    ck_fill_d(a, (size_t)n);
    double a0 = a[0], alast = a[n - 1];
    CHECK_OK(cufort_host_register(a, n * 8), "host_register malloc'd 2 MiB");
    CHECK(a[0] == a0 && a[n - 1] == alast, "host_register keeps contents", "contents changed");
    void *d = NULL;
    CHECK_OK(cufort_alloc(&d, n * 8), "alloc for registered transfer");
    CHECK_OK(cufort_set_vector(n, 8, a, 1, d, 1), "set_vector from registered array");
    CHECK_OK(cufort_get_vector(n, 8, d, 1, b, 1), "get_vector from registered array");
    CHECK(!memcmp(a, b, (size_t)n * 8), "registered round trip", "data differs");
    memset(b, 0, (size_t)n * 8);
    CHECK_OK(cufort_host_register(b, n * 8), "host_register second array");
    CHECK_OK(cufort_get_vector(n, 8, d, 1, b, 1), "get_vector into registered array");
    CHECK(!memcmp(a, b, (size_t)n * 8), "registered destination round trip", "data differs");
    CHECK_OK(cufort_host_unregister(b), "host_unregister second array");
    CHECK_OK(cufort_host_unregister(a), "host_unregister");
    CHECK(a[0] == a0 && a[n - 1] == alast, "host_unregister keeps contents", "contents changed");
    int st = cufort_host_unregister(a);
    CHECK(st != CUFORT_SUCCESS, "host_unregister twice refused", "second unregister returned success");
    CHECK(st == CUFORT_SUCCESS || ck_err()[0], "host_unregister twice message", "no message");
    CHECK_FAILS_MSG(cufort_host_register(a, -1), CUFORT_INVALID_VALUE, "cufort_host_register",
                    "host_register negative size");
    CHECK_FAILS_MSG(cufort_host_register(NULL, 64), CUFORT_INVALID_VALUE, "cufort_host_register",
                    "host_register NULL");
    cufort_free(d);
    free(a); /* still ours: would abort if cufort had freed it */
    free(b);
}

static void leak_cycles(void)
{
    int64_t fr0 = 0, tot = 0, fr1 = 0;
    CHECK_OK(cufort_mem_info(&fr0, &tot), "mem_info before cycles");
    int fails = 0;
    for (int i = 0; i < 1000; i++) {
        void *p = NULL;
        int64_t bytes = ((int64_t)1 << 20) + i * 4096;
        if (cufort_alloc(&p, bytes) != CUFORT_SUCCESS || cufort_free(p) != CUFORT_SUCCESS) fails++;
    }
    CHECK(fails == 0, "1000 alloc/free cycles", "%d cycles failed: %s", fails, ck_err());
    CHECK_OK(cufort_mem_info(&fr1, &tot), "mem_info after cycles");
    if (on_cuda()) {
        int64_t lost = fr0 - fr1;
        CHECK(lost < ((int64_t)64 << 20), "device memory returns after 1000 cycles",
              "free before %lld, after %lld (%lld MiB lost)", (long long)fr0, (long long)fr1,
              (long long)(lost >> 20));
    }

    /* shutdown frees what was left allocated; its pointers are unknown afterwards */
    void *left[4] = {0};
    for (int i = 0; i < 4; i++) cufort_alloc(&left[i], (int64_t)32 << 20);
    CHECK_OK(cufort_shutdown(), "shutdown with live allocations");
    CHECK_OK(cufort_init(), "init after shutdown with live allocations");
    int64_t fr2 = 0;
    CHECK_OK(cufort_mem_info(&fr2, &tot), "mem_info after re-init");
    if (on_cuda())
        CHECK(fr0 - fr2 < ((int64_t)64 << 20), "shutdown released 128 MiB left allocated",
              "free before %lld, after %lld", (long long)fr0, (long long)fr2);
    CHECK_FAILS_MSG(cufort_free(left[0]), CUFORT_BAD_POINTER, "cufort_free",
                    "free of a pointer from before shutdown");
}

static int alloc_thread(int id, char *err, size_t errlen)
{
    int fails = 0;
    for (int it = 0; it < 300; it++) {
        int64_t n = 1 + (it * 7 + id * 13) % 300;
        float x[300], y[300];
        for (int i = 0; i < n; i++) x[i] = 1.0f + (float)(id * 100000 + it * 300 + i);
        void *p = NULL;
        if (cufort_alloc(&p, n * 4) || cufort_set_vector(n, 4, x, 1, p, 1) ||
            cufort_get_vector(n, 4, p, 1, y, 1) || memcmp(x, y, (size_t)n * 4) || cufort_free(p)) {
            if (!fails++) snprintf(err, errlen, "iteration %d: %s", it, ck_err());
        }
    }
    return fails;
}

static void threads(void) { ck_threads(8, alloc_thread, "alloc/copy/free x300"); }

/* A free waits for the calls other threads have in flight (one may be using a stale pointer into
 * the block); a free from inside a call goes at once.  A call in flight is held open here by
 * entering cufort's gate directly, as every public entry point does. */
static atomic_int in_call, call_left;

static void *long_call(void *arg)
{
    (void)arg;
    int entered = cufort_gate_enter();
    atomic_store(&in_call, 1);
    nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    atomic_store(&call_left, 1);
    cufort_gate_leave(&entered);
    return NULL;
}

static void free_waits_for_calls(void)
{
    const char *what[] = {"cufort_free", "cufort_host_free", "cufort_host_unregister"};
    for (int k = 0; k < 3; k++) {
        void *p = NULL, *h = k == 2 ? malloc(1 << 16) : NULL;
        int st = k == 0 ? cufort_alloc(&p, 4096)
                 : k == 1 ? cufort_host_alloc(&p, 4096)
                          : cufort_host_register(p = h, 1 << 16);
        int ok = CHECK_OK(st, ckf("the block for %s beside a call", what[k]));
        if (!ok) {
            free(h);
            continue;
        }
        atomic_store(&in_call, 0);
        atomic_store(&call_left, 0);
        pthread_t th;
        pthread_create(&th, NULL, long_call, NULL);
        while (!atomic_load(&in_call))
            sched_yield();
        st = k == 0 ? cufort_free(p) : k == 1 ? cufort_host_free(p) : cufort_host_unregister(p);
        int left = atomic_load(&call_left);
        pthread_join(th, NULL);
        CHECK_OK(st, ckf("%s beside another thread's call", what[k]));
        CHECK(left, ckf("%s returns only after another thread's call in flight has", what[k]),
              "it returned while the call was still inside cufort");
        free(h);
    }
    /* from inside a call (as from a callback): at once, no deadlock */
    void *q = NULL;
    int entered = cufort_gate_enter();
    int st = cufort_alloc(&q, 4096);
    if (!st)
        st = cufort_free(q);
    cufort_gate_leave(&entered);
    CHECK_OK(st, "cufort_free from inside a call");
}

/* A pointer into one of cufort's own blocks (device or pinned) is refused to the program (it can
 * only be stale), and accepted from a call cufort makes of itself. */
static void own_blocks_refused(void)
{
    void *pinned = NULL;
    float w[4] = {0.5f, 1.5f, 2.5f, 3.5f};
    if (CHECK_OK(cufort_own_alloc(&pinned, 4096, 1), "an own pinned block for the stale check")) {
        CHECK_FAILS_MSG(cufort_set_vector(4, 4, w, 1, pinned, 1), CUFORT_BAD_POINTER,
                        "cufort holds for itself", "a program's pointer into cufort's own pinned block");
        CHECK_OK(cufort_own_free(pinned, 1), "the own pinned block freed");
    }
    void *own = NULL;
    float v[4] = {1.5f, 2.5f, 3.5f, 4.5f}, back[4] = {0};
    if (CHECK_OK(cufort_own_alloc(&own, 4096, 0), "an own block for the stale-pointer check")) {
        CHECK_FAILS_MSG(cufort_set_vector(4, 4, v, 1, own, 1), CUFORT_BAD_POINTER, "cufort_set_vector",
                        "a program's pointer into cufort's own block");
        CHECK_FAILS_MSG(cufort_get_vector(4, 4, (char *)own + 64, 1, back, 1), CUFORT_BAD_POINTER,
                        "cufort_get_vector", "a program's pointer inside cufort's own block");
        /* a teardown that marked itself a host-array call (its gate closed, then opened) leaves
         * the thread's next call the program's */
        if (CHECK_OK(cufort_gate_close("a teardown"), "the gate closed")) {
            cufort_gate_host_call();
            cufort_gate_open();
        }
        CHECK_FAILS_MSG(cufort_set_vector(4, 4, v, 1, own, 1), CUFORT_BAD_POINTER, "cufort_set_vector",
                        "a program's pointer into cufort's own block, after a teardown");
        int inner = cufort_gate_enter();
        int st_in = cufort_set_vector(4, 4, v, 1, own, 1);
        if (!st_in)
            st_in = cufort_get_vector(4, 4, own, 1, back, 1);
        cufort_gate_leave(&inner);
        CHECK_OK(st_in, "cufort's own call on its own block");
        CHECK(!memcmp(v, back, sizeof v), "cufort's own call on its own block round trip",
              "the values came back changed");
        CHECK_OK(cufort_own_free(own, 0), "the own block freed");
    }
}

static int run_child(const char *mode)
{
    ck_child_main("memory");
    if (!CHECK_OK(cufort_init(), ckf("child %s init", mode))) return 1;
    if (!strcmp(mode, "host_free_malloc")) host_free_foreign(0);
    else if (!strcmp(mode, "host_free_device")) host_free_foreign(1);
    else CHECK(0, "child mode", "unknown mode %s", mode);
    cufort_shutdown();
    return ck_failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    ck_begin("memory", 300);
    if (argc == 3 && !strcmp(argv[1], "--child")) return run_child(argv[2]);
    ck_seed(2024);
    if (!CHECK_OK(cufort_init(), "init")) return ck_end();
    printf("# backend %s\n", cufort_backend_name());
    sizes();
    zero_bytes();
    errors();
    pinned();
    pinned_as_device();
    registered();
    leak_cycles();
    threads();
    free_waits_for_calls();
    own_blocks_refused();
    CHECK_OK(cufort_shutdown(), "shutdown");
    ck_child("host_free_malloc", "child host_free_malloc", NULL);
    ck_child("host_free_device", "child host_free_device", NULL);
    return ck_end();
}
