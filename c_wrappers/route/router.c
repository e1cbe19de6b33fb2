/* router.c — where a drop-in's call runs: the thunk engine or the CPU library behind the drop-in.
 *
 * The engine when the call's work is at least the threshold (the profile's env_threshold, e.g.
 * CUFORT_GPU_THRESHOLD) and, where the profile has a dimension rule, every dimension of it (m, n, k
 * as a BLAS routine has them) at least env_min_dim: the flop count alone would send LAPACK's
 * rank-64 updates of large matrices to the GPU, where moving C costs more than the CPU takes to
 * update it.  The defaults come from the library's build.  On the host backend the engine would
 * only run the same CPU library behind a copy, so everything stays on the CPU library there, unless
 * <prefix>_FORCE_GPU=1 or a threshold of 0 force the engine path (which is how CI without a GPU
 * exercises it).  Within a factor 8 of the threshold, where the two paths take about the same time,
 * the faster one is measured per routine and size instead (adapt.c; <prefix>_ADAPT=0 turns that
 * off, =1 turns it on also on the host backend, for tests); there a dimension of half the minimum
 * may be tried on the engine.
 * cufort is initialised at the first call that would go to the engine, not before: a program that
 * never gets there never pays for a CUDA context. */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "env.h"
#include "route.h"

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

/* A switch: 0 or 1 (a larger number reads as 1); unset, empty or anything else (a word such as
 * "off") keeps `dflt`, the latter said once (env.h). */
static int env_switch(const char *name, int dflt)
{
    int64_t v = dflt;
    cufort_env_int(name, 0, 1, &v);
    return v != 0;
}

/* A malformed value is a mistake worth one line (env.h), not a reason to stop the program. */
static double env_number(const char *name, double dflt)
{
    double x = dflt;
    cufort_env_real(name, 0, HUGE_VAL, &x);
    return x;
}

static void read_config(void)
{
    pthread_mutex_lock(&cfg_lock);
    char force[64], adapt_name[64];
    cfg.threshold = env_number(dropin_this.env_threshold, dropin_this.threshold);
    cfg.min_dim = 0;
    if (dropin_this.env_min_dim) {   /* a number past any dimension (1e30, inf) is no dimension */
        double d = env_number(dropin_this.env_min_dim, (double)dropin_this.min_dim);
        cfg.min_dim = d >= 0x1p62 ? ((int64_t)1 << 62) : (int64_t)d;
    }
    cfg.force = env_switch(dropin_env_name(force, sizeof force, "FORCE_GPU"), 0) || cfg.threshold == 0;
    int64_t adapt = -1;   /* unset: on when a GPU is used */
    cufort_env_int(dropin_env_name(adapt_name, sizeof adapt_name, "ADAPT"), 0, 1, &adapt);
    cfg.adapt = adapt < 0 ? ADAPT_ON_GPU : adapt ? ADAPT_ALWAYS : ADAPT_OFF;
    pthread_mutex_unlock(&cfg_lock);
    __atomic_store_n(&dropin_reporting, env_switch("CUFORT_REPORT", 0), __ATOMIC_RELAXED);
}

static void config(void) { pthread_once(&cfg_once, read_config); }

int dropin_config_once(void)
{
    config();
    return __atomic_load_n(&dropin_reporting, __ATOMIC_RELAXED) > 0;
}

void dropin_configure(void)
{
    config();
    read_config();
    dropin_adapt_forget();
}

/* The program never calls cufort_shutdown, so the drop-in does, at exit: cuBLAS handles, streams
 * and buffers go back before the CUDA runtime's own teardown (registered earlier, so run later). */
static void shutdown_at_exit(void) { CORE(cufort_shutdown)(); }

