/* route.h — the routing core shared by cufort's drop-in libraries (libcufort_blas, libcufort_fftw).
 * Not installed.
 *
 * A drop-in takes a standard library's names (BLAS, FFTW) and sends each call either to the CPU
 * library behind it or to the thunk engine: by a threshold on the call's work, by measurement near
 * the threshold, and counted for a report at exit.  That idea is the same for every drop-in, so the
 * code is too; each library only maps its names and arguments, and describes itself in a profile.
 *
 * router.c   configuration (environment), engine availability, the decision, the end of a call
 * adapt.c    near the threshold: the faster path, measured per routine and size
 * stats.c    the counters and the clock
 * report.c   the CUFORT_REPORT table at exit (reads the others; nothing calls it)
 * core_link.c libcufort, opened on first need (CORE below); the launcher's variables
 *            (c_wrappers/core/launcher.c) are compiled in too, for the report
 *
 * These objects are compiled once and linked into each drop-in, whose own objects define what they
 * refer to: dropin_this (the profile) and dropin_routines / dropin_nroutines (the counters' table).
 * Nothing here refers to a library's other objects, so the objects' references stay one-way. */
#ifndef CUFORT_ROUTE_H
#define CUFORT_ROUTE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cufort.h"

/* Only the standard names and the library's cufort_* entry points leave a drop-in. */
#define DROPIN_HIDDEN __attribute__((visibility("hidden")))

/* ---- libcufort, opened when first needed (core_link.c) ----
 * CORE(cufort_init)() calls libcufort's cufort_init: a drop-in is not linked against libcufort,
 * whose loading (cuBLAS with it) every process would pay for, needed or not.  route_core_symbol
 * opens the library at the first call and resolves `name` into *slot; where it cannot, the program
 * stops with the reason.  route_core_open says whether the library is open (nothing asked for it
 * yet: it is not, and nothing of it was initialised). */
DROPIN_HIDDEN void *route_core_symbol(const char *name, void **slot);
DROPIN_HIDDEN int route_core_open(void);
#define CORE(fn) (*({                                                                             \
    static void *core_slot_;                                                                      \
    (__typeof__(&fn))route_core_symbol(#fn, &core_slot_);                                          \
}))

/* ---- what a drop-in says about itself (defined once per library) ---- */
typedef struct {
    const char *title;          /* in messages and the report: "cufort drop-in BLAS" */
    const char *library;        /* "libcufort_blas" */
    const char *cpu_name;       /* the other path: "CPU BLAS", "FFTW" */
    const char *call;           /* what is routed, one: "Level-3 call", "transform" */
    const char *env_threshold;  /* "CUFORT_GPU_THRESHOLD" */
    const char *env_min_dim;    /* "CUFORT_GPU_MIN_DIM"; NULL: no dimension rule */
    const char *env_prefix;     /* "CUFORT_DROPIN": <prefix>_FORCE_GPU, _ADAPT, _RECHECK, _GAP_US, _TRACE */
    double threshold;           /* build-time defaults */
    int64_t min_dim;
    /* Where measured routing starts, in flops: 0 for a factor 8 below the threshold.  Lower where
     * the CPU library's speed on small calls depends on the program's settings (FFTW's thread
     * count), so that only a measurement can tell. */
    double band_low;
    /* Measured routing takes the engine only where its median call is below this fraction of the
     * CPU library's (0: 1, the faster one).  Below 1 where the CPU library is the reference the
     * program compares against, so that noise in a few timed calls never makes it slower. */
    double engine_margin;
    /* Timed calls per path in a measurement (0: 3).  More where the CPU library's single calls
     * vary widely (FFTW's threads), so that the median of a measurement means something. */
    int timed_calls;
    const char *(*cpu_path)(void);   /* the CPU library in use, for the report's header */
    /* A failed engine call with CUFORT_INVALID_VALUE and cufort_last_info() > 0 is the caller's
     * bad argument: reported here (the BLAS: xerbla) and not retried on the CPU.  NULL: such a
     * failure falls back like any other. */
    void (*bad_argument)(const char *routine, int position);
} dropin_profile;

DROPIN_HIDDEN extern const dropin_profile dropin_this;

/* ---- counters of one routine (stats.c; the table is the library's) ---- */
typedef struct {
    const char *name;          /* "dgemm", "c2c_double" */
    int gpu_capable;           /* may run on the engine */
    uint64_t calls, gpu, cpu, fallback, ns, bytes;
    double flops;
} dropin_stats;

DROPIN_HIDDEN extern dropin_stats dropin_routines[];
DROPIN_HIDDEN extern const int dropin_nroutines;

/* A snapshot of one routine's counters, for the libraries' public queries and the report. */
typedef struct {
    const char *name;
    int gpu_capable;
    int64_t calls, gpu, cpu, fallback;
    double seconds, flops, bytes;
} dropin_snapshot;

