/* stream.c — streams and events, forwarded to the active backend after the usual checks.
 * Every stream and event the program creates is recorded, as plans and device blocks are: a
 * handle that was never created, or was destroyed already, is refused with a status instead of
 * reaching the driver (a second cudaStreamDestroy is undefined; the host backend would free twice),
 * and cufort_shutdown destroys the ones left. */
#include "gate.h"
#include "internal.h"

cufort_registry cufort_live_streams = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};
cufort_registry cufort_live_events = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

static int is_live(cufort_registry *r, const void *h)
{
    uintptr_t base;
    size_t bytes;
    return cufort_registry_floor(r, h, &base, &bytes) && base == (uintptr_t)h;
}

int cufort_stream_live(cufort_stream stream)
{
    return !stream || is_live(&cufort_live_streams, stream);
}

int cufort_check_stream(const char *fn, cufort_stream stream)
{
    if (cufort_stream_live(stream))
        return CUFORT_SUCCESS;
    return cufort_fail(CUFORT_INVALID_VALUE,
                       "%s: %p is not a live stream (never created by cufort_stream_create, "
                       "destroyed already, or cufort was shut down since)", fn, (void *)stream);
}

int cufort_check_event(const char *fn, cufort_event event)
{
    if (!event)
        return cufort_null_arg(fn, "event");
    if (is_live(&cufort_live_events, event))
        return CUFORT_SUCCESS;
    return cufort_fail(CUFORT_INVALID_VALUE,
                       "%s: %p is not a live event (never created by cufort_event_create, "
                       "destroyed already, or cufort was shut down since)", fn, (void *)event);
}

/* enter (init check), then the backend call with its failure attributed to `fn` */
#define FORWARD(fn, checks, call)                                 \
    do {                                                          \
        CUFORT_HOLD_GATE;                                         \
        int st_ = cufort_enter(fn);                               \
        if (!st_)                                                 \
            st_ = (checks);                                       \
        return st_ ? st_ : cufort_in(fn, (call));                 \
    } while (0)

int cufort_stream_create(cufort_stream *stream)
{
    static const char fn[] = "cufort_stream_create";
    CUFORT_HOLD_GATE;
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (!stream)
        return cufort_null_arg(fn, "stream");
    *stream = NULL;
    if ((st = cufort_in(fn, cufort_ops()->stream_create(stream))))
        return st;
    if ((st = cufort_registry_add(&cufort_live_streams, *stream, 1))) {
        cufort_ops()->stream_destroy(*stream);
        *stream = NULL;
    }
    return cufort_in(fn, st);
}

int cufort_stream_destroy(cufort_stream stream)
{
    static const char fn[] = "cufort_stream_destroy";
    CUFORT_HOLD_GATE;
    int st = cufort_enter(fn);
    if (st || !stream)
        return st;
    /* removal is the check: of two threads destroying one stream, one gets the error */
    if (!cufort_registry_remove(&cufort_live_streams, stream))
        return cufort_check_stream(fn, stream);
    if (cufort_thread_stream() == stream)
        cufort_swap_thread_stream(NULL);
    return cufort_in(fn, cufort_ops()->stream_destroy(stream));
}

int cufort_stream_synchronize(cufort_stream stream)
{
    static const char fn[] = "cufort_stream_synchronize";
    FORWARD(fn, cufort_check_stream(fn, stream), cufort_ops()->stream_synchronize(stream));
}

int cufort_event_create(cufort_event *event)
{
    static const char fn[] = "cufort_event_create";
    CUFORT_HOLD_GATE;
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (!event)
        return cufort_null_arg(fn, "event");
    *event = NULL;
    if ((st = cufort_in(fn, cufort_ops()->event_create(event))))
        return st;
    if ((st = cufort_registry_add(&cufort_live_events, *event, 1))) {
        cufort_ops()->event_destroy(*event);
        *event = NULL;
    }
    return cufort_in(fn, st);
}

int cufort_event_destroy(cufort_event event)
{
    static const char fn[] = "cufort_event_destroy";
    CUFORT_HOLD_GATE;
    int st = cufort_enter(fn);
    if (st || !event)
        return st;
    if (!cufort_registry_remove(&cufort_live_events, event))
        return cufort_check_event(fn, event);
    return cufort_in(fn, cufort_ops()->event_destroy(event));
}

int cufort_event_record(cufort_event event, cufort_stream stream)
{
    static const char fn[] = "cufort_event_record";
    FORWARD(fn, cufort_check_event(fn, event) ?: cufort_check_stream(fn, stream),
            cufort_ops()->event_record(event, stream));
}

int cufort_event_synchronize(cufort_event event)
{
    static const char fn[] = "cufort_event_synchronize";
    FORWARD(fn, cufort_check_event(fn, event), cufort_ops()->event_synchronize(event));
}

int cufort_event_elapsed_ms(float *ms, cufort_event start, cufort_event stop)
{
    static const char fn[] = "cufort_event_elapsed_ms";
    FORWARD(fn, (!ms ? cufort_null_arg(fn, "ms") : 0) ?: cufort_check_event(fn, start)
                    ?: cufort_check_event(fn, stop),
            cufort_ops()->event_elapsed_ms(ms, start, stop));
}
