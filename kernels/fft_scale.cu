// fft_scale.cu — scales every logical element of an FFT output side, whatever its layout
// (a grid-stride loop over batch x m0 x m1 x m2, each element found through embed/stride/dist).
#include <cuda_runtime.h>

#include "fft_scale.h"

template <typename Real, int Components>
__global__ void fft_scale(Real *data, int64_t m1, int64_t m2, int64_t e1, int64_t e2, int64_t stride,
                          int64_t dist, int64_t per_batch, int64_t total, Real factor)
{
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < total;
         idx += (int64_t)gridDim.x * blockDim.x) {
        int64_t b = idx / per_batch, r = idx % per_batch;
        int64_t i2 = r % m2, i1 = (r / m2) % m1, i0 = r / (m1 * m2);
        Real *e = data + Components * (b * dist + stride * ((i0 * e1 + i1) * e2 + i2));
#pragma unroll
        for (int c = 0; c < Components; c++)
            e[c] *= factor;
    }
}

template <typename Real, int Components>
static cudaError_t launch(void *data, const int64_t m[3], const int64_t embed[3], int64_t stride,
                          int64_t dist, int64_t batch, double factor, cudaStream_t stream)
{
    int64_t per_batch = m[0] * m[1] * m[2], total = per_batch * batch;
    int blocks = (int)((total + 255) / 256 < 4096 ? (total + 255) / 256 : 4096);
    fft_scale<Real, Components><<<blocks, 256, 0, stream>>>(
        static_cast<Real *>(data), m[1], m[2], embed[1], embed[2], stride, dist, per_batch, total,
        static_cast<Real>(factor));
    return cudaGetLastError();
}

extern "C" int cufort_launch_fft_scale(void *data, int real_bytes, int components, const int64_t m[3],
                                       const int64_t embed[3], int64_t stride, int64_t dist,
                                       int64_t batch, double factor, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (real_bytes == 4)
        return components == 2 ? launch<float, 2>(data, m, embed, stride, dist, batch, factor, s)
                               : launch<float, 1>(data, m, embed, stride, dist, batch, factor, s);
    return components == 2 ? launch<double, 2>(data, m, embed, stride, dist, batch, factor, s)
                           : launch<double, 1>(data, m, embed, stride, dist, batch, factor, s);
}
