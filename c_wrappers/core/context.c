/* context.c — init/shutdown, backend and device choice, the per-thread BLAS stream.
 * One backend is active at a time; init and shutdown are serialised by one lock, and every
 * change bumps a generation counter that per-thread caches compare against. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const cufort_backend_ops *_Atomic active;
static atomic_uint generation = 1;
static int device;
static int requested_device = -1;        /* cufort_set_device before init */
static struct { void (*fn)(void *); void *arg; } reset_hooks[16];   /* cufort_at_reset */
static int hook_count;
static _Thread_local cufort_stream thread_stream;

const cufort_backend_ops *cufort_ops(void) { return atomic_load(&active); }
unsigned cufort_generation(void) { return atomic_load(&generation); }
int cufort_current_device(void) { return device; }
cufort_stream cufort_thread_stream(void) { return thread_stream; }

cufort_stream cufort_swap_thread_stream(cufort_stream stream)
{
    cufort_stream old = thread_stream;
    thread_stream = stream;
    return old;
}
int cufort_is_initialized(void) { return cufort_ops() != NULL; }
int cufort_on_host(void) { return cufort_ops() == &cufort_host_ops; }

int cufort_backend(void)
{
    const cufort_backend_ops *ops = cufort_ops();
    return !ops ? 0 : ops == &cufort_host_ops ? CUFORT_BACKEND_HOST : CUFORT_BACKEND_CUDA;
}

const char *cufort_backend_name(void)
{
    const cufort_backend_ops *ops = cufort_ops();
    return ops ? ops->name : "none";
}

void cufort_at_reset(void (*fn)(void *arg), void *arg)
{
    pthread_mutex_lock(&lock);
    int known = 0;
    for (int i = 0; i < hook_count; i++)
        known |= reset_hooks[i].fn == fn && reset_hooks[i].arg == arg;
    if (!known && hook_count < (int)(sizeof reset_hooks / sizeof *reset_hooks)) {
        reset_hooks[hook_count].fn = fn;
        reset_hooks[hook_count++].arg = arg;
    }
    pthread_mutex_unlock(&lock);
}

int cufort_enter(const char *routine)
{
    cufort_clear_error();
    if (cufort_ops())
        return CUFORT_SUCCESS;
    return cufort_fail(CUFORT_NOT_INITIALIZED,
                       "%s: cufort is not initialized (call cufort_init or cublas_init first)",
                       routine);
}

int cufort_ensure_init(const char *routine)
{
    cufort_clear_error();
    if (cufort_ops())
        return CUFORT_SUCCESS;
    int st = cufort_init();
    if (st)
        return cufort_fail(st, "%s: automatic initialisation failed: %s", routine,
                           cufort_last_error());
    return st;
}

/* The MPI launchers' local-rank variables, so that each rank of a node takes its own GPU. */
static int local_rank(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK",
                                 "MPI_LOCALRANKID", "SLURM_LOCALID", "PMI_LOCAL_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v);
    }
    return -1;
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
        int rank = local_rank();
        *chosen = rank >= 0 ? rank % count : 0;
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
    device = dev;
    atomic_fetch_add(&generation, 1);
    atomic_store(&active, ops);
    return CUFORT_SUCCESS;
}

int cufort_init_backend(int backend)
{
    cufort_clear_error();
    if (backend != CUFORT_BACKEND_AUTO && backend != CUFORT_BACKEND_CUDA &&
        backend != CUFORT_BACKEND_HOST)
        return cufort_fail(CUFORT_INVALID_VALUE, "cufort_init_backend: unknown backend %d", backend);
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

static void run_reset_hooks(void)
{
    for (int i = 0; i < hook_count; i++)
        reset_hooks[i].fn(reset_hooks[i].arg);
}

int cufort_shutdown(void)
{
    cufort_clear_error();
    pthread_mutex_lock(&lock);
    const cufort_backend_ops *ops = cufort_ops();
    if (ops) {
        run_reset_hooks();
        /* what the program left allocated goes with the context */
        cufort_registry_drain(&cufort_device_blocks, ops->free);
        cufort_registry_drain(&cufort_pinned_blocks, ops->host_free);
        cufort_registry_drain(&cufort_registered_ranges, ops->host_unregister);
        cufort_streams_drain();
        ops->close();
        atomic_store(&active, NULL);
        atomic_fetch_add(&generation, 1);
    }
    pthread_mutex_unlock(&lock);
    return CUFORT_SUCCESS;
}

/* ---- devices ---- */

int cufort_device_count(int *count)
{
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
    pthread_mutex_lock(&lock);
    int st = CUFORT_SUCCESS;
    const cufort_backend_ops *ops = cufort_ops();
    if (!ops) {
        requested_device = dev;
    } else {
        int count = 0;
        st = ops->device_count(&count);
        if (!st && dev >= count)
            st = cufort_fail(CUFORT_INVALID_VALUE,
                             "cufort_set_device: device %d requested but only %d present", dev, count);
        if (!st) {
            run_reset_hooks();
            st = ops->set_device(dev);
        }
        if (!st) {
            device = requested_device = dev;
            atomic_fetch_add(&generation, 1);
        }
    }
    pthread_mutex_unlock(&lock);
    return st;
}

int cufort_get_device(int *dev)
{
    int st = cufort_enter("cufort_get_device");
    if (st)
        return st;
    if (!dev)
        return cufort_null_arg("cufort_get_device", "device");
    *dev = device;
    return CUFORT_SUCCESS;
}

int cufort_get_device_properties(int dev, cufort_device_properties *props)
{
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
    int st = cufort_enter("cufort_device_synchronize");
    return st ? st : cufort_ops()->synchronize();
}

int cufort_mem_info(int64_t *free_bytes, int64_t *total_bytes)
{
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
    int st = cufort_enter("cufort_set_stream");
    if (!st)
        thread_stream = stream;
    return st;
}

int cufort_get_stream(cufort_stream *stream)
{
    int st = cufort_enter("cufort_get_stream");
    if (st)
        return st;
    if (!stream)
        return cufort_null_arg("cufort_get_stream", "stream");
    *stream = thread_stream;
    return CUFORT_SUCCESS;
}
