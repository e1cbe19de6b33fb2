/* fuzz_op_blas.c — every BLAS variant in both forms (device pointers, _host arrays), driven from
 * the generated table (generated/fuzz_blas.c).
 *
 * Drawing: options and sizes at their edges; each leading dimension or stride mostly the least
 * legal value (found by bisection on the table's own check) plus a little, sometimes one less or an
 * edge value; arrays from fz_draw_array sized by the table's extents; now and then one output array
 * made to overlap another array argument.
 *
 * Prediction, in the order the C ABI checks: not initialised (device form); the first illegal
 * argument (CUFORT_INVALID_VALUE, cufort_last_info() its position); a null scalar reference; the
 * quick return (success); a bad array (CUFORT_BAD_POINTER on device memory, a failure on host
 * arrays); else success.  Overlapping arrays: any documented status.
 *
 * The rule for skipping (counted, not run): a call whose arguments are all legal and whose arrays
 * are all valid, but whose element operations (the table's work estimate) exceed the work cap, or
 * whose host arrays would exceed the host cap (cufort would legitimately copy them), is skipped.
 * A call that is illegal, or whose arrays are wrong, is always made however large its sizes: cufort
 * must refuse it at once. */
#include "fuzz.h"

#include <limits.h>
#include <stdlib.h>

static int param_index(const fz_blas_routine *b, const char *name)
{
    for (int i = 0; i < b->nparams; i++)
        if (strcmp(b->params[i].name, name) == 0)
            return i;
    return -1;
}

static void to_vals(const fz_call *c, int n, fz_val *v)
{
    for (int i = 0; i < n; i++) {
        memset(&v[i], 0, sizeof v[i]);
        if (c->arg[i].type == FZ_INT)
            v[i].i = c->arg[i].i;
        else if (c->arg[i].type == FZ_CHAR)
            v[i].c = c->arg[i].c;
        else if (c->arg[i].type == FZ_ARRAY)   /* distinct, so that no check sees two alike */
            v[i].p = (void *)(uintptr_t)(0x10000 * (i + 1));
    }
}

/* the least value of int parameter i that its check accepts, the others as they are (1 when none
 * does; INT64_MIN when every value passes because an earlier argument is illegal anyway) */
