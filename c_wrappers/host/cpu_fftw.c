/* cpu_fftw.c — the real FFTW behind the host backend's FFT and the FFTW drop-in's CPU path, opened
 * at run time so that libcufort never links or exports FFTW symbols itself (libcufort_fftw and user
 * programs define them): $CUFORT_CPU_FFTW (double) / $CUFORT_CPU_FFTWF (single), else Debian's
 * libfftw3.so.3 / libfftw3f.so.3.  The threads API lives in a library of its own
 * (libfftw3_threads.so.3 beside the one opened), unless the library has it built in.
 *
 * Symbols come from dlsym on the opened handle, never RTLD_NEXT/RTLD_DEFAULT: under LD_PRELOAD, or
 * linked ahead of -lfftw3, the global fftw_execute is the drop-in's, and calling it from the host
 * backend would recurse.  A candidate that is the drop-in library itself is skipped, and named in
 * $CUFORT_CPU_FFTW it is an error.  RTLD_DEEPBIND: FFTW's own calls of its API (fftw_plan_dft_1d
 * calls fftw_plan_many_dft) must stay inside it.
 *
 * FFTW's planner is not thread-safe, and the host backend and the drop-in share one FFTW: both plan
 * and destroy plans under cufort_cpu_fftw_lock.
 *
 * FFTW calls its own API (fftw_plan_r2r_1d calls fftw_plan_r2r, fftw_print_plan fftw_fprint_plan).
 * A program linked with -lfftw3 has FFTW loaded before the drop-in opens it, its references bound
 * in the global scope, so under LD_PRELOAD those inner calls land in the drop-in.  Every call into
 * FFTW is therefore marked on its thread (cufort_cpu_fftw_enter/leave, and the lock), and the
 * drop-in hands a call that arrives while its thread is inside FFTW straight back to FFTW. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "host_internal.h"

typedef struct {
    const char *env, *soname, *threads_soname, *probe;
    void *lib, *threads;
    int tried, threads_tried;
    char opened[512], errors[1024];
} fftw_library;

static fftw_library libraries[2] = {
    {.env = "CUFORT_CPU_FFTW", .soname = "libfftw3.so.3", .threads_soname = "libfftw3_threads.so.3",
     .probe = "fftw_execute"},
    {.env = "CUFORT_CPU_FFTWF", .soname = "libfftw3f.so.3", .threads_soname = "libfftw3f_threads.so.3",
     .probe = "fftwf_execute"},
};
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t planner = PTHREAD_MUTEX_INITIALIZER;

/* Calls into FFTW this thread is inside.  Every execution through the FFTW drop-in reads and
 * writes it: initial-exec, and inline in host_internal.h, so that a transform of a few hundred
 * points (0.2 us) pays no lookup or call for it. */
_Thread_local int cufort_cpu_fftw_depth __attribute__((tls_model("initial-exec")));
static _Thread_local int held;    /* times this thread holds the planner lock (FFTW may call back) */

void cufort_cpu_fftw_lock(void)
{
    if (held++ == 0)
        pthread_mutex_lock(&planner);
    cufort_cpu_fftw_depth++;
}

void cufort_cpu_fftw_unlock(void)
{
    cufort_cpu_fftw_depth--;
    if (--held == 0)
        pthread_mutex_unlock(&planner);
}

static void note(fftw_library *l, const char *what, const char *why)
{
    size_t n = strlen(l->errors);
    if (n + 2 < sizeof l->errors)
        snprintf(l->errors + n, sizeof l->errors - n, "%s%s; ", what, why);
}

static void *try_open(fftw_library *l, const char *path)
{
    void *h = dlopen(path, CUFORT_CPU_LIB_OPEN);
    if (!h) {
        note(l, dlerror(), "");
        return NULL;
    }
    if (dlsym(h, "cufort_fftw_configure")) {
        note(l, path, " is the drop-in library itself");
        dlclose(h);
        return NULL;
    }
    if (!dlsym(h, l->probe)) {
        note(l, path, " has no FFTW API of this precision");
        dlclose(h);
        return NULL;
    }
    /* the file behind a bare soname, for reports: which FFTW did the CPU work */
    Dl_info info;
    void *f = dlsym(h, l->probe);
    if (dladdr(f, &info) && info.dli_fname && strcmp(info.dli_fname, path) != 0)
        snprintf(l->opened, sizeof l->opened, "%s (%s)", path, info.dli_fname);
    else
        snprintf(l->opened, sizeof l->opened, "%s", path);
    return h;
}

