/* l3_left.c — TRSM and TRMM with the triangle on the left (l3_internal.h).  B is cut into chunks of
 * w whole columns, which need nothing of each other: they stream through L3_SLOTS device slots as
 * the panels of l3_panels.c do, each copy a run of whole columns.  (Blocks of B's rows would make
 * every copy a strided one of short pieces, which the DMA engines move at a fraction of their rate
 * beside running kernels: docs/performance.md.)
 *
 * op(A) stays on the device and crosses PCIe once, right after the first chunk, in blocks of bl
 * stored columns (runs of whole columns' triangle parts), in the order the solve or product takes
 * them, each with its own event: the first chunk computes while the rest of the triangle comes up.
 * On the device each chunk is a blocked solve or product over blocks of bl rows of B, step s using
 * only the blocks of A uploaded up to s, every operation a GEMM:
 *
 *   TRSM, op(A) = A      right-looking: X_b = D_b B_b, then B_R = B_R - A(R, b) X_b
 *   TRSM, op(A) = A^T/H  left-looking:  X_b = D_b (B_b - op(A)(b, P) X_P)
 *   TRMM                 X_b = alpha (D_b B_b + op(A)(b, P) B_P)
 *
 * P being the blocks before b in that order and R those after it; the order runs down the rows
 * when op(A) is lower triangular, up them when it is upper; a solve's alpha scales B in its first
 * step.  X
 * goes to a second slot.  D_b is the diagonal block as a full square, made once per call on the
 * device from an identity: op(A_bb) itself for TRMM (the other triangle zero, a unit diagonal
 * one), its inverse for TRSM (the device's triangular solve on the identity).  A triangular call
 * on a chunk's narrow blocks runs far below the GEMM rate, and there are many of them; the
 * inverse is what MAGMA's solves apply too, and its error is bounded by the diagonal block's
 * condition (bl = 256 to 1024 rows). */

#include "env.h"
#include "l3_internal.h"

enum { MIN_BL = 256, WANT_BL = 1024 };

typedef struct {
    cufort_l3_job *j;
    int trsm, asc, lower_a;
    int64_t m, n, bl, blocks;
    char *dA, *diag, *ident, *slot[L3_SLOTS], *out[L3_SLOTS], *tmp;
} left;

/* rows per block of the device solve: CUFORT_L3_BLOCK, else about a sixteenth of the triangle,
 * 256 to 1024; never more than L3_BLOCK_EVENTS blocks */
static int64_t block_rows(int64_t ka)
{
    int64_t bl = 0;
    cufort_env_int("CUFORT_L3_BLOCK", 1, INT64_MAX, &bl);
    if (bl <= 0)
        bl = cufort_l3_min(WANT_BL, cufort_l3_max(MIN_BL, (ka / 16 + 255) / 256 * 256));
    int64_t fewest = (ka + L3_BLOCK_EVENTS - 1) / L3_BLOCK_EVENTS;
    return cufort_l3_max(1, cufort_l3_min(ka, cufort_l3_max(bl, fewest)));
}

static void sizes(const cufort_l3 *c, int64_t w, size_t *a, size_t *diag, size_t *slot, size_t *tmp)
{
    size_t es = cufort_prec_size(c->prec);
    int64_t bl = block_rows(c->m), blocks = (c->m + bl - 1) / bl;
    *a = cufort_l3_round((size_t)(c->m * c->m) * es);
    *diag = cufort_l3_round((size_t)((blocks + 1) * bl * bl) * es);   /* and the identity */
    *slot = cufort_l3_round((size_t)(c->m * w) * es);
    *tmp = cufort_l3_round((size_t)(c->m * bl) * es);
}

size_t cufort_l3_left_tri_need(const cufort_l3 *c, int64_t w)
{
    size_t a, diag, slot, tmp;
    sizes(c, w, &a, &diag, &slot, &tmp);
    return a + diag + (size_t)(2 * L3_SLOTS) * slot + tmp;
}

/* step s's block of rows, b0.., len long */
static void block(const left *t, int64_t s, int64_t *b0, int64_t *len)
{
    int64_t q = t->asc ? s : t->blocks - 1 - s;
    *b0 = q * t->bl;
    *len = cufort_l3_min(t->bl, t->m - *b0);
}

