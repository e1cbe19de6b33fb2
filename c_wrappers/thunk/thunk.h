/* thunk.h — the thunk engine: every host-array entry point stages its arrays through here.
 * Protocol: begin; declare each array (matrix, vector or span) with its direction; stage_in
 * (allocates device space, copies in/inout arrays); call the device-pointer routine with
 * cufort_thunk_ptr/ld/inc in place of the caller's arrays; finish (copies out/inout arrays back
 * when the call succeeded, releases everything).  Matrices travel packed (ld = rows), vectors
 * contiguous (inc = +1/-1, or 0 for a broadcast element). */
#ifndef CUFORT_THUNK_H
#define CUFORT_THUNK_H

#include "internal.h"

enum { CUFORT_IN = 1, CUFORT_OUT = 2, CUFORT_INOUT = 3 };
#define CUFORT_THUNK_MAX_ARRAYS 4

typedef struct {
    const void *host;
    int64_t rows, cols, ld;   /* host layout: cols columns of rows elements, ld apart */
    int64_t dev_ld, dev_inc;  /* what the device-pointer routine is given */
    size_t elem_size, offset, bytes;
    int io;
} cufort_thunk_array;

typedef struct {
    const char *routine;
    int count, status;
    cufort_thunk_array a[CUFORT_THUNK_MAX_ARRAYS];
    char *dev;                /* one device buffer holding every array */
} cufort_thunk;

int cufort_thunk_begin(cufort_thunk *t, const char *routine);
int cufort_thunk_matrix(cufort_thunk *t, const void *host, int64_t rows, int64_t cols, int64_t ld,
                        size_t elem_size, int io);
int cufort_thunk_vector(cufort_thunk *t, const void *host, int64_t n, int64_t inc, size_t elem_size,
                        int io);
int cufort_thunk_span(cufort_thunk *t, const void *host, int64_t count, size_t elem_size, int io);
int cufort_thunk_stage_in(cufort_thunk *t);
/* fails (CUFORT_BAD_POINTER, naming routine) when cols columns of rows elements, ld apart, would span
 * more bytes than memory can hold: such a host array cannot exist */
int cufort_thunk_host_span(const char *routine, int64_t rows, int64_t cols, int64_t ld,
                           size_t elem_size);
void *cufort_thunk_ptr(const cufort_thunk *t, int i);
int64_t cufort_thunk_ld(const cufort_thunk *t, int i);
int64_t cufort_thunk_inc(const cufort_thunk *t, int i);
int cufort_thunk_finish(cufort_thunk *t, int status);

/* This thread's device scratch, at least `bytes` long (it only grows, so repeated calls allocate
 * nothing; every reset frees it), and how much it holds now. */
int cufort_thunk_scratch(size_t bytes, void **buf);
size_t cufort_thunk_scratch_held(void);

/* The streams and events that the thunk engine's per-thread caches keep (staging slots, GEMM
 * engine, FFT parts): make the missing ones; destroy those made (at a reset, with the device still
 * there).  Streams are passed as pointers to the cache's fields. */
int cufort_thunk_events(cufort_event *events, int count);
void cufort_thunk_events_release(cufort_event *events, int count);
int cufort_thunk_streams(cufort_stream *const *streams, int count);
void cufort_thunk_streams_release(cufort_stream *const *streams, int count);

#endif
