/* scratch.c — see scratch.h. */
#include "scratch.h"
#include "thread_state.h"

/* ---- per-thread device scratch, released at every reset ---- */

typedef struct {
    cufort_thread_state link;
    void *buf;
    size_t size;
} scratch;

static void release_scratch(cufort_thread_state *s)
{
    scratch *sc = (scratch *)s;
    if (sc->buf)
        cufort_own_free(sc->buf, 0);
}

static cufort_thread_states scratches = CUFORT_THREAD_STATES(scratch, release_scratch);
static _Thread_local scratch *mine;

int cufort_thunk_scratch(size_t bytes, void **buf)
{
    scratch *sc = cufort_thread_state_get(&scratches, (void **)&mine);
    if (!sc)
        return CUFORT_ALLOC_FAILED;
    if (sc->size < bytes) {
        if (sc->buf)
            cufort_own_free(sc->buf, 0);
        sc->buf = NULL;
        sc->size = 0;
        int st = cufort_own_alloc(&sc->buf, (int64_t)bytes, 0);
        if (st)
            return st;
        sc->size = bytes;
    }
    *buf = sc->buf;
    return CUFORT_SUCCESS;
}

size_t cufort_thunk_scratch_held(void)
{
    scratch *sc = cufort_thread_state_get(&scratches, (void **)&mine);
    return sc ? sc->size : 0;
}

int cufort_thunk_events(cufort_event *events, int count)
{
    int st = CUFORT_SUCCESS;
    for (int i = 0; i < count && !st; i++)
        if (!events[i])
            st = cufort_ops()->event_create(&events[i]);
    return st;
}

void cufort_thunk_events_release(cufort_event *events, int count)
{
    for (int i = 0; i < count; i++)
        if (events[i])
            cufort_ops()->event_destroy(events[i]);
}

int cufort_thunk_streams(cufort_stream *const *streams, int count)
{
    int st = CUFORT_SUCCESS;
    for (int i = 0; i < count && !st; i++)
        if (!*streams[i])
            st = cufort_ops()->stream_create(streams[i]);
    return st;
}

void cufort_thunk_streams_release(cufort_stream *const *streams, int count)
{
    for (int i = 0; i < count; i++)
        if (*streams[i])
            cufort_ops()->stream_destroy(*streams[i]);
}
