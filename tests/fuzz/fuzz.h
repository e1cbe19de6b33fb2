/* fuzz.h — the random-argument driver over the cufort C ABI (fuzz_capi).
 *
 * A call is an operation (a C ABI entry point, or a short fixed sequence around one) and its
 * arguments, every one of them printable and parsable, so that the line printed for a failing call
 * replays it (tests/fuzz/regressions.txt keeps such lines).  Arrays are described, not stored: where
 * the memory comes from (cufort_alloc, malloc, pinned, freed, null, made up, another argument), how
 * large the allocation is and where in it the array starts.  Handles name slots (P0 a plan, S0 a
 * stream, E0 an event) that earlier calls of the same run filled, so stale handles are handles of
 * slots whose object was destroyed.
 *
 * The oracle: no crash, no hang, no sanitizer report; every status one of cufort.h's codes; every
 * failure with a message naming the routine; and, where the fuzzer can tell from the arguments
 * alone, the status cufort must return (the illegal argument's position for BLAS, a bad pointer, or
 * success). */
#ifndef CUFORT_FUZZ_H
#define CUFORT_FUZZ_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* pthread_rwlock_t, sigdescr_np under -std=c11; fuzz.h comes first */
#endif
#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cufort.h"

typedef __int128 fz_wide;   /* sizes drawn at the int64 edges, multiplied without wrapping */

/* ---- the random stream: splitmix64, one per call, from (seed, thread, call index) ---- */
typedef struct { uint64_t s; } fz_rng;
uint64_t fz_u64(fz_rng *r);
uint64_t fz_below(fz_rng *r, uint64_t n);            /* uniform in [0, n), n > 0 */
int fz_percent(fz_rng *r, int p);                     /* true with probability p/100 */
fz_rng fz_rng_for(uint64_t seed, int thread, int64_t index);

/* ---- arguments ---- */
enum { FZ_INT, FZ_CHAR, FZ_REAL, FZ_CPLX, FZ_ARRAY, FZ_HANDLE };
/* integer roles, for drawing */
enum { FZ_R_DIM = 1, FZ_R_LD, FZ_R_INC, FZ_R_STRIDE, FZ_R_BYTES, FZ_R_SMALL, FZ_R_FLAG };
/* array directions */
enum { FZ_IN = 1, FZ_OUT = 2, FZ_INOUT = 3 };
/* fz_param.count: a host-only array (scalar references, results) of the low bits' elements */
#define FZ_HOSTREF 0x100

typedef struct {
    const char *name;
    int type;         /* FZ_INT ... */
    int role;         /* ints: FZ_R_*; arrays: FZ_IN/OUT/INOUT; handles: 'P', 'S' or 'E' */
    int esize;        /* arrays and scalars: bytes per element */
    int count;        /* arrays: FZ_HOSTREF | elements for host-only arrays, else 0 */
    const char *opts; /* chars: the letters the routine accepts */
} fz_param;

/* Where an array's memory comes from. */
enum {
    FZ_NULL,     /* a null pointer */
    FZ_DEV,      /* cufort_alloc'd (device memory) */
    FZ_HOST,     /* malloc'd, exactly `bytes` (host arrays of the _host calls) */
    FZ_PINNED,   /* cufort_host_alloc'd */
    FZ_FREED,    /* cufort_alloc'd and freed again */
    FZ_HOSTMEM,  /* malloc'd, passed where device memory is expected */
    FZ_BOGUS,    /* a made-up address (below the lowest page Linux maps) */
    FZ_ALIAS     /* another array argument of the same call, `off` bytes further */
};
typedef struct {
    int place;
    int64_t bytes;    /* the allocation's size */
    int64_t off;      /* where the array starts, bytes from the allocation's base (or the alias) */
    int of;           /* FZ_ALIAS: the argument aliased; FZ_DEV, FZ_PINNED: which block of the size */
} fz_array;

/* A handle: slot >= 0 names a slot of kind 'P', 'S' or 'E'; else one of these. */
enum { FZ_H_NULL = -1, FZ_H_BOGUS = -2, FZ_H_JUNK = -3 };
typedef struct { int kind, slot; } fz_handle;

