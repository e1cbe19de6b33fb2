/* l3_panels.c — SYMM/HEMM and the rank-k updates (l3_internal.h): the output cut into panels of
 * w columns (rows, for a right-side SYMM) that need nothing of each other, streamed through
 * L3_SLOTS device slots: panel i is uploaded while panel i-1 computes and panel i-2 comes back.
 *
 *   SYMM/HEMM  A's triangle goes up once and is mirrored onto the other triangle on the device
 *              (conjugated for HEMM), so that each panel, which brings its part of B (and of C when
 *              beta != 0 and C goes up: l3_engine.c), is one GEMM: cuBLAS's SYMM runs well below
 *              its GEMM (DSYMM n = 16384 on the H100: 201 ms against DGEMM's 163).  With beta C
 *              added on the host, the panels come back two steps behind (l3_internal.h).
 *   rank k     the panel of columns c0.. of C holds the triangle's part of them: the diagonal block
 *              (one device rank-k update) and the rectangle below it for a lower C, above it for
 *              an upper one (one or two device GEMMs).  Those need op(A)'s rows from c0 on (up to
 *              c0 + w), so the panels go bottom up for a lower C, top down for an upper one: each
 *              brings one new block of rows of op(A) (and op(B)), and the first computes long
 *              before the last rows are up.  C is not uploaded when beta = 0, but for the diagonal
 *              block, whose other triangle (which the program may keep data in) must come back
 *              as it was. */
#include <ctype.h>

#include "l3_internal.h"

typedef struct {
    cufort_l3_job *j;
    int rank_k, sym, by_rows, c_in, lower;
    int64_t rows, cols, ka, ar, panels;
    char *dA, *dB, *slot[L3_SLOTS], *slot_b[L3_SLOTS], *tmp;
} panels;

static int two_operands(cufort_l3_op op)
{
    return op == CUFORT_L3_SYR2K || op == CUFORT_L3_HER2K || op == CUFORT_L3_SYRKX || op == CUFORT_L3_HERKX;
}

static void shape(const cufort_l3 *c, panels *p)
{
    p->rank_k = c->op >= CUFORT_L3_SYRK;
    p->sym = !p->rank_k;
    p->lower = !cufort_l3_upper(c->uplo);
    if (p->rank_k) {
        p->rows = p->cols = c->n;
        p->ar = NOTR(c->trans) ? c->n : c->k;
    } else {
        p->rows = c->m, p->cols = c->n;
        p->ka = cufort_l3_left(c->side) ? c->m : c->n;
        p->by_rows = !cufort_l3_left(c->side);
    }
    p->c_in = c->beta != 0;
}

/* device bytes: the resident operands, the slots (two per panel for SYMM: B and C), and the
 * staging area of a rank-k update (a diagonal block, or w rows of an untransposed A) */
static size_t sizes(const cufort_l3 *c, const panels *p, int64_t w, size_t *res, size_t *slot,
                    size_t *tmp)
{
    size_t es = cufort_prec_size(c->prec);
    if (p->rank_k) {
        int64_t ac = NOTR(c->trans) ? c->k : c->n;
        *res = (size_t)(1 + two_operands(c->op)) * cufort_l3_round((size_t)(p->ar * ac) * es);
        int64_t diag = p->c_in ? 0 : w * w, rows = NOTR(c->trans) ? w * c->k : 0;
        *tmp = cufort_l3_round((size_t)cufort_l3_max(diag, rows) * es);
    } else {
        *res = cufort_l3_round((size_t)(p->ka * p->ka) * es);
        *tmp = 0;
    }
    *slot = cufort_l3_round((size_t)((p->by_rows ? p->cols : p->rows) * w) * es);
    return *res + (size_t)(L3_SLOTS * (p->sym ? 2 : 1)) * *slot + *tmp;
}

size_t cufort_l3_panels_need(const cufort_l3 *c, int64_t w)
{
    panels p = {0};
    size_t res, slot, tmp;
    shape(c, &p);
    return sizes(c, &p, w, &res, &slot, &tmp);
}

