/* l3_rank_k.c — a rank-k update with op(A) = A (n x k, and B for the 2k and kx forms) and k about
 * n or longer (l3_internal.h).  The panels of l3_panels.c would bring A in blocks of its rows,
 * copies of short strided pieces that the DMA engines move at a fraction of their rate beside
 * running kernels; here A comes in chunks of w whole columns (the fastest copies there are) and
 * the product accumulates on the device, in panels of w of C's columns, each panel's part of a
 * chunk one GEMM: the triangle's rows of the panel, diagonal block whole (the device's rank-k
 * routine on such blocks runs well below the GEMM rate, and a GEMM over the whole block costs
 * only the block's other half more).
 *
 * C itself is not needed until the end: a second pipeline then brings each panel of C up (its
 * part of the triangle, or with beta = 0 just its diagonal block, whose other triangle the program
 * may keep data in), adds the product to beta C (the device's rank-kx update against an identity
 * for the diagonal block, which writes only the triangle; a sum of matrices for the rest) and
 * sends the panel back, C's uploads and downloads running side by side after A's. */
#include "l3_internal.h"

typedef struct {
    cufort_l3_job *j;
    int two, lower;
    int64_t n, k, w, panels, chunks;
    char *acc, *ident, *slot_a[L3_SLOTS], *slot_b[L3_SLOTS], *slot_c[L3_SLOTS], *tmp;
} chunks;

static int two_operands(cufort_l3_op op)
{
    return op == CUFORT_L3_SYR2K || op == CUFORT_L3_HER2K || op == CUFORT_L3_SYRKX || op == CUFORT_L3_HERKX;
}

static void sizes(const cufort_l3 *c, int64_t w, size_t *acc, size_t *ident, size_t *slot)
{
    size_t es = cufort_prec_size(c->prec);
    *acc = cufort_l3_round((size_t)(c->n * c->n) * es);
    *ident = cufort_l3_round((size_t)(w * w) * es);
    *slot = cufort_l3_round((size_t)(c->n * w) * es);
}

size_t cufort_l3_rank_k_need(const cufort_l3 *c, int64_t w)
{
    size_t acc, ident, slot;
    sizes(c, w, &acc, &ident, &slot);
    /* slots for A (and B) and for C, and the staging area */
    return acc + ident + (size_t)(L3_SLOTS * (2 + two_operands(c->op)) + 1) * slot;
}

/* panel p of C: columns c0.., cols wide, its rows of the triangle r0.., rows long, its diagonal
 * block d rows into them */
static void panel(const chunks *t, int64_t p, int64_t *c0, int64_t *cols, int64_t *r0, int64_t *rows,
                  int64_t *d)
{
    *c0 = p * t->w;
    *cols = cufort_l3_min(t->w, t->n - *c0);
    *r0 = t->lower ? *c0 : 0;
    *rows = t->lower ? t->n - *c0 : *c0 + *cols;
    *d = t->lower ? 0 : *c0;
}

static char *at(const chunks *t, char *base, int64_t ld, int64_t r, int64_t c)
{
    return base + (size_t)(r + c * ld) * t->j->es;
}

/* ---- the chunks of k ---- */

static void chunk(const chunks *t, int64_t i, int64_t *k0, int64_t *kn)
{
    *k0 = i * t->w;
    *kn = cufort_l3_min(t->w, t->k - *k0);
}

static int upload_chunk(void *ctx, int64_t i)
{
    chunks *t = ctx;
    cufort_l3_job *j = t->j;
    int64_t k0, kn;
    chunk(t, i, &k0, &kn);
    int s = (int)(i % L3_SLOTS);
    int st = cufort_l3_put(j, &j->a, 0, k0, t->n, kn, t->slot_a[s], t->n, NULL);
    return st || !t->two ? st : cufort_l3_put(j, &j->b, 0, k0, t->n, kn, t->slot_b[s], t->n, NULL);
}

/* acc(panel p's rows) = [acc +] alpha A(rows) B(panel)^T [+ alpha' B(rows) A(panel)^T] */
static int update(void *ctx, int64_t i)
{
    chunks *t = ctx;
    const cufort_l3 *c = t->j->c;
    int s = (int)(i % L3_SLOTS);
    int64_t k0, kn;
    chunk(t, i, &k0, &kn);
    char *A = t->slot_a[s], *B = t->two ? t->slot_b[s] : A;
    char h = cufort_l3_herm(c->op) ? 'C' : 'T';
    int st = CUFORT_SUCCESS;
    for (int64_t p = 0; p < t->panels && !st; p++) {
        int64_t c0, cols, r0, rows, d;
        panel(t, p, &c0, &cols, &r0, &rows, &d);
        char *out = at(t, t->acc, t->n, r0, c0);
        st = cufort_l3_gemm(c->prec, 'N', h, rows, cols, kn, c->alpha, at(t, A, t->n, r0, 0), t->n,
                            at(t, B, t->n, c0, 0), t->n, i == 0 ? 0 : 1, out, t->n);
        if (!st && (c->op == CUFORT_L3_SYR2K || c->op == CUFORT_L3_HER2K))
            st = cufort_l3_gemm(c->prec, 'N', h, rows, cols, kn,
                                c->op == CUFORT_L3_HER2K ? conj(c->alpha) : c->alpha,
                                at(t, B, t->n, r0, 0), t->n, at(t, A, t->n, c0, 0), t->n, 1, out, t->n);
    }
    return st;
}

