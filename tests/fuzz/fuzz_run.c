/* fuzz_run.c — the operation table, one call's run (published for the supervisor first, so that a
 * crash or hang can name it), the mix of calls, and the oracle's checks of a returned status. */
#include "fuzz.h"

#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

fz_config fz_cfg;
pthread_rwlock_t fz_life_lock = PTHREAD_RWLOCK_INITIALIZER;
volatile unsigned fz_life_generation;
int fz_threads = 1;

static fz_op *table;
static int capacity;
const fz_op *fz_ops;
int fz_op_count;

void fz_add_op(const fz_op *op)
{
    if (fz_op_count == capacity) {
        capacity = capacity ? 2 * capacity : 512;
        table = realloc(table, (size_t)capacity * sizeof *table);
        if (!table)
            abort();
    }
    table[fz_op_count++] = *op;
    fz_ops = table;
}

int fz_find_op(const char *name)
{
    for (int i = 0; i < fz_op_count; i++)
        if (strcmp(fz_ops[i].name, name) == 0)
            return i;
    return -1;
}

/* The mix, in percent of calls: BLAS dominate as they dominate the ABI; a shutdown or init every
 * few hundred calls. */
static const int WEIGHT[FZ_G_COUNT] = {
    [FZ_G_BLAS] = 30, [FZ_G_BLAS_HOST] = 20, [FZ_G_KERNELS] = 8, [FZ_G_FFT] = 16, [FZ_G_MEMORY] = 14,
    [FZ_G_STREAM] = 10, [FZ_G_CONTEXT] = 2,
};

static int *members[FZ_G_COUNT], count[FZ_G_COUNT], weight_total;

static void group_ops(void)
{
    for (int g = 0; g < FZ_G_COUNT; g++) {
        members[g] = calloc((size_t)fz_op_count, sizeof(int));
        for (int i = 0; i < fz_op_count; i++)
            if (fz_ops[i].group == g)
                members[g][count[g]++] = i;
        weight_total += count[g] ? WEIGHT[g] : 0;
    }
}

void fz_draw_call(fz_worker *w, fz_rng *r, fz_call *c)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, group_ops);
    int pick = (int)fz_below(r, (uint64_t)weight_total), g = 0;
    while ((pick -= count[g] ? WEIGHT[g] : 0) >= 0)
        g++;
    memset(c, 0, sizeof *c);
    c->op = members[g][fz_below(r, (uint64_t)count[g])];
    fz_ops[c->op].draw(w, &fz_ops[c->op], c, r);
}

/* ---- one call ---- */

int64_t fz_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

void fz_run_call(fz_worker *w, const fz_call *c)
{
    const fz_op *op = &fz_ops[c->op];
    fz_shared_thread *sh = w->shared;
    fz_format(c, sh->text, sizeof sh->text);
    w->fill = (fz_rng){hash(sh->text)};     /* array contents follow from the call's own line */
    sh->started_ns = fz_now_ns();
    int slot = (int)(sh->started % FZ_RECENT);
    size_t len = strnlen(sh->text, FZ_RECENT_TEXT - 1);   /* cut short: enough to tell the call */
    memcpy(sh->recent[slot], sh->text, len);
    sh->recent[slot][len] = '\0';
    sh->recent_index[slot] = w->index;
    sh->recent_ns[slot] = sh->started_ns;
    __atomic_store_n(&sh->started, sh->started + 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&sh->index, w->index, __ATOMIC_SEQ_CST);
    if (fz_cfg.verbose)
        printf("call %lld: %s\n", (long long)w->index, sh->text);
    /* Calls that must not overlap a shutdown (another thread's: its own are sequenced) hold the
     * lock for reading; host-array BLAS calls do not when that race is the point. */
    int lock = fz_threads > 1 && op->group != FZ_G_CONTEXT &&
               !(op->group == FZ_G_BLAS_HOST && !fz_avoiding(FZ_K_SHUTDOWN_RACE));
    if (lock)
        pthread_rwlock_rdlock(&fz_life_lock);
    w->locked = lock;
    if ((lock || fz_threads == 1) && w->generation != fz_life_generation) {   /* read under the lock */
        fz_forget_device_memory(w);
        w->generation = fz_life_generation;
    }
    int result = op->exec(w, op, c);
    fz_release(w);
    w->locked = 0;
    if (lock)
        pthread_rwlock_unlock(&fz_life_lock);
    __atomic_store_n(&sh->index, -1, __ATOMIC_SEQ_CST);
    if (result == FZ_SKIPPED)
        sh->skipped++;
    else if (result == FZ_AVOIDED)
        sh->avoided++;
    else
        sh->calls++;
    if (fz_cfg.verbose)
        printf("  -> %s (%s)\n", result == FZ_SKIPPED ? "skipped" : result == FZ_AVOIDED ? "avoided" : "ran",
               cufort_last_error());
}

