/* layer.c — what the drop-in layer of tests/generated/test_blas.c (LAYER_DROPIN) needs besides
 * testlib: the two legacy calls testlib's Fortran protocol makes (the drop-in has no
 * cublas_init/cublas_get_error: an illegal argument shows only through xerbla, as in reference BLAS),
 * a fixed routing mode, and the check that every routine ran where that mode sends it.
 *
 * Two binaries share this file: test_blas_dropin (default routing: the test sizes are far below any
 * threshold, so everything runs on the CPU BLAS) and test_blas_dropin_engine, which links
 * tests/dropin/force_engine.c and so forces every Level-3 call through the thunk engine
 * (CUFORT_DROPIN_FORCE_GPU=1), on the host backend too. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cufort_dropin.h"
#include "testlib.h"

int cublas_init_(void);
int cublas_get_error_(void);

int cublas_init_(void) { return cufort_init(); }
int cublas_get_error_(void) { return CUFORT_SUCCESS; }

extern const int tl_dropin_engine __attribute__((weak));   /* force_engine.c */

static int engine_mode(void) { return &tl_dropin_engine != NULL && tl_dropin_engine; }

/* Before main, so before the first BLAS call reads the environment. */
__attribute__((constructor)) static void fix_routing(void)
{
    const char *report = getenv("CUFORT_REPORT");
    if (!report || !*report || !strcmp(report, "0"))
        setenv("CUFORT_REPORT_FILE", "/dev/null", 1);   /* counters on, table unwanted */
    setenv("CUFORT_REPORT", "1", 1);
    unsetenv("CUFORT_GPU_THRESHOLD");
    unsetenv("CUFORT_GPU_MIN_DIM");
    if (engine_mode())
        setenv("CUFORT_DROPIN_FORCE_GPU", "1", 1);
    else
        unsetenv("CUFORT_DROPIN_FORCE_GPU");
}

void tl_dropin_routing(void)
{
    int engine = engine_mode();
    int64_t on_engine = 0, capable_called = 0;
    cufort_dropin_stats s;
    char why[256];
    for (int i = 0; cufort_dropin_stats_at(i, &s) == 0; i++) {
        if (s.calls == 0)
            continue;
        const char *fail = NULL;
        if (s.gpu + s.cpu != s.calls) {
            snprintf(why, sizeof why, "%lld calls but %lld on the engine + %lld on the CPU BLAS",
                     (long long)s.calls, (long long)s.gpu, (long long)s.cpu);
            fail = why;
        } else if (engine && s.gpu_capable && (s.cpu != 0 || s.fallback != 0)) {
            snprintf(why, sizeof why, "engine forced, yet %lld of %lld calls ran on the CPU BLAS "
                     "(%lld fallbacks)", (long long)s.cpu, (long long)s.calls, (long long)s.fallback);
            fail = why;
        } else if ((!engine || !s.gpu_capable) && s.gpu != 0) {
            snprintf(why, sizeof why, "%lld of %lld calls went to the engine; expected the CPU BLAS",
                     (long long)s.gpu, (long long)s.calls);
            fail = why;
        }
        on_engine += s.gpu;
        capable_called += s.gpu_capable;
        tl_outcome(s.name, engine && s.gpu_capable ? "routing:engine" : "routing:cpu", fail);
    }
    if (engine && capable_called > 0)
        tl_outcome("-", "engine-used", on_engine > 0 ? NULL : "no call reached the engine");
}
