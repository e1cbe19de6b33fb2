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

#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define NOTR(c) (toupper((unsigned char)(c)) == 'N')
#define LEFT(c) (toupper((unsigned char)(c)) == 'L')

/* ---- errors (per thread) ---- */
int cufort_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cufort_bad_arg(const char *routine, int position, const char *name);  /* sets last_info */
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

/* ---- extents: elements an array argument spans from its base pointer (0 when empty) ---- */
/* Extents saturate at INT64_MAX instead of wrapping, so an absurd size fails every check. */
static inline int64_t cufort_extent_mat(int64_t rows, int64_t cols, int64_t ld)
{
    int64_t e;
    if (rows <= 0 || cols <= 0)
        return 0;
    if (__builtin_mul_overflow(cols - 1, ld, &e) || __builtin_add_overflow(e, rows, &e))
        return INT64_MAX;
    return e;
}
static inline int64_t cufort_extent_vec(int64_t n, int64_t inc)
{
    return n <= 0 ? 0 : cufort_extent_mat(1, n, inc < 0 ? -inc : inc);
}
static inline int64_t cufort_extent_pack(int64_t count) { return count < 0 ? 0 : count; }
static inline int64_t cufort_extent_tri(int64_t order)     /* a packed triangle: order(order+1)/2 */
{
    int64_t e;
    if (order <= 0)
        return 0;
    if (order % 2 == 0 ? __builtin_mul_overflow(order / 2, order + 1, &e)
                       : __builtin_mul_overflow(order, order / 2 + 1, &e))
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

/* ---- block registries (registry.c) ---- */
typedef struct { uintptr_t base; size_t bytes; } cufort_block;
typedef struct {
    pthread_mutex_t lock;
    cufort_block *blocks;
    size_t count, capacity;
} cufort_registry;

extern cufort_registry cufort_device_blocks;      /* cufort_alloc */
extern cufort_registry cufort_pinned_blocks;      /* cufort_host_alloc */
extern cufort_registry cufort_registered_ranges;  /* cufort_host_register */

int cufort_registry_add(cufort_registry *r, const void *p, size_t bytes);
int cufort_registry_remove(cufort_registry *r, const void *p);   /* 1 if p was a block's base */
/* the block with the greatest base <= p (p may lie past its end); 0 when none */
int cufort_registry_floor(cufort_registry *r, const void *p, uintptr_t *base, size_t *bytes);
void cufort_registry_drain(cufort_registry *r, int (*release)(void *p));  /* release every block */

/* Device allocations start on ALLOC_ALIGN boundaries (cudaMalloc guarantees 256 bytes and the
 * host backend copies that), so nothing else can begin before a block's end rounded up to it. */
#define CUFORT_ALLOC_ALIGN 256

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
int cufort_current_device(void);

/* Run fn at every shutdown and device change, before the old device goes: it frees the
 * per-thread caches (thunk buffers) made on it. */
void cufort_at_reset(void (*fn)(void *arg), void *arg);

#endif
