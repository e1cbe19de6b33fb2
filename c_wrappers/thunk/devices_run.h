/* devices_run.h — one host-array call's work on several devices at once.  Each extra device has a
 * helper thread bound to it for its whole life (its caches, streams and cuBLAS handle all on that
 * device), started on first use and ended before the next reset (shutdown or device change). */
#ifndef CUFORT_DEVICES_RUN_H
#define CUFORT_DEVICES_RUN_H

#include "internal.h"

/* The devices a host-array call of `flops` on operands of `bytes` takes (*n of them, devs: which,
 * the calling thread's own first): as many of cufort_engine_devices() as have
 * CUFORT_MULTI_GPU_MIN_FLOPS (default 2e10) of its work each, at most `parts` (the pieces it can
 * be cut in); one when its arrays are pageable (pinned = 0) and it does fewer flops per byte than
 * CUFORT_MULTI_GPU_MIN_INTENSITY (default 700), or within a share of a spread call (on a helper
 * thread, or the calling thread's own share), whose other devices run their own shares. */
int cufort_spread_devices(double flops, double bytes, int pinned, int64_t parts, int *devs, int *n);

/* The same for a call its copies bound (a batch of FFTs): as many devices as have
 * CUFORT_MULTI_GPU_MIN_BYTES (default 64 MiB) of its operands each; one when its arrays are
 * pageable, unless CUFORT_MULTI_GPU_MIN_INTENSITY is 0. */
int cufort_spread_copies(double bytes, int pinned, int64_t parts, int *devs, int *n);

/* A device that failed to set up for a call's share (no context, no streams: a GPU another
 * process holds in exclusive mode) sits out the calls spread after it, until the next reset. */
void cufort_device_set_aside(int device);

typedef int (*cufort_device_task)(void *ctx, int index);

/* fn(ctx, i) for i in [0, n), each with devs[i] as its thread's device: the calling thread runs
 * its own device's share itself, helper threads the others'.  Returns when all have returned:
 * the first failure's status, with its message on the calling thread. */
int cufort_on_devices(int n, const int *devs, cufort_device_task fn, void *ctx);

#endif
