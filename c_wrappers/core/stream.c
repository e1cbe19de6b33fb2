/* stream.c — streams and events, forwarded to the active backend after the usual checks.
 * The ones made here are recorded until destroyed: a handle is a plain value that a program (or
 * Fortran's intrinsic copies of a cf_stream) may copy, and destroying it through a second copy must
 * be an error, not a second free.  A shutdown destroys those left. */
#include "internal.h"

cufort_registry cufort_live_streams = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};
cufort_registry cufort_live_events = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

/* a handle made here, recorded; when it cannot be recorded it is destroyed again */
static int keep(cufort_registry *r, void *h, int (*destroy)(void *))
{
    int st = cufort_registry_add(r, h, 1);
    if (st)
        destroy(h);
    return st;
}

static int destroy_stream(void *s) { return cufort_ops()->stream_destroy(s); }
static int destroy_event(void *e) { return cufort_ops()->event_destroy(e); }

void cufort_streams_drain(void)
{
    cufort_registry_drain(&cufort_live_streams, destroy_stream);
    cufort_registry_drain(&cufort_live_events, destroy_event);
}

/* destroy h when it is live, else say so (no backend call on a stale handle) */
static int release(cufort_registry *r, void *h, int (*destroy)(void *), const char *fn,
                   const char *what)
{
    if (!h)
        return CUFORT_SUCCESS;
    if (!cufort_registry_remove(r, h))
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: %p is not a live %s made by cufort (destroyed "
                           "already, through another copy of the handle?)", fn, h, what);
    return destroy(h);
}

/* enter (init check), then the backend call with its failure attributed to `fn` */
#define FORWARD(fn, call)                           \
    do {                                            \
        int st_ = cufort_enter(fn);                 \
        return st_ ? st_ : cufort_in(fn, (call));   \
    } while (0)

int cufort_stream_create(cufort_stream *stream)
{
    static const char fn[] = "cufort_stream_create";
    if (!stream)
        return cufort_null_arg(fn, "stream");
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (!(st = cufort_ops()->stream_create(stream)) &&
        (st = keep(&cufort_live_streams, *stream, destroy_stream)))
        *stream = NULL;
    return cufort_in(fn, st);
}

int cufort_stream_destroy(cufort_stream stream)
{
    FORWARD("cufort_stream_destroy", release(&cufort_live_streams, stream, destroy_stream,
                                             "cufort_stream_destroy", "stream"));
}

int cufort_stream_synchronize(cufort_stream stream)
{
    FORWARD("cufort_stream_synchronize", cufort_ops()->stream_synchronize(stream));
}

int cufort_event_create(cufort_event *event)
{
    static const char fn[] = "cufort_event_create";
    if (!event)
        return cufort_null_arg(fn, "event");
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (!(st = cufort_ops()->event_create(event)) &&
        (st = keep(&cufort_live_events, *event, destroy_event)))
        *event = NULL;
    return cufort_in(fn, st);
}

int cufort_event_destroy(cufort_event event)
{
    FORWARD("cufort_event_destroy", release(&cufort_live_events, event, destroy_event,
                                            "cufort_event_destroy", "event"));
}

int cufort_event_record(cufort_event event, cufort_stream stream)
{
    if (!event)
        return cufort_null_arg("cufort_event_record", "event");
    FORWARD("cufort_event_record", cufort_ops()->event_record(event, stream));
}

int cufort_event_synchronize(cufort_event event)
{
    if (!event)
        return cufort_null_arg("cufort_event_synchronize", "event");
    FORWARD("cufort_event_synchronize", cufort_ops()->event_synchronize(event));
}

int cufort_event_elapsed_ms(float *ms, cufort_event start, cufort_event stop)
{
    if (!ms || !start || !stop)
        return cufort_null_arg("cufort_event_elapsed_ms", "ms/start/stop");
    FORWARD("cufort_event_elapsed_ms", cufort_ops()->event_elapsed_ms(ms, start, stop));
}
