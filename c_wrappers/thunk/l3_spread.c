/* l3_spread.c — a large TRSM, TRMM, SYMM/HEMM or rank-k update over several devices (the entry
 * point of l3_engine.h).  Each device takes one independent piece, which it runs as a call of its
 * own (l3_engine.c): on the left, a TRSM, TRMM or SYMM's columns of B and C; on the right, their
 * rows; a rank-k update's C in column blocks of equal area, each its diagonal block (a rank-k
 * update) and the rectangle beside it (a GEMM).  Every device reads the whole of A (the triangle,
 * or the rows of A a rank-k block needs). */
#include <math.h>

#include "devices_run.h"
#include "l3_internal.h"

typedef struct {
    const char *routine;
    const cufort_l3 *c;
    const int *devs;
    int64_t cut[CUFORT_MAX_DEVICES + 1];   /* piece i: [cut[i], cut[i + 1]) */
} spread_call;

static int rank_k(cufort_l3_op op) { return op >= CUFORT_L3_SYRK; }

static int piece_on(spread_call *s, int i)
{
    const cufort_l3 *c = s->c;
    int64_t p0 = s->cut[i], p1 = s->cut[i + 1];
    if (p1 <= p0)
        return CUFORT_SUCCESS;
    if (rank_k(c->op))
        return cufort_l3_rank_k_columns(s->routine, c, p0, p1);
    cufort_l3 part = *c;
    int tri = c->op == CUFORT_L3_TRSM || c->op == CUFORT_L3_TRMM;
    if (cufort_l3_left(c->side)) {   /* columns p0..p1 of B and C */
        part.n = p1 - p0;
        part.C = (void *)cufort_l3_at(c, c->C, c->ldc, 0, p0);
        if (!tri)
            part.B = cufort_l3_at(c, c->B, c->ldb, 0, p0);
    } else {                          /* rows p0..p1 */
        part.m = p1 - p0;
        part.C = (void *)cufort_l3_at(c, c->C, c->ldc, p0, 0);
        if (!tri)
            part.B = cufort_l3_at(c, c->B, c->ldb, p0, 0);
    }
    return cufort_l3_one_device(s->routine, &part);
}

/* A piece that failed has left its part of the output undefined (a solve works in place), so the
 * call fails; but a device that failed for want of anything but memory sits out later calls. */
static int piece(void *ctx, int i)
{
    spread_call *s = ctx;
    int st = piece_on(s, i);
    if (st && st != CUFORT_ALLOC_FAILED)
        cufort_device_set_aside(s->devs[i]);
    return st;
}

/* one-column operands step by their rows, not by an ld that may wrap (cufort_ld_used) */
static void lds_used(cufort_l3 *c)
{
    if (rank_k(c->op)) {
        int64_t ar = NOTR(c->trans) ? c->n : c->k, ac = NOTR(c->trans) ? c->k : c->n;
        c->lda = cufort_ld_used(ar, ac, c->lda);
        c->ldb = cufort_ld_used(ar, ac, c->ldb);
        c->ldc = cufort_ld_used(c->n, c->n, c->ldc);
        return;
    }
    int64_t order = cufort_l3_left(c->side) ? c->m : c->n;
    c->lda = cufort_ld_used(order, order, c->lda);
    c->ldb = cufort_ld_used(c->m, c->n, c->ldb);
    c->ldc = cufort_ld_used(c->m, c->n, c->ldc);
}

int cufort_thunk_l3(const char *routine, const cufort_l3 *given)
{
    cufort_l3 call = *given, *c = &call;
    lds_used(c);
    int st = cufort_ensure_init(routine);
    if (st || cufort_l3_quick(c))
        return st;
    int left = cufort_l3_left(c->side);
    double m = (double)c->m, n = (double)c->n, k = (double)c->k;
    /* the dimension cut, and the call's real flops (a multiply-add counted as two, a complex one
     * as eight) */
    int64_t dim = rank_k(c->op) ? c->n : left ? c->n : c->m;
    int two = c->op == CUFORT_L3_SYR2K || c->op == CUFORT_L3_HER2K;
    double flops = rank_k(c->op) ? n * n * k * (1 + two)
                   : c->op == CUFORT_L3_SYMM || c->op == CUFORT_L3_HEMM ? 2 * m * n * (left ? m : n)
                                                                         : m * n * (left ? m : n);
    flops *= c->prec == 'c' || c->prec == 'z' ? 4 : 1;
    /* the operands' bytes: A (a triangle, or n x k), B, C (a triangle for a rank-k update) */
    double es = (double)cufort_prec_size(c->prec), order = left ? m : n;
    double bytes = es * (rank_k(c->op) ? n * k * (1 + (c->B != NULL)) + n * n / 2
                                       : order * order / 2 + m * n * (1 + (c->B != NULL)));
    int devs[CUFORT_MAX_DEVICES], count = 1;
    if (c->m < 0 || c->n < 0 || (st = cufort_spread_devices(flops, bytes, 0, dim, devs, &count)) ||
        count < 2)
        return st ? cufort_in(routine, st) : cufort_l3_one_device(routine, c);
    spread_call s = {routine, c, devs, {0}};
    for (int i = 1; i <= count; i++) {
        double f = (double)i / count, d = (double)dim;
        /* a rank-k update's column blocks hold equal parts of the triangle's area: a lower
         * triangle's first columns are the longest, an upper one's the last */
        double cut = !rank_k(c->op) ? d * f : cufort_l3_upper(c->uplo) ? d * sqrt(f) : d * (1 - sqrt(1 - f));
        s.cut[i] = i == count ? dim : cufort_l3_max(s.cut[i - 1], (int64_t)cut);
    }
    return cufort_in(routine, cufort_on_devices(count, devs, piece, &s));
}