static int gpu(void)
{
    int s = __atomic_load_n(&gpu_state, __ATOMIC_ACQUIRE);
    if (s != GPU_UNKNOWN)
        return s;
    pthread_mutex_lock(&gpu_lock);
    s = gpu_state;
    if (s == GPU_UNKNOWN) {
        int st = CORE(cufort_init)();
        if (st != CUFORT_SUCCESS) {
            snprintf(gpu_why, sizeof gpu_why, "cufort_init: %s: %s", CORE(cufort_status_string)(st),
                     CORE(cufort_last_error)());
            s = GPU_FAILED;
        } else {
            s = CORE(cufort_backend)() == CUFORT_BACKEND_HOST ? GPU_HOST : GPU_READY;
            atexit(shutdown_at_exit);
        }
        __atomic_store_n(&gpu_state, s, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&gpu_lock);
    return s;
}

int dropin_paths(double flops, int64_t min_dim)
{
    config();
    int big = flops >= cfg.threshold && min_dim >= cfg.min_dim;
    int band = !cfg.force && cfg.adapt != ADAPT_OFF && dropin_adapt_in_band(flops, cfg.threshold) &&
               2 * min_dim >= cfg.min_dim;
    if (!cfg.force && !big && !band)
        return DROPIN_PATH_CPU;   /* cufort stays uninitialised */
    int s = gpu();
    int engine = s == GPU_READY || (s == GPU_HOST && (cfg.force || (band && cfg.adapt == ADAPT_ALWAYS)));
    if (!engine)
        return DROPIN_PATH_CPU;
    if (cfg.force || (big && !band))
        return DROPIN_PATH_ENGINE;
    return band ? DROPIN_PATH_CPU | DROPIN_PATH_ENGINE : DROPIN_PATH_ENGINE;
}

int dropin_forced(void)
{
    config();
    return cfg.force;
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
    int info = CORE(cufort_last_info)();
    if (st == CUFORT_INVALID_VALUE && info > 0 && dropin_this.bad_argument) {
        dropin_this.bad_argument(c->s->name, info);
        return 1;
    }
    char why[400];
    snprintf(why, sizeof why, "%s: %s", CORE(cufort_status_string)(st), CORE(cufort_last_error)());
    dropin_fallback(c, why);
    return 0;
}

void dropin_config_line(char *buf, size_t n)
{
    config();
    const char *backend = "not initialised (no call reached the threshold)";
    char host_only[80];
    snprintf(host_only, sizeof host_only, "host (%s only unless forced)", dropin_this.cpu_name);
    switch (__atomic_load_n(&gpu_state, __ATOMIC_ACQUIRE)) {
    case GPU_READY: backend = "cuda"; break;
    case GPU_HOST: backend = host_only; break;
    case GPU_FAILED: backend = gpu_why; break;
    }
    /* " with every dimension >= N" where the profile has a dimension rule */
    char dims[64] = "", half_dims[64] = "";
    if (dropin_this.env_min_dim) {
        snprintf(dims, sizeof dims, " with every dimension >= %lld", (long long)cfg.min_dim);
        snprintf(half_dims, sizeof half_dims, " (every dimension >= %lld)",
                 (long long)(cfg.min_dim + 1) / 2);
    }
    int w;
    if (cfg.force)
        w = snprintf(buf, n, "routing: every %s to the engine (forced); backend: %s",
                     dropin_this.call, backend);
    else if (cfg.adapt == ADAPT_OFF)
        w = snprintf(buf, n, "routing: %ss of >= %g flops%s to the engine, the rest to the %s; "
                     "backend: %s", dropin_this.call, cfg.threshold, dims, dropin_this.cpu_name, backend);
    else {
        char summary[200];
        dropin_adapt_summary(summary, sizeof summary);
        w = snprintf(buf, n,
                     "routing: %ss of >= %g flops%s to the engine, the rest to the %s, but from %g to "
                     "%g flops%s the faster path, measured; %s; backend: %s",
                     dropin_this.call, cfg.threshold, dims, dropin_this.cpu_name,
                     dropin_adapt_band_low(cfg.threshold), cfg.threshold * 8, half_dims, summary,
                     backend);
    }
    pthread_mutex_lock(&fallback_lock);
    if (first_fallback[0] && w >= 0 && (size_t)w < n)
        snprintf(buf + w, n - (size_t)w, "\n# first fallback to the %s: %s", dropin_this.cpu_name,
                 first_fallback);
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

