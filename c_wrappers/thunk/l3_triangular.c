/* l3_triangular.c — TRSM and TRMM with the triangle on the right (l3_internal.h; the left side is
 * l3_left.c): B cut into blocks of w columns, taken in the order the triangle allows, each block a
 * GEMM over the blocks done before it and one small triangular call:
 *
 *   TRSM  X_b = (alpha B_b - X_D op(A)(D, b)) op(A)_bb^-1        B and X live on the device
 *   TRMM  X_b = alpha (B_b op(A)_bb + B_D op(A)(D, b))           into a slot; B stays as it was
 *
 * D being the blocks before b in that order.  Step b uploads its block of B and the part of the
 * triangle it needs, op(A)(D and b, b), so that the triangle crosses PCIe once and the first GEMMs
 * start long before it is all up; X_b comes back as soon as it is final.  Blocks of columns are
 * runs of whole columns, the copies the DMA engines move fastest.  The GEMMs grow with D while the
 * copies per step stay the same: copies lead early, compute late. */
#include "l3_internal.h"

typedef struct {
    cufort_l3_job *j;
    int trsm, asc;
    char t;                              /* op(A) as a GEMM operand: 'N' or the call's transpose */
    int64_t m, n, blocks;
    char *dA, *dB, *slot[L3_SLOTS], *tmp;
} tri;

static void sizes(const cufort_l3 *c, int64_t w, size_t *a, size_t *b, size_t *slot, size_t *in)
{
    size_t es = cufort_prec_size(c->prec);
    *a = cufort_l3_round((size_t)(c->n * c->n) * es);
    *b = cufort_l3_round((size_t)(c->m * c->n) * es);
    *slot = c->op == CUFORT_L3_TRMM ? cufort_l3_round((size_t)(w * c->m) * es) : 0;
    *in = cufort_l3_round((size_t)(w * cufort_l3_max(c->n, c->m)) * es);
}

size_t cufort_l3_triangular_need(const cufort_l3 *c, int64_t w)
{
    size_t a, b, slot, in;
    sizes(c, w, &a, &b, &slot, &in);
    return a + b + L3_SLOTS * slot + in;
}

/* op(A)(r0.., c0..) on the device */
static const char *op_a(const tri *t, int64_t r0, int64_t c0)
{
    size_t at = NOTR(t->j->c->trans) ? (size_t)(r0 + c0 * t->n) : (size_t)(c0 + r0 * t->n);
    return t->dA + at * t->j->es;
}

/* step i's block b0.., bl long, and the blocks before it, d0.., dn long */
static void block(const tri *t, int64_t i, int64_t *b0, int64_t *bl, int64_t *d0, int64_t *dn)
{
    int64_t w = t->j->w, q = t->asc ? i : t->blocks - 1 - i;
    *b0 = q * w;
    *bl = cufort_l3_min(w, t->n - *b0);
    *d0 = t->asc ? 0 : *b0 + *bl;
    *dn = t->asc ? *b0 : t->n - *d0;
}

/* a block of B's columns in the device's B, m apart */
static char *b_block(const tri *t, const char *base, int64_t b0)
{
    return (char *)base + (size_t)(b0 * t->m) * t->j->es;
}

static int upload(tri *t, int64_t b0, int64_t bl, int64_t d0, int64_t dn)
{
    cufort_l3_job *j = t->j;
    /* op(A)(D and b, b): one rectangle, as stored */
    int64_t lo = dn ? cufort_l3_min(d0, b0) : b0, span = dn + bl;
    int64_t r0 = lo, rn = span, c0 = b0, cn = bl;
    if (!NOTR(j->c->trans)) {
        int64_t x = r0;
        r0 = c0, c0 = x, x = rn, rn = cn, cn = x;
    }
    int st = cufort_l3_put(j, &j->a, r0, c0, rn, cn, t->dA + (size_t)(r0 + c0 * t->n) * j->es, t->n,
                           t->tmp);
    return st ? st : cufort_l3_put(j, &j->out, 0, b0, t->m, bl, b_block(t, t->dB, b0), t->m, NULL);
}

static int compute(tri *t, int s, int64_t i, int64_t b0, int64_t bl, int64_t d0, int64_t dn)
{
    cufort_l3_job *j = t->j;
    const cufort_l3 *c = j->c;
    const char *diag = t->dA + (size_t)(b0 + b0 * t->n) * j->es;
    char *X = b_block(t, t->dB, b0);
    const char *XD = b_block(t, t->dB, d0);
    int st = CUFORT_SUCCESS;
    if (t->trsm) {
        if (dn)
            st = cufort_l3_gemm(c->prec, 'N', t->t, t->m, bl, dn, -1, XD, t->m, op_a(t, d0, b0), t->n,
                                c->alpha, X, t->m);
        return st ? st : cufort_l3_tri(c, dn ? 1 : c->alpha, t->m, bl, diag, t->n, X, t->m);
    }
    /* TRMM into the step's slot, once the download of its last use is done */
    char *out = t->slot[s];
    if (i >= L3_SLOTS)
        st = j->ops->stream_wait(j->comp, j->ev[s][L3_DONE]);
    if (!st)
        st = j->ops->copy2d(out, (size_t)t->m * j->es, X, (size_t)t->m * j->es, (size_t)t->m * j->es,
                            (size_t)bl, CUFORT_D2D, j->comp, 1);
    if (!st)
        st = cufort_l3_tri(c, c->alpha, t->m, bl, diag, t->n, out, t->m);
    if (!st && dn)
        st = cufort_l3_gemm(c->prec, 'N', t->t, t->m, bl, dn, c->alpha, XD, t->m, op_a(t, d0, b0), t->n,
                            1, out, t->m);
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
    return cufort_l3_get(t->j, 0, b0, t->m, bl, src, t->m, NULL);
}

int cufort_l3_triangular(cufort_l3_job *j, char *buf)
{
    const cufort_l3 *c = j->c;
    tri t = {.j = j, .trsm = c->op == CUFORT_L3_TRSM, .t = NOTR(c->trans) ? 'N' : c->trans, .m = c->m,
             .n = c->n};
    t.blocks = (t.n + j->w - 1) / j->w;
    /* op(A) lower: a right solve starts at the right (and so do the products, whose blocks need
     * B's blocks on the same side of them) */
    t.asc = cufort_l3_upper(c->uplo) == NOTR(c->trans);
    size_t a, b, slot, in;
    sizes(c, j->w, &a, &b, &slot, &in);
    t.dA = buf, buf += a;
    t.dB = buf, buf += b;
    for (int s = 0; s < L3_SLOTS; s++, buf += slot)
        t.slot[s] = buf;
    t.tmp = buf;
    /* no slot of B is reused: only a TRMM's output slots are, and its compute waits for them */
    static const cufort_l3_steps steps = {upload_step, compute_step, download_step, 0, NULL, 0};
    return cufort_l3_pipeline(j, t.blocks, &steps, &t);
}
