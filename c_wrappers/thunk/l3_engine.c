/* l3_engine.c — TRSM, TRMM, SYMM/HEMM and the rank-k updates on host arrays (see l3_engine.h).
 *
 * A call keeps one operand resident and streams panels of its output through SLOTS device slots:
 * panel p is uploaded (h2d) while panel p-1 computes (comp) and panel p-2 comes back (d2h), the
 * streams ordered by each slot's events.  The device work is the C ABI's own device-pointer
 * routines on this thread's engine streams, so the backends (cuBLAS or the CPU BLAS) are reached
 * exactly as a device-pointer call reaches them.
 *
 * Host arrays the program pinned, or that the pin cache holds whole, go to the DMA engines as
 * they lie; the others go through staging.  Each operand is offered to the pin cache whole, once
 * per call, so that a program repeating a call on the same arrays gets them pinned. */
#include <complex.h>
#include <ctype.h>
#include <stdlib.h>

#include "gemm_engine.h"
#include "l3_engine.h"
#include "pin_cache.h"
#include "scratch.h"
#include "staging.h"
#include "thread_state.h"

enum { SLOTS = 3, ALIGN = 256, MIN_PANEL = 256, MAX_PANEL = 2048 };
enum { READY, COMPUTED, DONE, EVENTS };

typedef struct {
    cufort_thread_state link;
    cufort_stream h2d, comp, d2h;
    cufort_event resident;              /* the resident operands are on the device */
    cufort_event ev[SLOTS][EVENTS];
} engine;

static void release_engine(cufort_thread_state *s)
{
    engine *e = (engine *)s;
    cufort_thunk_events_release(&e->resident, 1);
    for (int i = 0; i < SLOTS; i++)
        cufort_thunk_events_release(e->ev[i], EVENTS);
    cufort_thunk_streams_release((cufort_stream *const[]){&e->h2d, &e->comp, &e->d2h}, 3);
}

static cufort_thread_states engines = CUFORT_THREAD_STATES(engine, release_engine);
static _Thread_local engine *mine;

