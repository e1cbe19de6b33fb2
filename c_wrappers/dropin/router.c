/* router.c — where a Level-3 call of the drop-in BLAS runs: the thunk engine or the CPU BLAS.
 *
 * The engine when the call's work is at least CUFORT_GPU_THRESHOLD flops and every dimension of
 * it (m, n, k as the routine has them) at least CUFORT_GPU_MIN_DIM: the flop count alone would send
 * LAPACK's rank-64 updates of large matrices to the GPU, where moving C costs more than the CPU
 * takes to update it.  Both defaults come from the build (make DROPIN_GPU_THRESHOLD=...
 * DROPIN_GPU_MIN_DIM=...).  On the host backend the engine would only run the same CPU BLAS
 * behind a copy, so everything stays on the CPU BLAS there, unless CUFORT_DROPIN_FORCE_GPU=1 or
 * CUFORT_GPU_THRESHOLD=0 force the engine path (which is how CI without a GPU exercises it).
 * Within a factor 8 of the threshold, where the two paths take about the same time, the faster one
 * is measured per routine and size instead (adapt.c; CUFORT_DROPIN_ADAPT=0 turns that off, =1 turns
 * it on also on the host backend, for tests); there a dimension of half CUFORT_GPU_MIN_DIM may be
 * tried on the engine.
 * cufort is initialised at the first call that would go to the engine, not before: a program that
 * never gets there never pays for a CUDA context. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "dropin.h"

#ifndef CUFORT_DROPIN_THRESHOLD
#define CUFORT_DROPIN_THRESHOLD 1e8   /* the crossover measured on the H100 host, NOTES_gemm */
#endif
#ifndef CUFORT_DROPIN_MIN_DIM
#define CUFORT_DROPIN_MIN_DIM 256
#endif

enum { ADAPT_OFF, ADAPT_ALWAYS, ADAPT_ON_GPU };
static struct {
    double threshold;
    int64_t min_dim;
    int force, adapt;
} cfg;
static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;

enum { GPU_UNKNOWN, GPU_READY, GPU_HOST, GPU_FAILED };
static int gpu_state = GPU_UNKNOWN;
static char gpu_why[400];
static pthread_mutex_t gpu_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t fallback_lock = PTHREAD_MUTEX_INITIALIZER;
static char first_fallback[480];

static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && !(v[0] == '0' && v[1] == 0);
}

/* A malformed value is a mistake worth one line, not a reason to stop the program. */
static double env_number(const char *name, double dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    while (*end == ' ')
        end++;
    if (errno || *end || !(x >= 0)) {
        fprintf(stderr, "cufort drop-in BLAS: ignoring %s=%s (want a number >= 0); using %g\n", name,
                v, dflt);
        return dflt;
    }
    return x;
}

static void read_config(void)
{
    pthread_mutex_lock(&cfg_lock);
    cfg.threshold = env_number("CUFORT_GPU_THRESHOLD", CUFORT_DROPIN_THRESHOLD);
    cfg.min_dim = (int64_t)env_number("CUFORT_GPU_MIN_DIM", CUFORT_DROPIN_MIN_DIM);
    cfg.force = env_on("CUFORT_DROPIN_FORCE_GPU") || cfg.threshold == 0;
    const char *adapt = getenv("CUFORT_DROPIN_ADAPT");
    cfg.adapt = !adapt || !*adapt ? ADAPT_ON_GPU : env_on("CUFORT_DROPIN_ADAPT") ? ADAPT_ALWAYS : ADAPT_OFF;
    pthread_mutex_unlock(&cfg_lock);
    __atomic_store_n(&dropin_reporting, env_on("CUFORT_REPORT"), __ATOMIC_RELAXED);
}

static void config(void) { pthread_once(&cfg_once, read_config); }

int dropin_config_once(void)
{
    config();
    return __atomic_load_n(&dropin_reporting, __ATOMIC_RELAXED) > 0;
}

void cufort_dropin_configure(void)
{
    config();
    read_config();
    dropin_adapt_forget();
}

/* The program never calls cufort_shutdown, so the drop-in does, at exit: cuBLAS handles, streams
 * and buffers go back before the CUDA runtime's own teardown (registered earlier, so run later). */
static void shutdown_at_exit(void) { cufort_shutdown(); }

