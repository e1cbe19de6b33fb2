/* fuzz_op_kernels.c — cufort's own reductions and transposes (cufort_kernels.h) in every mode,
 * driven from the generated table (generated/fuzz_kernels.c).
 *
 * Drawing: sizes at their edges and now and then long enough for the kernels' multi-block paths;
 * increments of every sign; predicates of cufort_<p>reduce_count legal and not; leading dimensions
 * near their least legal values (fz_draw_near); now and then a transpose's b drawn over its a.
 *
 * Prediction, in the order cufort_kernels.h's entry points check: not initialised (device modes);
 * a null result; a bad predicate; a bad device result (the _dev mode); an increment of INT64_MIN;
 * an empty call (success); a bad array; overlapping transpose operands (refused on device
 * arrays); else success.  Transposes check trans, the sizes and the leading dimensions first.  Host
 * arrays are judged as the BLAS ones are (fuzz_op_blas.c). */
#include "fuzz.h"

#include <limits.h>
#include <stdlib.h>

/* the predicate texts a count is drawn with: the legal ones first */
static const char *const PRED[] = {"lt", "le", "gt", "ge", "eq", "ne", "<", "<=", ">", ">=", "==", "/=",
                                   "!=", "LT", "Ge ", "eq  ", "", "x", "ltx", "<>", "l", " lt", "=<"};
enum { PRED_LEGAL = 16, PRED_COUNT = sizeof PRED / sizeof *PRED };

const char *fz_pred_text(int64_t i) { return i >= 0 && i < PRED_COUNT ? PRED[i] : NULL; }

static int64_t draw_len(fz_rng *r)
{
    return fz_percent(r, 15) ? (int64_t)fz_below(r, 200000) : fz_draw_int(r, FZ_R_DIM);
}

/* whether b is a's transpose in shape (any trans but 'T' and 'C' is taken as 'N' for b's extent) */
static int transposing(char trans)
{
    char t = (char)toupper((unsigned char)trans);
    return t == 'T' || t == 'C';
}

/* elements each array parameter spans, by position */
static void extents(const fz_kernel *k, const fz_val *v, fz_wide *ext)
{
    memset(ext, 0, sizeof(fz_wide) * FZ_MAX_ARGS);
    switch (k->form) {
    case FZ_KF_RED2:
        ext[3] = fz_ext_vec(v[0].i, v[4].i);
        /* fall through */
    case FZ_KF_RED1:
    case FZ_KF_COUNT:
        ext[1] = fz_ext_vec(v[0].i, v[2].i);
        ext[k->nparams - 1] = 1;
        break;
    case FZ_KF_TR: {
        int t = transposing(v[0].c);
        ext[4] = fz_ext_mat(v[1].i, v[2].i, v[5].i);
        ext[6] = fz_ext_mat(t ? v[2].i : v[1].i, t ? v[1].i : v[2].i, v[7].i);
        break;
    }
    default:
        ext[3] = fz_ext_mat(v[1].i, v[1].i, v[4].i);
        break;
    }
}

