/* worker.c — see worker.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "worker.h"

enum { QUEUE = 16 };

struct cufort_worker {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct { cufort_task fn; void *arg; } queue[QUEUE];
    int64_t posted, finished;    /* tickets handed out; tickets run (or skipped) */
    int quit, status;            /* status: the first uncollected failure */
    int device;                  /* the starting thread's own device, or -1 (see start) */
    char message[512];
};

static void *serve(void *arg)
{
    cufort_worker *w = arg;
    cufort_gate_serve_calls();   /* it runs work for a call that holds the gate */
    if (w->device >= 0)
        cufort_bind_thread_device(w->device);
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->quit && w->finished == w->posted)
            pthread_cond_wait(&w->changed, &w->lock);
        if (w->finished == w->posted)
            break;
        int64_t next = w->finished;
        int skip = w->status != CUFORT_SUCCESS;
        pthread_mutex_unlock(&w->lock);
        int st = skip ? CUFORT_SUCCESS : w->queue[next % QUEUE].fn(w->queue[next % QUEUE].arg);
        pthread_mutex_lock(&w->lock);
        if (st && !w->status) {
            w->status = st;
            snprintf(w->message, sizeof w->message, "%s", cufort_last_error());
        }
        w->finished = next + 1;
        pthread_cond_broadcast(&w->changed);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int cufort_worker_start(cufort_worker **out)
{
    cufort_worker *w = calloc(1, sizeof *w);
    if (!w)
        return cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory for a worker thread");
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->changed, NULL);
    /* A worker started by a multi-GPU helper works on that helper's device: the events it records
     * and the caches it makes must belong to it. */
    w->device = cufort_thread_device_bound() ? cufort_current_device() : -1;
    if (pthread_create(&w->thread, NULL, serve, w)) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->changed);
        free(w);
        return cufort_fail(CUFORT_ALLOC_FAILED, "could not start a worker thread");
    }
    *out = w;
    return CUFORT_SUCCESS;
}

int64_t cufort_worker_post(cufort_worker *w, cufort_task fn, void *arg)
{
    pthread_mutex_lock(&w->lock);
    while (w->posted - w->finished >= QUEUE)
        pthread_cond_wait(&w->changed, &w->lock);
    w->queue[w->posted % QUEUE].fn = fn;
    w->queue[w->posted % QUEUE].arg = arg;
    int64_t ticket = ++w->posted;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
    return ticket;
}

int cufort_worker_wait(cufort_worker *w, int64_t ticket)
{
    pthread_mutex_lock(&w->lock);
    while (w->finished < ticket)
        pthread_cond_wait(&w->changed, &w->lock);
    int st = w->status;
    w->status = CUFORT_SUCCESS;
    if (st)
        cufort_fail(st, "%s", w->message);
    pthread_mutex_unlock(&w->lock);
    return st;
}

void cufort_worker_stop(cufort_worker *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->quit = 1;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->changed);
    free(w);
}
