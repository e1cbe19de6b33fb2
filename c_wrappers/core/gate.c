/* gate.c — see gate.h.
 *
 * Entering adds one to `inside` and then looks at `closing`; closing sets `closing` and then looks
 * at `inside`.  Both sequentially consistent, so at least one side sees the other: either the
 * entrant sees the gate closed (steps back out and waits), or the closer counts the entrant and
 * waits for it to leave.  A thread leaving while the gate closes wakes the closer. */
#include <pthread.h>
#include <stdatomic.h>

#include "gate.h"
#include "internal.h"

static atomic_long inside;          /* outermost holders now inside */
static atomic_int closing;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static _Thread_local int depth;     /* this thread's nested holds */
static _Thread_local int serving;   /* a helper thread of cufort's (cufort_gate_serve_calls) */
static _Thread_local int host_call;  /* the outermost call takes host arrays (cufort_gate_host_call) */

/* A forked child has only the thread that forked: the calls other threads had in flight will
 * never leave, so the child starts from its own depth alone. */
static void reset_in_child(void)
{
    pthread_mutex_init(&lock, NULL);
    pthread_cond_init(&changed, NULL);
    atomic_store(&inside, depth > 0);
    atomic_store(&closing, 0);
}

__attribute__((constructor)) static void watch_forks(void) { pthread_atfork(NULL, NULL, reset_in_child); }

static void wake_all(void)
{
    pthread_mutex_lock(&lock);
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

int cufort_gate_enter(void)
{
    if (depth++ > 0)
        return 0;
    for (;;) {
        atomic_fetch_add(&inside, 1);
        if (!atomic_load(&closing))
            return 1;
        if (atomic_fetch_sub(&inside, 1) == 1)
            wake_all();
        pthread_mutex_lock(&lock);
        while (atomic_load(&closing))
            pthread_cond_wait(&changed, &lock);
        pthread_mutex_unlock(&lock);
    }
}

void cufort_gate_leave(int *entered)
{
    if (--depth == 0)
        host_call = 0;
    if (*entered && atomic_fetch_sub(&inside, 1) == 1 && atomic_load(&closing))
        wake_all();
}

int cufort_gate_close(const char *routine)
{
    if (depth > 0)
        return cufort_fail(CUFORT_INVALID_VALUE,
                           "%s: called from code run during another cufort call; call it after "
                           "that call has returned",
                           routine);
    pthread_mutex_lock(&lock);
    while (atomic_load(&closing))              /* one teardown at a time */
        pthread_cond_wait(&changed, &lock);
    atomic_store(&closing, 1);
    while (atomic_load(&inside) > 0)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
    depth = 1;
    return CUFORT_SUCCESS;
}

void cufort_gate_open(void)
{
    depth = host_call = 0;
    pthread_mutex_lock(&lock);
    atomic_store(&closing, 0);
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

void cufort_gate_serve_calls(void) { depth = serving = 1; }

int cufort_gate_inside(void) { return depth > 0; }

int cufort_gate_program_call(void) { return depth == 1 && !serving && !host_call; }

void cufort_gate_host_call(void)
{
    if (depth > 0)
        host_call = 1;
}
