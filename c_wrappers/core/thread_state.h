/* thread_state.h — per-thread caches (device scratch, pinned staging slots) that every reset
 * (shutdown, device change) must release while the device they belong to is still there. */
#ifndef CUFORT_THREAD_STATE_H
#define CUFORT_THREAD_STATE_H

#include "internal.h"

/* The first member of a cache struct. */
typedef struct cufort_thread_state {
    struct cufort_thread_state *next;
} cufort_thread_state;

/* One kind of cache: every thread's copy, listed so a reset can reach them all. */
typedef struct {
    pthread_mutex_t lock;
    cufort_thread_state *all;
    size_t size;                                   /* sizeof the cache struct */
    void (*release)(cufort_thread_state *state);   /* frees what one thread's cache holds */
} cufort_thread_states;

#define CUFORT_THREAD_STATES(type, release)                                                       \
    {PTHREAD_MUTEX_INITIALIZER, NULL, sizeof(type), (release)}

/* This thread's cache of that kind (*mine is the caller's _Thread_local pointer), created zeroed on
 * first use; after a reset it is zeroed again.  NULL when out of memory (error set). */
void *cufort_thread_state_get(cufort_thread_states *kind, void **mine);

#endif