static int gpu(void)
{
    int s = __atomic_load_n(&gpu_state, __ATOMIC_ACQUIRE);
    if (s != GPU_UNKNOWN)
        return s;
    pthread_mutex_lock(&gpu_lock);
    s = gpu_state;
    if (s == GPU_UNKNOWN) {
        int st = cufort_init();
        if (st != CUFORT_SUCCESS) {
            snprintf(gpu_why, sizeof gpu_why, "cufort_init: %s: %s", cufort_status_string(st),
                     cufort_last_error());
            s = GPU_FAILED;
        } else {
            s = cufort_backend() == CUFORT_BACKEND_HOST ? GPU_HOST : GPU_READY;
            atexit(shutdown_at_exit);
        }
        __atomic_store_n(&gpu_state, s, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&gpu_lock);
    return s;
}

int dropin_use_gpu(dropin_call *c, double flops, int64_t min_dim)
{
    config();
    if (!cfg.force && cfg.adapt != ADAPT_OFF && dropin_adapt_in_band(flops, cfg.threshold) &&
        2 * min_dim >= cfg.min_dim) {
        int s = gpu(), path;
        if ((s == GPU_READY || (s == GPU_HOST && cfg.adapt == ADAPT_ALWAYS)) &&
            (path = dropin_adapt_route(c, flops)) >= 0)
            return path;
    }
    if (!cfg.force && !(flops >= cfg.threshold && min_dim >= cfg.min_dim))
        return 0;
    switch (gpu()) {
    case GPU_READY:
        return 1;
    case GPU_HOST:
        return cfg.force;
    default:
        dropin_fallback(c, gpu_why);
        return 0;
    }
}

void dropin_fallback(dropin_call *c, const char *why)
{
    c->fell_back = 1;
    pthread_mutex_lock(&fallback_lock);
    if (!first_fallback[0])
        snprintf(first_fallback, sizeof first_fallback, "%s: %s", c->s->name, why);
    pthread_mutex_unlock(&fallback_lock);
}

int dropin_gpu_done(dropin_call *c, int st, double flops, double bytes)
{
    if (st == CUFORT_SUCCESS) {
        dropin_end(c, 1, flops, bytes);
        return 1;
    }
    int info = cufort_last_info();
    if (st == CUFORT_INVALID_VALUE && info > 0) {
        dropin_xerbla(c->s->name, info);
        return 1;
    }
    char why[400];
    snprintf(why, sizeof why, "%s: %s", cufort_status_string(st), cufort_last_error());
    dropin_fallback(c, why);
    return 0;
}

void dropin_config_line(char *buf, size_t n)
{
    config();
    const char *backend = "not initialised (no call reached the threshold)";
    switch (__atomic_load_n(&gpu_state, __ATOMIC_ACQUIRE)) {
    case GPU_READY: backend = "cuda"; break;
    case GPU_HOST: backend = "host (CPU BLAS only unless forced)"; break;
    case GPU_FAILED: backend = gpu_why; break;
    }
    int w;
    if (cfg.force)
        w = snprintf(buf, n, "routing: every Level-3 call to the engine (forced); backend: %s", backend);
    else if (cfg.adapt == ADAPT_OFF)
        w = snprintf(buf, n,
                     "routing: Level-3 calls of >= %g flops with every dimension >= %lld to the "
                     "engine, the rest to the CPU BLAS; backend: %s",
                     cfg.threshold, (long long)cfg.min_dim, backend);
    else {
        char summary[200];
        dropin_adapt_summary(summary, sizeof summary);
        w = snprintf(buf, n,
                     "routing: Level-3 calls of >= %g flops with every dimension >= %lld to the "
                     "engine, the rest to the CPU BLAS, but from %g to %g flops (every dimension >= "
                     "%lld) the faster path, measured; %s; backend: %s",
                     cfg.threshold, (long long)cfg.min_dim, cfg.threshold / 8, cfg.threshold * 8,
                     (long long)(cfg.min_dim + 1) / 2, summary, backend);
    }
    pthread_mutex_lock(&fallback_lock);
    if (first_fallback[0] && w >= 0 && (size_t)w < n)
        snprintf(buf + w, n - (size_t)w, "\n# first fallback to the CPU BLAS: %s", first_fallback);
    pthread_mutex_unlock(&fallback_lock);
}

/* The call is over: adapt.c learns its time (when it routed it), the counters count it. */
void dropin_end(dropin_call *c, int gpu, double flops, double bytes)
{
    if (c->adapt)
        dropin_adapt_record(c, gpu);
    if (!c->on)
        return;
    dropin_count(c->s, dropin_now_ns() - c->t0, gpu, c->fell_back, flops, bytes);
}

