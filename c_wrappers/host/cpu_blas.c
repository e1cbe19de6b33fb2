/* cpu_blas.c — the CPU BLAS behind the host backend, opened at run time so that libcufort never
 * exports or links BLAS symbols itself (the drop-in library and user programs may define them). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "host_internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *library;
static char opened[512] = "none";
static char open_error[512];

/* RTLD_DEEPBIND: the library's own internal calls must not bind to BLAS symbols a program
 * linked statically (a test's reference BLAS, say). */
static void *try_open(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (h && dlsym(h, "cufort_dropin_configure")) {   /* the drop-in would call back into us */
        dlclose(h);
        snprintf(open_error, sizeof open_error, "%s is cufort's drop-in BLAS, not a CPU BLAS", path);
        return NULL;
    }
    if (h)
        snprintf(opened, sizeof opened, "%s", path);
    else
        snprintf(open_error, sizeof open_error, "%s", dlerror());
    return h;
}

static void *cpu_blas(void)
{
    pthread_mutex_lock(&lock);
    if (!library) {
        const char *env = getenv("CUFORT_CPU_BLAS");
        if (env && *env) {
            library = try_open(env);
        } else {
            static const char *candidates[] = {"libopenblas.so.0", "libblas.so.3", "libopenblas.so"};
            for (size_t i = 0; !library && i < sizeof candidates / sizeof *candidates; i++)
                library = try_open(candidates[i]);
        }
    }
    pthread_mutex_unlock(&lock);
    return library;
}

const char *cufort_cpu_blas_path(void)
{
    cpu_blas();
    return opened;
}

int cufort_cpu_blas_symbol(const char *symbol, void **fn)
{
    if (__atomic_load_n(fn, __ATOMIC_ACQUIRE))
        return CUFORT_SUCCESS;
    void *lib = cpu_blas();
    if (!lib)
        return cufort_fail(CUFORT_NOT_SUPPORTED,
                           "host backend: no CPU BLAS could be opened (set CUFORT_CPU_BLAS to a "
                           "BLAS shared library): %s", open_error);
    void *f = dlsym(lib, symbol);
    if (!f)
        return cufort_fail(CUFORT_NOT_SUPPORTED, "host backend: the CPU BLAS %s has no %s", opened,
                           symbol);
    __atomic_store_n(fn, f, __ATOMIC_RELEASE);
    return CUFORT_SUCCESS;
}

int cufort_host_int(int *out, int64_t v, const char *name)
{
    if (v > INT_MAX || v < INT_MIN)
        return cufort_fail(CUFORT_NOT_SUPPORTED,
                           "host backend: %s = %lld does not fit the CPU BLAS's 32-bit integers",
                           name, (long long)v);
    *out = (int)v;
    return CUFORT_SUCCESS;
}
