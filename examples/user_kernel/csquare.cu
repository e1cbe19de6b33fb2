// csquare.cu — YOUR kernel, called from Fortran: seed 001's "Calling CUDA kernels" pattern
// (Fortran -> C -> CUDA -> C -> Fortran), on cufort's device memory and one of cufort's streams.
//
// The kernel squares complex numbers element by element (b(i) = a(i)**2).  The launcher is an
// extern "C" function with bind(C)-friendly arguments (values, device pointers, the stream handle),
// so Fortran declares it in an interface block and calls it like any C function: no name mangling,
// no copies — the arrays are already on the device (cufort_alloc + cufort_set_vector).
//
// Build: nvcc -O2 -arch=sm_90 -I<cufort>/include -c csquare.cu; link the Fortran program with
// csquare.o -L<cufort>/lib -lcufort -lcudart -lstdc++ (see Makefile in this folder).
#include <cuComplex.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "cufort.h"

__global__ void square_complex(const cuFloatComplex *__restrict__ a, cuFloatComplex *__restrict__ b, int64_t n)
{
    // grid-stride loop: any n, any grid
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        b[i] = cuCmulf(a[i], a[i]);
}

// Returns 0 on success, else a CUDA error code.  `stream` is a cufort_stream (NULL: the default
// stream): the kernel is ordered with the cufort calls issued on that stream.
extern "C" int csquare_launch(int64_t n, const void *a, void *b, cufort_stream stream)
{
    if (n <= 0) return 0;
    if (cufort_backend() == CUFORT_BACKEND_HOST) {
        // cufort's host backend (CUFORT_BACKEND=host, or no GPU): "device" arrays are host memory,
        // so the same program runs without a GPU — here is the kernel's body as a plain loop.
        const cuFloatComplex *x = static_cast<const cuFloatComplex *>(a);
        cuFloatComplex *y = static_cast<cuFloatComplex *>(b);
        for (int64_t i = 0; i < n; i++) y[i] = cuCmulf(x[i], x[i]);
        return 0;
    }
    const int block = 256;
    int64_t blocks = (n + block - 1) / block;
    if (blocks > 65535) blocks = 65535;
    square_complex<<<(unsigned)blocks, block, 0, reinterpret_cast<cudaStream_t>(stream)>>>(
        static_cast<const cuFloatComplex *>(a), static_cast<cuFloatComplex *>(b), n);
    return (int)cudaGetLastError();
}