/* panel i (in the order taken): its rows and columns of the output */
static void region(const panels *p, int64_t i, int64_t *r0, int64_t *c0, int64_t *rows, int64_t *cols)
{
    int64_t w = p->j->w, q = p->rank_k && p->lower ? p->panels - 1 - i : i;
    int64_t lo = q * w, len = cufort_l3_min(w, (p->by_rows ? p->rows : p->cols) - lo);
    if (p->by_rows) {
        *r0 = lo, *rows = len, *c0 = 0, *cols = p->cols;
    } else if (!p->rank_k) {
        *r0 = 0, *rows = p->rows, *c0 = lo, *cols = len;
    } else {
        *c0 = lo, *cols = len;
        *r0 = p->lower ? lo : 0;
        *rows = p->lower ? p->rows - lo : lo + len;
    }
}

/* the triangle of A, in blocks of w columns (slot 0, free until the panels start, carries the
 * pageable ones) */
static int upload_triangle(panels *p)
{
    cufort_l3_job *j = p->j;
    int st = CUFORT_SUCCESS;
    for (int64_t c0 = 0; c0 < p->ka && !st; c0 += j->w) {
        int64_t cols = cufort_l3_min(j->w, p->ka - c0), r0 = p->lower ? c0 : 0;
        int64_t rows = p->lower ? p->ka - c0 : c0 + cols;
        st = cufort_l3_put(j, &j->a, r0, c0, rows, cols, p->dA + (size_t)(r0 + c0 * p->ka) * j->es,
                           p->ka, p->slot[0]);
    }
    return st ? st : j->ops->event_record(j->resident, j->h2d);
}

static int upload_rows(panels *p, const cufort_held_array *o, char *dev, int64_t c0, int64_t cols)
{
    cufort_l3_job *j = p->j;
    if (NOTR(j->c->trans))
        return cufort_l3_put(j, o, c0, 0, cols, j->c->k, dev + (size_t)c0 * j->es, p->ar, p->tmp);
    return cufort_l3_put(j, o, 0, c0, j->c->k, cols, dev + (size_t)(c0 * p->ar) * j->es, p->ar, NULL);
}

static int upload(panels *p, int s, int64_t r0, int64_t c0, int64_t rows, int64_t cols)
{
    cufort_l3_job *j = p->j;
    int st;
    if (p->sym) {
        st = cufort_l3_put(j, &j->b, r0, c0, rows, cols, p->slot_b[s], rows, NULL);
        return st || !p->c_in ? st : cufort_l3_put(j, &j->out, r0, c0, rows, cols, p->slot[s], rows, NULL);
    }
    st = upload_rows(p, &j->a, p->dA, c0, cols);
    if (!st && p->dB)
        st = upload_rows(p, &j->b, p->dB, c0, cols);
    if (st || p->c_in)
        return st ? st : cufort_l3_put(j, &j->out, r0, c0, rows, cols, p->slot[s], rows, NULL);
    int64_t off = p->lower ? 0 : c0;
    return cufort_l3_put(j, &j->out, c0, c0, cols, cols, p->slot[s] + (size_t)off * j->es, rows, p->tmp);
}

/* row i of op(A) (or op(B)) on the device */
static const char *op_row(const panels *p, const char *dev, int64_t i)
{
    return dev + (size_t)(NOTR(p->j->c->trans) ? i : i * p->ar) * p->j->es;
}

