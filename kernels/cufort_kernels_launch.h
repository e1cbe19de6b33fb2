/* cufort_kernels_launch.h — extern "C" launchers of cufort's own CUDA kernels (kernels/reduce.cu, kernels/transpose.cu,
 * kernels/mirror.cu).
 * Internal: the C ABI (c_wrappers/core/kernels_api.c -> c_wrappers/cuda/cuda_kernels.c) calls these;
 * bench/ calls them directly to compare launch variants.  Every launcher is asynchronous on the
 * stream it is given and returns a cudaError_t value (0 = success).
 *
 * The reduction's summation order is a function of n alone (never of the grid, the device or the
 * backend): the logical vector is cut into chunks of CUFORT_KREDUCE_CHUNK(kind) elements; chunk c is
 * reduced by a fixed pattern of 256 "threads" (thread t takes, for k = 0..7, the VEC consecutive
 * elements at k*256*VEC + t*VEC, VEC = 16 bytes / element size, in that order), a shuffle-down tree
 * per warp of 32 and a shuffle-down tree over the 8 warp results padded to 32 with the identity.
 * The chunk partials are reduced the same way by 1024 "threads" (thread t takes partials t, t+1024,
 * ... in order) and 32 warps.  Any grid therefore gives the same bits, and the host backend
 * (c_wrappers/host/host_kernels.c) replays the same order, so host and cuda agree bitwise. */
#ifndef CUFORT_KERNELS_LAUNCH_H
#define CUFORT_KERNELS_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { CUFORT_KS = 0, CUFORT_KD = 1, CUFORT_KC = 2, CUFORT_KZ = 3 };   /* element kinds */

/* reductions; result types: SUM, SUMK, DOT, DOTC: the element type; ASUM, NRM2: its real type;
 * MIN, MAX: the (real) element type; MINLOC, MAXLOC, COUNT: int64_t (0-based index / count) */
enum {
    CUFORT_RSUM = 0, CUFORT_RSUMK, CUFORT_RASUM, CUFORT_RDOT, CUFORT_RDOTC, CUFORT_RNRM2,
    CUFORT_RMIN, CUFORT_RMAX, CUFORT_RMINLOC, CUFORT_RMAXLOC, CUFORT_RCOUNT, CUFORT_RNOPS
};
/* predicates of COUNT: x OP value */
enum { CUFORT_PRED_LT = 0, CUFORT_PRED_LE, CUFORT_PRED_GT, CUFORT_PRED_GE, CUFORT_PRED_EQ,
       CUFORT_PRED_NE };

#define CUFORT_KREDUCE_THREADS 256
#define CUFORT_KREDUCE_UNROLL 8
#define CUFORT_KREDUCE_THREADS2 1024

static inline size_t cufort_kelem_size(int kind)
{
    return kind == CUFORT_KS ? 4 : kind == CUFORT_KZ ? 16 : 8;
}
/* elements per chunk: 256 threads x 8 loads x one 16-byte vector */
static inline int64_t cufort_kreduce_chunk(int kind)
{
    return (int64_t)CUFORT_KREDUCE_THREADS * CUFORT_KREDUCE_UNROLL * (int64_t)(16 / cufort_kelem_size(kind));
}
static inline int64_t cufort_kreduce_nchunks(int kind, int64_t n)
{
    int64_t c = cufort_kreduce_chunk(kind);
    return n <= 0 ? 0 : (n + c - 1) / c;
}

/* 1 (default): the second pass is a programmatic dependent launch (Hopper and later; older GPUs
 * ignore it); bench_kernels sets 0 to time the plain launch side by side */
extern int cufort_kreduce_pdl;

/* bytes of one chunk partial of (kind, op); 0 when the pair is not supported */
size_t cufort_kreduce_partial_bytes(int kind, int op);

/* Reduces x (and y for DOT/DOTC) of n >= 1 elements, increments in BLAS order (inc < 0: element i
 * at (n-1-i)*|inc|; inc == 0 allowed).  partials: device memory of nchunks * partial_bytes bytes
 * (16-byte aligned); result: device memory for one result (see above).  grid: blocks of the first
 * pass, 0 = the device's default (multiprocessors x 64); any value gives the same bits.  value:
 * COUNT's comparand (converted to the element type), pred its predicate. */
int cufort_kreduce_launch(int kind, int op, int64_t n, const void *x, int64_t incx, const void *y,
                          int64_t incy, int pred, double value, void *partials, void *result,
                          int grid, void *stream);

/* B (n x m, ldb) = alpha * op(A) (m x n, lda), trans 'N' (B m x n), 'T' or 'C' (conjugate,
 * complex kinds only matter).  alpha points to one host element of the kind.  variant: 0 =
 * default (4); 1: 32x32 tile, 256 threads; 2: 64x64 tile, 256 threads; 3: 64x64 tile, 512 threads;
 * 4 (the default): 64x64 tile cut at B's sector boundaries (whole-sector stores for any ldb).
 * 16-byte kinds always use 1. */
int cufort_ktranspose_launch(int kind, char trans, int64_t m, int64_t n, const void *alpha,
                             const void *a, int64_t lda, void *b, int64_t ldb, int variant,
                             void *stream);
/* A (n x n, lda) = alpha * op(A) in place, trans 'N' (scale only), 'T' or 'C'. */
int cufort_ktranspose_inplace_launch(int kind, char trans, int64_t n, const void *alpha, void *a,
                                     int64_t lda, void *stream);

/* A (n x n, lda, n <= 32 x 65535) symmetric, or Hermitian when herm (complex kinds): the triangle
 * uplo names copied onto the other (kernels/mirror.cu), conjugated when Hermitian, whose diagonal's
 * imaginary parts become zero; the Level-3 engine then multiplies by A with a GEMM. */
int cufort_kmirror_launch(int kind, char uplo, int herm, int64_t n, void *a, int64_t lda, void *stream);

#ifdef __cplusplus
}
#endif
#endif