static const char *dev_a(const left *t, int64_t r, int64_t c)
{
    return t->dA + (size_t)(r + c * t->m) * t->j->es;
}

/* op(A)(r.., c..) as a GEMM operand on the device */
static const char *op_a(const left *t, int64_t r, int64_t c)
{
    return NOTR(t->j->c->trans) ? dev_a(t, r, c) : dev_a(t, c, r);
}

static char *diag_block(const left *t, int64_t s)
{
    return t->diag + (size_t)(s * t->bl * t->bl) * t->j->es;
}

/* the stored part of A's columns b0.. (block s in the order taken), and its event */
static int upload_a(left *t)
{
    cufort_l3_job *j = t->j;
    int st = CUFORT_SUCCESS;
    for (int64_t s = 0; s < t->blocks && !st; s++) {
        int64_t b0, len;
        block(t, s, &b0, &len);
        int64_t r0 = t->lower_a ? b0 : 0, rows = t->lower_a ? t->m - b0 : b0 + len;
        st = cufort_l3_put(j, &j->a, r0, b0, rows, len, (char *)dev_a(t, r0, b0), t->m, t->tmp);
        if (!st)
            st = j->ops->event_record(j->blk[s], j->h2d);
    }
    return st;
}

static int uploaded(void *ctx, int64_t i)
{
    left *t = ctx;
    return i == 0 && t->j->c->alpha != 0 ? upload_a(t) : CUFORT_SUCCESS;
}

/* D_s from the identity: op(A_ss), or its inverse */
static int make_diag(const left *t, int64_t s)
{
    const cufort_l3_job *j = t->j;
    int64_t b0, len;
    block(t, s, &b0, &len);
    char *d = diag_block(t, s);
    size_t ld = (size_t)t->bl * j->es;
    int st = j->ops->copy2d(d, ld, t->ident, ld, (size_t)len * j->es, (size_t)len, CUFORT_D2D, j->comp, 1);
    return st ? st : cufort_l3_tri(j->c, 1, len, len, dev_a(t, b0, b0), t->m, d, t->bl);
}

static void chunk(const left *t, int64_t i, int64_t *c0, int64_t *cols)
{
    *c0 = i * t->j->w;
    *cols = cufort_l3_min(t->j->w, t->n - *c0);
}

static int upload_step(void *ctx, int64_t i)
{
    left *t = ctx;
    int64_t c0, cols;
    chunk(t, i, &c0, &cols);
    return cufort_l3_put(t->j, &t->j->out, 0, c0, t->m, cols, t->slot[i % L3_SLOTS], t->m, NULL);
}

static int gemm(const left *t, char ta, int64_t m, int64_t n, int64_t k, double complex al,
                const void *A, int64_t lda, const void *B, double complex be, void *C)
{
    return cufort_l3_gemm(t->j->c->prec, ta, 'N', m, n, k, al, A, lda, B, t->m, be, C, t->m);
}

/* one step of the solve: B (m x cols, ld m) read and updated, X written */
static int solve_step(const left *t, int64_t s, char *B, char *X, int64_t cols)
{
    const cufort_l3 *c = t->j->c;
    size_t es = t->j->es;
    int64_t b0, len;
    block(t, s, &b0, &len);
    char *Bb = B + (size_t)b0 * es, *Xb = X + (size_t)b0 * es;
    const char *D = diag_block(t, s);
    if (NOTR(c->trans)) {   /* right-looking: the rows still to come, R, take X_b's part */
        double complex al = s == 0 ? c->alpha : 1;
        int st = gemm(t, 'N', len, cols, len, al, D, t->bl, Bb, 0, Xb);
        int64_t r0 = t->asc ? b0 + len : 0, rn = t->asc ? t->m - r0 : b0;
        if (st || rn == 0)
            return st;
        return gemm(t, 'N', rn, cols, len, -1, dev_a(t, r0, b0), t->m, Xb, al, B + (size_t)r0 * es);
    }
    int64_t p0 = t->asc ? 0 : b0 + len, pn = t->asc ? b0 : t->m - p0;   /* left-looking */
    int st = CUFORT_SUCCESS;
    if (pn)
        st = gemm(t, c->trans, len, cols, pn, -1, op_a(t, b0, p0), t->m, X + (size_t)p0 * es, c->alpha, Bb);
    return st ? st : gemm(t, 'N', len, cols, len, pn ? 1 : c->alpha, D, t->bl, Bb, 0, Xb);
}

