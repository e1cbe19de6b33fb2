/* gemm_internal.h — what the GEMM engine (gemm_engine.c: one device) shares with its entry point
 * (gemm_spread.c), which checks a call and hands it to one device or spreads it over several. */
#ifndef CUFORT_GEMM_INTERNAL_H
#define CUFORT_GEMM_INTERNAL_H

#include <stdatomic.h>

#include "gemm_engine.h"

/* A call spread over several devices: each device runs the whole call's plan on its own engine,
 * taking C's column panels (their width fixed, so the devices agree on them) one at a time from
 * `next`, so a device that finishes early takes more. */
typedef struct {
    atomic_llong next;
    int64_t width;
} cufort_gemm_panels;

typedef struct {
    char prec, ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    const void *alpha, *beta;
    const char *A, *B;
    char *C;
    size_t es;
    int c_in;                    /* beta != 0: C is read */
    int host_beta;               /* C pageable, beta != 0, A op(B) not empty: beta C added on the host */
    int pinned;                  /* A, B and C all pinned */
    /* the plan (gemm_engine.c) */
    int64_t mb, nb, kb, mt, nt, kt;
    int na, nbs, nc, resident, next_a, next_b;
    struct cufort_gemm_engine *e;
    const cufort_backend_ops *ops;
    size_t bytes_in, bytes_out, device_bytes;
    cufort_gemm_panels *share;   /* NULL: this device does every panel */
    int64_t panels;              /* column panels this device did */
} cufort_gemm_job;

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t cdiv(int64_t a, int64_t b) { return b ? (a + b - 1) / b : 0; }

/* The job on this thread's device (its engine, its share of the device memory, its streams);
 * *info: what it planned and moved, also kept as this thread's last plan. */
int cufort_gemm_run_here(cufort_gemm_job *j, cufort_gemm_plan_info *info);
/* C's column-panel width on one device: the tile width of the job's plan */
int64_t cufort_gemm_panel_width(const cufort_gemm_job *j);
/* `rows` x `cols` elements at p, ld apart, are pinned */
int cufort_gemm_pinned(const cufort_gemm_job *j, const void *p, int64_t rows, int64_t cols, int64_t ld);
/* keeps *info as this thread's last plan (cufort_thunk_gemm_last_plan) */
void cufort_gemm_keep_plan(const cufort_gemm_plan_info *info);

#endif
