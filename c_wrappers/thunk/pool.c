/* pool.c — see pool.h.  Each helper thread has one mailbox: a caller claims an idle helper
 * (IDLE -> CLAIMED), fills in the job and posts it (ASSIGNED); the helper takes it (RUNNING), runs
 * it, goes back to IDLE and counts the job down.  A helper that found nothing for SPIN_US sleeps
 * on its condition variable; the caller signals it only when it said so (the sleeping flag and the
 * state are both sequentially consistent, so one of the two sides always sees the other).  When
 * the caller has done its own share it takes back every job not yet taken (ASSIGNED -> IDLE): it
 * never waits for a helper that is still waking up, or waiting for a core (measured: waiting for
 * them doubled a pageable DGEMM, whose uploads and downloads share the host's cores). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "gate.h"
#include "internal.h"
#include "pool.h"

enum { MAX_HELPERS = CUFORT_POOL_HELPERS, SPIN_US = 200 };
/* a helper's state: what it is doing (low 2 bits) and which claim it is in (the rest, counted up
 * at every claim), so that a caller taking back its job can never take back a later caller's */
enum { IDLE, CLAIMED, ASSIGNED, RUNNING };
#define KIND(s) ((int)((s) & 3))
#define TAGGED(s, kind) (((s) & ~(uint64_t)3) | (uint64_t)(kind))

typedef struct {
    cufort_pool_fn fn;
    void *ctx;
    int remaining;               /* helpers still running it (atomic) */
    int device;                  /* the caller's own device (a multi-GPU helper's), or -1 */
} job;

typedef struct {
    int started, sleeping;       /* atomic */
    uint64_t state;              /* atomic */
    job *job;
    int worker;
    pthread_mutex_t lock;
    pthread_cond_t wake;
} helper;

static helper helpers[MAX_HELPERS];
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static long long now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static void wait_for_job(helper *h)
{
    for (long long t0 = now_us(); now_us() - t0 < SPIN_US;)
        for (int i = 0; i < 64; i++) {
            if (KIND(__atomic_load_n(&h->state, __ATOMIC_ACQUIRE)) == ASSIGNED)
                return;
            relax();
        }
    pthread_mutex_lock(&h->lock);
    __atomic_store_n(&h->sleeping, 1, __ATOMIC_SEQ_CST);
    while (KIND(__atomic_load_n(&h->state, __ATOMIC_SEQ_CST)) != ASSIGNED)
        pthread_cond_wait(&h->wake, &h->lock);
    __atomic_store_n(&h->sleeping, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&h->lock);
}

static void *serve(void *arg)
{
    helper *h = arg;
    cufort_gate_serve_calls();   /* it runs work for a call that holds the gate */
    for (;;) {
        wait_for_job(h);
        uint64_t s = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE);
        if (KIND(s) != ASSIGNED ||
            !__atomic_compare_exchange_n(&h->state, &s, TAGGED(s, RUNNING), 0, __ATOMIC_ACQUIRE,
                                         __ATOMIC_RELAXED))
            continue;   /* taken back by its caller */
        job *j = h->job;
        /* the caller's streams, events and default stream are those of its device */
        cufort_bind_thread_device(j->device);
        j->fn(j->ctx, h->worker);
        cufort_bind_thread_device(-1);
        __atomic_store_n(&h->state, TAGGED(s, IDLE), __ATOMIC_RELEASE);
        __atomic_sub_fetch(&j->remaining, 1, __ATOMIC_ACQ_REL);   /* j may be gone after this */
    }
    return NULL;
}

/* a forked child has none of the parent's threads: its helpers start again when needed */
static void forget_helpers(void)
{
    for (int i = 0; i < MAX_HELPERS; i++) {
        helpers[i].started = 0;
        helpers[i].state = TAGGED(helpers[i].state, IDLE);
        helpers[i].sleeping = 0;
    }
    pthread_mutex_init(&start_lock, NULL);
}
static void watch_forks(void) { pthread_atfork(NULL, NULL, forget_helpers); }

/* helper i running (made on first need: a helper is made only when every earlier one is busy) */
static int started(int i)
{
    helper *h = &helpers[i];
    if (__atomic_load_n(&h->started, __ATOMIC_ACQUIRE))
        return 1;
    pthread_once(&fork_once, watch_forks);
    pthread_mutex_lock(&start_lock);
    if (!h->started) {
        pthread_mutex_init(&h->lock, NULL);
        pthread_cond_init(&h->wake, NULL);
        pthread_attr_t attr;
        pthread_t t;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, serve, h) == 0)
            __atomic_store_n(&h->started, 1, __ATOMIC_RELEASE);
        pthread_attr_destroy(&attr);
    }
    pthread_mutex_unlock(&start_lock);
    return h->started;
}

void cufort_pool_run(int workers, cufort_pool_fn fn, void *ctx)
{
    int want = workers - 1 < MAX_HELPERS ? workers - 1 : MAX_HELPERS, got = 0;
    helper *mine[MAX_HELPERS];
    uint64_t assigned[MAX_HELPERS];
    job j = {fn, ctx, 0, cufort_thread_device_bound() ? cufort_current_device() : -1};
    for (int i = 0; i < MAX_HELPERS && got < want; i++) {
        helper *h = &helpers[i];
        if (!started(i))
            break;
        uint64_t s = __atomic_load_n(&h->state, __ATOMIC_RELAXED), claim = TAGGED(s + 4, CLAIMED);
        if (KIND(s) != IDLE ||
            !__atomic_compare_exchange_n(&h->state, &s, claim, 0, __ATOMIC_ACQUIRE,
                                         __ATOMIC_RELAXED))
            continue;
        h->job = &j;
        mine[got] = h;
        assigned[got] = TAGGED(claim, ASSIGNED);
        h->worker = ++got;
        __atomic_add_fetch(&j.remaining, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&h->state, assigned[got - 1], __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&h->sleeping, __ATOMIC_SEQ_CST)) {
            pthread_mutex_lock(&h->lock);
            pthread_cond_signal(&h->wake);
            pthread_mutex_unlock(&h->lock);
        }
    }
    fn(ctx, 0);
    for (int i = 0; i < got; i++) {   /* take back what no helper took */
        uint64_t s = assigned[i];
        if (__atomic_compare_exchange_n(&mine[i]->state, &s, TAGGED(s, IDLE), 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            __atomic_sub_fetch(&j.remaining, 1, __ATOMIC_RELAXED);
    }
    /* a helper on this thread's own core (an MPI rank bound to one) runs only if this one yields */
    for (int spins = 0; __atomic_load_n(&j.remaining, __ATOMIC_ACQUIRE); spins++) {
        relax();
        if (spins % 1024 == 1023)
            sched_yield();
    }
}