static fftw_library *library(int single)
{
    fftw_library *l = &libraries[single != 0];
    if (__atomic_load_n(&l->lib, __ATOMIC_ACQUIRE))
        return l;
    pthread_mutex_lock(&open_lock);
    if (!l->lib && !l->tried) {
        l->tried = 1;
        const char *env = getenv(l->env);
        void *h = try_open(l, env && *env ? env : l->soname);
        __atomic_store_n(&l->lib, h, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&open_lock);
    return l;
}

const char *cufort_cpu_fftw_path(int single)
{
    fftw_library *l = library(single);
    return l->lib ? l->opened : "(none could be opened)";
}

const char *cufort_cpu_fftw_opened(int single)
{
    fftw_library *l = &libraries[single != 0];
    return __atomic_load_n(&l->lib, __ATOMIC_ACQUIRE) ? l->opened : "(not opened)";
}

int cufort_cpu_fftw_symbol(int single, const char *symbol, void **fn)
{
    if (__atomic_load_n(fn, __ATOMIC_ACQUIRE))
        return CUFORT_SUCCESS;
    fftw_library *l = library(single);
    if (!l->lib)
        return cufort_fail(CUFORT_NOT_SUPPORTED,
                           "the real FFTW (%s precision) is needed and could not be opened (%sset %s "
                           "to FFTW's shared library)", single ? "single" : "double", l->errors, l->env);
    void *f = dlsym(l->lib, symbol);
    if (!f)
        return cufort_fail(CUFORT_NOT_SUPPORTED, "the FFTW library %s has no %s", l->opened, symbol);
    __atomic_store_n(fn, f, __ATOMIC_RELEASE);
    return CUFORT_SUCCESS;
}

/* The threads library: beside the one opened (same directory), else by soname; it binds to the FFTW
 * already loaded, whose soname it needs. */
static void *threads_library(fftw_library *l)
{
    if (!l->lib)
        return NULL;
    pthread_mutex_lock(&open_lock);
    if (!l->threads_tried) {
        l->threads_tried = 1;
        Dl_info info;
        char path[1024];
        void *f = dlsym(l->lib, l->probe);
        const char *slash = f && dladdr(f, &info) && info.dli_fname ? strrchr(info.dli_fname, '/') : NULL;
        void *h = NULL;
        if (slash) {
            snprintf(path, sizeof path, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname,
                     l->threads_soname);
            h = dlopen(path, CUFORT_CPU_LIB_OPEN);
        }
        if (!h)
            h = dlopen(l->threads_soname, CUFORT_CPU_LIB_OPEN);
        __atomic_store_n(&l->threads, h, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&open_lock);
    return __atomic_load_n(&l->threads, __ATOMIC_ACQUIRE);
}

int cufort_cpu_fftw_threads_symbol(int single, const char *symbol, void **fn)
{
    if (__atomic_load_n(fn, __ATOMIC_ACQUIRE))
        return CUFORT_SUCCESS;
    fftw_library *l = library(single);
    void *f = l->lib ? dlsym(l->lib, symbol) : NULL;   /* built in, in some FFTW builds */
    void *t = f ? NULL : threads_library(l);
    if (!f && t)
        f = dlsym(t, symbol);
    if (!f)
        return cufort_fail(CUFORT_NOT_SUPPORTED, "no FFTW threads library (%s) with %s was found",
                           l->threads_soname, symbol);
    __atomic_store_n(fn, f, __ATOMIC_RELEASE);
    return CUFORT_SUCCESS;
}

/* The handful the host backend plans and runs with, one table per precision. */
static cufort_fftw_api apis[2];
static int api_ready[2];

const cufort_fftw_api *cufort_cpu_fftw(int single)
{
    int k = single != 0;
    if (__atomic_load_n(&api_ready[k], __ATOMIC_ACQUIRE))
        return &apis[k];
    const char *p = k ? "fftwf_" : "fftw_";
    static const char *names[] = {"plan_many_dft", "plan_many_dft_r2c", "plan_many_dft_c2r",
                                  "execute_dft", "execute_dft_r2c", "execute_dft_c2r", "destroy_plan"};
    cufort_fftw_api a = {0};
    void **slots[] = {(void **)&a.plan_many_dft, (void **)&a.plan_many_dft_r2c,
                      (void **)&a.plan_many_dft_c2r, (void **)&a.execute_dft,
                      (void **)&a.execute_dft_r2c, (void **)&a.execute_dft_c2r,
                      (void **)&a.destroy_plan};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char symbol[64];
        snprintf(symbol, sizeof symbol, "%s%s", p, names[i]);
        if (cufort_cpu_fftw_symbol(k, symbol, slots[i]))
            return NULL;
    }
    pthread_mutex_lock(&open_lock);
    if (!__atomic_load_n(&api_ready[k], __ATOMIC_ACQUIRE)) {   /* else filled meanwhile, and in use */
        apis[k] = a;
        __atomic_store_n(&api_ready[k], 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&open_lock);
    return &apis[k];
}
