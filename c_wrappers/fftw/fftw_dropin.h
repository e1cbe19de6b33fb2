/* fftw_dropin.h — what the pieces of the FFTW drop-in (libcufort_fftw) share.  Not installed.
 *
 * Every plan the library hands out is a drop_plan (below), whatever made it:
 *   plan.c        a DFT problem (c2c, r2c, c2r in guru form) becomes a plan: which paths it may take
 *                 (the shared router, c_wrappers/route), the engine's cufort plan (from the plan
 *                 cache), the real FFTW's plan; execution on either path; destruction
 *   layout.c      the problem's arithmetic: flops, array spans, what cuFFT's layouts can express
 *   cpu.c         the real FFTW's functions (c_wrappers/host/cpu_fftw.c), the planner lock, keeping
 *                 the arrays' contents while FFTW measures
 *   api_double.c, api_single.c    FFTW's C API in one precision each: both include api.inc
 *   f77_double.c, f77_single.c    FFTW's legacy Fortran interface (dfftw_*, sfftw_*): f77.inc
 *   forward_double.c, forward_single.c   what the engine never runs (r2r, split arrays, wisdom,
 *                 threads, memory): handed to the real FFTW, plans wrapped (forward.inc)
 *   profile.c, table.c, public.c   the library as the routing core sees it, its counters, and
 *                 cufort_fftw_* (cufort_fftw.h)
 * Objects refer to one another one way only: the api/f77/forward files -> plan.c -> layout.c,
 * cpu.c -> the routing core -> profile.c, table.c. */
#ifndef CUFORT_FFTW_DROPIN_H
#define CUFORT_FFTW_DROPIN_H

#include <fftw3.h>
#include <stddef.h>
#include <stdint.h>

#include "cufort.h"
#include "cufort_fftw.h"
#include "route.h"

enum { KIND_C2C, KIND_R2C, KIND_C2R };

/* the library's name in messages (profile.c's title; spelled here so that cpu.c, which the profile
 * refers to, need not refer back to it) */
#define DROP_TITLE "cufort drop-in FFTW"
enum { MAX_RANK = 16 };   /* deeper problems go to the real FFTW untouched */

/* One dimension as FFTW's guru64 interface has it: size, input and output strides in elements of
 * each side's own type (real or complex). */
typedef struct {
    ptrdiff_t n, is, os;
} drop_dim;

/* A DFT problem, in guru form whatever interface described it. */
typedef struct {
    int single;                 /* fftwf_ (1) or fftw_ (0) */
    int kind;                   /* KIND_C2C, KIND_R2C, KIND_C2R */
    int sign;                   /* c2c: FFTW_FORWARD (-1) or FFTW_BACKWARD (+1) */
    unsigned flags;
    int rank, howmany_rank;
    drop_dim dims[MAX_RANK], howmany[MAX_RANK];
    void *in, *out;             /* the planning arrays */
} drop_problem;

/* The plan behind every fftw_plan / fftwf_plan the library returns. */
typedef struct drop_plan {
    drop_problem pb;
    int forwarded;              /* made by the real FFTW for a kind the engine never runs */
    void *cpu;                  /* the real FFTW's plan; NULL until needed */
    cufort_fft_plan engine;     /* the engine's plan (cufort plan cache); NULL: none */
    int engine_generation;
    int engine_failed;          /* planning it failed: not tried again */
    char *engine_why;           /* why, when it failed as the plan was made: the first execution
                                   counts that as its fallback and takes this */
    int cpu_only;               /* small and planned for one thread: always the real FFTW */
    void (*cpu_exec)(void *, void *, void *);   /* then FFTW's new-array execute, found at planning */
    int64_t n[3], batch;        /* the engine's description (C order) */
    int advanced;
    int64_t inembed[3], istride, idist, onembed[3], ostride, odist;
    double flops, bytes;        /* one execution's work, and the bytes the engine moves */
    dropin_stats *stats;
} drop_plan;

/* ---- plan.c ---- */
/* The thread count the program last gave plan_with_nthreads, per precision (1 until it does). */
DROPIN_HIDDEN extern int drop_planning_threads[2];
/* A plan for pb: NULL where the real FFTW would return NULL (its verdict on the problem, flags
 * such as FFTW_WISDOM_ONLY without wisdom, or no memory). */
