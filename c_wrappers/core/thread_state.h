/* thread_state.h — per-thread caches (device scratch, pinned staging slots, streams, cuBLAS
 * handles) that every reset (shutdown, device change) must release while the device they belong
 * to is still there, and that must not outlive their thread.
 *
 * When a thread exits, its cache goes back to a small pool of idle caches of its kind, which the
 * next new thread takes over as it is (buffers, streams and handles warm); past the pool's size it
 * is released and freed.  A program that starts and ends threads all its life therefore holds at
 * most (threads alive + the pool) caches of each kind. */
#ifndef CUFORT_THREAD_STATE_H
#define CUFORT_THREAD_STATE_H

#include "internal.h"

/* The first member of a cache struct. */
typedef struct cufort_thread_state {
    struct cufort_thread_state *next;          /* every cache of its kind */
    struct cufort_thread_state *next_idle;     /* the kind's pool */
    struct cufort_thread_states *kind;
} cufort_thread_state;

/* One kind of cache: every thread's copy, listed so a reset can reach them all. */
typedef struct cufort_thread_states {
    pthread_mutex_t lock;
    cufort_thread_state *all, *idle;
    int idle_count;
    size_t size;                                   /* sizeof the cache struct */
    void (*release)(cufort_thread_state *state);   /* frees what one thread's cache holds */
    int keyed;                                     /* exit_key made (under lock) */
    pthread_key_t exit_key;                        /* runs the hand-back when a thread exits */
} cufort_thread_states;

#define CUFORT_THREAD_STATES(type, release)                                                       \
    {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0, sizeof(type), (release), 0, 0}

/* This thread's cache of that kind (*mine is the caller's _Thread_local pointer): its own, else
 * one from the pool, else a new zeroed one; after a reset it is zeroed again.  NULL when out of
 * memory (error set). */
void *cufort_thread_state_get(cufort_thread_states *kind, void **mine);

#endif
