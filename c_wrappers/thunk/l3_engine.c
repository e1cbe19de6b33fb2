/* l3_engine.c — TRSM, TRMM, SYMM/HEMM and the rank-k updates on host arrays (see l3_engine.h):
 * which way a call goes.  Small calls take the generic thunk path (every array staged whole, the
 * device routine, the result staged back: for them the pipelines' extra steps cost more than their
 * overlap gains, docs/performance.md); the others go through a pipeline (l3_left.c and
 * l3_triangular.c for TRSM and TRMM on the left and on the right, l3_rank_k.c for a rank-k update
 * with a long untransposed A, l3_panels.c for the rest) when it fits the device budget, and are
 * split in two halves and a coupling GEMM (the GEMM engine, which runs out of core) when it does
 * not. */
#include <stdlib.h>

#include "env.h"
#include "gemm_engine.h"
#include "l3_internal.h"
#include "scratch.h"
#include "thunk.h"

enum { MIN_BLOCK = 256, MAX_BLOCK = 2048 };

/* ---- out of core: two halves and the coupling block ---- */

static void scalar(char prec, double complex v, void *out)
{
    switch (prec) {
    case 's': *(float *)out = (float)creal(v); break;
    case 'd': *(double *)out = creal(v); break;
    case 'c': *(cufort_cfloat *)out = (cufort_cfloat)v; break;
    default: *(cufort_cdouble *)out = v;
    }
}

