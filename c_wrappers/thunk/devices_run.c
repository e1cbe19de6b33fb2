/* devices_run.c — helper threads, one per device, for calls spread over several devices (see
 * devices_run.h). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "devices_run.h"
#include "env.h"
#include "worker.h"

/* Work that keeps one device busy for well over the cost of handing it a share (a helper
 * thread's wake-up, the shared operand's upload to one more device): below it, a call stays on
 * one device. */
static double min_flops_per_device(void)
{
    double v = 0;
    cufort_env_real("CUFORT_MULTI_GPU_MIN_FLOPS", 0, HUGE_VAL, &v);
    return v > 0 ? v : 2e10;
}

/* On pageable arrays the host's staged copies bound a spread call: every device of a Level-3
 * call reads the shared operand (a triangle) through the host again, and even GEMM, whose A
 * crosses from the host once and then passes device to device, stages A, B and C once at the
 * host's rate.  Measured on two H200s with A read through the host by each device: DGEMM 8192
 * (683 flops per byte) 32.8 ms spread against 31.3 on one, SGEMM 8192 (1365) 20.8 against 30.9;
 * pinned, DGEMM 8192 gained (25.3 against 33.9).  CUFORT_MULTI_GPU_MIN_INTENSITY replaces the
 * 700 flops per byte. */
static double pageable_min_intensity(void)
{
    double v = 700;
    cufort_env_real("CUFORT_MULTI_GPU_MIN_INTENSITY", 0, HUGE_VAL, &v);
    return v;
}

static atomic_uint set_aside;   /* a bit per device number */

void cufort_device_set_aside(int device)
{
    if (device >= 0 && device < CUFORT_MAX_DEVICES)
        atomic_fetch_or(&set_aside, 1u << device);
}

/* A batch of FFTs moves each byte once each way and computes little: a share smaller than this
 * gains less than a helper's wake-up and a second plan cost. */
static double min_bytes_per_device(void)
{
    size_t v = 0;
    cufort_env_bytes("CUFORT_MULTI_GPU_MIN_BYTES", &v);
    return v > 0 ? (double)v : 64.0 * (1 << 20);
}

/* set while this thread runs its own share of a spread call */
static _Thread_local int in_share;

/* the devices a call may take now (the calling thread's own first), less those set aside; one
 * on a helper thread, or inside a share of a spread call (a Level-3 piece's GEMM): the other
 * devices are busy with their own shares, and a nested spread would wait for them */
static int usable_devices(int *devs, int *n)
{
    *n = 1;
    if (cufort_thread_device_bound() || in_share)
        return CUFORT_SUCCESS;
    int st = cufort_engine_devices(devs, CUFORT_MAX_DEVICES, n);
    unsigned aside = atomic_load(&set_aside);
    int kept = 0;
    for (int i = 0; i < *n; i++)
        if (i == 0 || !(aside >> devs[i] & 1))
            devs[kept++] = devs[i];
    *n = st ? 1 : kept;
    return st;
}

/* n devices, or as many as `share` (work / min_share, at most parts) allows */
static void at_most(int *n, double share, int64_t parts)
{
    double most = fmin(share, (double)parts);
    *n = most < *n ? (int)fmax(1, most) : *n;
}

int cufort_spread_devices(double flops, double bytes, int pinned, int64_t parts, int *devs, int *n)
{
    int st = usable_devices(devs, n);
    if (st || *n < 2 || (!pinned && flops < pageable_min_intensity() * bytes))
        *n = 1;
    else
        at_most(n, flops / min_flops_per_device(), parts);
    return st;
}

int cufort_spread_copies(double bytes, int pinned, int64_t parts, int *devs, int *n)
{
    int st = usable_devices(devs, n);
    if (st || *n < 2 || (!pinned && pageable_min_intensity() > 0))
        *n = 1;
    else
        at_most(n, bytes / min_bytes_per_device(), parts);
    return st;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cufort_worker *helpers[CUFORT_MAX_DEVICES];   /* by device number */

static int bind_to(void *device)
{
    cufort_bind_thread_device((int)(intptr_t)device);
    return CUFORT_SUCCESS;
}

/* Before any reset hook: each helper ends, and its thread's caches are released on its own device
 * as it exits (thread_state.c), while that device is still open. */
static void stop_helpers(void)
{
    pthread_mutex_lock(&lock);
    for (int d = 0; d < CUFORT_MAX_DEVICES; d++) {
        cufort_worker_stop(helpers[d]);
        helpers[d] = NULL;
    }
    atomic_store(&set_aside, 0);   /* a new start for every device */
    pthread_mutex_unlock(&lock);
}

static int helper(int device, cufort_worker **out)
{
    pthread_mutex_lock(&lock);
    int st = CUFORT_SUCCESS;
    if (!helpers[device] && !(st = cufort_worker_start(&helpers[device]))) {
        cufort_worker_post(helpers[device], bind_to, (void *)(intptr_t)device);
        cufort_before_reset(stop_helpers);
    }
    *out = helpers[device];
    pthread_mutex_unlock(&lock);
    return st;
}

typedef struct {
    cufort_device_task fn;
    void *ctx;
    int index;
} task;

static int run_task(void *arg)
{
    task *t = arg;
    return t->fn(t->ctx, t->index);
}

int cufort_on_devices(int n, const int *devs, cufort_device_task fn, void *ctx)
{
    task tasks[CUFORT_MAX_DEVICES];
    cufort_worker *w[CUFORT_MAX_DEVICES] = {0};
    int64_t ticket[CUFORT_MAX_DEVICES] = {0};
    int self = cufort_current_device(), st = CUFORT_SUCCESS, mine = -1;
    for (int i = 0; i < n && i < CUFORT_MAX_DEVICES; i++) {
        tasks[i] = (task){fn, ctx, i};
        if (devs[i] == self && mine < 0) {
            mine = i;
            continue;
        }
        if (devs[i] < 0 || devs[i] >= CUFORT_MAX_DEVICES)
            st = cufort_fail(CUFORT_INVALID_VALUE, "device %d is beyond the %d a call may use",
                             devs[i], CUFORT_MAX_DEVICES);
        else if (!(st = helper(devs[i], &w[i])))
            ticket[i] = cufort_worker_post(w[i], run_task, &tasks[i]);
        if (st)
            break;
    }
    if (!st && mine >= 0) {
        int outer = in_share;
        in_share = 1;
        st = fn(ctx, mine);
        in_share = outer;
    }
    char message[512] = "";
    if (st)
        snprintf(message, sizeof message, "%s", cufort_last_error());
    for (int i = 0; i < n && i < CUFORT_MAX_DEVICES; i++)
        if (ticket[i]) {   /* every task runs to its end: they share the caller's arrays */
            int done = cufort_worker_wait(w[i], ticket[i]);
            if (done && !st) {
                st = done;
                snprintf(message, sizeof message, "%s", cufort_last_error());
            }
        }
    if (st)
        cufort_fail(st, "%s", message);
    return st;
}
