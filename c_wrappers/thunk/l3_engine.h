/* l3_engine.h — the Level-3 routines other than GEMM on host arrays (every ?trsm_host, ?trmm_host,
 * ?symm_host, ?hemm_host and rank-k update entry point: the legacy thunking names, the modern
 * host-array overloads and the drop-in library).
 *
 * A large call with several devices to use is first cut into one independent piece per device
 * (l3_spread.c, where the entry point is), each piece a call of its own on its device.
 * A small call goes whole (the generic thunk path).  A larger one is pipelined on three streams
 * as the GEMM engine's tiles are: TRSM and TRMM on the left in independent chunks of B's columns,
 * each solved or multiplied on the device in GEMMs over blocks of rows (l3_left.c); on the right
 * in blocks of B's columns, each a GEMM over the blocks done and one small triangular call
 * (l3_triangular.c); SYMM/HEMM and the rank-k updates in independent panels of the output
 * (l3_panels.c), but a rank-k update of an untransposed A with k >= n/2 in chunks of A's columns
 * over C resident on the device (l3_rank_k.c).  A triangle moves only itself, a rank-k update's C only its
 * triangle.  What does not fit the device budget is split in two halves, done by this engine, and
 * the block coupling them, done by the GEMM engine (which runs out of core).
 *
 * Environment: CUFORT_DEVICE_MEMORY_CAP (gemm_engine.h); CUFORT_L3_PANEL, the block or panel width
 * (default an eighth of the dimension cut, 256 to 2048, rounded to 256); CUFORT_L3_BLOCK, the rows
 * per block of a left TRSM/TRMM's solve on the device (l3_left.c); CUFORT_L3_WHOLE_BYTES, the
 * most bytes (all operands together) a call that goes whole may have (default 128 MiB). */
#ifndef CUFORT_L3_ENGINE_H
#define CUFORT_L3_ENGINE_H

#include "internal.h"

typedef enum {
    CUFORT_L3_TRSM, CUFORT_L3_TRMM, CUFORT_L3_SYMM, CUFORT_L3_HEMM, CUFORT_L3_SYRK, CUFORT_L3_HERK,
    CUFORT_L3_SYR2K, CUFORT_L3_HER2K, CUFORT_L3_SYRKX, CUFORT_L3_HERKX
} cufort_l3_op;

/* One call, its arguments already checked (reference-BLAS positions) and its arrays host memory.
 * TRSM and TRMM: the triangle A (order m or n by side) and B, which is read and written, given as
 * C/ldc.  SYMM/HEMM: A, B and C.  Rank-k updates: n, k, A (and B for the 2k and kx forms) and C.
 * The scalars are held as double complex whatever the precision (prec 's', 'd', 'c', 'z'); the
 * real alpha and beta of the Hermitian forms as their real parts. */
typedef struct {
    cufort_l3_op op;
    char prec, side, uplo, trans, diag;
    int64_t m, n, k;
    double _Complex alpha, beta;
    const void *A, *B;
    void *C;
    int64_t lda, ldb, ldc;
} cufort_l3;

int cufort_thunk_l3(const char *routine, const cufort_l3 *call);

#endif
