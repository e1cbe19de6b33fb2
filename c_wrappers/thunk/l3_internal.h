/* l3_internal.h — the parts of the Level-3 engine (l3_engine.h): one call's state and copies
 * (l3_transfer.c), the device routines (l3_device.c), and the pipelines over them: panels of
 * the output (l3_panels.c: SYMM/HEMM and the rank-k updates), chunks of a left triangular solve or
 * product (l3_left.c) and blocks of a right one (l3_triangular.c), and chunks of k of a rank-k
 * update with a long untransposed A (l3_rank_k.c). */
#ifndef CUFORT_L3_INTERNAL_H
#define CUFORT_L3_INTERNAL_H

#include <complex.h>

#include "held_array.h"
#include "l3_engine.h"

enum { L3_SLOTS = 3, L3_BLOCK_EVENTS = 64 };
/* a slot's events: its upload is done; its compute is done; its download is done */
enum { L3_READY, L3_COMPUTED, L3_DONE, L3_EVENTS };

/* one call on the device: this thread's streams (h2d, comp, d2h) and events, its operands, and
 * the device memory the pipeline carved */
typedef struct {
    const cufort_l3 *c;
    size_t es;
    const cufort_backend_ops *ops;
    cufort_stream h2d, comp, d2h;
    cufort_event *ev[L3_SLOTS];         /* L3_EVENTS each */
    cufort_event resident;
    cufort_event *blk;                  /* L3_BLOCK_EVENTS, made by cufort_l3_block_events */
    cufort_held_array a, b, out;        /* out: B of TRSM/TRMM, C otherwise */
    int64_t w;                          /* rows or columns of a panel or block */
    int host_beta;                      /* SYMM/HEMM, beta != 0: C stays on the host, beta C is
                                           added as the product comes back */
} cufort_l3_job;

/* l3_transfer.c: the thread's streams and events into the job; an operand offered to the pin
 * cache (whole); copies of a block between an operand and device memory, dld apart there (a
 * pageable block not packed on the device goes through tmp); the wait for all that also hands
 * the operands' pins back */
int cufort_l3_begin(cufort_l3_job *j);
void cufort_l3_offer(cufort_l3_job *j, cufort_held_array *o, const void *p, int64_t rows,
                     int64_t cols, int64_t ld);
int cufort_l3_put(cufort_l3_job *j, const cufort_held_array *o, int64_t r, int64_t c, int64_t rows,
                  int64_t cols, char *dev, int64_t dld, char *tmp);
int cufort_l3_get(cufort_l3_job *j, int64_t r, int64_t c, int64_t rows, int64_t cols,
                  const char *dev, int64_t dld, char *tmp);
/* the same for a product (packed, rows apart) that lands on beta C: C = product + beta C */
int cufort_l3_get_onto_beta(cufort_l3_job *j, int64_t r, int64_t c, int64_t rows, int64_t cols,
                            const char *dev);
int cufort_l3_finish(cufort_l3_job *j, int status);
/* an n x n identity in the call's precision to dev (ld n), from a host copy, before h2d's next copy */
int cufort_l3_identity(cufort_l3_job *j, char *dev, int64_t n);
/* the first count of the thread's block events into j->blk */
int cufort_l3_block_events(cufort_l3_job *j, int count);

/* The pipelines' common loop over n steps, step i in slot i % L3_SLOTS: upload(i) on h2d (first,
 * when reuse_slots, after the download of step i - L3_SLOTS), compute(i) on comp once it is up,
 * and the download of step i - 1 on d2h once that one is computed, queued after step i's compute
 * so that the host's staging of one overlaps the GPU's work on the other.  uploaded(i), where
 * given, queues more on h2d between step i's upload and its compute (events it records there are
 * in place before compute(i) waits for them).  lag_two: the download of step i - 2 instead, for
 * downloads that hold the host until the data has landed (a product folded into beta C): the
 * GPU then has step i - 1's compute and step i's upload queued while the host waits, where with
 * one step the next upload would be queued only after the wait. */
typedef struct {
    int (*upload)(void *ctx, int64_t i);
    int (*compute)(void *ctx, int64_t i);
    int (*download)(void *ctx, int64_t i);
    int reuse_slots;
    int (*uploaded)(void *ctx, int64_t i);
    int lag_two;
} cufort_l3_steps;
int cufort_l3_pipeline(cufort_l3_job *j, int64_t n, const cufort_l3_steps *steps, void *ctx);

/* l3_device.c: the device-pointer routines, scalars as double complex */
int cufort_l3_gemm(char p, char ta, char tb, int64_t m, int64_t n, int64_t k, double complex al,
                   const void *A, int64_t lda, const void *B, int64_t ldb, double complex be, void *C,
                   int64_t ldc);
