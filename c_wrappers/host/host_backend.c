/* host_backend.c — the host backend: "device" memory is host memory, copies are memcpy, streams
 * are synchronous and events read the monotonic clock.  It lets every test and every user's CI
 * run without a GPU, and it is the oracle the cuda backend is cross-checked against. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "host_internal.h"


static int host_open(int device) { (void)device; return CUFORT_SUCCESS; }
static void host_close(void) {}

/* CUFORT_HOST_DEVICES=n (1-64) makes the host backend show n devices, all the same host memory,
 * so that multi-GPU scheduling and per-device state run in tests without a GPU. */
static int host_device_count(int *count)
{
    int64_t n = 1;
    cufort_env_int("CUFORT_HOST_DEVICES", 1, 64, &n);
    *count = (int)n;
    return CUFORT_SUCCESS;
}

static int host_set_device(int device) { (void)device; return CUFORT_SUCCESS; }

static int host_properties(int device, cufort_device_properties *p)
{
    (void)device;
    snprintf(p->name, sizeof p->name, "cufort host backend (CPU BLAS: %s)", cufort_cpu_blas_path());
    p->total_memory = (int64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
    p->multiprocessors = (int)sysconf(_SC_NPROCESSORS_ONLN);
    return CUFORT_SUCCESS;
}

static int host_synchronize(void) { return CUFORT_SUCCESS; }

static int host_mem_info(int64_t *free_bytes, int64_t *total_bytes)
{
    struct sysinfo si;
    if (sysinfo(&si) != 0)
        return cufort_fail(CUFORT_INTERNAL_ERROR, "sysinfo failed");
    *free_bytes = (int64_t)si.freeram * si.mem_unit;
    *total_bytes = (int64_t)si.totalram * si.mem_unit;
    return CUFORT_SUCCESS;
}

static int host_alloc(void **p, size_t bytes)
{
    int side = cufort_host_guard_side();
    if (side != CUFORT_HOST_GUARD_NONE)
        return cufort_host_guarded_alloc(p, bytes, side);
    size_t rounded = (bytes + CUFORT_ALLOC_ALIGN - 1) / CUFORT_ALLOC_ALIGN * CUFORT_ALLOC_ALIGN;
    *p = rounded >= bytes ? aligned_alloc(CUFORT_ALLOC_ALIGN, rounded) : NULL;
    return *p ? CUFORT_SUCCESS : cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory");
}

static int host_free(void *p)
{
    if (p && cufort_host_guard_side() != CUFORT_HOST_GUARD_NONE)
        cufort_host_guarded_free(p);
    else
        free(p);
    return CUFORT_SUCCESS;
}

static int host_register(void *p, size_t bytes) { (void)p; (void)bytes; return CUFORT_SUCCESS; }
static int host_unregister(void *p) { (void)p; return CUFORT_SUCCESS; }

static int host_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height, cufort_copy_kind kind, cufort_stream stream, int async)
{
    (void)kind, (void)stream, (void)async;
    for (size_t r = 0; r < height; r++)
        memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    return CUFORT_SUCCESS;
}

/* CUFORT_HOST_DEVICES_NO_PEER=1: the simulated devices cannot reach each other directly */
static int host_copy_peer(void *dst, const void *src, int src_device, size_t bytes,
                          cufort_stream stream)
{
    (void)src_device, (void)stream;
    const char *env = getenv("CUFORT_HOST_DEVICES_NO_PEER");
    if (env && *env == '1')
        return CUFORT_NOT_SUPPORTED;
    memcpy(dst, src, bytes);
    return CUFORT_SUCCESS;
}

static int host_foreign_pointer(const char *routine, const char *name, const void *p, size_t bytes)
{
    (void)bytes;
    return cufort_fail(CUFORT_BAD_POINTER,
                       "%s: %s (%p) is not device memory from cufort_alloc/cublas_alloc (the host "
                       "backend checks every array as the GPU would need)", routine, name, p);
}

/* Streams and events are real objects so that handles stay distinct and checkable. */
struct cufort_stream_s { int unused; };
struct cufort_event_s { struct timespec t; };

/* CUFORT_HOST_DEVICES_BROKEN=1,3: those simulated devices refuse to make streams, as a GPU that
 * another process holds in exclusive mode refuses a context (tests of calls spread over devices) */
static int broken_device(void)
{
    const char *list = getenv("CUFORT_HOST_DEVICES_BROKEN");
    int dev = cufort_current_device();
    for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
        if (atoi(p) == dev && *p >= '0' && *p <= '9')
            return 1;
    return 0;
}

static int host_stream_create(cufort_stream *s)
{
    *s = NULL;
    if (broken_device())
        return cufort_fail(CUFORT_NO_DEVICE, "device %d is unavailable (CUFORT_HOST_DEVICES_BROKEN)",
                           cufort_current_device());
    *s = calloc(1, sizeof **s);
    return *s ? CUFORT_SUCCESS : cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory");
}

static int host_stream_destroy(cufort_stream s)
{
    free(s);
    return CUFORT_SUCCESS;
}

static int host_stream_synchronize(cufort_stream s) { (void)s; return CUFORT_SUCCESS; }

static int host_event_create(cufort_event *e)
{
    *e = calloc(1, sizeof **e);
    return *e ? CUFORT_SUCCESS : cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory");
}

static int host_event_destroy(cufort_event e)
{
    free(e);
    return CUFORT_SUCCESS;
}

static int host_event_record(cufort_event e, cufort_stream s)
{
    (void)s;
    clock_gettime(CLOCK_MONOTONIC, &e->t);
    return CUFORT_SUCCESS;
}

static int host_event_synchronize(cufort_event e) { (void)e; return CUFORT_SUCCESS; }
static int host_event_pending(cufort_event e) { (void)e; return 0; }
static int host_stream_wait(cufort_stream s, cufort_event e) { (void)s, (void)e; return CUFORT_SUCCESS; }

static int host_event_elapsed_ms(float *ms, cufort_event start, cufort_event stop)
{
    *ms = (float)((stop->t.tv_sec - start->t.tv_sec) * 1e3 +
                  (stop->t.tv_nsec - start->t.tv_nsec) * 1e-6);
    return CUFORT_SUCCESS;
}

const cufort_backend_ops cufort_host_ops = {
    .name = "host",
    .open = host_open,
    .close = host_close,
    .device_count = host_device_count,
    .set_device = host_set_device,
    .properties = host_properties,
    .synchronize = host_synchronize,
    .mem_info = host_mem_info,
    .alloc = host_alloc,
    .free = host_free,
    .host_alloc = host_alloc,
    .host_free = host_free,
    .host_register = host_register,
    .host_unregister = host_unregister,
    .copy2d = host_copy2d,
    .copy_peer = host_copy_peer,
    .foreign_pointer = host_foreign_pointer,
    .stream_create = host_stream_create,
    .stream_destroy = host_stream_destroy,
    .stream_synchronize = host_stream_synchronize,
    .event_create = host_event_create,
    .event_destroy = host_event_destroy,
    .event_record = host_event_record,
    .event_synchronize = host_event_synchronize,
    .event_pending = host_event_pending,
    .stream_wait = host_stream_wait,
    .event_elapsed_ms = host_event_elapsed_ms,
};