typedef struct {
    int type;
    union {
        int64_t i;
        char c;
        double re[2];
        fz_array a;
        fz_handle h;
    };
} fz_arg;

#define FZ_MAX_ARGS 24
typedef struct {
    int op;
    fz_arg arg[FZ_MAX_ARGS];
} fz_call;

/* The values a generated BLAS routine reads (tests/fuzz/generated/fuzz_blas.c). */
typedef union { int64_t i; char c; double re[2]; void *p; } fz_val;

typedef struct {
    const char *name, *group;
    int level;
    const fz_param *params;
    int nparams;
    int (*check)(const fz_val *v);                  /* 0: legal; else the bad parameter's position */
    int (*quick)(const fz_val *v);                  /* returns at once, touching no array */
    void (*extents)(const fz_val *v, fz_wide *ext); /* elements per array parameter */
    double (*work)(const fz_val *v);
    int (*call)(const fz_val *v, int host);
} fz_blas_routine;
extern const fz_blas_routine fz_blas[];
extern const int fz_blas_count;

/* cufort's own reductions and transposes (tests/fuzz/generated/fuzz_kernels.c).  The form fixes
 * the argument order:
 *   RED1   n, x, incx, result            RED2   n, x, incx, y, incy, result
 *   COUNT  n, x, incx, pred, value, result (pred: an index into the fuzzer's predicate texts)
 *   TR     trans, m, n, alpha, a, lda, b, ldb      TRI    trans, n, alpha, a, lda
 * and the mode where the arrays and the result live: PLAIN device arrays and a host result, DEV
 * device arrays and a device result, HOST host arrays and a host result. */
enum { FZ_KF_RED1, FZ_KF_RED2, FZ_KF_COUNT, FZ_KF_TR, FZ_KF_TRI };
enum { FZ_KM_PLAIN, FZ_KM_DEV, FZ_KM_HOST };
typedef struct {
    const char *name;   /* without the cufort_ prefix */
    int form, mode;
    int esize, rsize;   /* bytes of an element, and of the result (reductions) */
    const fz_param *params;
    int nparams;
    int (*call)(const fz_val *v);
} fz_kernel;
extern const fz_kernel fz_kernels[];
extern const int fz_kernel_count;
const char *fz_pred_text(int64_t i);   /* NULL past the texts */

/* a product saturating at +-2^120, so that sums of a few of them stay exact in 128 bits */
static inline fz_wide fz_mul(fz_wide a, fz_wide b)
{
    const fz_wide huge = (fz_wide)1 << 120;
    fz_wide r;
    if (__builtin_mul_overflow(a, b, &r) || r > huge || r < -huge)
        return (a < 0) != (b < 0) ? -huge : huge;
    return r;
}

/* helpers the generated conditions use, over 128-bit values */
#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define NOTR(c) (toupper((unsigned char)(c)) == 'N')
#define LEFT(c) (toupper((unsigned char)(c)) == 'L')
#define MUL_WIDE(a, b) fz_mul((a), (b))   /* 128 bits: the product of two int64 values is exact */
static inline int fz_opt_in(char c, const char *allowed)
{
    return c != 0 && strchr(allowed, toupper((unsigned char)c)) != NULL;
}
static inline fz_wide fz_ext_mat(fz_wide rows, fz_wide cols, fz_wide ld)
{
    return rows <= 0 || cols <= 0 ? 0 : (cols - 1) * ld + rows;
}
static inline fz_wide fz_ext_vec(fz_wide n, fz_wide inc)
{
    return fz_ext_mat(1, n, inc < 0 ? -inc : inc);
}
static inline fz_wide fz_ext_pack(fz_wide count) { return count < 0 ? 0 : count; }
static inline fz_wide fz_ext_bmat(fz_wide rows, fz_wide cols, fz_wide ld, fz_wide stride, fz_wide batch)
{
    fz_wide one = fz_ext_mat(rows, cols, ld);
    return batch <= 0 || one == 0 ? 0 : fz_ext_mat(one, batch, stride);
}
/* whether [p, p + bytes) and [q, q + qbytes) share a byte */
static inline int fz_overlap(const void *p, fz_wide bytes, const void *q, fz_wide qbytes)
{
    if (!p || !q || bytes <= 0 || qbytes <= 0)
        return 0;
    fz_wide a = (fz_wide)(uintptr_t)p, b = (fz_wide)(uintptr_t)q;
    return a < b + qbytes && b < a + bytes;
}
static inline float fz_r_f(fz_val v) { return (float)v.re[0]; }
static inline double fz_r_d(fz_val v) { return v.re[0]; }
static inline cufort_cfloat fz_c_f(fz_val v)
{
    float re = (float)v.re[0], im = (float)v.re[1];
    cufort_cfloat z;
    memcpy(&z, (float[2]){re, im}, sizeof z);
    return z;
}
static inline cufort_cdouble fz_c_d(fz_val v)
{
    cufort_cdouble z;
    memcpy(&z, v.re, sizeof z);
    return z;
}