void fz_replay_hint(char *buf, size_t size, int64_t index, int thread)
{
    int n = snprintf(buf, size, "fuzz_capi --seed %llu --replay %lld", (unsigned long long)fz_cfg.seed,
                     (long long)index);
    if (n >= 0 && (size_t)n < size && fz_threads > 1)
        n += snprintf(buf + n, size - (size_t)n, " --threads %d --thread %d", fz_threads, thread);
    if (n >= 0 && (size_t)n < size && fz_cfg.first)
        n += snprintf(buf + n, size - (size_t)n, " --first %lld", (long long)fz_cfg.first);
    if (n >= 0 && (size_t)n < size && fz_cfg.segment != FZ_SEGMENT)
        snprintf(buf + n, size - (size_t)n, " --segment %lld", (long long)fz_cfg.segment);
}

/* ---- the oracle ---- */

static int documented(int st)
{
    switch (st) {
    case CUFORT_SUCCESS: case CUFORT_NOT_INITIALIZED: case CUFORT_ALLOC_FAILED:
    case CUFORT_INVALID_VALUE: case CUFORT_ARCH_MISMATCH: case CUFORT_MAPPING_ERROR:
    case CUFORT_EXECUTION_FAILED: case CUFORT_INTERNAL_ERROR: case CUFORT_NOT_SUPPORTED:
    case CUFORT_NO_DEVICE: case CUFORT_BAD_POINTER:
        return 1;
    default:
        return 0;
    }
}

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
enum { PRINT_MOST = 40 };

/* CUDA's sticky errors: the context is lost, and every call after fails the same way */
static int context_lost(const char *why)
{
    static const char *const sticky[] = {
        "cudaErrorIllegalAddress", "cudaErrorLaunchFailure", "cudaErrorMisalignedAddress",
        "cudaErrorIllegalInstruction", "cudaErrorInvalidPc", "cudaErrorHardwareStackError",
        "cudaErrorAssert", "cudaErrorInvalidAddressSpace"};
    for (size_t i = 0; i < sizeof sticky / sizeof *sticky; i++)
        if (strstr(why, sticky[i]))
            return 1;
    return 0;
}

void fz_failf(fz_worker *w, const fz_call *c, const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    __atomic_add_fetch(&w->shared->failures, 1, __ATOMIC_SEQ_CST);
    static int printed;
    pthread_mutex_lock(&print_lock);
    if (printed++ < PRINT_MOST) {
        char line[sizeof w->shared->text];
        fz_format(c, line, sizeof line);
        char hint[256], who[32] = "";
        fz_replay_hint(hint, sizeof hint, w->index, w->id);
        if (fz_threads > 1)
            snprintf(who, sizeof who, " thread %d", w->id);
        if (fz_cfg.case_name)
            printf("FAIL regression %s, call %lld: %s\n    call: %s\n", fz_cfg.case_name, (long long)w->index + 1,
                   why, line);
        else
            printf("FAIL fuzz seed %llu%s call %lld: %s\n    call: %s\n    replay: %s\n",
                   (unsigned long long)w->seed, who, (long long)w->index, why, line, hint);
    } else if (printed == PRINT_MOST + 1) {
        printf("fuzz: further failures are counted, not shown\n");
    }
    if (fz_in_child && context_lost(why)) {   /* the print lock stays held: this line is the last */
        fflush(stdout);
        _exit(FZ_EXIT_CONTEXT_LOST);
    }
    pthread_mutex_unlock(&print_lock);
    fflush(stdout);
}

