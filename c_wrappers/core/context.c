/* context.c — init/shutdown, backend and device choice, the per-thread BLAS stream's public calls.
 * One backend is active at a time (state.c holds it); init and shutdown are serialised by one lock,
 * and every change bumps the generation counter that per-thread caches compare against.  Shutdown
 * and device changes close the gate (gate.h) first, so no call is inside while the state goes. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int requested_device = -1;        /* cufort_set_device before init */
static atomic_int shutdowns;             /* cufort_shutdown_count */

int cufort_shutdown_count(void) { return atomic_load(&shutdowns); }

int cufort_ensure_init(const char *routine)
{
    cufort_gate_host_call();
    cufort_clear_error();
    if (cufort_ops())
        return CUFORT_SUCCESS;
    int st = cufort_init();
    if (st)
        return cufort_fail(st, "%s: automatic initialisation failed: %s", routine,
                           cufort_last_error());
    return st;
}

static int choose_device(int count, int *chosen)
{
    const char *env = getenv("CUFORT_DEVICE");
    if (requested_device >= 0) {
        *chosen = requested_device;
    } else if (env && *env) {
        char *end;
        long d = strtol(env, &end, 10);
        if (*end || d < 0 || d >= count)
            return cufort_fail(CUFORT_INVALID_VALUE,
                               "cufort_init: CUFORT_DEVICE=%s is not a device number in [0, %d)",
                               env, count);
        *chosen = (int)d;
        return CUFORT_SUCCESS;
    } else {
        int st = cufort_first_device(count, chosen);   /* CUFORT_DEVICES, or the local-rank rule */
        if (st)
            return st;
    }
    if (*chosen >= count)
        return cufort_fail(CUFORT_INVALID_VALUE,
                           "cufort_init: device %d requested but only %d present", *chosen, count);
    return CUFORT_SUCCESS;
}

static int cuda_usable(int *count)
{
    *count = 0;
    return cufort_cuda_ops.device_count(count) == CUFORT_SUCCESS && *count > 0;
}

static int open_backend(int backend)
{
    int count = 0;
    if (backend == CUFORT_BACKEND_AUTO) {
        backend = cuda_usable(&count) ? CUFORT_BACKEND_CUDA : CUFORT_BACKEND_HOST;
        cufort_clear_error();   /* no GPU is not an error when falling back is what was asked */
    }
    else if (backend == CUFORT_BACKEND_CUDA && !cuda_usable(&count))
        return cufort_fail(CUFORT_NO_DEVICE,
                           "cufort_init: the cuda backend was requested but no usable GPU was found");
    const cufort_backend_ops *ops =
        backend == CUFORT_BACKEND_CUDA ? &cufort_cuda_ops : &cufort_host_ops;
    if (ops == &cufort_host_ops)
        ops->device_count(&count);
    int dev = 0, st = choose_device(count, &dev);
    if (st)
        return st;
    st = ops->open(dev);
    if (st)
        return st;
    cufort_state_activate(ops, backend, dev);
    return CUFORT_SUCCESS;
}

int cufort_init_backend(int backend)
{
    CUFORT_HOLD_GATE;
    cufort_clear_error();
    if (backend != CUFORT_BACKEND_AUTO && backend != CUFORT_BACKEND_CUDA &&
        backend != CUFORT_BACKEND_HOST)
        return cufort_fail(CUFORT_INVALID_VALUE, "cufort_init_backend: unknown backend %d", backend);
    if (cufort_state_forked())
        return cufort_fail(CUFORT_NOT_SUPPORTED,
                           "cufort_init: this process is a fork of one that had cufort running; "
                           "like CUDA, cufort cannot start again in it (exec a new program, or fork "
                           "before the first cufort call)");
    pthread_mutex_lock(&lock);
    int st = CUFORT_SUCCESS;
    const cufort_backend_ops *ops = cufort_ops();
    if (!ops)
        st = open_backend(backend);
    else if (backend != CUFORT_BACKEND_AUTO && backend != cufort_backend())
        st = cufort_fail(CUFORT_INVALID_VALUE,
                         "cufort_init_backend: already running on the %s backend; call "
                         "cufort_shutdown first", ops->name);
    pthread_mutex_unlock(&lock);
    return st;
}

int cufort_init(void)
{
    CUFORT_HOLD_GATE;
    cufort_clear_error();
    if (cufort_ops())          /* idempotent: the environment only matters the first time */
        return CUFORT_SUCCESS;
    const char *env = getenv("CUFORT_BACKEND");
    int backend = CUFORT_BACKEND_AUTO;
    if (env && *env && strcmp(env, "auto") != 0) {
        if (strcmp(env, "cuda") == 0)
            backend = CUFORT_BACKEND_CUDA;
        else if (strcmp(env, "host") == 0)
            backend = CUFORT_BACKEND_HOST;
        else
            return cufort_fail(CUFORT_INVALID_VALUE,
                               "cufort_init: CUFORT_BACKEND=%s; expected cuda, host or auto", env);
    }
    return cufort_init_backend(backend);
}