int cufort_l3_tri(const cufort_l3 *c, double complex al, int64_t m, int64_t n, const void *A,
                  int64_t lda, void *B, int64_t ldb);
int cufort_l3_symm(const cufort_l3 *c, int64_t m, int64_t n, const void *A, int64_t lda,
                   const void *B, int64_t ldb, void *C, int64_t ldc);
int cufort_l3_rank_k(const cufort_l3 *c, int64_t n, const void *A, int64_t lda, const void *B,
                     int64_t ldb, double complex be, void *C, int64_t ldc);
/* SYMM/HEMM's A (n x n): its stored triangle (c->uplo) copied onto the other, conjugated for
 * HEMM, so that a GEMM multiplies by it */
int cufort_l3_mirror(const cufort_l3 *c, int64_t n, void *A, int64_t lda);
/* C = al A + be C (m x n) */
int cufort_l3_geam(char p, int64_t m, int64_t n, double complex al, const void *A, int64_t lda,
                   double complex be, void *C, int64_t ldc);

/* 1 when the call is one that reference BLAS finishes without reading A or B (alpha = 0, or a
 * rank-k update's k = 0), now done on the host arrays (l3_quick.c); else 0 */
int cufort_l3_quick(const cufort_l3 *c);

/* the pipelines: the device bytes a call needs with blocks of w (l3_engine.c narrows w until the
 * call fits), and the call itself on `buf`, that many bytes of device scratch */
size_t cufort_l3_panels_need(const cufort_l3 *c, int64_t w);
int cufort_l3_panels(cufort_l3_job *j, char *buf);
size_t cufort_l3_triangular_need(const cufort_l3 *c, int64_t w);
int cufort_l3_triangular(cufort_l3_job *j, char *buf);
size_t cufort_l3_left_tri_need(const cufort_l3 *c, int64_t w);
int cufort_l3_left_tri(cufort_l3_job *j, char *buf);
size_t cufort_l3_rank_k_need(const cufort_l3 *c, int64_t w);
int cufort_l3_rank_k_chunks(cufort_l3_job *j, char *buf);

/* the call on this thread's device (l3_engine.c; cufort_thunk_l3, in l3_spread.c, spreads a
 * large one over several devices first) */
int cufort_l3_one_device(const char *routine, const cufort_l3 *c);
/* columns c0..c1 of a rank-k update's triangle: the diagonal block (a rank-k call on this device)
 * and the rectangle below it (lower) or above it (upper), through the GEMM engine */
int cufort_l3_rank_k_columns(const char *routine, const cufort_l3 *c, int64_t c0, int64_t c1);
/* the GEMM engine on host arrays, with the call's precision and its scalars held as double complex */
int cufort_l3_host_gemm(const char *routine, const cufort_l3 *c, char ta, char tb, int64_t m,
                        int64_t n, int64_t k, double complex alpha, const void *A, int64_t lda,
                        const void *B, int64_t ldb, double complex beta, void *C, int64_t ldc);

/* helpers shared by the pipelines */
static inline int64_t cufort_l3_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t cufort_l3_max(int64_t a, int64_t b) { return a > b ? a : b; }
static inline size_t cufort_l3_round(size_t bytes) { return (bytes + 255) / 256 * 256; }
static inline int cufort_l3_upper(char c) { return c == 'U' || c == 'u'; }
static inline int cufort_l3_left(char c) { return c == 'L' || c == 'l'; }
/* B is an input of its own (TRSM and TRMM take B as C; SYRK and HERK have none) */
static inline int cufort_l3_needs_b(const cufort_l3 *c)
{
    return c->op != CUFORT_L3_TRSM && c->op != CUFORT_L3_TRMM && c->op != CUFORT_L3_SYRK &&
           c->op != CUFORT_L3_HERK;
}
/* a host array the call has elements of is NULL: C, or A (and B) when the inner dimension (a rank-k
 * update's k, else the triangle's order) is not 0 */
static inline int cufort_l3_null_array(const cufort_l3 *c)
{
    int64_t inner = c->op >= CUFORT_L3_SYRK ? c->k : cufort_l3_left(c->side) ? c->m : c->n;
    return !c->C || (inner > 0 && (!c->A || (cufort_l3_needs_b(c) && !c->B)));
}
/* element (r, col) of a column-major array p with leading dimension ld, in the call's precision */
static inline const char *cufort_l3_at(const cufort_l3 *c, const void *p, int64_t ld, int64_t r,
                                       int64_t col)
{
    return (const char *)p + (size_t)(r + col * ld) * cufort_prec_size(c->prec);
}
static inline int cufort_l3_herm(cufort_l3_op op)
{
    return op == CUFORT_L3_HEMM || op == CUFORT_L3_HERK || op == CUFORT_L3_HER2K || op == CUFORT_L3_HERKX;
}

#endif
