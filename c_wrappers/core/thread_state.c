/* thread_state.c — per-thread caches released at every reset (see thread_state.h). */
#include <stdlib.h>

#include "thread_state.h"

static void release_kind(void *arg)
{
    cufort_thread_states *kind = arg;
    pthread_mutex_lock(&kind->lock);
    for (cufort_thread_state *s = kind->all; s; s = s->next) {
        kind->release(s);
        memset((char *)s + sizeof *s, 0, kind->size - sizeof *s);   /* keep the list link */
    }
    pthread_mutex_unlock(&kind->lock);
}

void *cufort_thread_state_get(cufort_thread_states *kind, void **mine)
{
    if (*mine)
        return *mine;
    cufort_thread_state *s = calloc(1, kind->size);
    if (!s) {
        cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory for a per-thread cache");
        return NULL;
    }
    pthread_mutex_lock(&kind->lock);
    s->next = kind->all;
    kind->all = s;
    pthread_mutex_unlock(&kind->lock);
    cufort_at_reset(release_kind, kind);
    return *mine = s;
}