static int destroy_stream(void *s) { return cufort_ops()->stream_destroy(s); }
static int destroy_event(void *e) { return cufort_ops()->event_destroy(e); }

/* Other threads' calls finish first (the gate); calls that arrive meanwhile wait, then find
 * cufort shut down. */
int cufort_shutdown(void)
{
    cufort_clear_error();
    int st = cufort_gate_close("cufort_shutdown");
    if (st)
        return st;
    pthread_mutex_lock(&lock);
    const cufort_backend_ops *ops = cufort_ops();
    if (ops) {
        ops->synchronize();   /* device-pointer calls may still run on what is about to go */
        cufort_state_run_reset_hooks();
        /* what the program left allocated goes with the context */
        cufort_registry_drain(&cufort_live_events, destroy_event);
        cufort_registry_drain(&cufort_live_streams, destroy_stream);
        cufort_registry_drain(&cufort_device_blocks, ops->free);
        cufort_registry_drain(&cufort_pinned_blocks, ops->host_free);
        cufort_registry_drain(&cufort_registered_ranges, ops->host_unregister);
        ops->close();
        cufort_state_deactivate();
        atomic_fetch_add(&shutdowns, 1);
    }
    pthread_mutex_unlock(&lock);
    cufort_gate_open();
    cufort_clear_error();   /* a failed wait for a faulted device is no failure of the shutdown */
    return CUFORT_SUCCESS;
}

/* ---- devices ---- */

int cufort_device_count(int *count)
{
    CUFORT_HOLD_GATE;
    cufort_clear_error();
    if (!count)
        return cufort_null_arg("cufort_device_count", "count");
    const cufort_backend_ops *ops = cufort_ops();
    if (ops)
        return ops->device_count(count);
    cuda_usable(count);       /* before init: how many GPUs cufort_init would see */
    cufort_clear_error();
    return CUFORT_SUCCESS;
}

int cufort_set_device(int dev)
{
    cufort_clear_error();
    if (dev < 0)
        return cufort_fail(CUFORT_INVALID_VALUE, "cufort_set_device: device %d is negative", dev);
    int st = cufort_gate_close("cufort_set_device");
    if (st)
        return st;
    pthread_mutex_lock(&lock);
    const cufort_backend_ops *ops = cufort_ops();
    if (!ops) {
        requested_device = dev;
    } else {
        int count = 0;
        st = ops->device_count(&count);
        if (!st && dev >= count)
            st = cufort_fail(CUFORT_INVALID_VALUE,
                             "cufort_set_device: device %d requested but only %d present", dev, count);
        if (!st) {   /* what belongs to the old device goes before it: the reset, then the
                      * program's streams and events */
            ops->synchronize();
            cufort_state_run_reset_hooks();
            cufort_registry_drain(&cufort_live_events, destroy_event);
            cufort_registry_drain(&cufort_live_streams, destroy_stream);
            st = ops->set_device(dev);
        }
        if (!st) {
            requested_device = dev;
            cufort_state_set_device(dev);
        }
    }
    pthread_mutex_unlock(&lock);
    cufort_gate_open();
    return st;
}

int cufort_get_device(int *dev)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter("cufort_get_device");
    if (st)
        return st;
    if (!dev)
        return cufort_null_arg("cufort_get_device", "device");
    *dev = cufort_current_device();
    return CUFORT_SUCCESS;
}

int cufort_get_device_properties(int dev, cufort_device_properties *props)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter("cufort_get_device_properties");
    if (st)
        return st;
    if (!props)
        return cufort_null_arg("cufort_get_device_properties", "props");
    int count = 0;
    st = cufort_ops()->device_count(&count);
    if (st)
        return st;
    if (dev < 0 || dev >= count)
        return cufort_fail(CUFORT_INVALID_VALUE,
                           "cufort_get_device_properties: device %d not in [0, %d)", dev, count);
    memset(props, 0, sizeof *props);
    return cufort_ops()->properties(dev, props);
}

int cufort_device_synchronize(void)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter("cufort_device_synchronize");
    return st ? st : cufort_ops()->synchronize();
}

int cufort_mem_info(int64_t *free_bytes, int64_t *total_bytes)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter("cufort_mem_info");
    if (st)
        return st;
    if (!free_bytes || !total_bytes)
        return cufort_null_arg("cufort_mem_info", "free_bytes/total_bytes");
    return cufort_ops()->mem_info(free_bytes, total_bytes);
}

/* ---- the per-thread BLAS stream ---- */

int cufort_set_stream(cufort_stream stream)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter("cufort_set_stream");
    if (!st && !(st = cufort_check_stream("cufort_set_stream", stream)))
        cufort_swap_thread_stream(stream);
    return st;
}

int cufort_get_stream(cufort_stream *stream)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter("cufort_get_stream");
    if (st)
        return st;
    if (!stream)
        return cufort_null_arg("cufort_get_stream", "stream");
    *stream = cufort_thread_stream();
    return CUFORT_SUCCESS;
}
