/* dropin.h — what the pieces of the drop-in BLAS (libcufort_blas) share.  Not installed.
 *
 * generated/dropin_blas.c  every standard Fortran BLAS name (sgemm_, ddot_, ...): argument unpacking,
 *                          the routing decision, the engine call or the CPU BLAS call
 * generated/dropin_table.c the routines in table order, each with its counters
 * router.c                 configuration (environment), GPU availability, the routing decision,
 *                          the end of a call (counted, and timed for adapt.c)
 * adapt.c                  near the threshold: the faster path, measured per routine and size
 * stats.c                  the counters and the clock
 * cpu_blas.c               the CPU BLAS found at run time (never ourselves)
 * report.c                 the CUFORT_REPORT table at exit (reads the others; nothing calls it)
 * errors.c                 xerbla calls, xerbla_array_, INTEGER narrowing (F77_INT64)
 * lsame.c                  the BLAS auxiliary lsame_
 * The default xerbla_ is c_wrappers/f77/xerbla.c, linked in unchanged. */
#ifndef CUFORT_DROPIN_H
#define CUFORT_DROPIN_H

#include <ctype.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "cufort.h"
#include "cufort_dropin.h"
#include "f77.h"

/* Only the BLAS names and cufort_dropin_* leave the library. */
#define DROPIN_HIDDEN __attribute__((visibility("hidden")))

/* The helpers the routine table's conditions use. */
#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define NOTR(c) (toupper((unsigned char)(c)) == 'N')
#define LEFT(c) (toupper((unsigned char)(c)) == 'L')
#define IMIN(a, b) ((a) < (b) ? (a) : (b))

static inline int dropin_opt_in(char c, const char *allowed)
{
    return c != 0 && strchr(allowed, toupper((unsigned char)c)) != NULL;
}

/* The CPU BLAS takes 4-byte INTEGERs.  With F77_INT64 the caller's 8-byte values are narrowed, and
 * one that does not fit stops the program with a message rather than being truncated. */
#ifdef CUFORT_F77_INT64
DROPIN_HIDDEN int dropin_narrow(int64_t v, const char *routine, const char *arg);
#define CPU_INT(p, v, routine) (&(const int){dropin_narrow((v), routine, #v)})
#else
#define CPU_INT(p, v, routine) ((void)(v), (const int *)(p))
#endif

/* ---- counters of one routine (stats.c; the table is generated/dropin_table.c) ---- */
typedef struct {
    const char *name;          /* "dgemm" */
    int gpu_capable;           /* Level 3 with a cufort_<name>_host engine entry */
    uint64_t calls, gpu, cpu, fallback, ns, bytes;
    double flops;
} dropin_stats;

DROPIN_HIDDEN extern dropin_stats dropin_routines[];   /* generated/dropin_blas.c, table order */
DROPIN_HIDDEN extern const int dropin_nroutines;

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

/* One finished call of routine s, and a snapshot of its counters. */
DROPIN_HIDDEN void dropin_count(dropin_stats *s, uint64_t ns, int gpu, int fell_back, double flops,
                                double bytes);
DROPIN_HIDDEN void dropin_stats_copy(const dropin_stats *s, cufort_dropin_stats *out);

/* The call finished on the CPU BLAS (gpu = 0) or the engine (gpu = 1, bytes moved) (router.c). */
DROPIN_HIDDEN void dropin_end(dropin_call *c, int gpu, double flops, double bytes);

/* ---- routing (router.c) ---- */
/* Whether a Level-3 call of this work goes to the engine; lazily initialises cufort. */
DROPIN_HIDDEN int dropin_use_gpu(dropin_call *c, double flops, int64_t min_dim);
/* After the engine returned st: 1 when the call is over (done, or xerbla called for a bad
 * argument), 0 when the CPU BLAS must do it instead (the failure is counted and kept). */
DROPIN_HIDDEN int dropin_gpu_done(dropin_call *c, int st, double flops, double bytes);
DROPIN_HIDDEN void dropin_fallback(dropin_call *c, const char *why);
DROPIN_HIDDEN void dropin_config_line(char *buf, size_t n);   /* for the report's header */

/* ---- measured routing near the threshold (adapt.c) ---- */
DROPIN_HIDDEN int dropin_adapt_in_band(double flops, double threshold);
/* The path of a call in the band (0: the CPU BLAS, 1: the engine), timed while its size class is
 * being measured; -1 when the class table is full (the threshold decides). */
DROPIN_HIDDEN int dropin_adapt_route(dropin_call *c, double flops);
DROPIN_HIDDEN void dropin_adapt_record(dropin_call *c, int gpu);   /* from dropin_end */
DROPIN_HIDDEN void dropin_adapt_summary(char *buf, size_t n);
DROPIN_HIDDEN void dropin_adapt_list(FILE *f);   /* one report line per measured class */
DROPIN_HIDDEN void dropin_adapt_forget(void);                      /* measure every class again */

/* ---- errors ---- */
/* Reference BLAS's call: XERBLA(name blank-padded to 6, position); a user's xerbla_ overrides. */
DROPIN_HIDDEN void dropin_xerbla(const char *name, int position);

/* ---- the CPU BLAS (cpu_blas.c) ---- */
/* The CPU BLAS's `symbol`, cached in *slot; no CPU BLAS or no such symbol stops the program. */
DROPIN_HIDDEN void *dropin_cpu(void **slot, const char *symbol);
DROPIN_HIDDEN const char *dropin_cpu_path(void);

#endif