/* ---- operations ---- */
typedef struct fz_worker fz_worker;
typedef struct fz_op fz_op;

/* what exec did with the call (skipped: legal but too large, or with several threads a call whose
 * outcome another thread decides) */
enum { FZ_RAN, FZ_SKIPPED, FZ_AVOIDED };

/* operation groups, for the mix of calls */
enum { FZ_G_BLAS, FZ_G_BLAS_HOST, FZ_G_KERNELS, FZ_G_FFT, FZ_G_MEMORY, FZ_G_STREAM, FZ_G_CONTEXT, FZ_G_COUNT };

struct fz_op {
    const char *name;
    int group;
    const fz_param *params;
    int nparams;
    void (*draw)(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r);
    int (*exec)(fz_worker *w, const fz_op *op, const fz_call *c);
    const void *data;   /* BLAS, kernels: the routine */
    int host;           /* BLAS, kernels: the host-array form */
};
extern const fz_op *fz_ops;
extern int fz_op_count;
int fz_find_op(const char *name);                       /* -1 if none */

/* each file's operations, appended to the table at start-up */
void fz_add_op(const fz_op *op);
void fz_blas_ops(void);
void fz_kernel_ops(void);
void fz_fft_ops(void);
void fz_memory_ops(void);
void fz_stream_ops(void);
void fz_context_ops(void);

/* ---- drawing values at the edges ---- */
int64_t fz_draw_int(fz_rng *r, int role);
/* a leading dimension or stride (role) mostly its least legal value plus a little, sometimes one
 * less, else drawn on its own */
int64_t fz_draw_near(fz_rng *r, int64_t least, int role);
char fz_draw_char(fz_rng *r, const char *opts);
void fz_draw_scalar(fz_rng *r, double re[2], int complex_value);
int fz_draw_handle_slot(fz_worker *w, fz_rng *r, int kind, fz_handle *h);  /* any slot, or a bad one */
int fz_free_slot(fz_worker *w, fz_rng *r, int kind);   /* an unused slot, -1 if all are live */
/* An array for a call whose `need` elements of `esize` bytes it spans: mostly good (device or
 * host memory as `host` says, flush with its allocation's end or not), sometimes bad in one of the
 * ways cufort must catch. */
void fz_draw_array(fz_worker *w, fz_rng *r, fz_array *a, fz_wide need, int esize, int host);
/* whether argument i, an array as drawn, holds `need` elements of esize bytes from its start in
 * memory the call may use (device memory, or host memory for a _host call) */
enum { FZ_BAD, FZ_FITS, FZ_MAYBE };
int fz_array_state(const fz_call *c, int i, fz_wide need, int esize, int host_form);

/* ---- slots, caches, resolved pointers ---- */
#define FZ_SLOTS 6
#define FZ_CACHE 32

typedef struct {
    int type, rank;
    int64_t n[3], batch;
    int advanced;
    int64_t inembed[3], istride, idist, onembed[3], ostride, odist;
} fz_plan_info;

typedef struct {
    void *h;
    int live;
    fz_plan_info plan;     /* plans: how it was made */
    void *stream;          /* plans: the stream it was given */
    int generation;        /* plans: cufort_fft_generation() when it was made */
} fz_slot;
typedef struct { int64_t bytes; int which; void *p; uint64_t used; } fz_block;

