/* cusolver_factor.c — the GPU's own LAPACK on arrays already on the device: cuSOLVER's POTRF
 * (lower), GETRF and GEQRF, double precision, and ZPOTRF, the limit against which LAPACK on host
 * arrays (bench/lapack_factor.f90) is judged.  The matrix is built on the host as that program
 * builds it (symmetric with n on the diagonal for the Cholesky factorizations), copied up once and
 * again before each call (the copy not timed); the calls are timed with events: the first, then
 * the median of the rest.
 * Usage: cusolver_factor routine n [reps]   (routine: dpotrf | dgetrf | dgeqrf | zpotrf)
 * Prints "routine n call seconds gflops" per call and "routine n median ..." at the end. */
#include <cuComplex.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define CK(x)                                                                                     \
    do {                                                                                          \
        long long rc_ = (long long)(x);                                                           \
        if (rc_ != 0) {                                                                           \
            fprintf(stderr, "cusolver_factor: %s failed (%lld) at line %d\n", #x, rc_, __LINE__); \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

static double uniform(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: cusolver_factor dpotrf|dgetrf|dgeqrf|zpotrf n [reps]\n");
        return 2;
    }
    const char *r = argv[1];
    int n = atoi(argv[2]), reps = argc > 3 ? atoi(argv[3]) : 4;
    int cplx = !strcmp(r, "zpotrf"), chol = !strcmp(r, "dpotrf") || cplx;
    double nn = n, flops = !strcmp(r, "dpotrf") ? nn * nn * nn / 3 : !strcmp(r, "dgetrf") ? 2 * nn * nn * nn / 3
                                                                                        : 4 * nn * nn * nn / 3;
    if (n <= 0 || reps < 1 || (!chol && strcmp(r, "dgetrf") && strcmp(r, "dgeqrf"))) {
        fprintf(stderr, "cusolver_factor: bad arguments\n");
        return 2;
    }
    size_t es = cplx ? sizeof(cuDoubleComplex) : sizeof(double), bytes = (size_t)n * n * es;
    double *h = malloc(bytes);
    if (!h)
        return 1;
    unsigned long long s = 20261126;
    size_t vals = (size_t)n * n * (cplx ? 2 : 1);
    for (size_t i = 0; i < vals; i++)
        h[i] = uniform(&s);
    if (chol)   /* symmetric (Hermitian), n added on the diagonal */
        for (int j = 0; j < n; j++)
            for (int i = j; i < n; i++) {
                size_t lo = (size_t)i + (size_t)j * n, up = (size_t)j + (size_t)i * n;
                if (cplx) {
                    h[2 * up] = h[2 * lo], h[2 * up + 1] = -h[2 * lo + 1];
                    if (i == j)
                        h[2 * lo] += n, h[2 * lo + 1] = 0;
                } else {
                    h[up] = h[lo];
                    if (i == j)
                        h[lo] += n;
                }
            }
    cusolverDnHandle_t hs;
    CK(cusolverDnCreate(&hs));
    void *A0, *A, *work, *tau = NULL;
    int *ipiv = NULL, *info;
    CK(cudaMalloc(&A0, bytes));
    CK(cudaMalloc(&A, bytes));
    CK(cudaMalloc((void **)&info, sizeof(int)));
    CK(cudaMemcpy(A0, h, bytes, cudaMemcpyHostToDevice));
    int lwork = 0;
    if (cplx)
        CK(cusolverDnZpotrf_bufferSize(hs, CUBLAS_FILL_MODE_LOWER, n, A, n, &lwork));
    else if (chol)
        CK(cusolverDnDpotrf_bufferSize(hs, CUBLAS_FILL_MODE_LOWER, n, A, n, &lwork));
    else if (!strcmp(r, "dgetrf")) {
        CK(cusolverDnDgetrf_bufferSize(hs, n, n, A, n, &lwork));
        CK(cudaMalloc((void **)&ipiv, sizeof(int) * (size_t)n));
    } else {
        CK(cusolverDnDgeqrf_bufferSize(hs, n, n, A, n, &lwork));
        CK(cudaMalloc(&tau, sizeof(double) * (size_t)n));
    }
    CK(cudaMalloc(&work, (size_t)lwork * es + 16));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int k = 0; k < reps; k++) {
        CK(cudaMemcpy(A, A0, bytes, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e0, 0));
        if (cplx)
            CK(cusolverDnZpotrf(hs, CUBLAS_FILL_MODE_LOWER, n, A, n, work, lwork, info));
        else if (chol)
            CK(cusolverDnDpotrf(hs, CUBLAS_FILL_MODE_LOWER, n, A, n, work, lwork, info));
        else if (ipiv)
            CK(cusolverDnDgetrf(hs, n, n, A, n, work, ipiv, info));
        else
            CK(cusolverDnDgeqrf(hs, n, n, A, n, tau, work, lwork, info));
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        int hinfo;
        CK(cudaMemcpy(&hinfo, info, sizeof hinfo, cudaMemcpyDeviceToHost));
        if (hinfo) {
            fprintf(stderr, "cusolver_factor: %s info = %d\n", r, hinfo);
            return 1;
        }
        t[k] = ms * 1e-3;
        printf("%s %d %d %.4f %.1f\n", r, n, k + 1, t[k], flops / t[k] * 1e-9);
    }
    double first = t[0], med = reps > 1 ? bench_median(t + 1, reps - 1) : first;
    printf("%s %d median %.4f %.1f (first %.4f)\n", r, n, med, flops / med * 1e-9, first);
    return 0;
}
