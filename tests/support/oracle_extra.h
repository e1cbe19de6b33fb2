/* oracle_extra.h — double-precision reference implementations of the routines netlib BLAS lacks
 * (cuBLAS extensions and the complex-symmetric/complex-rotation routines LAPACK carries).
 * Signatures follow the cufort C ABI of the double twin: options as char, integers int64_t, scalars
 * by value, function values through a trailing pointer (indices 0-based, -1 when empty).
 * Semantics are cuBLAS's (isamin, geam, dgmm, syrkx, herkx, gemmStridedBatched) and LAPACK's
 * (crot/zrot: c real, s complex; csymv/csyr/csyr2: complex SYMMETRIC, no conjugation). */
#ifndef CUFORT_ORACLE_EXTRA_H
#define CUFORT_ORACLE_EXTRA_H

#include <stdint.h>

#include "cufort.h"

typedef cufort_cdouble zc;

void oracle_idamin(int64_t n, const double *x, int64_t incx, int64_t *result);
void oracle_izamin(int64_t n, const zc *x, int64_t incx, int64_t *result);
void oracle_zrot(int64_t n, zc *x, int64_t incx, zc *y, int64_t incy, double c, zc s);
void oracle_zsymv(char uplo, int64_t n, zc alpha, const zc *A, int64_t lda, const zc *x,
                  int64_t incx, zc beta, zc *y, int64_t incy);
void oracle_zsyr(char uplo, int64_t n, zc alpha, const zc *x, int64_t incx, zc *A, int64_t lda);
void oracle_zsyr2(char uplo, int64_t n, zc alpha, const zc *x, int64_t incx, const zc *y,
                  int64_t incy, zc *A, int64_t lda);
void oracle_dsyrkx(char uplo, char trans, int64_t n, int64_t k, double alpha, const double *A,
                   int64_t lda, const double *B, int64_t ldb, double beta, double *C, int64_t ldc);
void oracle_zsyrkx(char uplo, char trans, int64_t n, int64_t k, zc alpha, const zc *A, int64_t lda,
                   const zc *B, int64_t ldb, zc beta, zc *C, int64_t ldc);
void oracle_zherkx(char uplo, char trans, int64_t n, int64_t k, zc alpha, const zc *A, int64_t lda,
                   const zc *B, int64_t ldb, double beta, zc *C, int64_t ldc);
void oracle_dgemm_strided_batched(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                  double alpha, const double *A, int64_t lda, int64_t strideA,
                                  const double *B, int64_t ldb, int64_t strideB, double beta,
                                  double *C, int64_t ldc, int64_t strideC, int64_t batch);
void oracle_zgemm_strided_batched(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                  zc alpha, const zc *A, int64_t lda, int64_t strideA,
                                  const zc *B, int64_t ldb, int64_t strideB, zc beta, zc *C,
                                  int64_t ldc, int64_t strideC, int64_t batch);
void oracle_dgeam(char transa, char transb, int64_t m, int64_t n, double alpha, const double *A,
                  int64_t lda, double beta, const double *B, int64_t ldb, double *C, int64_t ldc);
void oracle_zgeam(char transa, char transb, int64_t m, int64_t n, zc alpha, const zc *A,
                  int64_t lda, zc beta, const zc *B, int64_t ldb, zc *C, int64_t ldc);
void oracle_ddgmm(char side, int64_t m, int64_t n, const double *A, int64_t lda, const double *x,
                  int64_t incx, double *C, int64_t ldc);
void oracle_zdgmm(char side, int64_t m, int64_t n, const zc *A, int64_t lda, const zc *x,
                  int64_t incx, zc *C, int64_t ldc);

#endif