/* One call in flight: its routine, whether it is counted (CUFORT_REPORT), when it started; and,
 * when adapt.c routed it, its size class, the path it took, whether adapt.c times it, whether the
 * class is being measured, and its start. */
typedef struct {
    dropin_stats *s;
    int on, fell_back;
    uint64_t t0;
    void *adapt;
    int adapt_path, adapt_timed, adapt_measuring;
    uint64_t adapt_t0;
} dropin_call;

DROPIN_HIDDEN extern int dropin_reporting;   /* CUFORT_REPORT: 1 or 0; -1 until first read */
DROPIN_HIDDEN int dropin_config_once(void);   /* reads the environment once; dropin_reporting */
DROPIN_HIDDEN uint64_t dropin_now_ns(void);

static inline void dropin_begin(dropin_call *c, dropin_stats *s)
{
    c->s = s;
    c->fell_back = 0;
    c->adapt = NULL;
    c->on = __atomic_load_n(&dropin_reporting, __ATOMIC_RELAXED);
    if (c->on < 0)
        c->on = dropin_config_once();
    c->t0 = c->on ? dropin_now_ns() : 0;
}

/* One finished call of routine s, and a snapshot of its counters (stats.c). */
DROPIN_HIDDEN void dropin_count(dropin_stats *s, uint64_t ns, int gpu, int fell_back, double flops,
                                double bytes);
DROPIN_HIDDEN void dropin_stats_copy(const dropin_stats *s, dropin_snapshot *out);
DROPIN_HIDDEN int dropin_stats_at(int index, dropin_snapshot *out);            /* 0 or -1 */
DROPIN_HIDDEN int dropin_stats_of(const char *routine, dropin_snapshot *out);   /* 0 or -1 */

/* The call finished on the CPU library (gpu = 0) or the engine (gpu = 1, bytes moved) (router.c). */
DROPIN_HIDDEN void dropin_end(dropin_call *c, int gpu, double flops, double bytes);

/* ---- routing (router.c) ---- */
/* Whether a call of this work goes to the engine; lazily initialises cufort.  min_dim: the call's
 * smallest dimension (ignored by a profile without a dimension rule). */
DROPIN_HIDDEN int dropin_use_gpu(dropin_call *c, double flops, int64_t min_dim);
/* After the engine returned st: 1 when the call is over (done, or a bad argument reported), 0 when
 * the CPU library must do it instead (the failure is counted and kept). */
DROPIN_HIDDEN int dropin_gpu_done(dropin_call *c, int st, double flops, double bytes);
DROPIN_HIDDEN void dropin_fallback(dropin_call *c, const char *why);
DROPIN_HIDDEN void dropin_config_line(char *buf, size_t n);   /* for the report's header */
/* Re-reads the environment and forgets the measured classes. */
DROPIN_HIDDEN void dropin_configure(void);
/* The paths later calls of this work may take, for a drop-in that prepares its calls ahead (an FFTW
 * plan): DROPIN_PATH_CPU, DROPIN_PATH_ENGINE or both (near the threshold, where adapt.c measures).
 * Initialises cufort when the engine is possible. */
enum { DROPIN_PATH_CPU = 1, DROPIN_PATH_ENGINE = 2 };
DROPIN_HIDDEN int dropin_paths(double flops, int64_t min_dim);
/* whether <prefix>_FORCE_GPU or a threshold of 0 sends every call to the engine */
DROPIN_HIDDEN int dropin_forced(void);

/* ---- measured routing near the threshold (adapt.c) ---- */
DROPIN_HIDDEN int dropin_adapt_in_band(double flops, double threshold);
DROPIN_HIDDEN double dropin_adapt_band_low(double threshold);   /* the band's lower edge, flops */
/* The path of a call in the band (0: the CPU library, 1: the engine), timed while its size class is
 * being measured; -1 when the class table is full (the threshold decides). */
DROPIN_HIDDEN int dropin_adapt_route(dropin_call *c, double flops);
DROPIN_HIDDEN void dropin_adapt_record(dropin_call *c, int gpu);   /* from dropin_end */
DROPIN_HIDDEN void dropin_adapt_summary(char *buf, size_t n);
DROPIN_HIDDEN void dropin_adapt_list(FILE *f);   /* one report line per measured class */
DROPIN_HIDDEN void dropin_adapt_forget(void);                      /* measure every class again */

/* ---- the report (report.c) ---- */
/* Writes the report now: to `path` ("-" or NULL: stderr).  0, or -1 when the file cannot be written. */
DROPIN_HIDDEN int dropin_write_report(const char *path);

/* "<prefix>_<suffix>" of the profile, for getenv (a static buffer per call site's `buf`). */
static inline const char *dropin_env_name(char *buf, size_t n, const char *suffix)
{
    snprintf(buf, n, "%s_%s", dropin_this.env_prefix, suffix);
    return buf;
}

#endif
