/* internal.h — what the C ABI's pieces share: errors, the active backend, pointer checks, extents.
 * Not installed; users see cufort.h only. */
#ifndef CUFORT_INTERNAL_H
#define CUFORT_INTERNAL_H

#include <ctype.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cufort.h"
#include "gate.h"

#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define NOTR(c) (toupper((unsigned char)(c)) == 'N')
#define LEFT(c) (toupper((unsigned char)(c)) == 'L')

/* ---- errors (per thread) ---- */
int cufort_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cufort_bad_arg(const char *routine, int position, const char *name);  /* sets last_info */
/* an increment of INT64_MIN, whose magnitude int64 cannot hold: refused by every routine */
int cufort_bad_inc(const char *routine, int position, const char *name);
int cufort_null_arg(const char *routine, const char *name);
/* st unchanged; a failure's message gains "routine: " in front unless it names it already */
int cufort_in(const char *routine, int st);

/* ---- entry: clears this thread's error state and insists on cufort_init ---- */
int cufort_enter(const char *routine);
int cufort_ensure_init(const char *routine);          /* initialises on first use (thunking) */
int cufort_on_host(void);                              /* the active backend is the host one */

static inline int cufort_opt_in(char c, const char *allowed)
{
    return c != 0 && strchr(allowed, toupper((unsigned char)c)) != NULL;
}

/* bytes of one element of a BLAS precision ('s', 'd', 'c' or 'z') */
static inline size_t cufort_prec_size(char prec) { return prec == 's' ? 4 : prec == 'z' ? 16 : 8; }

/* ---- extents: elements an array argument spans from its base pointer (0 when empty) ---- */
/* the routine table's conditions compare with products of two int64 arguments exactly */
#define MUL_WIDE(a, b) ((__int128)(a) * (__int128)(b))

static inline int64_t cufort_extent_mat(int64_t rows, int64_t cols, int64_t ld)
{
    int64_t e;
    if (rows <= 0 || cols <= 0)
        return 0;
    if (__builtin_mul_overflow(cols - 1, ld, &e) || __builtin_add_overflow(e, rows, &e))
        return INT64_MAX;
    return e;
}
/* The ld a copy of the array steps by.  BLAS lets one column's ld be anything of at least its rows,
 * and that ld is never used: times the element size it may wrap, so a copy takes the rows instead. */
static inline int64_t cufort_ld_used(int64_t rows, int64_t cols, int64_t ld)
{
    return cols == 1 ? (rows > 1 ? rows : 1) : ld;
}
/* |inc| of INT64_MIN has no int64 value: such a vector spans everything once it has two elements
 * (the C ABI refuses that increment before it gets here; see cufort_bad_inc). */
static inline int64_t cufort_extent_vec(int64_t n, int64_t inc)
{
    if (n <= 0)
        return 0;
    if (inc == INT64_MIN)
        return n == 1 ? 1 : INT64_MAX;
    return cufort_extent_mat(1, n, inc < 0 ? -inc : inc);
}
static inline int64_t cufort_extent_pack(int64_t count) { return count < 0 ? 0 : count; }
/* n * (n + 1) / 2, the elements of a packed triangle of order n */
static inline int64_t cufort_extent_tri(int64_t n)
{
    int64_t e;
    if (n <= 0)
        return 0;
    if (__builtin_mul_overflow(n % 2 ? n : n / 2, n % 2 ? n / 2 + 1 : n + 1, &e))
        return INT64_MAX;
    return e;
}
static inline int64_t cufort_extent_bmat(int64_t rows, int64_t cols, int64_t ld, int64_t stride,
                                         int64_t batch)
{
    int64_t one = cufort_extent_mat(rows, cols, ld);
    return batch <= 0 || one == 0 ? 0 : cufort_extent_mat(one, batch, stride);
}

/* An array argument of `elems` elements must lie inside one device allocation. */
int cufort_check_array(const char *routine, const char *name, const void *p, int64_t elems,
                       size_t elem_size);
/* A host array of `elems` elements must fit the address space (else no such array can exist). */
int cufort_check_host_array(const char *routine, const char *name, int64_t elems, size_t elem_size);

/* ---- aliasing: an output may share no element with an input (only exact in place, decided by the
 * caller) ---- */
/* A column-major array: rows x cols elements of es bytes, ld elements apart (a vector of n at
 * increment inc is 1 x n at |inc|). */