static int no_download(void *ctx, int64_t i)
{
    (void)ctx, (void)i;
    return CUFORT_SUCCESS;   /* C comes back in the panels' pipeline */
}

/* ---- the panels: beta C and the product, C back ---- */

static int upload_panel(void *ctx, int64_t p)
{
    chunks *t = ctx;
    cufort_l3_job *j = t->j;
    int64_t c0, cols, r0, rows, d;
    panel(t, p, &c0, &cols, &r0, &rows, &d);
    char *slot = t->slot_c[p % L3_SLOTS];
    if (j->c->beta != 0)
        return cufort_l3_put(j, &j->out, r0, c0, rows, cols, slot, rows, NULL);
    return cufort_l3_put(j, &j->out, c0, c0, cols, cols, at(t, slot, rows, d, 0), rows, t->tmp);
}

/* the panel's diagonal block: its triangle = product + beta C, as the device's rank-kx update of
 * the product against the identity; the rest of the panel: product + beta C */
static int combine(void *ctx, int64_t p)
{
    chunks *t = ctx;
    cufort_l3_job *j = t->j;
    const cufort_l3 *c = j->c;
    int64_t c0, cols, r0, rows, d;
    panel(t, p, &c0, &cols, &r0, &rows, &d);
    char *slot = t->slot_c[p % L3_SLOTS];
    cufort_l3 x = *c;
    x.op = cufort_l3_herm(c->op) ? CUFORT_L3_HERKX : CUFORT_L3_SYRKX;
    x.trans = 'N';
    x.k = cols;
    x.alpha = 1;
    int st = cufort_l3_rank_k(&x, cols, at(t, t->acc, t->n, c0, c0), t->n, t->ident, t->w, c->beta,
                              at(t, slot, rows, d, 0), rows);
    int64_t q0 = t->lower ? cols : 0, qn = rows - cols;   /* the rest, within the panel's rows */
    if (st || qn == 0)
        return st;
    char *src = at(t, t->acc, t->n, r0 + q0, c0), *dst = at(t, slot, rows, q0, 0);
    if (c->beta == 0)
        return j->ops->copy2d(dst, (size_t)rows * j->es, src, (size_t)t->n * j->es, (size_t)qn * j->es,
                              (size_t)cols, CUFORT_D2D, j->comp, 1);
    return cufort_l3_geam(c->prec, qn, cols, 1, src, t->n, c->beta, dst, rows);
}

static int download_panel(void *ctx, int64_t p)
{
    chunks *t = ctx;
    int64_t c0, cols, r0, rows, d;
    panel(t, p, &c0, &cols, &r0, &rows, &d);
    return cufort_l3_get(t->j, r0, c0, rows, cols, t->slot_c[p % L3_SLOTS], rows, NULL);
}

int cufort_l3_rank_k_chunks(cufort_l3_job *j, char *buf)
{
    const cufort_l3 *c = j->c;
    chunks t = {.j = j, .two = two_operands(c->op), .lower = !cufort_l3_upper(c->uplo), .n = c->n,
                .k = c->k, .w = j->w};
    t.panels = (t.n + t.w - 1) / t.w;
    t.chunks = (t.k + t.w - 1) / t.w;
    size_t acc, ident, slot;
    sizes(c, t.w, &acc, &ident, &slot);
    t.acc = buf, buf += acc;
    t.ident = buf, buf += ident;
    for (int s = 0; s < L3_SLOTS; s++, buf += slot)
        t.slot_a[s] = buf;
    for (int s = 0; s < L3_SLOTS && t.two; s++, buf += slot)
        t.slot_b[s] = buf;
    for (int s = 0; s < L3_SLOTS; s++, buf += slot)
        t.slot_c[s] = buf;
    t.tmp = buf;
    static const cufort_l3_steps by_chunk = {upload_chunk, update, no_download, 1, NULL, 0};
    static const cufort_l3_steps by_panel = {upload_panel, combine, download_panel, 1, NULL, 0};
    int st = cufort_l3_identity(j, t.ident, t.w);
    if (!st)
        st = cufort_l3_pipeline(j, t.chunks, &by_chunk, &t);
    return st ? st : cufort_l3_pipeline(j, t.panels, &by_panel, &t);
}