DROPIN_HIDDEN drop_plan *drop_plan_make(const drop_problem *pb);
/* A plan the real FFTW made (r2r, split arrays): executed and destroyed there, counted as "other". */
DROPIN_HIDDEN drop_plan *drop_plan_wrap(int single, void *cpu_plan);
/* Runs p on in/out (its planning arrays or new ones of the same layout and alignment). */
DROPIN_HIDDEN void drop_plan_execute(const char *fn, drop_plan *p, void *in, void *out);
DROPIN_HIDDEN void drop_plan_destroy(drop_plan *p);
/* The real FFTW's plan of p, made now (FFTW_ESTIMATE: arrays untouched) when p had none; NULL when
 * FFTW refuses the problem (a message is printed). */
DROPIN_HIDDEN void *drop_plan_cpu(const char *fn, drop_plan *p);
/* The engine's idle plans destroyed (the core plan cache emptied), before FFTW's cleanup. */
DROPIN_HIDDEN void drop_plan_forget_idle(void);
/* A NULL plan is a message, never a crash (FFTW's planners return NULL when they cannot plan). */
DROPIN_HIDDEN int drop_plan_null(const char *fn, const drop_plan *p);
/* flops/estimate_cost/cost/print of a plan without a real FFTW plan (the engine's alone) */
DROPIN_HIDDEN void drop_plan_flops(const drop_plan *p, double *add, double *mul, double *fma);
DROPIN_HIDDEN char *drop_plan_describe(const drop_plan *p);   /* malloc'd, FFTW's print style */

/* ---- layout.c ---- */
DROPIN_HIDDEN double drop_flops(const drop_problem *pb);     /* FFTW's convention: 5 N log2 N */
/* Bytes from the lowest to the highest element an array spans (in: input side), and the offset of
 * the lowest (negative strides) from the array's pointer. */
DROPIN_HIDDEN size_t drop_span(const drop_problem *pb, int input, ptrdiff_t *lowest);
/* The plan_many layout (NULL embeds as FFTW pads them), guru and guru64 dims, into pb (whose
 * single, kind, sign, flags, in and out are set): 0 when the arguments are beyond the drop-in (rank
 * above MAX_RANK) or invalid, both of which the real FFTW is left to answer. */
DROPIN_HIDDEN int drop_problem_many(drop_problem *pb, int rank, const int *n, int howmany,
                                    const int *inembed, int istride, int idist, const int *onembed,
                                    int ostride, int odist);
DROPIN_HIDDEN int drop_problem_guru(drop_problem *pb, int rank, const fftw_iodim *dims,
                                    int howmany_rank, const fftw_iodim *howmany_dims);
DROPIN_HIDDEN int drop_problem_guru64(drop_problem *pb, int rank, const fftw_iodim64 *dims,
                                      int howmany_rank, const fftw_iodim64 *howmany_dims);
/* Whether cuFFT's layouts express pb; if so fills p's engine description. */
DROPIN_HIDDEN int drop_engine_layout(const drop_problem *pb, drop_plan *p);

/* ---- cpu.c ---- */
/* The real FFTW's `name` ("plan_guru64_dft") in pb's precision; a missing FFTW stops the program
 * with a message, as a drop-in can return no error there. */
DROPIN_HIDDEN void *drop_cpu(int single, void **slot, const char *name);
DROPIN_HIDDEN void *drop_cpu_threads(int single, void **slot, const char *name);   /* NULL: none */
DROPIN_HIDDEN const char *drop_cpu_path(void);
/* The real FFTW's plan for pb with these flags, made under the planner lock; when the flags let
 * FFTW measure (anything but FFTW_ESTIMATE / FFTW_WISDOM_ONLY), the arrays' contents are kept. */
DROPIN_HIDDEN void *drop_cpu_plan(const drop_problem *pb, unsigned flags);
DROPIN_HIDDEN void drop_cpu_execute(const drop_plan *p, void *in, void *out);
/* FFTW's new-array execute for the plan's kind (execute_dft, _r2c, _c2r) */
DROPIN_HIDDEN void (*drop_cpu_executor(const drop_plan *p))(void *, void *, void *);
/* p->cpu_exec on p->cpu, marked as inside FFTW */
DROPIN_HIDDEN void drop_cpu_run(const drop_plan *p, void *in, void *out);
DROPIN_HIDDEN void drop_cpu_destroy(int single, void *cpu_plan);

/* ---- the counters' table (table.c): one row per kind and precision, and one for the rest ---- */
DROPIN_HIDDEN dropin_stats *drop_stats_of(int single, int kind);
DROPIN_HIDDEN dropin_stats *drop_stats_other(int single);

/* The message of a call that cannot go on (a drop-in returns nothing to report it with). */
DROPIN_HIDDEN void drop_warn(const char *fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