int cufort_l3_host_gemm(const char *routine, const cufort_l3 *c, char ta, char tb, int64_t m,
                        int64_t n, int64_t k, double complex alpha, const void *A, int64_t lda,
                        const void *B, int64_t ldb, double complex beta, void *C, int64_t ldc)
{
    _Alignas(16) char al[16], be[16];
    scalar(c->prec, alpha, al);
    scalar(c->prec, beta, be);
    return cufort_thunk_gemm(routine, c->prec, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}

/* op(A)'s block (rows r0.., columns c0..) as a GEMM operand: its pointer and transpose */
static const char *op_block(const cufort_l3 *c, int64_t r0, int64_t c0, char *t)
{
    *t = NOTR(c->trans) ? 'N' : c->trans;
    return NOTR(c->trans) ? cufort_l3_at(c, c->A, c->lda, r0, c0)
                          : cufort_l3_at(c, c->A, c->lda, c0, r0);
}

static int split_tri(const char *routine, const cufort_l3 *c)
{
    int left = cufort_l3_left(c->side);
    int64_t ka = left ? c->m : c->n, h = ka / 2;
    /* lower: op(A) is lower triangular; lead: the half a solve starts from */
    int lower = (!cufort_l3_upper(c->uplo)) == NOTR(c->trans);
    int lead_lo = left == lower;
    int64_t l0 = lead_lo ? 0 : h, ln = lead_lo ? h : ka - h, o0 = lead_lo ? h : 0, on = ka - ln;
    cufort_l3 lead = *c, other = *c;
    lead.A = cufort_l3_at(c, c->A, c->lda, l0, l0);
    other.A = cufort_l3_at(c, c->A, c->lda, o0, o0);
    void *Bl = (void *)(left ? cufort_l3_at(c, c->C, c->ldc, l0, 0)
                             : cufort_l3_at(c, c->C, c->ldc, 0, l0));
    void *Bo = (void *)(left ? cufort_l3_at(c, c->C, c->ldc, o0, 0)
                             : cufort_l3_at(c, c->C, c->ldc, 0, o0));
    lead.C = Bl;
    other.C = Bo;
    if (left)
        lead.m = ln, other.m = on;
    else
        lead.n = ln, other.n = on;
    char t;
    /* the coupling block: op(A)(other, lead) on the left, op(A)(lead, other) on the right */
    const char *Ac = left ? op_block(c, o0, l0, &t) : op_block(c, l0, o0, &t);
    int st;
    if (c->op == CUFORT_L3_TRSM) {   /* X_lead, then B_other = alpha B_other - coupling X_lead */
        if ((st = cufort_l3_one_device(routine, &lead)))
            return st;
        st = left ? cufort_l3_host_gemm(routine, c, t, 'N', on, c->n, ln, -1, Ac, c->lda, Bl, c->ldc, c->alpha, Bo, c->ldc)
                  : cufort_l3_host_gemm(routine, c, 'N', t, c->m, on, ln, -1, Bl, c->ldc, Ac, c->lda, c->alpha, Bo, c->ldc);
        other.alpha = 1;
        return st ? st : cufort_l3_one_device(routine, &other);
    }
    /* TRMM: B_other needs B_lead as it was: B_other first, then the coupling, then B_lead */
    if ((st = cufort_l3_one_device(routine, &other)))
        return st;
    st = left ? cufort_l3_host_gemm(routine, c, t, 'N', on, c->n, ln, c->alpha, Ac, c->lda, Bl, c->ldc, 1, Bo, c->ldc)
              : cufort_l3_host_gemm(routine, c, 'N', t, c->m, on, ln, c->alpha, Bl, c->ldc, Ac, c->lda, 1, Bo, c->ldc);
    return st ? st : cufort_l3_one_device(routine, &lead);
}

static int split_symm(const char *routine, const cufort_l3 *c)
{
    int left = cufort_l3_left(c->side), upper = cufort_l3_upper(c->uplo);
    int64_t ka = left ? c->m : c->n, h = ka / 2;
    int64_t start[2] = {0, h}, len[2] = {h, ka - h};
    for (int i = 0; i < 2; i++) {
        int o = 1 - i;
        cufort_l3 half = *c;
        half.A = cufort_l3_at(c, c->A, c->lda, start[i], start[i]);
        half.B = left ? cufort_l3_at(c, c->B, c->ldb, start[i], 0)
                      : cufort_l3_at(c, c->B, c->ldb, 0, start[i]);
        half.C = (void *)(left ? cufort_l3_at(c, c->C, c->ldc, start[i], 0)
                               : cufort_l3_at(c, c->C, c->ldc, 0, start[i]));
        if (left)
            half.m = len[i];
        else
            half.n = len[i];
        int st = cufort_l3_one_device(routine, &half);
        if (st)
            return st;
        /* A(i, o) on the left, A(o, i) on the right: stored, or the transpose of what is */
        int64_t r = left ? start[i] : start[o], col = left ? start[o] : start[i];
        int stored = upper == (r < col);
        char t = stored ? 'N' : cufort_l3_herm(c->op) ? 'C' : 'T';
        const char *Ac = stored ? cufort_l3_at(c, c->A, c->lda, r, col)
                                : cufort_l3_at(c, c->A, c->lda, col, r);
        st = left ? cufort_l3_host_gemm(routine, c, t, 'N', len[i], c->n, len[o], c->alpha, Ac,
                                        c->lda, cufort_l3_at(c, c->B, c->ldb, start[o], 0), c->ldb,
                                        1, half.C, c->ldc)
                  : cufort_l3_host_gemm(routine, c, 'N', t, c->m, len[i], len[o], c->alpha,
                                        cufort_l3_at(c, c->B, c->ldb, 0, start[o]), c->ldb, Ac,
                                        c->lda, 1, half.C, c->ldc);
        if (st)
            return st;
    }
    return CUFORT_SUCCESS;
}

int cufort_l3_rank_k_columns(const char *routine, const cufort_l3 *c, int64_t c0, int64_t c1)
{
    int nf = NOTR(c->trans), lower = !cufort_l3_upper(c->uplo);
    int two = c->op == CUFORT_L3_SYR2K || c->op == CUFORT_L3_HER2K;
    const void *B = c->op == CUFORT_L3_SYRK || c->op == CUFORT_L3_HERK ? c->A : c->B;
    int64_t ldb = B == c->A ? c->lda : c->ldb;
#define ROWS(P, LD, i) (nf ? cufort_l3_at(c, P, LD, i, 0) : cufort_l3_at(c, P, LD, 0, i))
    cufort_l3 diag = *c;
    diag.n = c1 - c0;
    diag.A = ROWS(c->A, c->lda, c0);
    if (c->B)
        diag.B = ROWS(c->B, c->ldb, c0);
    diag.C = (void *)cufort_l3_at(c, c->C, c->ldc, c0, c0);
    int st = cufort_l3_one_device(routine, &diag);
    int64_t r = lower ? c1 : 0, m = lower ? c->n - c1 : c0;
    if (st || m == 0)
        return st;
    /* the rectangle: rows r.. of op(A) times rows c0..c1 of op(B), transposed */
    char hc = cufort_l3_herm(c->op) ? 'C' : 'T', ta = nf ? 'N' : hc, tb = nf ? hc : 'N';
    void *C = (void *)cufort_l3_at(c, c->C, c->ldc, r, c0);
    st = cufort_l3_host_gemm(routine, c, ta, tb, m, c1 - c0, c->k, c->alpha, ROWS(c->A, c->lda, r),
                             c->lda, ROWS(B, ldb, c0), ldb, c->beta, C, c->ldc);
    if (!st && two)
        st = cufort_l3_host_gemm(routine, c, ta, tb, m, c1 - c0, c->k,
                                 c->op == CUFORT_L3_HER2K ? conj(c->alpha) : c->alpha,
                                 ROWS(c->B, c->ldb, r), c->ldb, ROWS(c->A, c->lda, c0), c->lda, 1,
                                 C, c->ldc);
#undef ROWS
    return st;
}

/* two column blocks, each its diagonal block and the rectangle beside it */
static int split_rank_k(const char *routine, const cufort_l3 *c)
{
    int64_t h = c->n / 2;
    int st = cufort_l3_rank_k_columns(routine, c, 0, h);
    return st ? st : cufort_l3_rank_k_columns(routine, c, h, c->n);
}

static int split(const char *routine, const cufort_l3 *c)
{
    switch (c->op) {
    case CUFORT_L3_TRSM:
    case CUFORT_L3_TRMM: return split_tri(routine, c);
    case CUFORT_L3_SYMM:
    case CUFORT_L3_HEMM: return split_symm(routine, c);
    default: return split_rank_k(routine, c);
    }
}

/* ---- the generic path: every array whole ---- */

static int whole(const char *routine, const cufort_l3 *c)
{
    size_t es = cufort_prec_size(c->prec);
    int rank_k = c->op >= CUFORT_L3_SYRK, tri = c->op == CUFORT_L3_TRSM || c->op == CUFORT_L3_TRMM;
    int64_t ka = cufort_l3_left(c->side) ? c->m : c->n;
    int64_t ar = rank_k ? (NOTR(c->trans) ? c->n : c->k) : ka, ac = rank_k ? (NOTR(c->trans) ? c->k : c->n) : ka;
    int64_t cr = rank_k ? c->n : c->m;
    cufort_thunk t;
    int st = cufort_thunk_begin(&t, routine);
    if (st)
        return st;
    int iA = cufort_thunk_matrix(&t, c->A, ar, ac, c->lda, es, CUFORT_IN);
    int iB = !cufort_l3_needs_b(c)
                 ? -1 : cufort_thunk_matrix(&t, c->B, rank_k ? ar : c->m, rank_k ? ac : c->n, c->ldb, es, CUFORT_IN);
    int iC = cufort_thunk_matrix(&t, c->C, cr, c->n, c->ldc, es, CUFORT_INOUT);
    st = cufort_thunk_stage_in(&t);
    if (st == CUFORT_SUCCESS) {
        const void *A = cufort_thunk_ptr(&t, iA), *B = iB < 0 ? NULL : cufort_thunk_ptr(&t, iB);
        void *C = cufort_thunk_ptr(&t, iC);
        int64_t lda = cufort_thunk_ld(&t, iA), ldb = iB < 0 ? 1 : cufort_thunk_ld(&t, iB), ldc = cufort_thunk_ld(&t, iC);
        st = tri ? cufort_l3_tri(c, c->alpha, c->m, c->n, A, lda, C, ldc)
             : rank_k ? cufort_l3_rank_k(c, c->n, A, lda, B, ldb, c->beta, C, ldc)
                      : cufort_l3_symm(c, c->m, c->n, A, lda, B, ldb, C, ldc);
    }
    return cufort_thunk_finish(&t, st);
}

/* ---- entry ---- */

/* A rank-k update of an untransposed A (n x k) in chunks of k (l3_rank_k.c) rather than panels
 * of C: where A is about as long as C is wide or longer, C fits the device, and the update is
 * bound by its copies, under 700 flops per byte of A and C (the H100 machine's GEMM rate over its
 * PCIe rate is about 900).  The chunks' copies are faster, but C comes back only after the last
 * one, where the panels' downloads overlap their GEMMs: DSYRK n = k = 8192 (512 flops per byte)
 * 21.8 ms in chunks against 27.8 in panels, n = k = 16384 (1024) 135 against 125. */
static int by_k_chunks(const cufort_l3 *c, size_t cap)
{
    double n = (double)c->n, k = (double)c->k, es = (double)cufort_prec_size(c->prec);
    return NOTR(c->trans) && 2 * k >= n && n * n * k < 700 * (n * k + n * n) * es &&
           cufort_l3_rank_k_need(c, MIN_BLOCK) <= cap;
}

/* The block or panel width: CUFORT_L3_PANEL, else an eighth of the dimension cut, 256 to 2048
 * rounded to 256; narrower (down to 256, then further for small outputs) until the call fits cap.
 * 0 when nothing fits. */
typedef size_t (*need_fn)(const cufort_l3 *, int64_t);

static int64_t width(const cufort_l3 *c, need_fn need, int64_t dim, size_t cap)
{
    int64_t w = 0;
    cufort_env_int("CUFORT_L3_PANEL", 1, INT64_MAX, &w);
    if (w <= 0)
        w = cufort_l3_min(MAX_BLOCK, cufort_l3_max(MIN_BLOCK, (dim / 8 + 255) / 256 * 256));
    w = cufort_l3_min(dim, w);
    while (need(c, w) > cap && w > 1)
        w = w > MIN_BLOCK ? cufort_l3_max(MIN_BLOCK, w / 2) : w / 2;
    return need(c, w) <= cap ? w : 0;
}

/* SYMM/HEMM with beta != 0 may leave C on the host: the device computes alpha A B (or B A) alone
 * and each panel's download adds beta C on the host as it lands (host_beta), so C crosses PCIe
 * once instead of twice, but the host reads and writes it as the product comes in.  That pays
 * when C is ONTO_BETA_BYTES or more (H100, repeated DSYMM n = 8192: 27.7-28.3 ms against
 * 31.0-32.2 with C going up; n = 4096, 128 MiB: 7.9-8.9 against 7.4-7.8), or when C is pageable
 * and not held by the pin cache, whose upload would be staged as well (docs/performance.md).
 * CUFORT_L3_HOST_BETA=0: C always goes up. */
#define ONTO_BETA_BYTES (256.0 * 1024 * 1024)
static int onto_beta_allowed(void)
{
    const char *env = getenv("CUFORT_L3_HOST_BETA");
    return !(env && *env == '0');
}

int cufort_l3_one_device(const char *routine, const cufort_l3 *c)
{
    int st = cufort_ensure_init(routine);
    if (st)
        return st;
    int rank_k = c->op >= CUFORT_L3_SYRK, tri = c->op == CUFORT_L3_TRSM || c->op == CUFORT_L3_TRMM;
    int sym = c->op == CUFORT_L3_SYMM || c->op == CUFORT_L3_HEMM, left = cufort_l3_left(c->side);
    int64_t rows = rank_k ? c->n : c->m, cols = c->n, order = rank_k ? c->n : left ? c->m : c->n;
    if (rows <= 0 || cols <= 0)
        return CUFORT_SUCCESS;
    int needs_b = cufort_l3_needs_b(c);
    if (cufort_l3_null_array(c))
        return cufort_null_arg(routine, "a host array");
    /* the bytes of every operand (a rank-k update with a small C but a long k is pipelined too,
     * rather than staged whole) */
    double ar = rank_k ? (double)c->n * (double)c->k : (double)order * (double)order;
    double bytes = (double)cufort_prec_size(c->prec) *
                   (ar * (1 + (rank_k && needs_b)) + (double)rows * (double)cols * (1 + sym));
    size_t whole_bytes = 128 << 20;
    cufort_env_bytes("CUFORT_L3_WHOLE_BYTES", &whole_bytes);
    if (bytes <= (double)whole_bytes)
        return whole(routine, c);
    size_t cap = cufort_thunk_device_budget();
    /* the pipeline, and the dimension it cuts: columns of B for a TRSM/TRMM (chunks on the left,
     * blocks of the triangle on the right), of C for the others but a right SYMM (its rows) */
    int left_tri = tri && left;
    int k_chunks = rank_k && by_k_chunks(c, cap);
    int (*pipeline)(cufort_l3_job *, char *) = left_tri ? cufort_l3_left_tri
                                               : k_chunks ? cufort_l3_rank_k_chunks
                                               : tri ? cufort_l3_triangular : cufort_l3_panels;
    need_fn need = left_tri ? cufort_l3_left_tri_need
                   : k_chunks ? cufort_l3_rank_k_need
                   : tri ? cufort_l3_triangular_need : cufort_l3_panels_need;
    int64_t dim = k_chunks ? c->k : sym && !left ? rows : cols;
    int64_t w = width(c, need, dim, cap);
    char *buf = NULL;
    if (w > 0 && (st = cufort_thunk_scratch(need(c, w), (void **)&buf))) {
        if (st != CUFORT_ALLOC_FAILED)
            return cufort_in(routine, st);
        cufort_clear_error();   /* another thread or process took the memory: halve the problem */
        w = 0;
    }
    if (w == 0) {
        if (order < 2)
            return cufort_fail(CUFORT_ALLOC_FAILED,
                               "%s: the device memory cap (%zu bytes, CUFORT_DEVICE_MEMORY_CAP) is "
                               "too small for one block", routine, cap);
        return split(routine, c);
    }
    cufort_l3_job j = {.c = c, .w = w};
    if ((st = cufort_l3_begin(&j)))
        return cufort_in(routine, st);
    if (rank_k) {
        int64_t ar = NOTR(c->trans) ? c->n : c->k, ac = NOTR(c->trans) ? c->k : c->n;
        cufort_l3_offer(&j, &j.a, c->A, ar, ac, c->lda);
        if (needs_b)
            cufort_l3_offer(&j, &j.b, c->B, ar, ac, c->ldb);
    } else {
        cufort_l3_offer(&j, &j.a, c->A, order, order, c->lda);
        if (sym)
            cufort_l3_offer(&j, &j.b, c->B, c->m, c->n, c->ldb);
    }
    j.host_beta = cufort_held_offer_c(&j.out, c->C, rows, cols, c->ldc, j.es,
                                      sym && c->beta != 0 && onto_beta_allowed(),
                                      (double)rows * (double)cols * (double)j.es >= ONTO_BETA_BYTES);
    cufort_stream caller = cufort_swap_thread_stream(j.comp);
    st = pipeline(&j, buf);
    st = cufort_l3_finish(&j, st);
    cufort_swap_thread_stream(caller);
    return cufort_in(routine, st);
}
