/* cuda_internal.h — the cuda backend's helpers shared by the generated cuBLAS wrappers. */
#ifndef CUFORT_CUDA_INTERNAL_H
#define CUFORT_CUDA_INTERNAL_H

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "internal.h"

/* This thread's cuBLAS handle, bound to the current device and this thread's BLAS stream. */
int cufort_cuda_handle(cublasHandle_t *handle);
/* Turns a cuBLAS status into a cufort status, naming the call on failure. */
int cufort_cuda_status(cublasStatus_t s, const char *call);
int cufort_cuda_error(cudaError_t e, const char *call);
/* Binds the calling thread to cufort's device (CUDA's current device is per thread). */
int cufort_cuda_bind_thread(void);

static inline cublasOperation_t cufort_cuda_op(char c)
{
    c = (char)toupper((unsigned char)c);
    return c == 'N' ? CUBLAS_OP_N : c == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
}
static inline cublasFillMode_t cufort_cuda_fill(char c)
{
    return toupper((unsigned char)c) == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
}
static inline cublasDiagType_t cufort_cuda_diag(char c)
{
    return toupper((unsigned char)c) == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
}
static inline cublasSideMode_t cufort_cuda_side(char c)
{
    return toupper((unsigned char)c) == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
}

#endif
