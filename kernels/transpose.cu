// transpose.cu — B = alpha * op(A) for the four BLAS kinds, column-major, any m x n, leading
// dimensions; in place for square matrices.
//
// The ladder's last step (seed 000 "Coalesced Transpose"): a block reads a TILE x TILE tile with
// warps running down the contiguous columns of A (coalesced), parks it in shared memory padded by
// one element per row ([TILE][TILE+1]: column reads hit 32 different banks for 4-, 8- and 16-byte
// elements alike), and writes it out with warps running down the contiguous columns of B.  Each
// thread keeps TILE*TILE/threads loads in flight in registers before touching shared memory; grid.y
// strides so any n fits.  The default (variant 4) goes one step further: with an odd ldb, tiles cut
// at multiples of 64 leave half-written 32-byte sectors at both ends of every warp's store (8191 x
// 8193 ran at 72% of a copy); cutting each column of B at its own sector boundaries makes every
// store whole sectors (95%).  Complex scaling uses __fmul_rn so that the host backend's C arithmetic
// gives the same bits (no contracted FMA).
#include <cuda_runtime.h>
#include <stdint.h>

#include "cufort_kernels_launch.h"

namespace {

__device__ __forceinline__ float scale(float a, float v) { return __fmul_rn(a, v); }
__device__ __forceinline__ double scale(double a, double v) { return __dmul_rn(a, v); }
__device__ __forceinline__ float2 scale(float2 a, float2 v)
{
    return make_float2(__fsub_rn(__fmul_rn(a.x, v.x), __fmul_rn(a.y, v.y)),
                       __fadd_rn(__fmul_rn(a.x, v.y), __fmul_rn(a.y, v.x)));
}
__device__ __forceinline__ double2 scale(double2 a, double2 v)
{
    return make_double2(__dsub_rn(__dmul_rn(a.x, v.x), __dmul_rn(a.y, v.y)),
                        __dadd_rn(__dmul_rn(a.x, v.y), __dmul_rn(a.y, v.x)));
}
__device__ __forceinline__ float conj_of(float v) { return v; }
__device__ __forceinline__ double conj_of(double v) { return v; }
__device__ __forceinline__ float2 conj_of(float2 v) { return make_float2(v.x, -v.y); }
__device__ __forceinline__ double2 conj_of(double2 v) { return make_double2(v.x, -v.y); }

template <class T, bool SCALE, bool CONJ> __device__ __forceinline__ T apply(T alpha, T v)
{
    if (CONJ) v = conj_of(v);
    if (SCALE) v = scale(alpha, v);
    return v;
}

// ---- out of place: B(j, i) = f(A(i, j)), A m x n ------------------------------------------
template <class T, int TILE, int ROWS, bool SCALE, bool CONJ>
__global__ void __launch_bounds__(32 * ROWS)
transpose_kernel(int64_t m, int64_t n, T alpha, const T *__restrict__ a, int64_t lda, T *__restrict__ b,
                 int64_t ldb, int64_t tiles_n)
{
    constexpr int PER = TILE / ROWS, SEG = TILE / 32;
    __shared__ T tile[TILE][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t i0 = (int64_t)blockIdx.x * TILE;
    for (int64_t by = blockIdx.y; by < tiles_n; by += gridDim.y) {
        const int64_t j0 = by * TILE;
        const bool full = i0 + TILE <= m && j0 + TILE <= n;
        T v[PER][SEG];
#pragma unroll
        for (int p = 0; p < PER; p++)
#pragma unroll
            for (int s = 0; s < SEG; s++) {
                const int64_t i = i0 + tx + 32 * s, j = j0 + ty + p * ROWS;
                if (full || (i < m && j < n)) v[p][s] = a[i + j * lda];
            }
#pragma unroll
        for (int p = 0; p < PER; p++)
#pragma unroll
            for (int s = 0; s < SEG; s++) tile[ty + p * ROWS][tx + 32 * s] = v[p][s];
        __syncthreads();
#pragma unroll
        for (int p = 0; p < PER; p++)
#pragma unroll
            for (int s = 0; s < SEG; s++) {
                const int64_t i = i0 + ty + p * ROWS, j = j0 + tx + 32 * s;
                if (full || (i < m && j < n))
                    b[j + i * ldb] = apply<T, SCALE, CONJ>(alpha, tile[tx + 32 * s][ty + p * ROWS]);
            }
        __syncthreads();
    }
}

// ---- out of place, writes in whole 32-byte sectors (variant 4) -----------------------------
// With an odd ldb every column of B starts at another offset inside a sector, and tiles cut at
// multiples of TILE leave a partial sector at both ends of every warp's write.  Here each column i
// of B is cut at its own sector boundaries instead: the block's rows of column i are
// [c_i + TILE*(by-1), c_i + TILE*by) with c_i the first sector-aligned row of the column, so every
// full warp store covers whole sectors.  The block stages A's columns [TILE*(by-1), TILE*by + E-1)
// (E elements per sector) and each column of B picks its window out of them.
template <class T, bool SCALE, bool CONJ>
__global__ void __launch_bounds__(256)
transpose_sector_kernel(int64_t m, int64_t n, T alpha, const T *__restrict__ a, int64_t lda, T *__restrict__ b,
                        int64_t ldb, int64_t tiles_n)
{
    constexpr int TILE = 64, ROWS = 8, E = 32 / sizeof(T), SEG = TILE / 32;
    constexpr int LROWS = TILE + E, LPER = (LROWS + ROWS - 1) / ROWS;
    __shared__ T tile[LPER * ROWS][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t i0 = (int64_t)blockIdx.x * TILE;
    const int64_t bel = (int64_t)(((uintptr_t)b / sizeof(T)) % E);
    for (int64_t by = blockIdx.y; by < tiles_n; by += gridDim.y) {
        const int64_t jbase = (by - 1) * TILE;
        T v[LPER][SEG];
#pragma unroll
        for (int p = 0; p < LPER; p++)
#pragma unroll
            for (int s = 0; s < SEG; s++) {
                const int64_t i = i0 + tx + 32 * s, j = jbase + ty + p * ROWS;
                if (i < m && j >= 0 && j < n && ty + p * ROWS < LROWS) v[p][s] = a[i + j * lda];
            }
#pragma unroll
        for (int p = 0; p < LPER; p++)
#pragma unroll
            for (int s = 0; s < SEG; s++) tile[ty + p * ROWS][tx + 32 * s] = v[p][s];
        __syncthreads();
#pragma unroll
        for (int p = 0; p < TILE / ROWS; p++) {
            const int ii = ty + p * ROWS;
            const int64_t i = i0 + ii;
            const int c = (int)((E - (bel + i * ldb) % E) % E);   // first sector-aligned row of column i
#pragma unroll
            for (int s = 0; s < SEG; s++) {
                const int t = tx + 32 * s;
                const int64_t j = jbase + c + t;
                if (i < m && j >= 0 && j < n) b[j + i * ldb] = apply<T, SCALE, CONJ>(alpha, tile[c + t][ii]);
            }
        }
        __syncthreads();
    }
}

// ---- 'N': B = alpha * A (also in place with b == a: each element is read and written by one thread)
template <class T, bool SCALE>
__global__ void __launch_bounds__(256) copy_kernel(int64_t m, int64_t n, T alpha, const T *a, int64_t lda,
                                                   T *b, int64_t ldb)
{
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (int64_t)gridDim.x * blockDim.x)
            b[i + j * ldb] = apply<T, SCALE, false>(alpha, a[i + j * lda]);
}

// ---- in place, square: block (bx, by), bx <= by, swaps tiles (bx, by) and (by, bx) ----------
template <class T, bool SCALE, bool CONJ>
__global__ void __launch_bounds__(256) transpose_inplace_kernel(int64_t n, T alpha, T *a, int64_t lda,
                                                                int64_t tiles)
{
    constexpr int TILE = 32, ROWS = 8, PER = TILE / ROWS;
    __shared__ T t1[TILE][TILE + 1], t2[TILE][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t bx = blockIdx.x;
    for (int64_t by = blockIdx.y; by < tiles; by += gridDim.y) {
        if (bx > by) continue;
        const int64_t i0 = bx * TILE, j0 = by * TILE;
        const bool diag = bx == by;
        // t1[jj][ii] = A(i0+ii, j0+jj); t2[jj][ii] = A(j0+ii, i0+jj)
#pragma unroll
        for (int p = 0; p < PER; p++) {
            const int jj = ty + p * ROWS;
            if (i0 + tx < n && j0 + jj < n) t1[jj][tx] = a[(i0 + tx) + (j0 + jj) * lda];
            if (!diag && j0 + tx < n && i0 + jj < n) t2[jj][tx] = a[(j0 + tx) + (i0 + jj) * lda];
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < PER; p++) {
            const int y = ty + p * ROWS, x = tx;
            // A'(j0+x, i0+y) = f(A(i0+y, j0+x)) = f(t1[x][y])
            if (j0 + x < n && i0 + y < n) a[(j0 + x) + (i0 + y) * lda] = apply<T, SCALE, CONJ>(alpha, t1[x][y]);
            // A'(i0+x, j0+y) = f(A(j0+y, i0+x)) = f(t2[x][y])
            if (!diag && i0 + x < n && j0 + y < n)
                a[(i0 + x) + (j0 + y) * lda] = apply<T, SCALE, CONJ>(alpha, t2[x][y]);
        }
        __syncthreads();
    }
}

template <class T> bool is_one(T v);
template <> bool is_one<float>(float v) { return v == 1.0f; }
template <> bool is_one<double>(double v) { return v == 1.0; }
template <> bool is_one<float2>(float2 v) { return v.x == 1.0f && v.y == 0.0f; }
template <> bool is_one<double2>(double2 v) { return v.x == 1.0 && v.y == 0.0; }

template <class T, int TILE, int ROWS, bool SCALE, bool CONJ>
cudaError_t launch_t(int64_t m, int64_t n, T alpha, const T *a, int64_t lda, T *b, int64_t ldb, cudaStream_t s)
{
    int64_t tx = (m + TILE - 1) / TILE, ty = (n + TILE - 1) / TILE;
    if (tx > 0x7fffffff) return cudaErrorInvalidValue;
    dim3 grid((unsigned)tx, (unsigned)(ty < 65535 ? ty : 65535));
    transpose_kernel<T, TILE, ROWS, SCALE, CONJ><<<grid, dim3(32, ROWS), 0, s>>>(m, n, alpha, a, lda, b, ldb, ty);
    return cudaGetLastError();
}

template <class T, bool SCALE, bool CONJ>
cudaError_t variant_t(int variant, int64_t m, int64_t n, T alpha, const T *a, int64_t lda, T *b, int64_t ldb,
                      cudaStream_t s)
{
    // 16-byte elements: a 64x64 tile would need 2 x 66 KB; keep them on 32x32
    if constexpr (sizeof(T) == 16) {
        return launch_t<T, 32, 8, SCALE, CONJ>(m, n, alpha, a, lda, b, ldb, s);
    } else {
    switch (variant) {
    case 4: {
        int64_t tx = (m + 63) / 64, ty = (n + 63) / 64 + 1;
        if (tx > 0x7fffffff) return cudaErrorInvalidValue;
        dim3 grid((unsigned)tx, (unsigned)(ty < 65535 ? ty : 65535));
        transpose_sector_kernel<T, SCALE, CONJ><<<grid, dim3(32, 8), 0, s>>>(m, n, alpha, a, lda, b, ldb, ty);
        return cudaGetLastError();
    }
    case 1: return launch_t<T, 32, 8, SCALE, CONJ>(m, n, alpha, a, lda, b, ldb, s);
    case 3: return launch_t<T, 64, 16, SCALE, CONJ>(m, n, alpha, a, lda, b, ldb, s);
    case 2: default: return launch_t<T, 64, 8, SCALE, CONJ>(m, n, alpha, a, lda, b, ldb, s);
    }
    }
}

template <class T, bool COMPLEX>
cudaError_t transpose_kind(char trans, int64_t m, int64_t n, const void *alpha_p, const void *av, int64_t lda,
                           void *bv, int64_t ldb, int variant, cudaStream_t s)
{
    const T alpha = *static_cast<const T *>(alpha_p);
    const T *a = static_cast<const T *>(av);
    T *b = static_cast<T *>(bv);
    const bool sc = !is_one(alpha);
    if (trans == 'N') {
        int64_t gx = (m + 255) / 256;
        dim3 grid((unsigned)(gx < 4096 ? gx : 4096), (unsigned)(n < 65535 ? n : 65535));
        if (sc) copy_kernel<T, true><<<grid, 256, 0, s>>>(m, n, alpha, a, lda, b, ldb);
        else copy_kernel<T, false><<<grid, 256, 0, s>>>(m, n, alpha, a, lda, b, ldb);
        return cudaGetLastError();
    }
    const bool cj = COMPLEX && trans == 'C';
    if (variant == 0) variant = sizeof(T) == 16 ? 1 : 4;   // measured best everywhere (docs/performance.md)
    if (cj) return sc ? variant_t<T, true, COMPLEX>(variant, m, n, alpha, a, lda, b, ldb, s)
                      : variant_t<T, false, COMPLEX>(variant, m, n, alpha, a, lda, b, ldb, s);
    return sc ? variant_t<T, true, false>(variant, m, n, alpha, a, lda, b, ldb, s)
              : variant_t<T, false, false>(variant, m, n, alpha, a, lda, b, ldb, s);
}

template <class T, bool COMPLEX>
cudaError_t inplace_kind(char trans, int64_t n, const void *alpha_p, void *av, int64_t lda, cudaStream_t s)
{
    const T alpha = *static_cast<const T *>(alpha_p);
    T *a = static_cast<T *>(av);
    const bool sc = !is_one(alpha);
    if (trans == 'N') {
        if (!sc) return cudaSuccess;
        int64_t gx = (n + 255) / 256;
        dim3 grid((unsigned)(gx < 4096 ? gx : 4096), (unsigned)(n < 65535 ? n : 65535));
        copy_kernel<T, true><<<grid, 256, 0, s>>>(n, n, alpha, a, lda, a, lda);
        return cudaGetLastError();
    }
    int64_t tiles = (n + 31) / 32;
    if (tiles > 0x7fffffff) return cudaErrorInvalidValue;
    dim3 grid((unsigned)tiles, (unsigned)(tiles < 65535 ? tiles : 65535)), block(32, 8);
    const bool cj = COMPLEX && trans == 'C';
    if (cj) {
        if (sc) transpose_inplace_kernel<T, true, COMPLEX><<<grid, block, 0, s>>>(n, alpha, a, lda, tiles);
        else transpose_inplace_kernel<T, false, COMPLEX><<<grid, block, 0, s>>>(n, alpha, a, lda, tiles);
    } else {
        if (sc) transpose_inplace_kernel<T, true, false><<<grid, block, 0, s>>>(n, alpha, a, lda, tiles);
        else transpose_inplace_kernel<T, false, false><<<grid, block, 0, s>>>(n, alpha, a, lda, tiles);
    }
    return cudaGetLastError();
}

char norm_trans(char t)
{
    return t == 'n' ? 'N' : t == 't' ? 'T' : t == 'c' ? 'C' : t;
}

} // namespace

extern "C" int cufort_ktranspose_launch(int kind, char trans, int64_t m, int64_t n, const void *alpha,
                                        const void *a, int64_t lda, void *b, int64_t ldb, int variant,
                                        void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    trans = norm_trans(trans);
    if (m <= 0 || n <= 0) return 0;
    if (trans != 'N' && trans != 'T' && trans != 'C') return (int)cudaErrorInvalidValue;
    switch (kind) {
    case CUFORT_KS: return (int)transpose_kind<float, false>(trans, m, n, alpha, a, lda, b, ldb, variant, s);
    case CUFORT_KD: return (int)transpose_kind<double, false>(trans, m, n, alpha, a, lda, b, ldb, variant, s);
    case CUFORT_KC: return (int)transpose_kind<float2, true>(trans, m, n, alpha, a, lda, b, ldb, variant, s);
    case CUFORT_KZ: return (int)transpose_kind<double2, true>(trans, m, n, alpha, a, lda, b, ldb, variant, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int cufort_ktranspose_inplace_launch(int kind, char trans, int64_t n, const void *alpha, void *a,
                                                int64_t lda, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    trans = norm_trans(trans);
    if (n <= 0) return 0;
    if (trans != 'N' && trans != 'T' && trans != 'C') return (int)cudaErrorInvalidValue;
    switch (kind) {
    case CUFORT_KS: return (int)inplace_kind<float, false>(trans, n, alpha, a, lda, s);
    case CUFORT_KD: return (int)inplace_kind<double, false>(trans, n, alpha, a, lda, s);
    case CUFORT_KC: return (int)inplace_kind<float2, true>(trans, n, alpha, a, lda, s);
    case CUFORT_KZ: return (int)inplace_kind<double2, true>(trans, n, alpha, a, lda, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
