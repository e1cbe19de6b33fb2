/* kernels_internal.h — what the C ABI of cufort's own kernels (kernels_api.c) dispatches to: the
 * cuda backend (cuda/cuda_kernels.c, launching kernels/reduce.cu and transpose.cu on this thread's stream) and the host
 * backend (host/host_kernels.c, the same arithmetic in the same order in C).  Arguments are checked
 * before these are called; n >= 1 for reductions, m, n >= 1 for transposes.  Not installed. */
#ifndef CUFORT_KERNELS_INTERNAL_H
#define CUFORT_KERNELS_INTERNAL_H

#include "../../kernels/cufort_kernels_launch.h"
#include "internal.h"

/* result: one result of the op's type (cufort_kernels_launch.h) in host memory, or in device
 * memory when result_on_device (then the call does not wait for the device). */
int cufort_cuda_kreduce(int kind, int op, int64_t n, const void *x, int64_t incx, const void *y,
                        int64_t incy, int pred, double value, void *result, int result_on_device);
int cufort_host_kreduce(int kind, int op, int64_t n, const void *x, int64_t incx, const void *y,
                        int64_t incy, int pred, double value, void *result, int result_on_device);

int cufort_cuda_ktranspose(int kind, char trans, int64_t m, int64_t n, const void *alpha,
                           const void *a, int64_t lda, void *b, int64_t ldb);
int cufort_host_ktranspose(int kind, char trans, int64_t m, int64_t n, const void *alpha,
                           const void *a, int64_t lda, void *b, int64_t ldb);
int cufort_cuda_ktranspose_inplace(int kind, char trans, int64_t n, const void *alpha, void *a,
                                   int64_t lda);
int cufort_host_ktranspose_inplace(int kind, char trans, int64_t n, const void *alpha, void *a,
                                   int64_t lda);
/* the Level-3 engine's: A's triangle uplo copied onto the other (cufort_kmirror_launch) */
int cufort_cuda_kmirror(int kind, char uplo, int herm, int64_t n, void *a, int64_t lda);
int cufort_host_kmirror(int kind, char uplo, int herm, int64_t n, void *a, int64_t lda);

#endif
