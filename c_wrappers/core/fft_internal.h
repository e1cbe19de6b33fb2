/* fft_internal.h — what the FFT C ABI shares with the two FFT backends (cuFFT, FFTW3). */
#ifndef CUFORT_FFT_INTERNAL_H
#define CUFORT_FFT_INTERNAL_H

#include "internal.h"

/* One side (input or output) of an execution: logical sizes and where element (i0,i1,i2) of batch b
 * lives: b*dist + stride*((i0*embed[1] + i1)*embed[2] + i2).  Always 3-D: lower ranks are padded at
 * the front with size 1. */
typedef struct {
    int64_t m[3], embed[3], stride, dist;
    int complex_side;            /* elements are complex (two reals) */
} cufort_fft_side;

struct cufort_fft_plan_s {
    int type, rank, normalize;
    int64_t n[3], batch;         /* C order, rank entries used */
    int advanced;                /* embeds given: the layout below is the caller's */
    int64_t inembed[3], istride, idist, onembed[3], ostride, odist;
    cufort_stream stream;
    void *backend;               /* cufftHandle box (cuda) or FFTW plans (host) */
    /* fft_layout.c, at plan time; [in place][0 input, 1 output] */
    cufort_fft_side side[2][2];
    int64_t span[2][2];          /* elements from the side's first to its last; their bytes fit int64 */
    char in_place_refusal[320];  /* why exec refuses in == out, or "" */
    int device;                  /* the device it was made on, which alone may run it */
    /* last: cufort_fft_exec_on copies a plan up to here while other threads may test this */
    int busy;                    /* a cufort_fft_exec_host is running it (atomic) */
};

/* fft_layout.c: checks an advanced layout and fills side, span and in_place_refusal of a plan
 * whose type, rank, sizes and batch were validated; a bad layout, or a span that does not fit int64
 * bytes, is CUFORT_INVALID_VALUE naming the arguments.  Runs before the backend sees the plan, so
 * that the backend can check the resolved layouts against its own limits. */
int cufort_fft_resolve_layout(const char *fn, struct cufort_fft_plan_s *p);
int64_t cufort_fft_elem_size(const struct cufort_fft_plan_s *p, const cufort_fft_side *s);   /* bytes */

typedef struct {
    int (*create)(struct cufort_fft_plan_s *p);
    void (*destroy)(struct cufort_fft_plan_s *p);
    int (*exec)(struct cufort_fft_plan_s *p, const void *in, void *out, int direction,
                const cufort_fft_side *in_side, const cufort_fft_side *out_side);
    /* out *= factor over every logical element of the side */
    int (*scale)(struct cufort_fft_plan_s *p, void *out, const cufort_fft_side *side, double factor);
} cufort_fft_backend;

extern const cufort_fft_backend cufort_cuda_fft;
extern const cufort_fft_backend cufort_host_fft;

static inline int cufort_fft_double(int type)
{
    return type == CUFORT_FFT_Z2Z || type == CUFORT_FFT_D2Z || type == CUFORT_FFT_Z2D;
}
static inline int cufort_fft_real_in(int type)
{
    return type == CUFORT_FFT_R2C || type == CUFORT_FFT_D2Z;
}
static inline int cufort_fft_real_out(int type)
{
    return type == CUFORT_FFT_C2R || type == CUFORT_FFT_Z2D;
}

/* fft_api.c for fft_cache.c: a released plan leaves the list of live plans, so a stale handle to it
 * is refused like a destroyed one until it is handed out again. */
/* fft_api.c for the thunk engine's execution on host arrays: the plan is live, the direction fits
 * its type, and it may run in place if asked to (CUFORT_INVALID_VALUE with a message otherwise). */
int cufort_fft_check_exec(const char *fn, cufort_fft_plan plan, int direction, int in_place);
/* Runs a checked plan on device arrays on `stream`, without writing the plan (a copy carries the
 * stream), so that several threads may run one plan's host-array transforms at once. */
int cufort_fft_exec_on(const char *fn, cufort_fft_plan plan, const void *in, void *out, int direction,
                       cufort_stream stream);

int cufort_fft_unlist(cufort_fft_plan plan);        /* 1 if it was live */
int cufort_fft_relist(cufort_fft_plan plan);
void cufort_fft_free(cufort_fft_plan plan);         /* backend plan and struct; unlisted plans only */

/* ---- the plan cache (fft_cache.c), behind the plans of `use cufort` ----
 * acquire hands out a plan for the caller's exclusive use: a released one with the same type,
 * sizes, batch and layout, made on this thread's device, when the cache has one (stream and
 * normalisation reset), else a new one.  release gives it back; the cache keeps the
 * CUFORT_FFT_CACHE_MAX most recently released and destroys older ones.  *generation / generation
 * tie a plan to the cufort initialisation it was made under: a shutdown or device change destroys
 * every plan, after which release is a no-op.  Thread-safe. */
#define CUFORT_FFT_CACHE_MAX 8
int cufort_fft_plan_acquire(cufort_fft_plan *plan, int *generation, int type, int rank,
                            const int64_t *n, int64_t batch, const int64_t *inembed, int64_t istride,
                            int64_t idist, const int64_t *onembed, int64_t ostride, int64_t odist);
int cufort_fft_plan_release(cufort_fft_plan plan, int generation);
int cufort_fft_generation(void);
int cufort_fft_cache_clear(void);                   /* destroys the plans it holds; how many */

typedef struct { int64_t idle, hits, misses, evictions; } cufort_fft_cache_stats;
void cufort_fft_cache_get_stats(cufort_fft_cache_stats *stats);

#endif
