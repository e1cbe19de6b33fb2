/* l3_triangular.c — TRSM and TRMM (l3_internal.h): B cut into blocks of w rows (left side) or
 * columns (right side), taken in the order the triangle allows, each block a GEMM over the
 * blocks done before it and one small triangular call:
 *
 *   TRSM  X_b = op(A)_bb^-1 (alpha B_b - op(A)(b, D) X_D)      B and X live on the device
 *   TRMM  X_b = alpha (op(A)_bb B_b + op(A)(b, D) B_D)          into a slot; B stays as it was
 *
 * (on the right, X_b = (alpha B_b - X_D op(A)(D, b)) op(A)_bb^-1 and alpha (B_b op(A)_bb +
 * B_D op(A)(D, b))), D being the blocks before b in that order.  Step b uploads its block of B and
 * the part of the triangle it needs, op(A)(b, D and b), so that the triangle crosses PCIe once and
 * the first GEMMs start long before it is all up; X_b comes back as soon as it is final.  The
 * GEMMs grow with D while the copies per step stay the same: copies lead early, compute late. */
#include "l3_internal.h"

typedef struct {
    cufort_l3_job *j;
    int left, trsm, asc;
    char t;                              /* op(A) as a GEMM operand: 'N' or the call's transpose */
    int64_t m, n, ka, blocks;
    char *dA, *dB, *slot[L3_SLOTS], *tmp_in, *tmp_out;
} tri;

static void sizes(const cufort_l3 *c, int64_t w, size_t *a, size_t *b, size_t *slot, size_t *in,
                  size_t *out)
{
    size_t es = cufort_l3_esize(c->prec);
    int left = cufort_l3_left(c->side);
    int64_t ka = left ? c->m : c->n, across = left ? c->n : c->m;
    *a = cufort_l3_round((size_t)(ka * ka) * es);
    *b = cufort_l3_round((size_t)(c->m * c->n) * es);
    *slot = c->op == CUFORT_L3_TRMM ? cufort_l3_round((size_t)(w * across) * es) : 0;
    *in = cufort_l3_round((size_t)(w * cufort_l3_max(ka, across)) * es);
    *out = left ? cufort_l3_round((size_t)(w * across) * es) : 0;
}

size_t cufort_l3_triangular_need(const cufort_l3 *c, int64_t w)
{
    size_t a, b, slot, in, out;
    sizes(c, w, &a, &b, &slot, &in, &out);
    return a + b + L3_SLOTS * slot + in + out;
}

/* op(A)(r0.., c0..) on the device */
static const char *op_a(const tri *t, int64_t r0, int64_t c0)
{
    size_t at = NOTR(t->j->c->trans) ? (size_t)(r0 + c0 * t->ka) : (size_t)(c0 + r0 * t->ka);
    return t->dA + at * t->j->es;
}

/* step i's block b0.., bl long, and the blocks before it, d0.., dn long */
static void block(const tri *t, int64_t i, int64_t *b0, int64_t *bl, int64_t *d0, int64_t *dn)
{
    int64_t w = t->j->w, q = t->asc ? i : t->blocks - 1 - i;
    *b0 = q * w;
    *bl = cufort_l3_min(w, t->ka - *b0);
    *d0 = t->asc ? 0 : *b0 + *bl;
    *dn = t->asc ? *b0 : t->ka - *d0;
}

/* a block of B (rows on the left, columns on the right) in the device's B, m apart */
static char *b_block(const tri *t, const char *base, int64_t b0)
{
    return (char *)base + (size_t)(t->left ? b0 : b0 * t->m) * t->j->es;
}

static int upload(tri *t, int64_t b0, int64_t bl, int64_t d0, int64_t dn)
{
    cufort_l3_job *j = t->j;
    /* op(A)(b, D and b) on the left, op(A)(D and b, b) on the right: one rectangle, as stored */
    int64_t lo = dn ? cufort_l3_min(d0, b0) : b0, span = dn + bl;
    int64_t r0 = t->left ? b0 : lo, rn = t->left ? bl : span, c0 = t->left ? lo : b0, cn = t->left ? span : bl;
    if (!NOTR(j->c->trans)) {
        int64_t x = r0;
        r0 = c0, c0 = x, x = rn, rn = cn, cn = x;
    }
    int st = cufort_l3_put(j, &j->a, r0, c0, rn, cn, t->dA + (size_t)(r0 + c0 * t->ka) * j->es, t->ka,
                           t->tmp_in);
    if (st)
        return st;
    return t->left ? cufort_l3_put(j, &j->out, b0, 0, bl, t->n, b_block(t, t->dB, b0), t->m, t->tmp_in)
                   : cufort_l3_put(j, &j->out, 0, b0, t->m, bl, b_block(t, t->dB, b0), t->m, NULL);
}