static int64_t least_legal(const fz_blas_routine *b, fz_val *v, int i)
{
    int64_t keep = v[i].i;
    fz_wide lo = INT64_MIN, hi = INT64_MAX;
    v[i].i = INT64_MAX;
    int never = b->check(v) == i + 1;
    while (!never && lo < hi) {
        fz_wide mid = lo + (hi - lo) / 2;
        v[i].i = (int64_t)mid;
        if (b->check(v) == i + 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    v[i].i = keep;
    return never ? 1 : (int64_t)lo;
}

static void draw_blas(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    const fz_blas_routine *b = op->data;
    fz_val v[FZ_MAX_ARGS];
    for (int i = 0; i < b->nparams; i++) {
        const fz_param *p = &b->params[i];
        fz_arg *a = &c->arg[i];
        a->type = p->type;
        if (p->type == FZ_CHAR)
            a->c = fz_draw_char(r, p->opts);
        else if (p->type == FZ_INT)
            a->i = p->role == FZ_R_LD || p->role == FZ_R_STRIDE ? 0 : fz_draw_int(r, p->role);
        else if (p->type == FZ_REAL || p->type == FZ_CPLX)
            fz_draw_scalar(r, a->re, p->type == FZ_CPLX);
    }
    /* leading dimensions and strides, in parameter order, each against the values before it */
    to_vals(c, b->nparams, v);
    for (int i = 0; i < b->nparams; i++) {
        const fz_param *p = &b->params[i];
        if (p->type != FZ_INT || (p->role != FZ_R_LD && p->role != FZ_R_STRIDE))
            continue;
        int64_t least = least_legal(b, v, i);
        if (p->role == FZ_R_STRIDE && least <= 0) {
            /* a stride mostly one matrix apart: the array's extent with a batch of one */
            int bi = param_index(b, "batch"), ai = param_index(b, p->name + strlen("stride"));
            fz_wide ext[FZ_MAX_ARGS] = {0};
            int64_t batch = bi >= 0 ? v[bi].i : 1;
            if (bi >= 0)
                v[bi].i = 1;
            b->extents(v, ext);
            if (bi >= 0)
                v[bi].i = batch;
            if (ai >= 0 && ext[ai] > 0 && ext[ai] < INT64_MAX && fz_percent(r, 70))
                least = (int64_t)ext[ai];
        }
        c->arg[i].i = v[i].i = fz_draw_near(r, least, p->role);
    }
    /* arrays, sized by the final values */
    fz_wide ext[FZ_MAX_ARGS] = {0};
    b->extents(v, ext);
    int arrays[FZ_MAX_ARGS], narrays = 0;
    for (int i = 0; i < b->nparams; i++) {
        const fz_param *p = &b->params[i];
        fz_arg *a = &c->arg[i];
        if (p->type != FZ_ARRAY)
            continue;
        if (p->count & FZ_HOSTREF) {
            memset(&a->a, 0, sizeof a->a);
            a->a.place = fz_percent(r, 3) ? FZ_NULL : FZ_HOST;
            a->a.bytes = (int64_t)(p->count & 0xff) * p->esize;
            continue;
        }
        fz_draw_array(w, r, &a->a, ext[i], p->esize, op->host);
        arrays[narrays++] = i;
    }
    /* an output over another array: exactly (in place) or partly */
    if (narrays >= 2 && fz_percent(r, 7)) {
        int i = arrays[fz_below(r, (uint64_t)narrays)], j = arrays[fz_below(r, (uint64_t)narrays)];
        if (i != j && (b->params[i].role & FZ_OUT) && c->arg[j].a.place != FZ_ALIAS) {
            fz_array *a = &c->arg[i].a;
            int es = b->params[i].esize;
            memset(a, 0, sizeof *a);
            a->place = FZ_ALIAS;
            a->of = j;
            a->off = fz_percent(r, 50) ? 0 : es * (int64_t)(fz_below(r, 8) + 1);
            /* in place as geam allows it: the same leading dimension */
            int ldi = param_index(b, i == param_index(b, "C") ? "ldc" : ""), ldj = -1;
            if (ldi >= 0 && strcmp(b->params[j].name, "A") == 0)
                ldj = param_index(b, "lda");
            if (ldi >= 0 && strcmp(b->params[j].name, "B") == 0)
                ldj = param_index(b, "ldb");
            if (ldj >= 0 && fz_percent(r, 60))
                c->arg[ldi].i = c->arg[ldj].i;
        }
    }
}

static int known_defect(const fz_blas_routine *b, const fz_call *c, const fz_val *v, const fz_wide *ext,
                        int host)
{
    for (int i = 0; i < b->nparams; i++)
        if (b->params[i].type == FZ_INT && b->params[i].role == FZ_R_INC && c->arg[i].i == INT64_MIN &&
            fz_avoiding(FZ_K_INC_MIN))
            return 1;
    int geam = strcmp(b->group, "geam") == 0, dgmm = strcmp(b->group, "dgmm") == 0;
    if ((geam || dgmm) && fz_avoiding(FZ_K_GEAM_HUGE)) {
        int64_t m = v[param_index(b, geam ? "m" : "m")].i, n = v[param_index(b, "n")].i;
        if ((m == 0 || n == 0) && (m > (1 << 20) || n > (1 << 20)))
            return 1;
    }
    if (geam && fz_avoiding(FZ_K_GEAM_OVERLAP)) {
        int ic = param_index(b, "C"), es = b->params[ic].esize;
        for (int k = 0; k < 2; k++) {
            int ix = param_index(b, k ? "B" : "A");
            if (v[ix].p != v[ic].p && fz_overlap(v[ic].p, fz_mul(ext[ic], es), v[ix].p, fz_mul(ext[ix], es)))
                return 1;
            /* an empty C equal to A or B (in _host calls every empty array becomes null) taken
             * for an in-place call with the wrong ld or op */
            if (ext[ic] == 0 && (host ? ext[ix] == 0 : v[ix].p == v[ic].p))
                return 1;
        }
    }
    return 0;
}

static int exec_blas(fz_worker *w, const fz_op *op, const fz_call *c)
{
    const fz_blas_routine *b = op->data;
    fz_val *v = w->val;
    fz_resolve(w, c);
    /* scalar references start with a flag value rotm and rotmg branch on */
    for (int i = 0; i < b->nparams; i++)
        if ((b->params[i].count & FZ_HOSTREF) && b->params[i].role != FZ_OUT && v[i].p) {
            double flag = (double)((int)fz_below(&w->fill, 4) - 2);
            if (b->params[i].esize == 4)
                *(float *)v[i].p = (float)flag;
            else
                *(double *)v[i].p = flag;
        }
    fz_wide ext[FZ_MAX_ARGS] = {0};
    b->extents(v, ext);
    if (known_defect(b, c, v, ext, op->host))
        return FZ_AVOIDED;

    char fn[64];
    snprintf(fn, sizeof fn, "cufort_%s", b->name);
    int init = cufort_is_initialized(), pos = b->check(v), null_ref = 0;
    /* an increment of INT64_MIN has no magnitude: refused in every routine whatever n, in
     * parameter order with the table's checks */
    for (int i = 0; i < b->nparams; i++)
        if (b->params[i].type == FZ_INT && b->params[i].role == FZ_R_INC && c->arg[i].i == INT64_MIN) {
            if (!pos || i + 1 < pos)
                pos = i + 1;
            break;
        }
    for (int i = 0; i < b->nparams; i++)
        null_ref |= (b->params[i].count & FZ_HOSTREF) && !v[i].p;
    int legal = !pos && !null_ref, quick = legal && b->quick(v);
    /* Host arrays (the _host form): one no memory can hold must be refused before any is read (the
     * thunk engine declares them all first); one too large to be cheap, or too short for what a
     * legal call reads (an overlap drawn onto a smaller array), makes a legal call one to skip,
     * as cufort may read all of it.  The GEMM engine reads no array when C is empty, and A and B
     * only for k > 0, alpha != 0. */
    int gemm = strcmp(b->group, "gemm") == 0, ia = param_index(b, "alpha"), ik = param_index(b, "k");
    int reads_c = !gemm || ext[param_index(b, "C")] > 0;
    int reads_ab = !gemm || (reads_c && v[ik].i > 0 && (v[ia].re[0] != 0 || v[ia].re[1] != 0));
    int bad = 0, maybe = 0, huge_host = 0, impossible = 0, overlapping = 0;
    for (int i = 0; i < b->nparams; i++) {
        const fz_param *p = &b->params[i];
        if (p->type != FZ_ARRAY || (p->count & FZ_HOSTREF))
            continue;
        fz_wide bytes = fz_mul(ext[i], p->esize);
        int s = fz_array_state(c, i, ext[i], p->esize, op->host);
        int read = strcmp(p->name, "C") == 0 ? reads_c : reads_ab;
        bad |= s == FZ_BAD;
        maybe |= s == FZ_MAYBE;
        if (op->host && s == FZ_BAD && v[i].p && (bytes >> 64))
            impossible = 1;
        else if (op->host && s == FZ_BAD && v[i].p && read)
            huge_host = 1;
        for (int j = 0; j < b->nparams; j++)
            if (j != i && (p->role & FZ_OUT) && b->params[j].type == FZ_ARRAY &&
                !(b->params[j].count & FZ_HOSTREF) &&
                fz_overlap(v[i].p, bytes, v[j].p, fz_mul(ext[j], b->params[j].esize)))
                overlapping = 1;
    }
    if (legal && !quick && !impossible && (huge_host || (!bad && b->work(v) > fz_cfg.work_cap)))
        return FZ_SKIPPED;

    fz_pred want;
    if (!op->host && !init)
        want = fz_expect_status(CUFORT_NOT_INITIALIZED);
    else if (pos)
        want = (fz_pred){FZ_P_STATUS, CUFORT_INVALID_VALUE, pos, 0};
    else if (null_ref)
        want = fz_expect_status(CUFORT_INVALID_VALUE);
    else if (quick)
        want = fz_expect_status(CUFORT_SUCCESS);
    else if (impossible)
        want = fz_expect_failure();
    else if (overlapping || maybe)
        want = fz_expect_any();
    else if (bad && op->host && gemm)
        want = fz_expect_any();   /* the GEMM engine returns before its null checks when C is empty */
    else if (bad)
        want = op->host ? fz_expect_failure() : fz_expect_status(CUFORT_BAD_POINTER);
    else
        want = fz_expect_status(CUFORT_SUCCESS);
    if (want.kind == FZ_P_STATUS && want.status == CUFORT_SUCCESS && cufort_backend() != CUFORT_BACKEND_CUDA) {
        /* the CPU BLAS takes 32-bit integers: larger ones are refused, not truncated */
        for (int i = 0; i < b->nparams; i++)
            if (b->params[i].type == FZ_INT && (v[i].i > INT_MAX || v[i].i < INT_MIN))
                want.also |= FZ_ALSO(CUFORT_NOT_SUPPORTED);
    }
    if (op->host && fz_threads > 1 && !w->locked)
        want = fz_expect_any();   /* another thread may shut cufort down during the call */

    int st = b->call(v, op->host);
    fz_check(w, c, fn, st, want);
    return FZ_RAN;
}

void fz_blas_ops(void)
{
    static char names[2][512][48];
    for (int k = 0; k < fz_blas_count; k++)
        for (int host = 0; host < 2; host++) {
            snprintf(names[host][k], sizeof names[host][k], "cufort_%s%s", fz_blas[k].name,
                     host ? "_host" : "");
            fz_op op = {names[host][k], host ? FZ_G_BLAS_HOST : FZ_G_BLAS, fz_blas[k].params,
                        fz_blas[k].nparams, draw_blas, exec_blas, &fz_blas[k], host};
            fz_add_op(&op);
        }
}
