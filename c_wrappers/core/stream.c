/* stream.c — streams and events, forwarded to the active backend after the usual checks. */
#include "internal.h"

/* enter (init check), then the backend call with its failure attributed to `fn` */
#define FORWARD(fn, call)                           \
    do {                                            \
        int st_ = cufort_enter(fn);                 \
        return st_ ? st_ : cufort_in(fn, (call));   \
    } while (0)

int cufort_stream_create(cufort_stream *stream)
{
    if (!stream)
        return cufort_null_arg("cufort_stream_create", "stream");
    FORWARD("cufort_stream_create", cufort_ops()->stream_create(stream));
}

int cufort_stream_destroy(cufort_stream stream)
{
    FORWARD("cufort_stream_destroy", stream ? cufort_ops()->stream_destroy(stream) : CUFORT_SUCCESS);
}

int cufort_stream_synchronize(cufort_stream stream)
{
    FORWARD("cufort_stream_synchronize", cufort_ops()->stream_synchronize(stream));
}

int cufort_event_create(cufort_event *event)
{
    if (!event)
        return cufort_null_arg("cufort_event_create", "event");
    FORWARD("cufort_event_create", cufort_ops()->event_create(event));
}

int cufort_event_destroy(cufort_event event)
{
    FORWARD("cufort_event_destroy", event ? cufort_ops()->event_destroy(event) : CUFORT_SUCCESS);
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
