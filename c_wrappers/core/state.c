/* state.c — the shared state every layer reads: the active backend, the device, the generation
 * counter that per-thread caches compare against, this thread's BLAS stream, and the reset hooks.
 * context.c changes it (init, shutdown, device changes); nothing here calls back up. */
#include <pthread.h>
#include <stdatomic.h>

#include "internal.h"

static const cufort_backend_ops *_Atomic active;
static atomic_int active_kind;                 /* CUFORT_BACKEND_CUDA or _HOST while active */
static atomic_uint generation = 1;
static atomic_int device;
static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { void (*fn)(void *); void *arg; } reset_hooks[16];   /* cufort_at_reset */
static int hook_count;
static void (*first_hook)(void);               /* cufort_before_reset */
static atomic_int forked_live;                 /* this is a fork's child of an initialised cufort */
static _Thread_local int thread_device = -1;   /* a helper thread's own device (multi-GPU calls) */
static _Thread_local cufort_stream thread_stream;
static _Thread_local unsigned thread_stream_generation;   /* the init thread_stream was set under */

/* A fork's child has only the forking thread: locks other threads held stay held, and a CUDA
 * context does not carry over.  It inherits cufort as shut down, and may not start it again
 * (cufort_state_forked), so nothing in it waits on a lock nobody will release. */
static void forget_in_child(void)
{
    if (atomic_load(&active)) {
        atomic_store(&forked_live, 1);
        atomic_store(&active, NULL);
        atomic_fetch_add(&generation, 1);
    }
}
__attribute__((constructor)) static void watch_forks(void) { pthread_atfork(NULL, NULL, forget_in_child); }
int cufort_state_forked(void) { return atomic_load(&forked_live); }

const cufort_backend_ops *cufort_ops(void) { return atomic_load(&active); }
unsigned cufort_generation(void) { return atomic_load(&generation); }
int cufort_current_device(void) { return thread_device >= 0 ? thread_device : atomic_load(&device); }
void cufort_bind_thread_device(int dev) { thread_device = dev; }
int cufort_thread_device_bound(void) { return thread_device >= 0; }
int cufort_is_initialized(void) { return cufort_ops() != NULL; }
int cufort_on_host(void) { return atomic_load(&active_kind) == CUFORT_BACKEND_HOST; }
int cufort_backend(void) { return cufort_ops() ? atomic_load(&active_kind) : 0; }

const char *cufort_backend_name(void)
{
    const cufort_backend_ops *ops = cufort_ops();
    return ops ? ops->name : "none";
}

void cufort_state_activate(const cufort_backend_ops *ops, int kind, int dev)
{
    atomic_store(&device, dev);
    atomic_store(&active_kind, kind);
    atomic_fetch_add(&generation, 1);
    atomic_store(&active, ops);
}

void cufort_state_deactivate(void)
{
    atomic_store(&active, NULL);
    atomic_fetch_add(&generation, 1);
}

void cufort_state_set_device(int dev)
{
    atomic_store(&device, dev);
    atomic_fetch_add(&generation, 1);
}

/* A stream set before a shutdown or device change is gone with it: the thread is back on the
 * default stream. */
cufort_stream cufort_thread_stream(void)
{
    if (thread_stream && thread_stream_generation != cufort_generation())
        thread_stream = NULL;
    return thread_stream;
}

cufort_stream cufort_swap_thread_stream(cufort_stream stream)
{
    cufort_stream old = cufort_thread_stream();
    thread_stream = stream;
    thread_stream_generation = cufort_generation();
    return old;
}

void cufort_at_reset(void (*fn)(void *arg), void *arg)
{
    pthread_mutex_lock(&hooks_lock);
    int known = 0;
    for (int i = 0; i < hook_count; i++)
        known |= reset_hooks[i].fn == fn && reset_hooks[i].arg == arg;
    if (!known && hook_count < (int)(sizeof reset_hooks / sizeof *reset_hooks)) {
        reset_hooks[hook_count].fn = fn;
        reset_hooks[hook_count++].arg = arg;
    }
    pthread_mutex_unlock(&hooks_lock);
}

void cufort_before_reset(void (*fn)(void))
{
    pthread_mutex_lock(&hooks_lock);
    first_hook = fn;
    pthread_mutex_unlock(&hooks_lock);
}

void cufort_state_run_reset_hooks(void)
{
    pthread_mutex_lock(&hooks_lock);
    int n = hook_count;
    void (*first)(void) = first_hook;
    pthread_mutex_unlock(&hooks_lock);
    if (first)
        first();
    for (int i = 0; i < n; i++)   /* hooks only ever get added, at the end */
        reset_hooks[i].fn(reset_hooks[i].arg);
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