/* What a worker shares with the supervisor (shared memory, so it survives the worker's crash). */
enum { FZ_RECENT = 8, FZ_RECENT_TEXT = 400 };
typedef struct {
    volatile int64_t index;          /* the call in flight, -1 between calls */
    volatile int64_t started_ns;
    volatile int64_t calls, skipped, avoided, failures;
    volatile int tid;                /* the worker thread's kernel id, for its stack on a hang */
    char text[3072];                 /* the call in flight, as its replay line */
    /* the thread's last calls (a ring, lines cut short): an asynchronous GPU fault surfaces calls
     * after the launch that made it, on any thread */
    volatile int64_t started;        /* calls started, the ring's next slot modulo FZ_RECENT */
    int64_t recent_index[FZ_RECENT], recent_ns[FZ_RECENT];
    char recent[FZ_RECENT][FZ_RECENT_TEXT];
} fz_shared_thread;

struct fz_worker {
    int id;
    uint64_t seed;
    int64_t index;
    fz_shared_thread *shared;
    fz_slot plans[FZ_SLOTS], streams[FZ_SLOTS], events[FZ_SLOTS];
    fz_block dev[FZ_CACHE], pinned[FZ_CACHE];
    uint64_t tick;
    unsigned generation;             /* of the fuzzer's view of cufort's life (shutdowns) */
    int locked;                      /* this call holds the shutdown lock for reading */
    void *thread_stream;             /* what this thread gave cufort_set_stream last */
    /* per call: resolved pointers and what to release afterwards */
    fz_val val[FZ_MAX_ARGS];
    void *owned[FZ_MAX_ARGS];
    size_t owned_map[FZ_MAX_ARGS];   /* a mapping's length (CUFORT_FUZZ_GUARD_HOST), 0: malloc'd */
    int nowned;
    int nowhere;                     /* device memory was wanted while cufort had none to give */
    fz_rng fill;                     /* contents of fresh arrays */
};

/* the call's arrays and handles, as pointers (in w->val); releases them in fz_release */
void fz_resolve(fz_worker *w, const fz_call *c);
void fz_release(fz_worker *w);
void *fz_handle_value(fz_worker *w, fz_handle h);
fz_slot *fz_slot_of(fz_worker *w, fz_handle h);
/* The live object a handle stands for: its slot's, or, for a stale handle whose value cufort has
 * handed out again since, the slot now holding that value.  NULL when none. */
fz_slot *fz_live(fz_worker *w, fz_handle h);
/* Several threads only: the handle's slot held an object when the call was drawn, and another
 * thread's shutdown has taken it since.  Its address may by now be another thread's new object,
 * which cufort rightly takes, so such a call is skipped (see fz_draw_handle_slot). */
int fz_gone_since_drawn(fz_worker *w, fz_handle h);
void fz_forget_device_memory(fz_worker *w);   /* after a shutdown freed it */
void fz_drop_caches(fz_worker *w);            /* free the fuzzer's own blocks */
void fz_reset_worker(fz_worker *w, int shut_down);

/* ---- the shutdown lock: calls that must not overlap a shutdown hold it for reading ---- */
extern pthread_rwlock_t fz_life_lock;
extern volatile unsigned fz_life_generation;   /* bumped by every shutdown the fuzzer makes */
extern int fz_threads;

/* ---- the oracle ---- */
enum { FZ_P_ANY, FZ_P_STATUS, FZ_P_FAIL };
typedef struct {
    int kind;       /* ANY: any documented status; STATUS: exactly `status`; FAIL: any failure */
    int status;
    int info;       /* STATUS with CUFORT_INVALID_VALUE from a BLAS check: cufort_last_info(), or 0 */
    unsigned also;  /* bit s: status s is accepted as well */
} fz_pred;
static inline fz_pred fz_expect_status(int st) { return (fz_pred){FZ_P_STATUS, st, 0, 0}; }
static inline fz_pred fz_expect_any(void) { return (fz_pred){FZ_P_ANY, 0, 0, 0}; }
static inline fz_pred fz_expect_failure(void) { return (fz_pred){FZ_P_FAIL, 0, 0, 0}; }
#define FZ_ALSO(s) (1u << ((s) < 32 ? (s) : (s) - 100 + 16))

