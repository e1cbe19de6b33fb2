/* fft_scale.h — launcher for the normalisation of an FFT output side (kernels/fft_scale.cu). */
#ifndef CUFORT_KERNELS_FFT_SCALE_H
#define CUFORT_KERNELS_FFT_SCALE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* data[b*dist + stride*((i0*e1 + i1)*e2 + i2)] *= factor for every logical element; real_bytes 4
 * or 8, components 1 (real) or 2 (complex).  Returns a cudaError_t. */
int cufort_launch_fft_scale(void *data, int real_bytes, int components, const int64_t m[3],
                            const int64_t embed[3], int64_t stride, int64_t dist, int64_t batch,
                            double factor, void *stream);

#ifdef __cplusplus
}
#endif
#endif
