/* cpu_blas.c — the CPU BLAS behind the drop-in library: $CUFORT_CPU_BLAS, else libopenblas.so.0,
 * else libblas.so.3 (the host backend's order, c_wrappers/host/cpu_blas.c).
 *
 * Symbols come from dlsym on the opened handle, never RTLD_NEXT/RTLD_DEFAULT: under LD_PRELOAD, or
 * linked ahead of -lblas, the global dgemm_ is our own.  A candidate that is the drop-in library
 * itself (libblas.so.3 pointed at libcufort_blas by the alternatives system, say) is skipped, and
 * named in CUFORT_CPU_BLAS it is an error: forwarding to ourselves would recurse forever.
 * RTLD_DEEPBIND: the CPU BLAS's calls among its own routines stay inside it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "dropin.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *library;
static char opened[512] = "(not opened)";
static char errors[1024];

static void note(const char *what, const char *why)
{
    size_t n = strlen(errors);
    if (n + 2 < sizeof errors)
        snprintf(errors + n, sizeof errors - n, "%s%s; ", what, why);
}

static int is_ourselves(void *handle)
{
    Dl_info mine, theirs;
    void *f = dlsym(handle, "dgemm_");
    return f && dladdr((void *)&dropin_cpu, &mine) && dladdr(f, &theirs) &&
           mine.dli_fbase == theirs.dli_fbase;
}

static void *try_open(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) {
        note(dlerror(), "");
        return NULL;
    }
    if (is_ourselves(h)) {
        note(path, " is the drop-in library itself");
        dlclose(h);
        return NULL;
    }
    /* the file behind a bare soname, for the report: which BLAS did the CPU work */
    Dl_info info;
    void *f = dlsym(h, "dgemm_");
    if (f && dladdr(f, &info) && info.dli_fname && strcmp(info.dli_fname, path) != 0)
        snprintf(opened, sizeof opened, "%s (%s)", path, info.dli_fname);
    else
        snprintf(opened, sizeof opened, "%s", path);
    return h;
}

static void *cpu_blas(void)
{
    void *lib = __atomic_load_n(&library, __ATOMIC_ACQUIRE);
    if (lib)
        return lib;
    pthread_mutex_lock(&lock);
    if (!library) {
        const char *env = getenv("CUFORT_CPU_BLAS");
        if (env && *env) {
            lib = try_open(env);
        } else {
            static const char *candidates[] = {"libopenblas.so.0", "libblas.so.3", "libopenblas.so"};
            for (size_t i = 0; !lib && i < sizeof candidates / sizeof *candidates; i++)
                lib = try_open(candidates[i]);
        }
        __atomic_store_n(&library, lib, __ATOMIC_RELEASE);
    }
    lib = library;
    pthread_mutex_unlock(&lock);
    return lib;
}

const char *dropin_cpu_path(void)
{
    return __atomic_load_n(&library, __ATOMIC_ACQUIRE) ? opened : "(not opened)";
}

/* A BLAS call cannot return an error: without a CPU BLAS there is nothing to do but stop. */
void *dropin_cpu(void **slot, const char *symbol)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    void *lib = cpu_blas();
    if (!lib) {
        fprintf(stderr, "cufort drop-in BLAS: %s needs a CPU BLAS and none could be opened (%s"
                "set CUFORT_CPU_BLAS to a BLAS shared library)\n", symbol, errors);
        exit(1);
    }
    f = dlsym(lib, symbol);
    if (!f) {
        fprintf(stderr, "cufort drop-in BLAS: the CPU BLAS %s has no %s (set CUFORT_CPU_BLAS to a "
                "complete BLAS)\n", opened, symbol);
        exit(1);
    }
    __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    return f;
}