static int my_engine(engine **out)
{
    engine *e = cufort_thread_state_get(&engines, (void **)&mine);
    if (!e)
        return CUFORT_ALLOC_FAILED;
    int st = cufort_thunk_streams((cufort_stream *const[]){&e->h2d, &e->comp, &e->d2h}, 3);
    for (int i = 0; i < SLOTS && !st; i++)
        st = cufort_thunk_events(e->ev[i], EVENTS);
    if (!st)
        st = cufort_thunk_events(&e->resident, 1);
    *out = e;
    return st;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static size_t rounded(size_t bytes) { return (bytes + ALIGN - 1) / ALIGN * ALIGN; }
static int is_rank_k(cufort_l3_op op) { return op >= CUFORT_L3_SYRK; }
static int herm(cufort_l3_op op)
{
    return op == CUFORT_L3_HEMM || op == CUFORT_L3_HERK || op == CUFORT_L3_HER2K || op == CUFORT_L3_HERKX;
}

/* ---- the device routines, through the C ABI ---- */

#define R4(x) ((float)creal(x))
#define C4(x) ((cufort_cfloat)(x))

static int dev_gemm(char p, char ta, char tb, int64_t m, int64_t n, int64_t k, double complex al,
                    const void *A, int64_t lda, const void *B, int64_t ldb, double complex be, void *C,
                    int64_t ldc)
{
    switch (p) {
    case 's': return cufort_sgemm(ta, tb, m, n, k, R4(al), A, lda, B, ldb, R4(be), C, ldc);
    case 'd': return cufort_dgemm(ta, tb, m, n, k, creal(al), A, lda, B, ldb, creal(be), C, ldc);
    case 'c': return cufort_cgemm(ta, tb, m, n, k, C4(al), A, lda, B, ldb, C4(be), C, ldc);
    default: return cufort_zgemm(ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
    }
}

static int dev_tri(const cufort_l3 *c, int64_t m, int64_t n, const void *A, int64_t lda, void *B,
                   int64_t ldb)
{
    double complex al = c->alpha;
    char s = c->side, u = c->uplo, t = c->trans, d = c->diag;
    if (c->op == CUFORT_L3_TRSM)
        switch (c->prec) {
        case 's': return cufort_strsm(s, u, t, d, m, n, R4(al), A, lda, B, ldb);
        case 'd': return cufort_dtrsm(s, u, t, d, m, n, creal(al), A, lda, B, ldb);
        case 'c': return cufort_ctrsm(s, u, t, d, m, n, C4(al), A, lda, B, ldb);
        default: return cufort_ztrsm(s, u, t, d, m, n, al, A, lda, B, ldb);
        }
    switch (c->prec) {
    case 's': return cufort_strmm(s, u, t, d, m, n, R4(al), A, lda, B, ldb);
    case 'd': return cufort_dtrmm(s, u, t, d, m, n, creal(al), A, lda, B, ldb);
    case 'c': return cufort_ctrmm(s, u, t, d, m, n, C4(al), A, lda, B, ldb);
    default: return cufort_ztrmm(s, u, t, d, m, n, al, A, lda, B, ldb);
    }
}

static int dev_symm(const cufort_l3 *c, int64_t m, int64_t n, const void *A, int64_t lda,
                    const void *B, int64_t ldb, void *C, int64_t ldc)
{
    double complex al = c->alpha, be = c->beta;
    char s = c->side, u = c->uplo;
    switch (c->prec) {
    case 's': return cufort_ssymm(s, u, m, n, R4(al), A, lda, B, ldb, R4(be), C, ldc);
    case 'd': return cufort_dsymm(s, u, m, n, creal(al), A, lda, B, ldb, creal(be), C, ldc);
    case 'c':
        return c->op == CUFORT_L3_HEMM ? cufort_chemm(s, u, m, n, C4(al), A, lda, B, ldb, C4(be), C, ldc)
                                       : cufort_csymm(s, u, m, n, C4(al), A, lda, B, ldb, C4(be), C, ldc);
    default:
        return c->op == CUFORT_L3_HEMM ? cufort_zhemm(s, u, m, n, al, A, lda, B, ldb, be, C, ldc)
                                       : cufort_zsymm(s, u, m, n, al, A, lda, B, ldb, be, C, ldc);
    }
}

/* the diagonal block of a rank-k update: n x n of C from n rows of op(A) (and op(B)) */
static int dev_rank_k(const cufort_l3 *c, int64_t n, const void *A, int64_t lda, const void *B,
                      int64_t ldb, double complex be, void *C, int64_t ldc)
{
    double complex al = c->alpha;
    char u = c->uplo, t = c->trans, p = c->prec;
    int64_t k = c->k;
    switch (c->op) {
    case CUFORT_L3_SYRK:
        return p == 's' ? cufort_ssyrk(u, t, n, k, R4(al), A, lda, R4(be), C, ldc)
             : p == 'd' ? cufort_dsyrk(u, t, n, k, creal(al), A, lda, creal(be), C, ldc)
             : p == 'c' ? cufort_csyrk(u, t, n, k, C4(al), A, lda, C4(be), C, ldc)
                        : cufort_zsyrk(u, t, n, k, al, A, lda, be, C, ldc);
    case CUFORT_L3_HERK:
        return p == 'c' ? cufort_cherk(u, t, n, k, R4(al), A, lda, R4(be), C, ldc)
                        : cufort_zherk(u, t, n, k, creal(al), A, lda, creal(be), C, ldc);
    case CUFORT_L3_SYR2K:
        return p == 's' ? cufort_ssyr2k(u, t, n, k, R4(al), A, lda, B, ldb, R4(be), C, ldc)
             : p == 'd' ? cufort_dsyr2k(u, t, n, k, creal(al), A, lda, B, ldb, creal(be), C, ldc)
             : p == 'c' ? cufort_csyr2k(u, t, n, k, C4(al), A, lda, B, ldb, C4(be), C, ldc)
                        : cufort_zsyr2k(u, t, n, k, al, A, lda, B, ldb, be, C, ldc);
    case CUFORT_L3_HER2K:
        return p == 'c' ? cufort_cher2k(u, t, n, k, C4(al), A, lda, B, ldb, R4(be), C, ldc)
                        : cufort_zher2k(u, t, n, k, al, A, lda, B, ldb, creal(be), C, ldc);
    case CUFORT_L3_SYRKX:
        return p == 's' ? cufort_ssyrkx(u, t, n, k, R4(al), A, lda, B, ldb, R4(be), C, ldc)
             : p == 'd' ? cufort_dsyrkx(u, t, n, k, creal(al), A, lda, B, ldb, creal(be), C, ldc)
             : p == 'c' ? cufort_csyrkx(u, t, n, k, C4(al), A, lda, B, ldb, C4(be), C, ldc)
                        : cufort_zsyrkx(u, t, n, k, al, A, lda, B, ldb, be, C, ldc);
    default:
        return p == 'c' ? cufort_cherkx(u, t, n, k, C4(al), A, lda, B, ldb, R4(be), C, ldc)
                        : cufort_zherkx(u, t, n, k, al, A, lda, B, ldb, creal(be), C, ldc);
    }
}

/* ---- one call ---- */

typedef struct {
    const char *p;
    int64_t ld;
    uintptr_t lo, hi;                   /* the part the DMA engines reach as it lies */
    uint64_t pin;
    int cached;                         /* the pin cache's, held until the call ends */
} operand;

typedef struct {
    const cufort_l3 *c;
    size_t es;
    engine *e;
    const cufort_backend_ops *ops;
    operand a, b, out;                  /* out: B of TRSM/TRMM, C otherwise */
    int rank_k, by_rows, c_in;          /* by_rows: right side, panels of rows */
    int64_t ka;                         /* the order of A (TRSM, TRMM, SYMM) */
    int64_t ar, ac;                     /* rank-k: the shape of A (and B) as stored */
    int64_t rows, cols, w, panels;      /* the output and its panels */
    char *dA, *dB, *slot[SLOTS], *slot_b[SLOTS], *tmp;
} job;

static void offer(job *j, operand *o, const void *p, int64_t rows, int64_t cols, int64_t ld)
{
    *o = (operand){.p = p, .ld = ld};
    if (!p || rows <= 0 || cols <= 0)
        return;
    size_t span = (size_t)cufort_extent_mat(rows, cols, ld) * j->es;
    if (cufort_host_pinned(p, span)) {
        o->lo = (uintptr_t)p;
        o->hi = o->lo + span;
    } else {
        o->cached = cufort_pin_cache_offer(p, span, &o->lo, &o->hi, &o->pin);
    }
}

static const char *at(const job *j, const operand *o, int64_t r, int64_t c)
{
    return o->p + (size_t)(r + c * o->ld) * j->es;
}

static int dma(const operand *o, const char *h, size_t bytes)
{
    return (uintptr_t)h >= o->lo && (uintptr_t)h + bytes <= o->hi;
}

/* rows x cols of o from (r, c) to dev, dld apart; a pageable block whose device rows are not
 * packed goes through tmp (on the device) */
static int put(job *j, const operand *o, int64_t r, int64_t c, int64_t rows, int64_t cols, char *dev,
               int64_t dld, char *tmp)
{
    if (rows <= 0 || cols <= 0)
        return CUFORT_SUCCESS;
    const char *h = at(j, o, r, c);
    size_t w = (size_t)rows * j->es, hp = (size_t)o->ld * j->es, dp = (size_t)dld * j->es;
    cufort_stream s = j->e->h2d;
    if (dma(o, h, hp * (size_t)(cols - 1) + w))
        return j->ops->copy2d(dev, dp, h, hp, w, (size_t)cols, CUFORT_H2D, s, 1);
    if (dld == rows)
        return cufort_stage_to_device_unoffered(s, dev, h, hp, w, (size_t)cols);
    int st = cufort_stage_to_device_unoffered(s, tmp, h, hp, w, (size_t)cols);
    return st ? st : j->ops->copy2d(dev, dp, tmp, w, w, (size_t)cols, CUFORT_D2D, s, 1);
}

/* rows x cols packed on the device back to o at (r, c) */
static int get(job *j, int64_t r, int64_t c, int64_t rows, int64_t cols, const char *dev)
{
    char *h = (char *)at(j, &j->out, r, c);
    size_t w = (size_t)rows * j->es, hp = (size_t)j->out.ld * j->es;
    cufort_stream s = j->e->d2h;
    if (dma(&j->out, h, hp * (size_t)(cols - 1) + w))
        return j->ops->copy2d(h, hp, dev, w, w, (size_t)cols, CUFORT_D2H, s, 1);
    return cufort_stage_to_host_unoffered(s, h, hp, dev, w, (size_t)cols);
}

/* ---- planning ---- */

static int64_t panel_width(int64_t dim)
{
    const char *env = getenv("CUFORT_L3_PANEL");
    long long w = env ? atoll(env) : 0;
    if (w <= 0)
        w = min64(MAX_PANEL, max64(MIN_PANEL, cdiv(cdiv(dim, 8), 256) * 256));
    return min64(dim, w);
}

static size_t resident_bytes(const job *j)
{
    if (!j->rank_k)
        return rounded((size_t)(j->ka * j->ka) * j->es);
    int two = j->c->op != CUFORT_L3_SYRK && j->c->op != CUFORT_L3_HERK;
    return (size_t)(1 + two) * rounded((size_t)(j->ar * j->ac) * j->es);
}

static size_t slot_bytes(const job *j, int64_t w)
{
    return rounded((size_t)((j->by_rows ? j->cols : j->rows) * w) * j->es);
}

/* A rank-k update's staging area on the device: a pageable block that is not packed there (a
 * diagonal block of C when C is not read, w rows of an untransposed A or B) goes through it. */
static size_t tmp_bytes(const job *j, int64_t w)
{
    if (!j->rank_k)
        return 0;
    int64_t diag = j->c_in ? 0 : w * w, rows = NOTR(j->c->trans) ? w * j->c->k : 0;
    return rounded((size_t)max64(diag, rows) * j->es);
}

static size_t need(const job *j, int64_t w)
{
    int per_slot = j->c->op == CUFORT_L3_SYMM || j->c->op == CUFORT_L3_HEMM ? 2 : 1;
    return resident_bytes(j) + (size_t)(SLOTS * per_slot) * slot_bytes(j, w) + tmp_bytes(j, w);
}

/* panel p: its rows and columns of the output, and where they start */
static void region(const job *j, int64_t p, int64_t *r0, int64_t *c0, int64_t *rows, int64_t *cols)
{
    int64_t lo = p * j->w, len = min64(j->w, (j->by_rows ? j->rows : j->cols) - lo);
    if (j->by_rows) {
        *r0 = lo, *rows = len, *c0 = 0, *cols = j->cols;
    } else if (!j->rank_k) {
        *r0 = 0, *rows = j->rows, *c0 = lo, *cols = len;
    } else {   /* the triangle's part of columns lo.. */
        int lower = toupper((unsigned char)j->c->uplo) == 'L';
        *c0 = lo, *cols = len;
        *r0 = lower ? lo : 0;
        *rows = lower ? j->rows - lo : lo + len;
    }
}

/* ---- the pipeline ---- */

/* the triangle, in blocks of columns of the panel width (slot 0, free until the panels start,
 * carries the pageable ones) */
static int upload_triangle(job *j)
{
    int lower = toupper((unsigned char)j->c->uplo) == 'L', st = CUFORT_SUCCESS;
    for (int64_t c0 = 0; c0 < j->ka && !st; c0 += j->w) {
        int64_t cols = min64(j->w, j->ka - c0), r0 = lower ? c0 : 0;
        int64_t rows = lower ? j->ka - c0 : c0 + cols;
        st = put(j, &j->a, r0, c0, rows, cols, j->dA + (size_t)(r0 + c0 * j->ka) * j->es, j->ka,
                 j->slot[0]);
    }
    return st ? st : j->ops->event_record(j->e->resident, j->e->h2d);
}

/* A rank-k update's panel of columns c0.. needs op(A)'s (and op(B)'s) rows from c0 on for a
 * lower C, up to c0 + cols for an upper one.  The panels go bottom up for a lower C, top down for
 * an upper one, so each brings one new block of rows and the first computes long before the last
 * rows are up. */
static int64_t panel_at(const job *j, int64_t i)
{
    return j->rank_k && toupper((unsigned char)j->c->uplo) == 'L' ? j->panels - 1 - i : i;
}

static int upload_rows(job *j, const operand *o, char *dev, int64_t c0, int64_t cols)
{
    if (NOTR(j->c->trans))
        return put(j, o, c0, 0, cols, j->c->k, dev + (size_t)c0 * j->es, j->ar, j->tmp);
    return put(j, o, 0, c0, j->c->k, cols, dev + (size_t)(c0 * j->ar) * j->es, j->ar, NULL);
}

static int upload_panel(job *j, int s, int64_t r0, int64_t c0, int64_t rows, int64_t cols)
{
    const cufort_l3 *c = j->c;
    switch (c->op) {
    case CUFORT_L3_TRSM:
    case CUFORT_L3_TRMM:
        return put(j, &j->out, r0, c0, rows, cols, j->slot[s], rows, NULL);
    case CUFORT_L3_SYMM:
    case CUFORT_L3_HEMM: {
        int st = put(j, &j->b, r0, c0, rows, cols, j->slot_b[s], rows, NULL);
        return st || !j->c_in ? st : put(j, &j->out, r0, c0, rows, cols, j->slot[s], rows, NULL);
    }
    default: {
        int st = upload_rows(j, &j->a, j->dA, c0, cols);
        if (!st && j->dB)
            st = upload_rows(j, &j->b, j->dB, c0, cols);
        if (st || j->c_in)
            return st ? st : put(j, &j->out, r0, c0, rows, cols, j->slot[s], rows, NULL);
        /* beta = 0: only the diagonal block goes up, so that its other triangle (which the
         * program may keep data in) comes back as it was */
        int64_t off = toupper((unsigned char)c->uplo) == 'L' ? 0 : c0;
        return put(j, &j->out, c0, c0, cols, cols, j->slot[s] + (size_t)off * j->es, rows, j->tmp);
    }
    }
}

/* row i of op(A) (or op(B)) on the device, and the transposes that multiply it into C */
static const char *op_row(const job *j, const char *dev, int64_t i)
{
    return dev + (size_t)(NOTR(j->c->trans) ? i : i * j->ar) * j->es;
}

static int compute_panel(job *j, int s, int64_t c0, int64_t rows, int64_t cols)
{
    const cufort_l3 *c = j->c;
    char *out = j->slot[s];
    switch (c->op) {
    case CUFORT_L3_TRSM:
    case CUFORT_L3_TRMM:
        return dev_tri(c, rows, cols, j->dA, j->ka, out, rows);
    case CUFORT_L3_SYMM:
    case CUFORT_L3_HEMM:
        return dev_symm(c, rows, cols, j->dA, j->ka, j->slot_b[s], rows, out, rows);
    default:
        break;
    }
    /* rank k: the diagonal block, then the rectangle of the triangle's other rows (below it for
     * a lower C, above it for an upper one) */
    int lower = toupper((unsigned char)c->uplo) == 'L';
    int64_t ld = max64(1, j->ar), k = c->k, diag = lower ? 0 : c0;
    int64_t rect0 = lower ? c0 + cols : 0, rect_rows = rows - cols, rect_at = lower ? cols : 0;
    const char *dB = j->dB ? j->dB : j->dA;
    int st = dev_rank_k(c, cols, op_row(j, j->dA, c0), ld, op_row(j, dB, c0), ld, c->beta,
                        out + (size_t)diag * j->es, rows);
    if (st || rect_rows <= 0)
        return st;
    char h = herm(c->op) ? 'C' : 'T';
    int n_form = NOTR(c->trans);
    char ta = n_form ? 'N' : h, tb = n_form ? h : 'N';
    char *dst = out + (size_t)rect_at * j->es;
    /* C(rect, J) = alpha op(A)(rect) op(B)(J)^T [+ alpha' op(B)(rect) op(A)(J)^T] + beta C */
    st = dev_gemm(c->prec, ta, tb, rect_rows, cols, k, c->alpha, op_row(j, j->dA, rect0), ld,
                  op_row(j, dB, c0), ld, c->beta, dst, rows);
    if (!st && (c->op == CUFORT_L3_SYR2K || c->op == CUFORT_L3_HER2K))
        st = dev_gemm(c->prec, ta, tb, rect_rows, cols, k,
                      c->op == CUFORT_L3_HER2K ? conj(c->alpha) : c->alpha, op_row(j, dB, rect0), ld,
                      op_row(j, j->dA, c0), ld, 1, dst, rows);
    return st;
}

static int download_panel(job *j, int64_t i)
{
    int64_t r0, c0, rows, cols;
    region(j, panel_at(j, i), &r0, &c0, &rows, &cols);
    cufort_event *ev = j->e->ev[i % SLOTS];
    int st = j->ops->stream_wait(j->e->d2h, ev[COMPUTED]);
    if (!st)
        st = get(j, r0, c0, rows, cols, j->slot[i % SLOTS]);
    return st ? st : j->ops->event_record(ev[DONE], j->e->d2h);
}

/* Panel i's upload waits for the download of panel i - SLOTS (its slot), its compute for its
 * upload, its download for its compute; the download of panel i - 1 is queued after panel i's
 * compute, so that the host's staging of one overlaps the GPU's work on the other. */
static int run(job *j)
{
    const cufort_backend_ops *ops = j->ops;
    engine *e = j->e;
    int st = CUFORT_SUCCESS;
    if (!j->rank_k && !(st = upload_triangle(j)))
        st = ops->stream_wait(e->comp, e->resident);
    for (int64_t i = 0; i < j->panels && !st; i++) {
        int s = (int)(i % SLOTS);
        int64_t r0, c0, rows, cols;
        region(j, panel_at(j, i), &r0, &c0, &rows, &cols);
        if (i >= SLOTS)
            st = ops->stream_wait(e->h2d, e->ev[s][DONE]);
        if (!st)
            st = upload_panel(j, s, r0, c0, rows, cols);
        if (!st)
            st = ops->event_record(e->ev[s][READY], e->h2d);
        if (!st)
            st = ops->stream_wait(e->comp, e->ev[s][READY]);
        if (!st)
            st = compute_panel(j, s, c0, rows, cols);
        if (!st)
            st = ops->event_record(e->ev[s][COMPUTED], e->comp);
        if (!st && i >= 1)
            st = download_panel(j, i - 1);
    }
    if (!st && j->panels)
        st = download_panel(j, j->panels - 1);
    return st;
}

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

static int gemm_engine(const char *routine, const cufort_l3 *c, char ta, char tb, int64_t m,
                       int64_t n, int64_t k, double complex alpha, const void *A, int64_t lda,
                       const void *B, int64_t ldb, double complex beta, void *C, int64_t ldc)
{
    _Alignas(16) char al[16], be[16];
    scalar(c->prec, alpha, al);
    scalar(c->prec, beta, be);
    return cufort_thunk_gemm(routine, c->prec, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}

static const char *elem(const cufort_l3 *c, const void *p, int64_t ld, int64_t r, int64_t col)
{
    size_t es = c->prec == 's' ? 4 : c->prec == 'z' ? 16 : 8;
    return (const char *)p + (size_t)(r + col * ld) * es;
}

/* op(A)'s block (rows r0.., columns c0..) as a GEMM operand: its pointer and transpose */
static const char *op_block(const cufort_l3 *c, int64_t r0, int64_t c0, char *t)
{
    *t = NOTR(c->trans) ? 'N' : c->trans;
    return NOTR(c->trans) ? elem(c, c->A, c->lda, r0, c0) : elem(c, c->A, c->lda, c0, r0);
}

static int split_tri(const char *routine, const cufort_l3 *c)
{
    int left = toupper((unsigned char)c->side) == 'L';
    int64_t ka = left ? c->m : c->n, h = ka / 2;
    /* lower: op(A) is lower triangular; lead: the half a solve starts from */
    int lower = (toupper((unsigned char)c->uplo) == 'L') == NOTR(c->trans);
    int lead_lo = left == lower;
    int64_t l0 = lead_lo ? 0 : h, ln = lead_lo ? h : ka - h, o0 = lead_lo ? h : 0, on = ka - ln;
    cufort_l3 lead = *c, other = *c;
    lead.A = elem(c, c->A, c->lda, l0, l0);
    other.A = elem(c, c->A, c->lda, o0, o0);
    void *Bl = (void *)(left ? elem(c, c->C, c->ldc, l0, 0) : elem(c, c->C, c->ldc, 0, l0));
    void *Bo = (void *)(left ? elem(c, c->C, c->ldc, o0, 0) : elem(c, c->C, c->ldc, 0, o0));
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
        if ((st = cufort_thunk_l3(routine, &lead)))
            return st;
        st = left ? gemm_engine(routine, c, t, 'N', on, c->n, ln, -1, Ac, c->lda, Bl, c->ldc, c->alpha, Bo, c->ldc)
                  : gemm_engine(routine, c, 'N', t, c->m, on, ln, -1, Bl, c->ldc, Ac, c->lda, c->alpha, Bo, c->ldc);
        other.alpha = 1;
        return st ? st : cufort_thunk_l3(routine, &other);
    }
    /* TRMM: B_other needs B_lead as it was: B_other first, then the coupling, then B_lead */
    if ((st = cufort_thunk_l3(routine, &other)))
        return st;
    st = left ? gemm_engine(routine, c, t, 'N', on, c->n, ln, c->alpha, Ac, c->lda, Bl, c->ldc, 1, Bo, c->ldc)
              : gemm_engine(routine, c, 'N', t, c->m, on, ln, c->alpha, Bl, c->ldc, Ac, c->lda, 1, Bo, c->ldc);
    return st ? st : cufort_thunk_l3(routine, &lead);
}

static int split_symm(const char *routine, const cufort_l3 *c)
{
    int left = toupper((unsigned char)c->side) == 'L', upper = toupper((unsigned char)c->uplo) == 'U';
    int64_t ka = left ? c->m : c->n, h = ka / 2;
    int64_t start[2] = {0, h}, len[2] = {h, ka - h};
    for (int i = 0; i < 2; i++) {
        int o = 1 - i;
        cufort_l3 half = *c;
        half.A = elem(c, c->A, c->lda, start[i], start[i]);
        half.B = left ? elem(c, c->B, c->ldb, start[i], 0) : elem(c, c->B, c->ldb, 0, start[i]);
        half.C = (void *)(left ? elem(c, c->C, c->ldc, start[i], 0) : elem(c, c->C, c->ldc, 0, start[i]));
        if (left)
            half.m = len[i];
        else
            half.n = len[i];
        int st = cufort_thunk_l3(routine, &half);
        if (st)
            return st;
        /* A(i, o) on the left, A(o, i) on the right: stored, or the transpose of what is */
        int64_t r = left ? start[i] : start[o], col = left ? start[o] : start[i];
        int stored = upper == (r < col);
        char t = stored ? 'N' : herm(c->op) ? 'C' : 'T';
        const char *Ac = stored ? elem(c, c->A, c->lda, r, col) : elem(c, c->A, c->lda, col, r);
        st = left ? gemm_engine(routine, c, t, 'N', len[i], c->n, len[o], c->alpha, Ac, c->lda,
                                elem(c, c->B, c->ldb, start[o], 0), c->ldb, 1, half.C, c->ldc)
                  : gemm_engine(routine, c, 'N', t, c->m, len[i], len[o], c->alpha,
                                elem(c, c->B, c->ldb, 0, start[o]), c->ldb, Ac, c->lda, 1, half.C, c->ldc);
        if (st)
            return st;
    }
    return CUFORT_SUCCESS;
}

static int split_rank_k(const char *routine, const cufort_l3 *c)
{
    int64_t h = c->n / 2, n2 = c->n - h;
    int lower = toupper((unsigned char)c->uplo) == 'L', nf = NOTR(c->trans);
    int two = c->op == CUFORT_L3_SYR2K || c->op == CUFORT_L3_HER2K;
    const void *B = c->op == CUFORT_L3_SYRK || c->op == CUFORT_L3_HERK ? c->A : c->B;
    int64_t ldb = B == c->A ? c->lda : c->ldb;
    for (int i = 0; i < 2; i++) {
        int64_t s = i ? h : 0;
        cufort_l3 half = *c;
        half.n = i ? n2 : h;
        half.A = nf ? elem(c, c->A, c->lda, s, 0) : elem(c, c->A, c->lda, 0, s);
        if (c->B)
            half.B = nf ? elem(c, c->B, c->ldb, s, 0) : elem(c, c->B, c->ldb, 0, s);
        half.C = (void *)elem(c, c->C, c->ldc, s, s);
        int st = cufort_thunk_l3(routine, &half);
        if (st)
            return st;
    }
    /* the off-diagonal block: rows of one half of op(A) times the other's, transposed */
    int64_t r = lower ? h : 0, col = lower ? 0 : h, m = lower ? n2 : h, n = lower ? h : n2;
    char hc = herm(c->op) ? 'C' : 'T', ta = nf ? 'N' : hc, tb = nf ? hc : 'N';
#define ROWS(P, LD, i) (nf ? elem(c, P, LD, i, 0) : elem(c, P, LD, 0, i))
    void *C = (void *)elem(c, c->C, c->ldc, r, col);
    int st = gemm_engine(routine, c, ta, tb, m, n, c->k, c->alpha, ROWS(c->A, c->lda, r), c->lda,
                         ROWS(B, ldb, col), ldb, c->beta, C, c->ldc);
    if (!st && two)
        st = gemm_engine(routine, c, ta, tb, m, n, c->k,
                         c->op == CUFORT_L3_HER2K ? conj(c->alpha) : c->alpha, ROWS(c->B, c->ldb, r),
                         c->ldb, ROWS(c->A, c->lda, col), c->lda, 1, C, c->ldc);
#undef ROWS
    return st;
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

/* ---- entry ---- */

static int plan(job *j, size_t cap)
{
    int64_t dim = j->by_rows ? j->rows : j->cols;
    j->w = panel_width(dim);
    while (need(j, j->w) > cap && j->w > MIN_PANEL)
        j->w = max64(MIN_PANEL, j->w / 2);
    while (need(j, j->w) > cap && j->w > 1)   /* small outputs: narrower panels still */
        j->w = j->w / 2;
    j->panels = cdiv(dim, j->w);
    return need(j, j->w) <= cap;
}

int cufort_thunk_l3(const char *routine, const cufort_l3 *c)
{
    int st = cufort_ensure_init(routine);
    if (st)
        return st;
    job j = {.c = c, .es = c->prec == 's' ? 4 : c->prec == 'z' ? 16 : 8, .ops = cufort_ops()};
    j.rank_k = is_rank_k(c->op);
    int left = toupper((unsigned char)c->side) == 'L';
    if (j.rank_k) {
        j.rows = j.cols = c->n;
        j.ar = NOTR(c->trans) ? c->n : c->k;
        j.ac = NOTR(c->trans) ? c->k : c->n;
    } else {
        j.rows = c->m;
        j.cols = c->n;
        j.ka = left ? c->m : c->n;
        j.by_rows = !left;
    }
    if (j.rows <= 0 || j.cols <= 0)
        return CUFORT_SUCCESS;
    int sym = c->op == CUFORT_L3_SYMM || c->op == CUFORT_L3_HEMM;
    j.c_in = (sym || j.rank_k) && c->beta != 0;
    size_t cap = cufort_thunk_device_budget();
    if (!plan(&j, cap)) {
        int64_t order = j.rank_k ? c->n : j.ka;
        if (order < 2)
            return cufort_fail(CUFORT_ALLOC_FAILED,
                               "%s: the device memory cap (%zu bytes, CUFORT_DEVICE_MEMORY_CAP) is "
                               "too small for one panel", routine, cap);
        return split(routine, c);
    }
    char *buf;
    if ((st = my_engine(&j.e)))
        return cufort_in(routine, st);
    size_t total = need(&j, j.w);
    if ((st = cufort_thunk_scratch(total, (void **)&buf))) {
        if (st != CUFORT_ALLOC_FAILED || (j.rank_k ? c->n : j.ka) < 2)
            return cufort_in(routine, st);
        cufort_clear_error();   /* another thread or process took the memory: halve the problem */
        return split(routine, c);
    }
    j.dA = buf;
    buf += resident_bytes(&j);
    if (c->op == CUFORT_L3_SYR2K || c->op == CUFORT_L3_HER2K || c->op == CUFORT_L3_SYRKX ||
        c->op == CUFORT_L3_HERKX)
        j.dB = j.dA + rounded((size_t)(j.ar * j.ac) * j.es);
    for (int s = 0; s < SLOTS; s++, buf += slot_bytes(&j, j.w))
        j.slot[s] = buf;
    for (int s = 0; s < SLOTS && sym; s++, buf += slot_bytes(&j, j.w))
        j.slot_b[s] = buf;
    j.tmp = buf;
    if (j.rank_k) {
        offer(&j, &j.a, c->A, j.ar, j.ac, c->lda);
        if (j.dB)
            offer(&j, &j.b, c->B, j.ar, j.ac, c->ldb);
    } else {
        offer(&j, &j.a, c->A, j.ka, j.ka, c->lda);
        if (sym)
            offer(&j, &j.b, c->B, c->m, c->n, c->ldb);
    }
    offer(&j, &j.out, c->C, j.rows, j.cols, c->ldc);
    cufort_stream caller = cufort_swap_thread_stream(j.e->comp);
    st = run(&j);
    cufort_stream streams[] = {j.e->h2d, j.e->comp, j.e->d2h};
    for (int i = 0; i < 3; i++) {   /* nothing may still touch the caller's arrays */
        int sync = j.ops->stream_synchronize(streams[i]);
        st = st ? st : sync;
    }
    cufort_swap_thread_stream(caller);
    operand *held[] = {&j.a, &j.b, &j.out};
    for (int i = 0; i < 3; i++)
        if (held[i]->cached)
            cufort_pin_cache_done(held[i]->pin);
    return cufort_in(routine, st);
}
