// mirror.cu — a symmetric or Hermitian matrix's stored triangle copied onto the other one, so that
// the Level-3 engine can multiply by it with a GEMM (cuBLAS's SYMM runs well below its GEMM).
//
// A block owns one 32 x 32 tile of the triangle being written and reads its mirror image from the
// stored triangle: warps run down the contiguous columns of both (coalesced), the tile parked in
// shared memory padded by one element per row.  Every read is of the stored triangle and every
// write of the other, so blocks never see each other's writes; a diagonal tile reads its stored
// half before any thread writes its other half.  Hermitian: the copy is conjugated and the
// diagonal's imaginary parts, which BLAS does not reference, are set to zero.
#include <cuda_runtime.h>
#include <stdint.h>

#include "cufort_kernels_launch.h"

namespace {

constexpr int TILE = 32, ROWS = 8;

__device__ __forceinline__ float conj_of(float v) { return v; }
__device__ __forceinline__ double conj_of(double v) { return v; }
__device__ __forceinline__ float2 conj_of(float2 v) { return make_float2(v.x, -v.y); }
__device__ __forceinline__ double2 conj_of(double2 v) { return make_double2(v.x, -v.y); }
__device__ __forceinline__ float real_of(float v) { return v; }
__device__ __forceinline__ double real_of(double v) { return v; }
__device__ __forceinline__ float2 real_of(float2 v) { return make_float2(v.x, 0.f); }
__device__ __forceinline__ double2 real_of(double2 v) { return make_double2(v.x, 0.0); }

// Tile (bi, bj) of the triangle to write (bi <= bj for a stored lower triangle: the upper one is
// written), A(i, j) = op(A(j, i)).
template <class T, bool HERM>
__global__ void __launch_bounds__(TILE * ROWS)
mirror_kernel(int64_t n, T *a, int64_t lda, bool lower)
{
    __shared__ T tile[TILE][TILE + 1];
    const int64_t bi = blockIdx.y, bj = blockIdx.x;
    if (lower ? bi > bj : bi < bj)
        return;
    const int64_t i0 = bi * TILE, j0 = bj * TILE;   // the tile written
    const int tx = threadIdx.x, ty = threadIdx.y;
    // the source tile: rows j0.., columns i0.. of the stored triangle (a diagonal tile's other
    // half may never have been written: it is not read)
#pragma unroll
    for (int r = 0; r < TILE; r += ROWS) {
        int64_t row = j0 + tx, col = i0 + ty + r;
        if (row < n && col < n && (lower ? row >= col : row <= col))
            tile[ty + r][tx] = a[row + col * lda];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < TILE; r += ROWS) {
        int64_t row = i0 + tx, col = j0 + ty + r;
        if (row >= n || col >= n)
            continue;
        if (row == col) {
            if (HERM)
                a[row + col * lda] = real_of(a[row + col * lda]);
        } else if (lower ? row < col : row > col) {
            T v = tile[tx][ty + r];   // A(col, row)
            a[row + col * lda] = HERM ? conj_of(v) : v;
        }
    }
}

template <class T, bool CPLX>
cudaError_t mirror_kind(char uplo, int herm, int64_t n, void *a, int64_t lda, cudaStream_t s)
{
    int64_t tiles = (n + TILE - 1) / TILE;
    if (tiles > 65535)
        return cudaErrorInvalidValue;
    dim3 grid((unsigned)tiles, (unsigned)tiles), block(TILE, ROWS);
    bool lower = uplo == 'L' || uplo == 'l';
    if (CPLX && herm)
        mirror_kernel<T, true><<<grid, block, 0, s>>>(n, (T *)a, lda, lower);
    else
        mirror_kernel<T, false><<<grid, block, 0, s>>>(n, (T *)a, lda, lower);
    return cudaGetLastError();
}

}   // namespace

extern "C" int cufort_kmirror_launch(int kind, char uplo, int herm, int64_t n, void *a, int64_t lda,
                                     void *stream)
{
    if (n <= 0)
        return 0;
    cudaStream_t s = (cudaStream_t)stream;
    switch (kind) {
    case CUFORT_KS: return (int)mirror_kind<float, false>(uplo, herm, n, a, lda, s);
    case CUFORT_KD: return (int)mirror_kind<double, false>(uplo, herm, n, a, lda, s);
    case CUFORT_KC: return (int)mirror_kind<float2, true>(uplo, herm, n, a, lda, s);
    case CUFORT_KZ: return (int)mirror_kind<double2, true>(uplo, herm, n, a, lda, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
