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
    int busy;                    /* a cufort_fft_exec_host is running it (atomic) */
};

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
int cufort_fft_unlist(cufort_fft_plan plan);        /* 1 if it was live */
int cufort_fft_relist(cufort_fft_plan plan);
void cufort_fft_free(cufort_fft_plan plan);         /* backend plan and struct; unlisted plans only */

/* ---- the plan cache (fft_cache.c), behind the plans of `use cufort` ----
 * acquire hands out a plan for the caller's exclusive use: a released one with the same type, sizes,
 * batch and layout when the cache has one (stream and normalisation reset), else a new one.
 * release gives it back; the cache keeps the CUFORT_FFT_CACHE_MAX most recently released and
 * destroys older ones.  *generation / generation tie a plan to the cufort session it was made in:
 * a shutdown or device change destroys every plan, after which release is a no-op.  Thread-safe. */
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