/* checks one returned status against the oracle; fn names the routine the message must name */
void fz_check(fz_worker *w, const fz_call *c, const char *fn, int status, fz_pred p);
void fz_failf(fz_worker *w, const fz_call *c, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- known defects (fuzz_known.c) ---- */
enum {
    FZ_K_SHUTDOWN_RACE,   /* host-array calls while another thread shuts down or initialises */
    FZ_K_STREAM_HANDLES,  /* stream/event handles destroyed twice, made up, or alive at shutdown */
    FZ_K_FFT_REAL_INPLACE,/* real FFTs with an advanced layout executed in place */
    FZ_K_FFT_SPAN,        /* FFT layouts (advanced, or a huge batch) whose span overflows int64 */
    FZ_K_GEAM_HUGE,       /* geam/dgmm with an empty matrix of a huge other dimension */
    FZ_K_INC_MIN,         /* increments of INT64_MIN */
    FZ_K_GEAM_OVERLAP,    /* geam with C partly overlapping A or B */
    FZ_K_COUNT
};
extern unsigned fz_avoid;             /* bit k: skip calls that hit known defect k */
const char *fz_known_name(int k);
int fz_parse_avoid(const char *list, unsigned *mask);   /* "all", "none" or names; 0 on success */
extern const char fz_default_avoid[];
/* whether the call hits known defect k and that defect is to be avoided */
static inline int fz_avoiding(int k) { return (fz_avoid >> k) & 1u; }

/* ---- text: one line per call ---- */
int fz_format(const fz_call *c, char *buf, size_t size);
int fz_parse(const char *line, fz_call *c, char *err, size_t errsize);

/* ---- the supervisor (fuzz_watch.c) and the regression cases (fuzz_cases.c) ---- */
#define FZ_MAX_THREADS 16
typedef struct {
    volatile int64_t next_index;   /* the segment a restarted worker process goes on with */
    fz_shared_thread thread[FZ_MAX_THREADS];
} fz_shared_state;
extern fz_shared_state *fz_shared;   /* shared memory, so that it outlives a crashed worker */
extern double fz_timeout_s;          /* a call running longer is a hang */
/* A worker that finds the GPU context lost (a sticky CUDA error: every later call would fail) ends
 * with this status; the supervisor reports it with every thread's last calls and goes on. */
#define FZ_EXIT_CONTEXT_LOST 85   /* not 86: scripts/gpu_check.sh gives compute-sanitizer that */
extern int fz_in_child;              /* this process is a watched worker (fz_watched's child) */
void fz_shared_setup(void);
/* runs body in a child process watched for crashes and hangs, which it reports (what: the run's
 * name; slice: say how to replay the call in flight); 0 when the child finished */
int fz_watched(void (*body)(void *), void *arg, int threads, const char *what, int slice, int *crashes,
               int *hangs);
int fz_run_slice(int64_t calls_per_thread);   /* one run as fz_cfg says; the problems found */
void fz_run_cases(const char *text, int *passed, int *failed);
extern const char fz_builtin_cases[];
int64_t fz_now_ns(void);
/* the command that replays call index of thread id of this run */
void fz_replay_hint(char *buf, size_t size, int64_t index, int thread);

/* ---- the worker's run ---- */
#define FZ_SEGMENT 4096         /* calls per segment unless --segment says */
typedef struct {
    uint64_t seed;
    int64_t first, calls;       /* call indices [first, first + calls) */
    int64_t segment;            /* calls per segment (state reset at each) */
    int threads;
    double work_cap;            /* legal calls above this many element operations are skipped */
    int64_t host_cap;           /* bytes: legal _host calls with larger arrays are skipped */
    int verbose;
    const char *case_name;      /* replaying a regression case: failures name it, not a seed */
} fz_config;
extern fz_config fz_cfg;
void fz_run_call(fz_worker *w, const fz_call *c);      /* publish, exec, account */
void fz_worker_init(fz_worker *w, int id, fz_shared_thread *shared);
void fz_worker_finish(fz_worker *w);
void fz_draw_call(fz_worker *w, fz_rng *r, fz_call *c);

#endif