static void draw_kernel(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    const fz_kernel *k = op->data;
    for (int i = 0; i < k->nparams; i++) {
        const fz_param *p = &k->params[i];
        fz_arg *a = &c->arg[i];
        a->type = p->type;
        if (p->type == FZ_CHAR)
            a->c = fz_draw_char(r, p->opts);
        else if (p->type == FZ_REAL || p->type == FZ_CPLX)
            fz_draw_scalar(r, a->re, p->type == FZ_CPLX);
        else if (p->type == FZ_INT && p->role == FZ_R_DIM)
            a->i = k->form == FZ_KF_TR || k->form == FZ_KF_TRI ? fz_draw_int(r, FZ_R_DIM) : draw_len(r);
        else if (p->type == FZ_INT && p->role == FZ_R_INC)
            a->i = fz_draw_int(r, FZ_R_INC);
        else if (p->type == FZ_INT && p->role == FZ_R_SMALL)   /* the predicate */
            a->i = fz_percent(r, 75) ? (int64_t)fz_below(r, PRED_LEGAL)
                                     : (int64_t)fz_below(r, PRED_COUNT + 2);
    }
    if (k->form == FZ_KF_TR) {
        c->arg[5].i = fz_draw_near(r, IMAX(1, c->arg[1].i), FZ_R_LD);
        int64_t brows = transposing(c->arg[0].c) ? c->arg[2].i : c->arg[1].i;
        c->arg[7].i = fz_draw_near(r, IMAX(1, brows), FZ_R_LD);
    } else if (k->form == FZ_KF_TRI) {
        c->arg[4].i = fz_draw_near(r, IMAX(1, c->arg[1].i), FZ_R_LD);
    }
    fz_val v[FZ_MAX_ARGS] = {{0}};
    for (int i = 0; i < k->nparams; i++) {
        if (c->arg[i].type == FZ_INT)
            v[i].i = c->arg[i].i;
        else if (c->arg[i].type == FZ_CHAR)
            v[i].c = c->arg[i].c;
    }
    fz_wide ext[FZ_MAX_ARGS];
    extents(k, v, ext);
    for (int i = 0; i < k->nparams; i++) {
        const fz_param *p = &k->params[i];
        fz_array *a = &c->arg[i].a;
        if (p->type != FZ_ARRAY)
            continue;
        if (p->count & FZ_HOSTREF) {
            memset(a, 0, sizeof *a);
            a->place = fz_percent(r, 3) ? FZ_NULL : FZ_HOST;
            a->bytes = p->esize;
            continue;
        }
        fz_draw_array(w, r, a, ext[i], p->esize, op->host);
    }
    if (k->form == FZ_KF_TR && fz_percent(r, 8)) {   /* b over a: exactly, or a few elements on */
        fz_array *b = &c->arg[6].a;
        memset(b, 0, sizeof *b);
        b->place = FZ_ALIAS;
        b->of = 4;
        b->off = fz_percent(r, 50) ? 0 : k->esize * (int64_t)(fz_below(r, 8) + 1);
        if (fz_percent(r, 50))
            c->arg[7].i = c->arg[5].i;
    }
}

/* The outcome of a chain of checks: the first check that decides, unless an undecidable one
 * (an array that may or may not be valid) comes before it. */
typedef struct { int decided, maybe; fz_pred want; } verdict;

static void decide(verdict *d, int when, fz_pred p)
{
    if (!d->decided && when) {
        d->decided = 1;
        d->want = d->maybe ? fz_expect_any() : p;
    }
}

static void unsure(verdict *d, int when)
{
    d->maybe |= !d->decided && when;
}