static int compute(tri *t, int s, int64_t i, int64_t b0, int64_t bl, int64_t d0, int64_t dn)
{
    cufort_l3_job *j = t->j;
    const cufort_l3 *c = j->c;
    const char *diag = t->dA + (size_t)(b0 + b0 * t->ka) * j->es;
    char *X = b_block(t, t->dB, b0);
    const char *XD = b_block(t, t->dB, d0);
    int64_t rows = t->left ? bl : t->m, cols = t->left ? t->n : bl;
    int st = CUFORT_SUCCESS;
    if (t->trsm) {
        if (dn)
            st = t->left ? cufort_l3_gemm(c->prec, t->t, 'N', bl, t->n, dn, -1, op_a(t, b0, d0), t->ka,
                                          XD, t->m, c->alpha, X, t->m)
                         : cufort_l3_gemm(c->prec, 'N', t->t, t->m, bl, dn, -1, XD, t->m,
                                          op_a(t, d0, b0), t->ka, c->alpha, X, t->m);
        return st ? st : cufort_l3_tri(c, dn ? 1 : c->alpha, rows, cols, diag, t->ka, X, t->m);
    }
    /* TRMM into the step's slot, once the download of its last use is done */
    char *out = t->slot[s];
    if (i >= L3_SLOTS)
        st = j->ops->stream_wait(j->comp, j->ev[s][L3_DONE]);
    if (!st)
        st = j->ops->copy2d(out, (size_t)rows * j->es, X, (size_t)t->m * j->es, (size_t)rows * j->es,
                            (size_t)cols, CUFORT_D2D, j->comp, 1);
    if (!st)
        st = cufort_l3_tri(c, c->alpha, rows, cols, diag, t->ka, out, rows);
    if (!st && dn)
        st = t->left ? cufort_l3_gemm(c->prec, t->t, 'N', bl, t->n, dn, c->alpha, op_a(t, b0, d0), t->ka,
                                      XD, t->m, 1, out, rows)
                     : cufort_l3_gemm(c->prec, 'N', t->t, t->m, bl, dn, c->alpha, XD, t->m,
                                      op_a(t, d0, b0), t->ka, 1, out, rows);
    return st;
}

/* the pipeline's steps (l3_internal.h): block i, its events those of slot i % L3_SLOTS */
static int upload_step(void *ctx, int64_t i)
{
    tri *t = ctx;
    int64_t b0, bl, d0, dn;
    block(t, i, &b0, &bl, &d0, &dn);
    return upload(t, b0, bl, d0, dn);
}

static int compute_step(void *ctx, int64_t i)
{
    tri *t = ctx;
    int64_t b0, bl, d0, dn;
    block(t, i, &b0, &bl, &d0, &dn);
    return compute(t, (int)(i % L3_SLOTS), i, b0, bl, d0, dn);
}

static int download_step(void *ctx, int64_t i)
{
    tri *t = ctx;
    int64_t b0, bl, d0, dn;
    block(t, i, &b0, &bl, &d0, &dn);
    const char *src = t->trsm ? b_block(t, t->dB, b0) : t->slot[i % L3_SLOTS];
    int64_t ld = t->trsm ? t->m : t->left ? bl : t->m;
    return t->left ? cufort_l3_get(t->j, b0, 0, bl, t->n, src, ld, t->tmp_out)
                   : cufort_l3_get(t->j, 0, b0, t->m, bl, src, ld, NULL);
}

int cufort_l3_triangular(cufort_l3_job *j, char *buf)
{
    const cufort_l3 *c = j->c;
    tri t = {.j = j, .left = cufort_l3_left(c->side), .trsm = c->op == CUFORT_L3_TRSM,
             .t = NOTR(c->trans) ? 'N' : c->trans, .m = c->m, .n = c->n};
    t.ka = t.left ? c->m : c->n;
    t.blocks = (t.ka + j->w - 1) / j->w;
    /* op(A) lower: a left solve starts at the top, a right one at the right (and so do the
     * products, whose blocks need B's blocks on the same side of them) */
    int lower = cufort_l3_upper(c->uplo) != NOTR(c->trans);
    t.asc = t.left == lower;
    size_t a, b, slot, in, out;
    sizes(c, j->w, &a, &b, &slot, &in, &out);
    t.dA = buf, buf += a;
    t.dB = buf, buf += b;
    for (int s = 0; s < L3_SLOTS; s++, buf += slot)
        t.slot[s] = buf;
    t.tmp_in = buf, buf += in;
    t.tmp_out = buf;
    /* no slot of B is reused: only a TRMM's output slots are, and its compute waits for them */
    static const cufort_l3_steps steps = {upload_step, compute_step, download_step, 0};
    return cufort_l3_pipeline(j, t.blocks, &steps, &t);
}
