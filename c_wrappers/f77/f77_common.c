/* f77_common.c — what both legacy F77 libraries (device-pointer and thunking) share: the
 * cublas_get_error status, the xerbla call for illegal BLAS arguments, and the helper entry points
 * of NVIDIA's fortran.c (cublas_init, cublas_alloc, cublas_set_matrix, ...) under their exact
 * names.  Device pointers travel as integer*8; every helper returns its status (callers may also
 * CALL them as subroutines) and records it for cublas_get_error. */

#include <string.h>

#include "f77.h"
#include "internal.h"

/* Legacy cublasGetError semantics, per thread: the last error sticks until cublas_get_error reads
 * it; successes do not clear it. */
static _Thread_local int legacy_status = CUFORT_SUCCESS;

static int record(int st)
{
    if (st != CUFORT_SUCCESS) legacy_status = st;
    return st;
}

void cufort_f77_done(int st, const char *blas_name)
{
    record(st);
    f77_int info = st == CUFORT_INVALID_VALUE ? (f77_int)cufort_last_info() : 0;
    if (info <= 0) return;
    /* reference BLAS passes a CHARACTER*6 name, blank-padded ('SGEMM '); longer names whole */
    char name[64];
    size_t len = strlen(blas_name);
    if (len > sizeof name - 1) len = sizeof name - 1;
    memcpy(name, blas_name, len);
    while (len < 6) name[len++] = ' ';
    name[len] = '\0';                    /* not part of the Fortran string; kind to C xerblas */
    F77_XERBLA(name, &info, len);
}

f77_int F77_NAME(cublas_init, CUBLAS_INIT)(void)
{
    return record(cufort_init());
}

f77_int F77_NAME(cublas_shutdown, CUBLAS_SHUTDOWN)(void)
{
    return record(cufort_shutdown());
}

f77_int F77_NAME(cublas_get_error, CUBLAS_GET_ERROR)(void)
{
    int st = legacy_status;
    legacy_status = CUFORT_SUCCESS;
    return st;
}

f77_int F77_NAME(cublas_alloc, CUBLAS_ALLOC)(const f77_int *n, const f77_int *elemSize,
                                             cufort_devptr *devPtr)
{
    int64_t count = *n, size = *elemSize;
    void *p = NULL;
    int st = count <= 0 || size <= 0 || count > INT64_MAX / size
                 ? cufort_fail(CUFORT_INVALID_VALUE,
                               "cublas_alloc: n = %lld elements of elemSize = %lld bytes: both "
                               "must be positive and their product fit in 64 bits",
                               (long long)count, (long long)size)
                 : cufort_alloc(&p, count * size);
    *devPtr = st == CUFORT_SUCCESS ? (cufort_devptr)(intptr_t)p : 0;
    return record(st);
}

f77_int F77_NAME(cublas_free, CUBLAS_FREE)(const cufort_devptr *devPtr)
{
    return record(cufort_free(cufort_f77_ptr(*devPtr)));
}

f77_int F77_NAME(cublas_set_vector, CUBLAS_SET_VECTOR)(const f77_int *n, const f77_int *elemSize,
                                                       const void *x, const f77_int *incx,
                                                       const cufort_devptr *y, const f77_int *incy)
{
    return record(cufort_set_vector(*n, *elemSize, x, *incx, cufort_f77_ptr(*y), *incy));
}

f77_int F77_NAME(cublas_get_vector, CUBLAS_GET_VECTOR)(const f77_int *n, const f77_int *elemSize,
                                                       const cufort_devptr *x, const f77_int *incx,
                                                       void *y, const f77_int *incy)
{
    return record(cufort_get_vector(*n, *elemSize, cufort_f77_ptr(*x), *incx, y, *incy));
}

f77_int F77_NAME(cublas_set_matrix, CUBLAS_SET_MATRIX)(const f77_int *rows, const f77_int *cols,
                                                       const f77_int *elemSize, const void *A,
                                                       const f77_int *lda, const cufort_devptr *B,
                                                       const f77_int *ldb)
{
    return record(
        cufort_set_matrix(*rows, *cols, *elemSize, A, *lda, cufort_f77_ptr(*B), *ldb));
}

f77_int F77_NAME(cublas_get_matrix, CUBLAS_GET_MATRIX)(const f77_int *rows, const f77_int *cols,
                                                       const f77_int *elemSize,
                                                       const cufort_devptr *A, const f77_int *lda,
                                                       void *B, const f77_int *ldb)
{
    return record(
        cufort_get_matrix(*rows, *cols, *elemSize, cufort_f77_ptr(*A), *lda, B, *ldb));
}