static int exec_kernel(fz_worker *w, const fz_op *op, const fz_call *c)
{
    const fz_kernel *k = op->data;
    fz_val *v = w->val;
    fz_resolve(w, c);
    fz_wide ext[FZ_MAX_ARGS];
    extents(k, v, ext);
    char fn[64];
    snprintf(fn, sizeof fn, "cufort_%s", k->name);
    const int host = k->mode == FZ_KM_HOST, reduction = k->form != FZ_KF_TR && k->form != FZ_KF_TRI;
    const fz_pred invalid = fz_expect_status(CUFORT_INVALID_VALUE);

    /* the arrays: state, whether a legal call may run past a host array, and the work */
    int state[FZ_MAX_ARGS] = {0}, short_host = 0, impossible = 0;
    for (int i = 0; i < k->nparams; i++) {
        const fz_param *p = &k->params[i];
        if (p->type != FZ_ARRAY || (p->count & FZ_HOSTREF))
            continue;
        state[i] = fz_array_state(c, i, ext[i], p->esize, host);
        if (host && state[i] == FZ_BAD && v[i].p) {
            impossible |= (fz_mul(ext[i], p->esize) >> 64) != 0;
            short_host |= (fz_mul(ext[i], p->esize) >> 64) == 0;
        }
    }
    double work = reduction ? (double)v[0].i
                            : (double)v[1].i * (double)(k->form == FZ_KF_TR ? v[2].i : v[1].i);

    verdict d = {0, 0, {0}};
    int legal = 0, empty = 0;
    if (reduction) {
        const int res = k->nparams - 1, two = k->form == FZ_KF_RED2;
        int bad_pred = 0;
        if (k->form == FZ_KF_COUNT)
            bad_pred = v[3].i < 0 || v[3].i >= PRED_LEGAL;
        decide(&d, !host && !cufort_is_initialized(), fz_expect_status(CUFORT_NOT_INITIALIZED));
        decide(&d, !v[res].p, invalid);
        decide(&d, bad_pred, invalid);
        if (k->mode == FZ_KM_DEV) {
            unsure(&d, state[res] == FZ_MAYBE);
            decide(&d, state[res] == FZ_BAD, fz_expect_status(CUFORT_BAD_POINTER));
        }
        decide(&d, v[2].i == INT64_MIN, (fz_pred){FZ_P_STATUS, CUFORT_INVALID_VALUE, 3, 0});
        decide(&d, two && v[4].i == INT64_MIN, (fz_pred){FZ_P_STATUS, CUFORT_INVALID_VALUE, 5, 0});
        legal = !d.decided;
        empty = legal && v[0].i <= 0;
        decide(&d, v[0].i <= 0, fz_expect_status(CUFORT_SUCCESS));
        for (int i = 1; i <= (two ? 3 : 1); i += 2) {
            unsure(&d, state[i] == FZ_MAYBE);
            decide(&d, state[i] == FZ_BAD, host ? fz_expect_failure() : fz_expect_status(CUFORT_BAD_POINTER));
        }
    } else {
        const int tr = k->form == FZ_KF_TR;
        const int64_t m = v[1].i, n = tr ? v[2].i : v[1].i, lda = v[tr ? 5 : 4].i;
        const int ia = tr ? 4 : 3, ib = 6;
        char t = (char)toupper((unsigned char)v[0].c);
        decide(&d, !host && !cufort_is_initialized(), fz_expect_status(CUFORT_NOT_INITIALIZED));
        decide(&d, t != 'N' && t != 'T' && t != 'C', invalid);
        decide(&d, m < 0 || n < 0, invalid);
        decide(&d, lda < IMAX(1, m), invalid);
        if (tr)
            decide(&d, v[7].i < IMAX(1, t == 'N' ? m : n), invalid);
        legal = !d.decided;
        empty = legal && (m == 0 || n == 0);
        decide(&d, m == 0 || n == 0, fz_expect_status(CUFORT_SUCCESS));
        for (int i = ia; i <= (tr ? ib : ia); i += ib - ia) {
            unsure(&d, state[i] == FZ_MAYBE);
            decide(&d, state[i] == FZ_BAD, host ? fz_expect_failure() : fz_expect_status(CUFORT_BAD_POINTER));
        }
        if (tr) {
            fz_wide ba = fz_mul(ext[ia], k->esize), bb = fz_mul(ext[ib], k->esize);
            int in_place = t == 'N' && v[ia].p == v[ib].p && lda == v[7].i;   /* a scaling: allowed */
            int over = fz_overlap(v[ia].p, ba, v[ib].p, bb) && !in_place;
            /* host arrays are staged apart: an overlap there is the caller's error, not checked */
            decide(&d, over, host ? fz_expect_any() : invalid);
        }
    }
    /* a legal call on host arrays too short for it may read past them; one too large is no test */
    if (legal && !empty && !impossible && (short_host || (!d.decided && work > fz_cfg.work_cap)))
        return FZ_SKIPPED;
    decide(&d, 1, fz_expect_status(CUFORT_SUCCESS));
    int st = k->call(v);
    fz_check(w, c, fn, st, d.want);
    return FZ_RAN;
}

void fz_kernel_ops(void)
{
    static char names[256][48];
    for (int i = 0; i < fz_kernel_count && i < 256; i++) {
        const fz_kernel *k = &fz_kernels[i];
        snprintf(names[i], sizeof names[i], "cufort_%s", k->name);
        fz_op op = {names[i], FZ_G_KERNELS, k->params, k->nparams, draw_kernel, exec_kernel, k,
                    k->mode == FZ_KM_HOST};
        fz_add_op(&op);
    }
}
