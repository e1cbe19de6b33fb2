/* cpu_blas.c — the CPU BLAS behind the host backend and the drop-in library's CPU path, opened at
 * run time so that libcufort never exports or links BLAS symbols itself (the drop-in library and
 * user programs may define them): $CUFORT_CPU_BLAS, else libopenblas.so.0, else libblas.so.3.
 *
 * Symbols come from dlsym on the opened handle, never RTLD_NEXT/RTLD_DEFAULT: under LD_PRELOAD, or
 * linked ahead of -lblas, the global dgemm_ is the drop-in's.  A candidate that is the drop-in
 * library itself (libblas.so.3 pointed at libcufort_blas by the alternatives system, say) is
 * skipped, and named in CUFORT_CPU_BLAS it is an error: forwarding to it would recurse forever.
 * Nothing here calls the rest of libcufort: the drop-in library, which opens libcufort only when a
 * call goes to the GPU, compiles its own copy of this file.
 *
 * A routine that a known CPU BLAS build computes wrongly is checked once, when the library is
 * opened, and replaced by the one here if it fails (the report names it): OpenBLAS 0.3.21-0.3.24
 * gives scasum on CPUs with AVX512-BF16 (Cooper Lake, Sapphire Rapids, AMD Zen 4) a kernel that
 * miscounts the vector's tail from n = 9 at unit stride, off by up to 10%. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *library;
static char opened[640] = "(not opened)";
static char open_errors[1024];

typedef float scasum_fn(const int *n, const float *x, const int *incx);
static scasum_fn *scasum_replacement;   /* set before `library` is published */

/* reference BLAS's SCASUM (n <= 0 or incx <= 0: 0), accumulated in double */
static float own_scasum(const int *n, const float *x, const int *incx)
{
    double s = 0;
    if (*n > 0 && *incx > 0)
        for (int64_t i = 0; i < *n; i++)
            s += fabs((double)x[2 * i * *incx]) + fabs((double)x[2 * i * *incx + 1]);
    return (float)s;
}

/* 17 complex elements of small integers: every partial sum is exact in float */
static void vet(void *h)
{
    scasum_fn *f = (scasum_fn *)dlsym(h, "scasum_");
    float x[34];
    int n = 17, one = 1;
    for (int i = 0; i < 34; i++)
        x[i] = (float)(i % 2 ? -(i + 1) : i + 1);
    if (f && f(&n, x, &one) != 595.0f) {
        scasum_replacement = own_scasum;
        size_t len = strlen(opened);
        snprintf(opened + len, sizeof opened - len, ", its scasum_ replaced (it failed a check)");
    }
}

static void note(const char *what, const char *why)
{
    size_t n = strlen(open_errors);
    if (n + 2 < sizeof open_errors)
        snprintf(open_errors + n, sizeof open_errors - n, "%s%s; ", what, why);
}

static void *try_open(const char *path)
{
    void *h = dlopen(path, CUFORT_CPU_LIB_OPEN);
    if (!h) {
        note(dlerror(), "");
        return NULL;
    }
    if (dlsym(h, "cufort_dropin_configure")) {
        note(path, " is the drop-in library itself");
        dlclose(h);
        return NULL;
    }
    /* the file behind a bare soname, for reports: which BLAS did the CPU work */
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
        if (lib)
            vet(lib);
        __atomic_store_n(&library, lib, __ATOMIC_RELEASE);
    }
    lib = library;
    pthread_mutex_unlock(&lock);
    return lib;
}

const char *cufort_cpu_blas_path(void)
{
    cpu_blas();
    return opened;
}

const char *cufort_cpu_blas_opened(void)
{
    return __atomic_load_n(&library, __ATOMIC_ACQUIRE) ? opened : "(not opened)";
}

int cufort_cpu_blas_find(const char *symbol, void **fn, char *why, size_t why_len)
{
    if (__atomic_load_n(fn, __ATOMIC_ACQUIRE))
        return 0;
    void *lib = cpu_blas();
    if (!lib) {
        snprintf(why, why_len, "a CPU BLAS is needed and none could be opened (%sset CUFORT_CPU_BLAS "
                 "to a BLAS shared library)", open_errors);
        return -1;
    }
    void *f = scasum_replacement && !strcmp(symbol, "scasum_") ? (void *)scasum_replacement
                                                                 : dlsym(lib, symbol);
    if (!f) {
        snprintf(why, why_len, "the CPU BLAS %s has no %s (set CUFORT_CPU_BLAS to a complete BLAS)",
                 opened, symbol);
        return -1;
    }
    __atomic_store_n(fn, f, __ATOMIC_RELEASE);
    return 0;
}