/* one block of the product: X_b from B (both m x cols, ld m) */
static int product_step(const left *t, int64_t s, const char *B, char *X, int64_t cols)
{
    const cufort_l3 *c = t->j->c;
    size_t es = t->j->es;
    int64_t b0, len;
    block(t, s, &b0, &len);
    char *Xb = X + (size_t)b0 * es;
    int64_t p0 = t->asc ? 0 : b0 + len, pn = t->asc ? b0 : t->m - p0;
    int st = gemm(t, 'N', len, cols, len, c->alpha, diag_block(t, s), t->bl, B + (size_t)b0 * es, 0, Xb);
    if (!st && pn)
        st = gemm(t, NOTR(c->trans) ? 'N' : c->trans, len, cols, pn, c->alpha, op_a(t, b0, p0), t->m,
                  B + (size_t)p0 * es, 1, Xb);
    return st;
}

static int compute_step(void *ctx, int64_t i)
{
    left *t = ctx;
    cufort_l3_job *j = t->j;
    int sl = (int)(i % L3_SLOTS);
    int64_t c0, cols;
    chunk(t, i, &c0, &cols);
    if (j->c->alpha == 0)   /* B = 0, A not read (as the reference BLAS; cuBLAS's TRSM reads it) */
        return gemm(t, 'N', t->m, cols, 0, 0, t->slot[sl], t->m, t->slot[sl], 0, t->slot[sl]);
    int st = CUFORT_SUCCESS;
    for (int64_t s = 0; s < t->blocks && !st; s++) {
        if (i == 0) {   /* the first chunk goes as fast as the triangle comes */
            st = j->ops->stream_wait(j->comp, j->blk[s]);
            if (!st)
                st = make_diag(t, s);
        }
        if (!st)
            st = t->trsm ? solve_step(t, s, t->slot[sl], t->out[sl], cols)
                         : product_step(t, s, t->slot[sl], t->out[sl], cols);
    }
    return st;
}

static int download_step(void *ctx, int64_t i)
{
    left *t = ctx;
    int64_t c0, cols;
    chunk(t, i, &c0, &cols);
    int sl = (int)(i % L3_SLOTS);
    return cufort_l3_get(t->j, 0, c0, t->m, cols, t->j->c->alpha == 0 ? t->slot[sl] : t->out[sl], t->m, NULL);
}

int cufort_l3_left_tri(cufort_l3_job *j, char *buf)
{
    const cufort_l3 *c = j->c;
    left t = {.j = j, .trsm = c->op == CUFORT_L3_TRSM, .m = c->m, .n = c->n,
              .lower_a = !cufort_l3_upper(c->uplo)};
    t.asc = t.lower_a == NOTR(c->trans);   /* op(A) lower: down the rows */
    t.bl = block_rows(t.m);
    t.blocks = (t.m + t.bl - 1) / t.bl;
    size_t a, diag, slot, tmp;
    sizes(c, j->w, &a, &diag, &slot, &tmp);
    t.dA = buf, buf += a;
    t.diag = buf, buf += diag;
    t.ident = t.diag + (size_t)(t.blocks * t.bl * t.bl) * j->es;
    for (int s = 0; s < L3_SLOTS; s++, buf += slot)
        t.slot[s] = buf;
    for (int s = 0; s < L3_SLOTS; s++, buf += slot)
        t.out[s] = buf;
    t.tmp = buf;
    int st = cufort_l3_block_events(j, (int)t.blocks);
    if (!st && c->alpha != 0)
        st = cufort_l3_identity(j, t.ident, t.bl);
    if (st)
        return st;
    static const cufort_l3_steps steps = {upload_step, compute_step, download_step, 1, uploaded, 0};
    return cufort_l3_pipeline(j, (t.n + j->w - 1) / j->w, &steps, &t);
}