static const char *status_name(int st) { return cufort_status_string(st); }

void fz_check(fz_worker *w, const fz_call *c, const char *fn, int st, fz_pred p)
{
    const char *msg = cufort_last_error();
    if (!documented(st)) {
        fz_failf(w, c, "%s returned %d, which is not one of cufort.h's status codes", fn, st);
        return;
    }
    if (st && (!msg || !*msg)) {
        fz_failf(w, c, "%s failed with %s but left no message", fn, status_name(st));
        return;
    }
    if (st && !strstr(msg, fn)) {
        fz_failf(w, c, "%s failed with %s; its message does not name it: \"%s\"", fn, status_name(st), msg);
        return;
    }
    if (fz_threads > 1 && ((p.kind == FZ_P_STATUS && p.status == CUFORT_NOT_INITIALIZED) || w->nowhere))
        return;   /* another thread's host-array call may initialise cufort meanwhile */
    if (p.kind == FZ_P_STATUS && st != p.status && !(p.also & FZ_ALSO(st)))
        fz_failf(w, c, "%s returned %s, expected %s (message: \"%s\")", fn, status_name(st),
                 status_name(p.status), msg ? msg : "(null)");
    else if (p.kind == FZ_P_STATUS && st == CUFORT_INVALID_VALUE && p.info && cufort_last_info() != p.info)
        fz_failf(w, c, "%s blamed parameter %d, expected %d (message: \"%s\")", fn, cufort_last_info(),
                 p.info, msg);
    else if (p.kind == FZ_P_FAIL && st == CUFORT_SUCCESS)
        fz_failf(w, c, "%s succeeded; expected a failure", fn);
}

/* ---- a worker's state ---- */

void fz_worker_init(fz_worker *w, int id, fz_shared_thread *shared)
{
    memset(w, 0, sizeof *w);
    w->id = id;
    w->shared = shared;
    w->seed = fz_cfg.seed;
    w->generation = __atomic_load_n(&fz_life_generation, __ATOMIC_ACQUIRE);   /* no lock held */
    shared->index = -1;
}

/* Back to nothing held: every live object the worker made destroyed, its blocks freed, and (single
 * thread) cufort shut down and started again, so that a segment's calls depend on that segment
 * alone. */
void fz_reset_worker(fz_worker *w, int shut_down)
{
    if (fz_threads > 1)
        pthread_rwlock_rdlock(&fz_life_lock);
    if (w->generation != fz_life_generation) {
        fz_forget_device_memory(w);
        w->generation = fz_life_generation;
    }
    if (!cufort_is_initialized())   /* what survived a shutdown is destroyed through a new init */
        cufort_init();
    if (cufort_is_initialized()) {
        for (int i = 0; i < FZ_SLOTS; i++) {
            if (w->plans[i].live)
                cufort_fft_destroy(w->plans[i].h);
            if (w->streams[i].live)
                cufort_stream_destroy(w->streams[i].h);
            if (w->events[i].live)
                cufort_event_destroy(w->events[i].h);
        }
        fz_drop_caches(w);
        cufort_set_stream(NULL);
    }
    memset(w->plans, 0, sizeof w->plans);
    memset(w->streams, 0, sizeof w->streams);
    memset(w->events, 0, sizeof w->events);
    memset(w->dev, 0, sizeof w->dev);
    memset(w->pinned, 0, sizeof w->pinned);
    w->thread_stream = NULL;
    if (fz_threads > 1)
        pthread_rwlock_unlock(&fz_life_lock);
    if (shut_down) {
        cufort_shutdown();
        w->generation = __atomic_add_fetch(&fz_life_generation, 1, __ATOMIC_ACQ_REL);
        cufort_init();
    }
}

void fz_worker_finish(fz_worker *w) { fz_reset_worker(w, 0); }