static int compute(panels *p, int s, int64_t c0, int64_t rows, int64_t cols)
{
    cufort_l3_job *j = p->j;
    const cufort_l3 *c = j->c;
    char *out = p->slot[s];
    if (p->sym) {   /* A whole (mirrored): alpha A B or alpha B A, + beta C unless added on the host */
        double complex beta = j->host_beta ? 0 : c->beta;
        return p->by_rows ? cufort_l3_gemm(c->prec, 'N', 'N', rows, cols, p->ka, c->alpha, p->slot_b[s],
                                           rows, p->dA, p->ka, beta, out, rows)
                          : cufort_l3_gemm(c->prec, 'N', 'N', rows, cols, p->ka, c->alpha, p->dA, p->ka,
                                           p->slot_b[s], rows, beta, out, rows);
    }
    int64_t ld = cufort_l3_max(1, p->ar), diag = p->lower ? 0 : c0;
    int64_t rect0 = p->lower ? c0 + cols : 0, rect_rows = rows - cols, rect_at = p->lower ? cols : 0;
    const char *dB = p->dB ? p->dB : p->dA;
    int st = cufort_l3_rank_k(c, cols, op_row(p, p->dA, c0), ld, op_row(p, dB, c0), ld, c->beta,
                              out + (size_t)diag * j->es, rows);
    if (st || rect_rows <= 0)
        return st;
    char h = cufort_l3_herm(c->op) ? 'C' : 'T', ta = NOTR(c->trans) ? 'N' : h, tb = NOTR(c->trans) ? h : 'N';
    char *dst = out + (size_t)rect_at * j->es;
    /* C(rect, J) = alpha op(A)(rect) op(B)(J)^T [+ alpha' op(B)(rect) op(A)(J)^T] + beta C */
    st = cufort_l3_gemm(c->prec, ta, tb, rect_rows, cols, c->k, c->alpha, op_row(p, p->dA, rect0), ld,
                        op_row(p, dB, c0), ld, c->beta, dst, rows);
    if (!st && (c->op == CUFORT_L3_SYR2K || c->op == CUFORT_L3_HER2K))
        st = cufort_l3_gemm(c->prec, ta, tb, rect_rows, cols, c->k,
                            c->op == CUFORT_L3_HER2K ? conj(c->alpha) : c->alpha, op_row(p, dB, rect0),
                            ld, op_row(p, p->dA, c0), ld, 1, dst, rows);
    return st;
}

/* the pipeline's steps (l3_internal.h): panel i in slot i % L3_SLOTS */
static int upload_step(void *ctx, int64_t i)
{
    panels *p = ctx;
    int64_t r0, c0, rows, cols;
    region(p, i, &r0, &c0, &rows, &cols);
    return upload(p, (int)(i % L3_SLOTS), r0, c0, rows, cols);
}

static int compute_step(void *ctx, int64_t i)
{
    panels *p = ctx;
    int64_t r0, c0, rows, cols;
    region(p, i, &r0, &c0, &rows, &cols);
    return compute(p, (int)(i % L3_SLOTS), c0, rows, cols);
}

static int download_step(void *ctx, int64_t i)
{
    panels *p = ctx;
    int64_t r0, c0, rows, cols;
    region(p, i, &r0, &c0, &rows, &cols);
    if (p->j->host_beta)
        return cufort_l3_get_onto_beta(p->j, r0, c0, rows, cols, p->slot[i % L3_SLOTS]);
    return cufort_l3_get(p->j, r0, c0, rows, cols, p->slot[i % L3_SLOTS], rows, NULL);
}

/* A panel's slot is reused L3_SLOTS panels later, once its download is done. */
int cufort_l3_panels(cufort_l3_job *j, char *buf)
{
    const cufort_l3 *c = j->c;
    panels p = {.j = j};
    size_t res, slot, tmp;
    shape(c, &p);
    p.c_in = p.c_in && !j->host_beta;
    sizes(c, &p, j->w, &res, &slot, &tmp);
    p.panels = ((p.by_rows ? p.rows : p.cols) + j->w - 1) / j->w;
    p.dA = buf;
    if (two_operands(c->op))
        p.dB = buf + res / 2;
    buf += res;
    for (int s = 0; s < L3_SLOTS; s++, buf += slot)
        p.slot[s] = buf;
    for (int s = 0; s < L3_SLOTS && p.sym; s++, buf += slot)
        p.slot_b[s] = buf;
    p.tmp = buf;
    int st = CUFORT_SUCCESS;
    if (p.sym && !(st = upload_triangle(&p)))
        st = j->ops->stream_wait(j->comp, j->resident);
    if (!st && p.sym)
        st = cufort_l3_mirror(c, p.ka, p.dA, p.ka);
    static const cufort_l3_steps steps = {upload_step, compute_step, download_step, 1, NULL, 0};
    static const cufort_l3_steps steps_onto_beta = {upload_step, compute_step, download_step, 1,
                                                    NULL, 1};
    return st ? st : cufort_l3_pipeline(j, p.panels, j->host_beta ? &steps_onto_beta : &steps, &p);
}