typedef struct { const void *p; int64_t rows, cols, ld; size_t es; } cufort_layout;
static inline cufort_layout cufort_layout_mat(const void *p, int64_t rows, int64_t cols, int64_t ld,
                                              size_t es)
{
    return (cufort_layout){p, rows, cols, ld, es};
}
static inline cufort_layout cufort_layout_vec(const void *p, int64_t n, int64_t inc, size_t es)
{
    int64_t step = inc < 0 ? (inc == INT64_MIN ? INT64_MAX : -inc) : inc;
    return inc == 0 ? (cufort_layout){p, n > 0, 1, 1, es} : (cufort_layout){p, 1, n, step, es};
}
/* 1 when the two arrays share a byte.  Exact for arrays of one leading dimension (blocks, rows and
 * columns of one matrix: LAPACK's usual calls); for other pairs, 1 when their spans meet. */
int cufort_overlap(cufort_layout a, cufort_layout b);
/* 1 when a matrix of batch a (na matrices, matrix i at i * sa elements from a.p; stride 0: one
 * matrix) shares a byte with one of batch b.  Each pair of matrices as cufort_overlap; where more
 * than 2^22 pairs of matrices lie within each other's spans, 1 (alias.c). */
int cufort_overlap_batched(cufort_layout a, int64_t sa, int64_t na, cufort_layout b, int64_t sb,
                           int64_t nb);
/* the status and message of an output that overlaps an input (last_info stays 0: no single
 * parameter is at fault, so the F77 layer calls no xerbla and the drop-in falls back) */
int cufort_alias_arg(const char *routine, const char *out, const char *in);

/* ---- the MPI launcher's environment (launcher.c) ---- */
/* local rank, ranks on this node, rank in the job: -1 when no launcher said */
int cufort_local_rank(void);
int cufort_local_size(void);
int cufort_world_rank(void);
/* how many of the node's ranks the local-rank rule puts on `device` of `devices` (each rank one
 * device, or CUFORT_DEVICES_PER_RANK of them; CUFORT_RANKS_PER_DEVICE overrides; 1 without a
 * launcher) */
int cufort_ranks_on_device(int device, int devices);
/* the device bytes one engine call of this rank may hold: what is free (and the thread's scratch,
 * `held`) less a sixteenth (at least 256 MiB), and with several ranks on the card at most their
 * share of it, so that ranks starting together do not each count the whole card as theirs */
size_t cufort_rank_budget(size_t free_bytes, size_t total_bytes, size_t held, int ranks);
/* CUFORT_DEVICES_PER_RANK: the devices each rank of a node takes (0 when unset: one) */
int cufort_devices_per_rank(void);

/* ---- the devices host-array calls may use (devices.c) ---- */
#define CUFORT_MAX_DEVICES 16
/* The device cufort_init takes when nothing names one: the first of CUFORT_DEVICES, else the
 * local-rank rule (rank * CUFORT_DEVICES_PER_RANK, or rank, modulo count). */
int cufort_first_device(int count, int *device);
/* The devices a host-array call may spread over, the calling thread's own first when listed:
 * CUFORT_DEVICES; else CUFORT_DEVICES_PER_RANK devices from the local rank's place; else each of
 * several ranks on a node its own device; else every device.  *n >= 1. */
int cufort_engine_devices(int *devs, int max, int *n);

/* CPUs this process may run on (its affinity mask, as the launcher bound it); 0 when unknown */
int cufort_usable_cpus(void);

/* Memory cufort allocates for itself (device scratch, pinned staging slots; pinned = 1 for host
 * memory): recorded like the program's blocks, so its calls' checks pass, but cufort_free and
 * cufort_host_free refuse it, so no pointer a program passes can free it. */
int cufort_own_alloc(void **p, int64_t bytes, int pinned);
int cufort_own_free(void *p, int pinned);

/* ---- block registries (registry.c) ---- */
typedef struct { uintptr_t base; size_t bytes; int own; } cufort_block;   /* own: cufort's, not the program's */
typedef struct {
    pthread_mutex_t lock;
    cufort_block *blocks;
    size_t count, capacity;
} cufort_registry;

extern cufort_registry cufort_device_blocks;      /* cufort_alloc */
extern cufort_registry cufort_pinned_blocks;      /* cufort_host_alloc */
extern cufort_registry cufort_registered_ranges;  /* cufort_host_register */
extern cufort_registry cufort_live_streams;       /* cufort_stream_create */
extern cufort_registry cufort_live_events;        /* cufort_event_create */

int cufort_registry_add(cufort_registry *r, const void *p, size_t bytes);
int cufort_registry_remove(cufort_registry *r, const void *p);   /* 1 if p was a block's base */
/* the same for cufort's own blocks: checked like the program's, freed only by cufort */
int cufort_registry_add_own(cufort_registry *r, const void *p, size_t bytes);
int cufort_registry_remove_own(cufort_registry *r, const void *p);
/* the block with the greatest base <= p (p may lie past its end); 0 when none */
int cufort_registry_floor_block(cufort_registry *r, const void *p, cufort_block *block);
int cufort_registry_floor(cufort_registry *r, const void *p, uintptr_t *base, size_t *bytes);  /* its extent */
void cufort_registry_drain(cufort_registry *r, int (*release)(void *p));  /* release every block */

