/* scratch.h — the device objects the thunk engine's per-thread caches keep: one growing device
 * scratch block per thread, and the streams and events of staging, the GEMM engine and the FFT
 * parts.  Below the staging and the engines, which all use it. */
#ifndef CUFORT_SCRATCH_H
#define CUFORT_SCRATCH_H

#include "internal.h"

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
