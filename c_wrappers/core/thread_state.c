/* thread_state.c — per-thread caches released at every reset and handed back when their thread
 * exits (see thread_state.h). */
#include <stdlib.h>

#include "thread_state.h"

/* Idle caches kept per kind: enough for a program that replaces its threads a few at a time to
 * find warm ones; more would hold device memory that no thread uses. */
enum { IDLE_MAX = 4 };

static void release_kind(void *arg)
{
    cufort_thread_states *kind = arg;
    pthread_mutex_lock(&kind->lock);
    for (cufort_thread_state *s = kind->all; s; s = s->next) {
        kind->release(s);
        memset(s + 1, 0, kind->size - sizeof *s);   /* keep the links */
    }
    pthread_mutex_unlock(&kind->lock);
}

static void unlink_state(cufort_thread_states *kind, cufort_thread_state *s)
{
    for (cufort_thread_state **at = &kind->all; *at; at = &(*at)->next)
        if (*at == s) {
            *at = s->next;
            return;
        }
}

/* The thread that owned `p` is exiting.  Holding the gate keeps a shutdown from releasing the
 * cache at the same time; a cache zeroed by a reset holds nothing, and releasing it is harmless. */
static void thread_exits(void *p)
{
    cufort_thread_state *s = p;
    cufort_thread_states *kind = s->kind;
    CUFORT_HOLD_GATE;
    pthread_mutex_lock(&kind->lock);
    if (kind->idle_count < IDLE_MAX && !cufort_thread_device_bound()) {
        s->next_idle = kind->idle;
        kind->idle = s;
        kind->idle_count++;
        pthread_mutex_unlock(&kind->lock);
        return;
    }
    unlink_state(kind, s);
    pthread_mutex_unlock(&kind->lock);
    kind->release(s);
    free(s);
}

static int make_key(cufort_thread_states *kind)
{
    if (!kind->keyed && pthread_key_create(&kind->exit_key, thread_exits) == 0)
        kind->keyed = 1;
    return kind->keyed;
}

void *cufort_thread_state_get(cufort_thread_states *kind, void **mine)
{
    if (*mine)
        return *mine;
    pthread_mutex_lock(&kind->lock);
    /* a helper thread bound to a device of its own neither takes nor leaves warm caches: those of
     * the pool belong to the process's device */
    cufort_thread_state *s = cufort_thread_device_bound() ? NULL : kind->idle;
    if (s) {
        kind->idle = s->next_idle;
        kind->idle_count--;
    }
    int keyed = make_key(kind);
    pthread_mutex_unlock(&kind->lock);
    if (!keyed && !s) {
        cufort_fail(CUFORT_ALLOC_FAILED, "no thread-specific key left for a per-thread cache");
        return NULL;
    }
    if (!s) {
        s = calloc(1, kind->size);
        if (!s) {
            cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory for a per-thread cache");
            return NULL;
        }
        s->kind = kind;
        pthread_mutex_lock(&kind->lock);
        s->next = kind->all;
        kind->all = s;
        pthread_mutex_unlock(&kind->lock);
        cufort_at_reset(release_kind, kind);
    }
    s->next_idle = NULL;
    pthread_setspecific(kind->exit_key, s);
    return *mine = s;
}
