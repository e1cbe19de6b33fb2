/* stream.c — streams and events, forwarded to the active backend after the usual checks. */
#include "internal.h"

#define ENTER(fn)                        \
    int st = cufort_enter(fn);           \
    if (st)                              \
        return st

int cufort_stream_create(cufort_stream *stream)
{
    ENTER("cufort_stream_create");
    return stream ? cufort_ops()->stream_create(stream)
                  : cufort_null_arg("cufort_stream_create", "stream");
}

int cufort_stream_destroy(cufort_stream stream)
{
    ENTER("cufort_stream_destroy");
    return stream ? cufort_ops()->stream_destroy(stream) : CUFORT_SUCCESS;
}

int cufort_stream_synchronize(cufort_stream stream)
{
    ENTER("cufort_stream_synchronize");
    return cufort_ops()->stream_synchronize(stream);
}

int cufort_event_create(cufort_event *event)
{
    ENTER("cufort_event_create");
    return event ? cufort_ops()->event_create(event)
                 : cufort_null_arg("cufort_event_create", "event");
}

int cufort_event_destroy(cufort_event event)
{
    ENTER("cufort_event_destroy");
    return event ? cufort_ops()->event_destroy(event) : CUFORT_SUCCESS;
}

int cufort_event_record(cufort_event event, cufort_stream stream)
{
    ENTER("cufort_event_record");
    return event ? cufort_ops()->event_record(event, stream)
                 : cufort_null_arg("cufort_event_record", "event");
}

int cufort_event_synchronize(cufort_event event)
{
    ENTER("cufort_event_synchronize");
    return event ? cufort_ops()->event_synchronize(event)
                 : cufort_null_arg("cufort_event_synchronize", "event");
}

int cufort_event_elapsed_ms(float *ms, cufort_event start, cufort_event stop)
{
    ENTER("cufort_event_elapsed_ms");
    if (!ms || !start || !stop)
        return cufort_null_arg("cufort_event_elapsed_ms", "ms/start/stop");
    return cufort_ops()->event_elapsed_ms(ms, start, stop);
}
