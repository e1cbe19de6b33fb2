/* gemm_engine.h — GEMM on host arrays (every ?gemm_host entry point, so the legacy thunking names,
 * the modern host-array overloads and the drop-in library): C = alpha*op(A)*op(B) + beta*C, tiled
 * so that host-to-device copies, compute and device-to-host copies overlap on three streams, and
 * out of core when A, B and C do not fit the device memory the engine may use; a large call is
 * spread over several devices (gemm_spread.c, the entry point; gemm_engine.c, each device's part).
 *
 * Environment:
 *   CUFORT_DEVICE_MEMORY_CAP  bytes (suffix K, M or G) of device memory the engine may hold per
 *                             thread; default: what the device has free, less a reserve
 *   CUFORT_GEMM_TILE          rows/columns of a C tile (default 2048 on pinned arrays, 4096 on
 *                             pageable ones); pageable C at most twice that tall is cut into
 *                             tiles of whole columns holding the bytes of that many floats squared
 *   CUFORT_DEVICES, CUFORT_DEVICES_PER_RANK  the devices a call may spread over (internal.h);
 *                             how many it takes: devices_run.h */
#ifndef CUFORT_GEMM_ENGINE_H
#define CUFORT_GEMM_ENGINE_H

#include "internal.h"

/* prec: 's', 'd', 'c' or 'z'; alpha and beta point at one element of that type.  Arguments are
 * already checked (reference-BLAS positions); the arrays are host memory.  Every failure to set up
 * (streams, device memory under the cap) comes before C is touched; a CUDA error in the middle of
 * the tiles can leave some of C's tiles updated and the others not. */
int cufort_thunk_gemm(const char *routine, char prec, char transa, char transb, int64_t m,
                      int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                      const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc);

/* Bytes of device memory one engine call may hold: CUFORT_DEVICE_MEMORY_CAP, or what the device
 * has free (this thread's scratch counted as free) less a reserve. */
size_t cufort_thunk_device_budget(void);

/* What the last cufort_thunk_gemm on this thread planned: tile sizes, whether A and B stayed
 * resident, the device bytes it held, the host<->device bytes it moved, and how its column panels
 * went over the devices (tests, reports). */
typedef struct {
    int64_t mb, nb, kb;
    int resident;
    size_t device_bytes, bytes_in, bytes_out;   /* over every device */
    size_t bytes_peer;                           /* copied from one device to another */
    int devices;                                 /* the devices the call was spread over */
    int64_t device_panels[CUFORT_MAX_DEVICES];   /* C's column panels each device computed */
    int last_tile_pieces;        /* the GEMMs of the last tile, computed and brought back in pieces
                                    (0: one GEMM, brought back whole) */
} cufort_gemm_plan_info;
void cufort_thunk_gemm_last_plan(cufort_gemm_plan_info *info);
/* The plan a call of this shape (prec, m, n, k; pinned or pageable arrays, alpha not 0) would get
 * on this thread's device alone: tiles, residency and device bytes, nothing allocated or moved */
int cufort_thunk_gemm_plan(char prec, int64_t m, int64_t n, int64_t k, int pinned,
                           cufort_gemm_plan_info *info);

#endif