/* Device allocations start on ALLOC_ALIGN boundaries (cudaMalloc guarantees 256 bytes and the
 * host backend copies that), so nothing else can begin before a block's end rounded up to it. */
#define CUFORT_ALLOC_ALIGN 256

/* A stream argument must be NULL (the default stream) or live; an event argument must be live. */
int cufort_check_stream(const char *routine, cufort_stream stream);
/* the same test, without a message: 1 for NULL or a live stream */
int cufort_stream_live(cufort_stream stream);
int cufort_check_event(const char *routine, cufort_event event);

/* ---- the backend interface (memory, copies, streams; BLAS dispatch is generated) ---- */
typedef enum { CUFORT_H2D, CUFORT_D2H, CUFORT_D2D } cufort_copy_kind;

typedef struct cufort_backend_ops {
    const char *name;
    int (*open)(int device);
    void (*close)(void);
    int (*device_count)(int *count);
    int (*set_device)(int device);
    int (*properties)(int device, cufort_device_properties *props);
    int (*synchronize)(void);
    int (*mem_info)(int64_t *free_bytes, int64_t *total_bytes);
    int (*alloc)(void **p, size_t bytes);
    int (*free)(void *p);
    int (*host_alloc)(void **p, size_t bytes);
    int (*host_free)(void *p);
    int (*host_register)(void *p, size_t bytes);
    int (*host_unregister)(void *p);
    /* height rows of width bytes; pitches in bytes; stream NULL = default; async: do not wait */
    int (*copy2d)(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  size_t height, cufort_copy_kind kind, cufort_stream stream, int async);
    /* `bytes` from src on device src_device to dst on this thread's device, queued on stream, when
     * the two devices reach each other directly; else CUFORT_NOT_SUPPORTED, with nothing queued
     * and no error message (the caller copies another way) */
    int (*copy_peer)(void *dst, const void *src, int src_device, size_t bytes, cufort_stream s);
    /* a pointer cufort did not allocate: 0 if `bytes` from it are device-accessible */
    int (*foreign_pointer)(const char *routine, const char *name, const void *p, size_t bytes);
    int (*stream_create)(cufort_stream *s);
    int (*stream_destroy)(cufort_stream s);
    int (*stream_synchronize)(cufort_stream s);
    int (*event_create)(cufort_event *e);
    int (*event_destroy)(cufort_event e);
    int (*event_record)(cufort_event e, cufort_stream s);
    int (*event_synchronize)(cufort_event e);
    int (*event_pending)(cufort_event e);   /* 1 while e's work runs (a fault: at the next wait) */
    int (*stream_wait)(cufort_stream s, cufort_event e);   /* s runs on once e has happened */
    int (*event_elapsed_ms)(float *ms, cufort_event start, cufort_event stop);
} cufort_backend_ops;

extern const cufort_backend_ops cufort_cuda_ops;
extern const cufort_backend_ops cufort_host_ops;
const cufort_backend_ops *cufort_ops(void);            /* the active backend; NULL before init */

/* This thread's BLAS stream (cufort_set_stream) and a counter bumped by every init/shutdown and
 * device change, so per-thread caches (cuBLAS handles, thunk buffers) know they are stale. */
cufort_stream cufort_thread_stream(void);
cufort_stream cufort_swap_thread_stream(cufort_stream stream);   /* returns the old one; no checks */
unsigned cufort_generation(void);
/* how many shutdowns have freed every block: the Fortran device arrays record it when they
 * allocate, so that one from before a shutdown never frees a later block at the same address */
int cufort_shutdown_count(void);
/* cufort's device for this thread: the process's (cufort_set_device), or the one a helper thread of
 * a multi-GPU call was bound to for its whole life */
int cufort_current_device(void);
void cufort_bind_thread_device(int device);   /* before the thread's first CUDA call */
int cufort_thread_device_bound(void);

/* Run fn at every shutdown and device change, before the old device goes: it frees the
 * per-thread caches (thunk buffers) made on it. */
void cufort_at_reset(void (*fn)(void *arg), void *arg);
/* fn runs before every other reset hook: the multi-GPU helper threads end there, each releasing
 * its own per-thread caches on its own device before the hooks release everybody else's. */
void cufort_before_reset(void (*fn)(void));

/* state.c's setters, for context.c alone: a backend becomes active / goes; the device changes;
 * the reset hooks run (in the order they were added). */
void cufort_state_activate(const cufort_backend_ops *ops, int kind, int device);
void cufort_state_deactivate(void);
void cufort_state_set_device(int device);
void cufort_state_run_reset_hooks(void);
int cufort_state_forked(void);   /* a fork's child of an initialised cufort: it stays shut down */

#endif
