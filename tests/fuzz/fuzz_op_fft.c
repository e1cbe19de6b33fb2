/* fuzz_op_fft.c — FFT plans: plan_many (basic and advanced layouts, null arguments), plan_1d/2d/3d,
 * exec and exec_host (in place, out of place, partly overlapping, on arrays sized from the plan's
 * layout or wrongly), destroy (twice, made up), set_stream, set_normalize, get_type, extents; and
 * the plan cache behind `use cufort`'s plans: acquire (plan_many's arguments), release (with the
 * plan's generation or a stale one; twice, made up), clear.
 *
 * The fuzzer computes each plan's extents itself, in 128-bit arithmetic, from cufort_fft.h's
 * description of the layouts; cufort_fft_extents must agree where the span fits int64.  Skipping
 * rule as for BLAS: a legal execution on valid arrays whose transform exceeds the work cap, or whose
 * host arrays exceed the host cap, is skipped; everything else runs. */
#include "fuzz.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

/* The plan cache (core/fft_internal.h): exported for the Fortran module's plans, not in cufort.h. */
int cufort_fft_plan_acquire(cufort_fft_plan *plan, int *generation, int type, int rank,
                            const int64_t *n, int64_t batch, const int64_t *inembed, int64_t istride,
                            int64_t idist, const int64_t *onembed, int64_t ostride, int64_t odist);
int cufort_fft_plan_release(cufort_fft_plan plan, int generation);
int cufort_fft_generation(void);
int cufort_fft_cache_clear(void);
enum { CACHE_MAX = 8 };   /* CUFORT_FFT_CACHE_MAX: the released plans the cache keeps */

static const int TYPES[] = {CUFORT_FFT_C2C, CUFORT_FFT_R2C, CUFORT_FFT_C2R, CUFORT_FFT_Z2Z,
                            CUFORT_FFT_D2Z, CUFORT_FFT_Z2D};

static int known_type(int t)
{
    for (int i = 0; i < 6; i++)
        if (TYPES[i] == t)
            return 1;
    return 0;
}
static int dbl(int t) { return t == CUFORT_FFT_Z2Z || t == CUFORT_FFT_D2Z || t == CUFORT_FFT_Z2D; }
static int real_in(int t) { return t == CUFORT_FFT_R2C || t == CUFORT_FFT_D2Z; }
static int real_out(int t) { return t == CUFORT_FFT_C2R || t == CUFORT_FFT_Z2D; }

static int64_t draw_type(fz_rng *r)
{
    if (fz_percent(r, 92))
        return TYPES[fz_below(r, 6)];
    static const int64_t junk[] = {0, -1, 0x2b, 0x6b, 0x29 | 0x100, INT32_MAX};
    return junk[fz_below(r, 6)];
}

static int64_t draw_size(fz_rng *r)
{
    int p = (int)fz_below(r, 100);
    if (p < 60)
        return (int64_t)fz_below(r, 12) + 1;
    if (p < 80)
        return (int64_t)fz_below(r, 64) + 1;
    if (p < 86) {
        static const int64_t odd[] = {97, 211, 1009, 243, 1000, 4096};
        return odd[fz_below(r, 6)];
    }
    return fz_draw_int(r, FZ_R_DIM);
}

/* ---- layouts, as cufort_fft.h describes them ---- */

typedef struct { fz_wide m[3], embed[3], stride, dist; int complex_side; } side;

static void layout(const fz_plan_info *p, int input, int in_place, side *s)
{
    int real = input ? real_in(p->type) : real_out(p->type);
    int half = !real && (real_in(p->type) || real_out(p->type));
    for (int i = 0; i < 3; i++)
        s->m[i] = i < 3 - p->rank ? 1 : p->n[i - (3 - p->rank)];
    if (half)
        s->m[2] = s->m[2] / 2 + 1;
    s->complex_side = !real;
    if (p->advanced) {
        const int64_t *e = input ? p->inembed : p->onembed;
        for (int i = 0; i < 3; i++)
            s->embed[i] = i < 3 - p->rank ? 1 : e[i - (3 - p->rank)];
        s->stride = input ? p->istride : p->ostride;
        s->dist = input ? p->idist : p->odist;
        return;
    }
    for (int i = 0; i < 3; i++)
        s->embed[i] = s->m[i];
    if (in_place && real)
        s->embed[2] = 2 * (s->m[2] / 2 + 1);
    s->stride = 1;
    s->dist = fz_mul(fz_mul(s->embed[0], s->embed[1]), s->embed[2]);
}

static fz_wide extent(const side *s, fz_wide batch)
{
    fz_wide last = fz_mul(fz_mul(s->m[0] - 1, s->embed[1]), s->embed[2]) + fz_mul(s->m[1] - 1, s->embed[2]) +
                   s->m[2] - 1;
    return fz_mul(batch - 1, s->dist) + fz_mul(last, s->stride) + 1;
}

/* cufort_fft.h's rule: in place, an advanced real layout's real side must overlay its complex
 * side (equal strides, twice the complex distance and last embed, other embeds equal) */
static int real_in_place_refused(const fz_plan_info *p)
{
    int fwd = real_in(p->type);
    if (!p->advanced || (!fwd && !real_out(p->type)))
        return 0;
    side r, c;
    layout(p, fwd, 1, &r);
    layout(p, !fwd, 1, &c);
    return r.stride != c.stride || r.dist != 2 * c.dist ||
           (p->rank > 1 && r.embed[2] != 2 * c.embed[2]) || (p->rank > 2 && r.embed[1] != c.embed[1]);
}

static int esize(const fz_plan_info *p, const side *s) { return (dbl(p->type) ? 8 : 4) * (s->complex_side ? 2 : 1); }

static int span_overflows(const fz_plan_info *p)
{
    for (int input = 0; input < 2; input++)
        for (int in_place = 0; in_place < 2; in_place++) {
            side s;
            layout(p, input, in_place, &s);
            fz_wide e = fz_mul(extent(&s, p->batch), esize(p, &s));
            if (e > INT64_MAX || e < 0)
                return 1;
        }
    return 0;
}

/* ---- plan_many and the plan_Nd shorthands ---- */

static const fz_param PLAN_MANY[] = {
    {"into", FZ_HANDLE, 'P', 0, 0, NULL}, {"plan_ptr", FZ_INT, FZ_R_FLAG, 0, 0, NULL},
    {"type", FZ_INT, FZ_R_SMALL, 0, 0, NULL}, {"rank", FZ_INT, FZ_R_SMALL, 0, 0, NULL},
    {"n0", FZ_INT, FZ_R_DIM, 0, 0, NULL}, {"n1", FZ_INT, FZ_R_DIM, 0, 0, NULL},
    {"n2", FZ_INT, FZ_R_DIM, 0, 0, NULL}, {"n_ptr", FZ_INT, FZ_R_FLAG, 0, 0, NULL},
    {"batch", FZ_INT, FZ_R_DIM, 0, 0, NULL}, {"embeds", FZ_INT, FZ_R_FLAG, 0, 0, NULL},
    {"inembed0", FZ_INT, FZ_R_DIM, 0, 0, NULL}, {"inembed1", FZ_INT, FZ_R_DIM, 0, 0, NULL},
    {"inembed2", FZ_INT, FZ_R_DIM, 0, 0, NULL}, {"istride", FZ_INT, FZ_R_STRIDE, 0, 0, NULL},
    {"idist", FZ_INT, FZ_R_STRIDE, 0, 0, NULL}, {"onembed0", FZ_INT, FZ_R_DIM, 0, 0, NULL},
    {"onembed1", FZ_INT, FZ_R_DIM, 0, 0, NULL}, {"onembed2", FZ_INT, FZ_R_DIM, 0, 0, NULL},
    {"ostride", FZ_INT, FZ_R_STRIDE, 0, 0, NULL}, {"odist", FZ_INT, FZ_R_STRIDE, 0, 0, NULL},
};
enum { M_INTO, M_PLANPTR, M_TYPE, M_RANK, M_N0, M_NPTR = M_N0 + 3, M_BATCH, M_EMBEDS, M_INEMBED,
       M_ISTRIDE = M_INEMBED + 3, M_IDIST, M_ONEMBED, M_OSTRIDE = M_ONEMBED + 3, M_ODIST, M_COUNT };

static void draw_into(fz_worker *w, fz_call *c, fz_rng *r)
{
    int slot = fz_free_slot(w, r, 'P');
    c->arg[0].type = FZ_HANDLE;
    c->arg[0].h = (fz_handle){'P', slot >= 0 ? slot : (int)fz_below(r, FZ_SLOTS)};
}

static void draw_plan_many(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    for (int i = 1; i < op->nparams; i++)
        c->arg[i].type = FZ_INT;
    draw_into(w, c, r);
    c->arg[M_PLANPTR].i = fz_percent(r, 97);
    c->arg[M_NPTR].i = fz_percent(r, 97);
    c->arg[M_TYPE].i = draw_type(r);
    int64_t rank = fz_percent(r, 92) ? (int64_t)fz_below(r, 3) + 1 : fz_draw_int(r, FZ_R_SMALL);
    c->arg[M_RANK].i = rank;
    for (int i = 0; i < 3; i++)
        c->arg[M_N0 + i].i = draw_size(r);
    c->arg[M_BATCH].i = fz_percent(r, 85) ? (int64_t)fz_below(r, 4) + 1 : fz_draw_int(r, FZ_R_DIM);
    int embeds = fz_percent(r, 55) ? 0 : fz_percent(r, 90) ? 1 : (int)fz_below(r, 2) + 2;
    c->arg[M_EMBEDS].i = embeds;
    /* embeds mostly the logical sizes or a little more, strides small, distances one transform on */
    int type = (int)c->arg[M_TYPE].i;
    for (int s = 0; s < 2; s++) {
        int e0 = s ? M_ONEMBED : M_INEMBED, st = s ? M_OSTRIDE : M_ISTRIDE, di = s ? M_ODIST : M_IDIST;
        int half = (s == 0 && real_out(type)) || (s == 1 && real_in(type));
        fz_wide product = 1;
        for (int i = 0; i < 3; i++) {
            int64_t n = c->arg[M_N0 + i].i;
            if (half && i == (rank >= 1 && rank <= 3 ? rank - 1 : 2) && n > 0)
                n = n / 2 + 1;
            fz_wide e = fz_percent(r, 85) ? (fz_wide)n + (fz_percent(r, 60) ? 0 : (int64_t)fz_below(r, 3))
                                          : fz_draw_int(r, FZ_R_DIM);
            c->arg[e0 + i].i = e > INT64_MAX ? INT64_MAX : (int64_t)e;
            if (i < rank)
                product = fz_mul(product, e);
        }
        int64_t stride = fz_percent(r, 85) ? (int64_t)fz_below(r, 3) + 1 : fz_draw_int(r, FZ_R_STRIDE);
        c->arg[st].i = stride;
        fz_wide dist = fz_mul(product, stride) + (fz_percent(r, 70) ? 0 : (int64_t)fz_below(r, 5));
        c->arg[di].i = fz_percent(r, 88) && dist > 0 && dist < INT64_MAX ? (int64_t)dist
                                                                          : fz_draw_int(r, FZ_R_STRIDE);
    }
}

/* acquire: half the time the shape of a plan this worker made, so that released plans come back */
static void draw_acquire(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    draw_plan_many(w, op, c, r);
    int made[FZ_SLOTS], nmade = 0;
    for (int i = 0; i < FZ_SLOTS; i++)
        if (w->plans[i].h)
            made[nmade++] = i;
    if (!nmade || fz_percent(r, 50))
        return;
    const fz_plan_info *p = &w->plans[made[fz_below(r, (uint64_t)nmade)]].plan;
    c->arg[M_TYPE].i = p->type;
    c->arg[M_RANK].i = p->rank;
    c->arg[M_BATCH].i = p->batch;
    c->arg[M_EMBEDS].i = p->advanced;
    c->arg[M_ISTRIDE].i = p->istride;
    c->arg[M_IDIST].i = p->idist;
    c->arg[M_OSTRIDE].i = p->ostride;
    c->arg[M_ODIST].i = p->odist;
    for (int i = 0; i < 3; i++) {
        c->arg[M_N0 + i].i = p->n[i];
        c->arg[M_INEMBED + i].i = p->inembed[i];
        c->arg[M_ONEMBED + i].i = p->onembed[i];
    }
}

static int record_plan(fz_worker *w, const fz_call *c, cufort_fft_plan plan, const fz_plan_info *info,
                       int generation)
{
    fz_slot *s = fz_slot_of(w, c->arg[0].h);
    if (!s)
        return 0;
    s->h = plan;
    s->live = 1;
    s->plan = *info;
    s->stream = NULL;
    s->generation = generation;
    return 1;
}

/* On the cuda backend cuFFT builds the plan, and its work area, when the plan is made: a legal plan
 * of more elements than the work cap is skipped there (the host backend plans at execution). */
static int enormous_plan(const fz_plan_info *p)
{
    fz_wide elements = p->batch;
    for (int i = 0; i < p->rank; i++)
        elements = fz_mul(elements, p->n[i]);
    return cufort_backend() == CUFORT_BACKEND_CUDA && (double)elements > fz_cfg.work_cap;
}

/* the statuses plan creation may give besides success, for arguments it accepts: cuFFT may not
 * take a layout, or the memory for its work area */
static unsigned plan_may_fail(void)
{
    return FZ_ALSO(CUFORT_NOT_SUPPORTED) | FZ_ALSO(CUFORT_INVALID_VALUE) | FZ_ALSO(CUFORT_ALLOC_FAILED) |
           (cufort_backend() == CUFORT_BACKEND_CUDA ? FZ_ALSO(CUFORT_EXECUTION_FAILED) : 0);
}

/* what plan_many must answer: 0 when the arguments are acceptable */
static int plan_args_bad(const fz_plan_info *p, int embeds)
{
    if (!known_type(p->type) || p->rank < 1 || p->rank > 3 || p->batch < 1)
        return 1;
    for (int i = 0; i < p->rank; i++)
        if (p->n[i] < 1)
            return 1;
    if (embeds == 2 || embeds == 3)
        return 1;
    if (p->advanced) {
        for (int s = 0; s < 2; s++) {
            side sd;
            layout(p, s == 0, 0, &sd);
            const int64_t *e = s == 0 ? p->inembed : p->onembed;
            for (int i = 1; i < p->rank; i++)
                if (e[i] < sd.m[3 - p->rank + i])
                    return 1;
            if ((s ? p->ostride : p->istride) < 1 || (s ? p->odist : p->idist) < 1)
                return 1;
        }
    }
    return 0;
}

/* plan_many, or the cache's acquire with the same arguments (a released plan of that shape, else
 * one made by plan_many, whose messages then name it) */
static int exec_plan_many(fz_worker *w, const fz_op *op, const fz_call *c)
{
    const int acquire = strcmp(op->name, "cufort_fft_plan_acquire") == 0;
    const fz_arg *a = c->arg;
    fz_plan_info p = {(int)a[M_TYPE].i, (int)a[M_RANK].i, {0}, a[M_BATCH].i, a[M_EMBEDS].i == 1, {0},
                      a[M_ISTRIDE].i, a[M_IDIST].i, {0}, a[M_OSTRIDE].i, a[M_ODIST].i};
    int64_t n[3], in[3], on[3];
    for (int i = 0; i < 3; i++) {
        n[i] = p.n[i] = a[M_N0 + i].i;
        in[i] = p.inembed[i] = a[M_INEMBED + i].i;
        on[i] = p.onembed[i] = a[M_ONEMBED + i].i;
    }
    int embeds = (int)a[M_EMBEDS].i;
    cufort_fft_plan plan = (cufort_fft_plan)(uintptr_t)0x5a5a;
    int init = cufort_is_initialized();
    int legal = init && a[M_PLANPTR].i && a[M_NPTR].i && !plan_args_bad(&p, embeds);
    if (legal && enormous_plan(&p))
        return FZ_SKIPPED;
    int generation = -7, st;
    if (acquire)
        st = cufort_fft_plan_acquire(a[M_PLANPTR].i ? &plan : NULL, &generation, (int)a[M_TYPE].i,
                                     (int)a[M_RANK].i, a[M_NPTR].i ? n : NULL, a[M_BATCH].i,
                                     embeds == 1 || embeds == 2 ? in : NULL, a[M_ISTRIDE].i, a[M_IDIST].i,
                                     embeds == 1 || embeds == 3 ? on : NULL, a[M_OSTRIDE].i, a[M_ODIST].i);
    else
        st = cufort_fft_plan_many(a[M_PLANPTR].i ? &plan : NULL, (int)a[M_TYPE].i, (int)a[M_RANK].i,
                                  a[M_NPTR].i ? n : NULL, a[M_BATCH].i, embeds == 1 || embeds == 2 ? in : NULL,
                                  a[M_ISTRIDE].i, a[M_IDIST].i, embeds == 1 || embeds == 3 ? on : NULL,
                                  a[M_OSTRIDE].i, a[M_ODIST].i);
    fz_pred want;
    if (!init)
        want = fz_expect_status(CUFORT_NOT_INITIALIZED);
    else if (!a[M_PLANPTR].i || !a[M_NPTR].i || plan_args_bad(&p, embeds))   /* type, rank: as ints */
        want = fz_expect_status(CUFORT_INVALID_VALUE);
    else
        want = (fz_pred){FZ_P_STATUS, CUFORT_SUCCESS, 0, plan_may_fail()};
    fz_check(w, c, acquire ? "cufort_fft_plan" : "cufort_fft_plan_many", st, want);
    if (acquire && st == CUFORT_SUCCESS && generation != cufort_fft_generation())
        fz_failf(w, c, "cufort_fft_plan_acquire gave generation %d, cufort's is %d", generation,
                 cufort_fft_generation());
    if (st == CUFORT_SUCCESS && a[M_PLANPTR].i)
        record_plan(w, c, plan, &p, cufort_fft_generation());
    else if (a[M_PLANPTR].i && a[M_NPTR].i && init && plan != NULL)
        fz_failf(w, c, "%s failed but left the plan %p, not NULL", op->name, (void *)plan);
    return FZ_RAN;
}

static const fz_param PLAN_ND[] = {
    {"into", FZ_HANDLE, 'P', 0, 0, NULL}, {"rank", FZ_INT, FZ_R_SMALL, 0, 0, NULL},
    {"type", FZ_INT, FZ_R_SMALL, 0, 0, NULL}, {"nx", FZ_INT, FZ_R_DIM, 0, 0, NULL},
    {"ny", FZ_INT, FZ_R_DIM, 0, 0, NULL}, {"nz", FZ_INT, FZ_R_DIM, 0, 0, NULL},
};

static void draw_plan_nd(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    for (int i = 1; i < op->nparams; i++)
        c->arg[i].type = FZ_INT;
    draw_into(w, c, r);
    c->arg[1].i = (int64_t)fz_below(r, 3) + 1;
    c->arg[2].i = draw_type(r);
    for (int i = 0; i < 3; i++)
        c->arg[3 + i].i = draw_size(r);
}

static int exec_plan_nd(fz_worker *w, const fz_op *op, const fz_call *c)
{
    (void)op;
    const fz_arg *a = c->arg;
    int rank = (int)a[1].i, type = (int)a[2].i, st;
    cufort_fft_plan plan = NULL;
    /* plan_1d's second number is the batch; anything but 1 or 2 is drawn as plan_3d */
    fz_plan_info p = {type, rank == 1 || rank == 2 ? rank : 3, {a[3].i, a[4].i, a[5].i}, rank == 1 ? a[4].i : 1,
                      0, {0}, 1, 0, {0}, 1, 0};
    int init = cufort_is_initialized();
    if (init && !plan_args_bad(&p, 0) && enormous_plan(&p))
        return FZ_SKIPPED;
    if (p.rank == 1)
        st = cufort_fft_plan_1d(&plan, type, a[3].i, a[4].i);
    else if (p.rank == 2)
        st = cufort_fft_plan_2d(&plan, type, a[3].i, a[4].i);
    else
        st = cufort_fft_plan_3d(&plan, type, a[3].i, a[4].i, a[5].i);
    fz_pred want = !init ? fz_expect_status(CUFORT_NOT_INITIALIZED)
                   : plan_args_bad(&p, 0) ? fz_expect_status(CUFORT_INVALID_VALUE)
                   : (fz_pred){FZ_P_STATUS, CUFORT_SUCCESS, 0, plan_may_fail()};
    /* the shorthands' messages name cufort_fft_plan_many, which does their work */
    fz_check(w, c, "cufort_fft_plan", st, want);
    if (st == CUFORT_SUCCESS)
        record_plan(w, c, plan, &p, cufort_fft_generation());
    return FZ_RAN;
}

/* ---- execution ---- */

static const fz_param EXEC[] = {
    {"plan", FZ_HANDLE, 'P', 0, 0, NULL}, {"in", FZ_ARRAY, FZ_IN, 1, 0, NULL},
    {"out", FZ_ARRAY, FZ_OUT, 1, 0, NULL}, {"direction", FZ_INT, FZ_R_SMALL, 0, 0, NULL},
};

static void draw_exec(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    fz_draw_handle_slot(w, r, 'P', &c->arg[0].h);
    c->arg[0].type = FZ_HANDLE;
    c->arg[1].type = c->arg[2].type = FZ_ARRAY;
    c->arg[3].type = FZ_INT;
    fz_slot *s = fz_live(w, c->arg[0].h);
    int in_place = fz_percent(r, 40);
    if (s) {
        const fz_plan_info *p = &s->plan;
        side is, os;
        layout(p, 1, in_place, &is);
        layout(p, 0, in_place, &os);
        fz_wide ni = extent(&is, p->batch), no = extent(&os, p->batch);
        int ei = esize(p, &is), eo = esize(p, &os);
        if (in_place) {   /* one array, as long as the longer side */
            fz_wide bi = fz_mul(ni, ei), bo = fz_mul(no, eo);
            fz_draw_array(w, r, &c->arg[1].a, bi > bo ? bi : bo, 1, op->host);
        } else {
            fz_draw_array(w, r, &c->arg[1].a, fz_mul(ni, ei), 1, op->host);
            fz_draw_array(w, r, &c->arg[2].a, fz_mul(no, eo), 1, op->host);
        }
        c->arg[3].i = real_in(p->type) ? CUFORT_FFT_FORWARD : real_out(p->type) ? CUFORT_FFT_INVERSE
                      : fz_percent(r, 50) ? CUFORT_FFT_FORWARD : CUFORT_FFT_INVERSE;
    } else {
        fz_draw_array(w, r, &c->arg[1].a, (fz_wide)fz_below(r, 512), 1, op->host);
        fz_draw_array(w, r, &c->arg[2].a, (fz_wide)fz_below(r, 512), 1, op->host);
        c->arg[3].i = fz_percent(r, 50) ? CUFORT_FFT_FORWARD : CUFORT_FFT_INVERSE;
    }
    if (in_place || fz_percent(r, 4)) {
        fz_array *o = &c->arg[2].a;
        memset(o, 0, sizeof *o);
        o->place = FZ_ALIAS;
        o->of = 1;
        o->off = in_place ? 0 : 16 * (int64_t)(fz_below(r, 4) + 1);   /* partly overlapping */
    }
    /* offsets aligned for every element type (cuFFT's double2 wants 16 bytes): a misaligned
     * device pointer is a caller's error cufort does not check, and on a GPU a sticky fault */
    for (int k = 1; k <= 2; k++)
        if (c->arg[k].a.place != FZ_ALIAS)
            c->arg[k].a.off &= ~(int64_t)15;
    if (fz_percent(r, 6))
        c->arg[3].i = fz_percent(r, 50) ? -c->arg[3].i : fz_draw_int(r, FZ_R_DIM);
}

static int exec_exec(fz_worker *w, const fz_op *op, const fz_call *c)
{
    const fz_arg *a = c->arg;
    const char *fn = "cufort_fft_exec";   /* exec_host's messages may come from the exec it makes */
    fz_slot *s = fz_live(w, a[0].h);
    if (fz_threads > 1 && a[0].h.slot >= 0 && !s)
        return FZ_SKIPPED;   /* gone since it was drawn (a shutdown): see fz_draw_handle_slot */
    fz_resolve(w, c);   /* in place is in == out, however the two were drawn */
    int live = s != NULL, in_place = w->val[1].p == w->val[2].p;
    const fz_plan_info *p = live ? &s->plan : NULL;
    if (live && fz_avoiding(FZ_K_FFT_SPAN) && span_overflows(p))
        return FZ_AVOIDED;
    if (live && p->advanced && in_place && (real_in(p->type) || real_out(p->type)) &&
        fz_avoiding(FZ_K_FFT_REAL_INPLACE))
        return FZ_AVOIDED;
    int stream_gone = 0;   /* the stream set on the plan destroyed since */
    if (live && s->stream) {
        int alive = 0;
        for (int i = 0; i < FZ_SLOTS; i++)
            alive |= w->streams[i].live && w->streams[i].h == s->stream;
        stream_gone = !alive;
        if (stream_gone && op->host && fz_avoiding(FZ_K_STREAM_HANDLES))
            return FZ_AVOIDED;
    }
    int dir = (int)a[3].i, init = cufort_is_initialized() || op->host;
    int dir_ok = dir == (int)a[3].i && (dir == CUFORT_FFT_FORWARD || dir == CUFORT_FFT_INVERSE) &&
                 !(live && real_in(p->type) && dir != CUFORT_FFT_FORWARD) &&
                 !(live && real_out(p->type) && dir != CUFORT_FFT_INVERSE);
    fz_pred want = fz_expect_any();
    if (!init)
        want = fz_expect_status(CUFORT_NOT_INITIALIZED);
    else if (!live || !dir_ok || (in_place && real_in_place_refused(p)) || (stream_gone && !op->host))
        want = fz_expect_status(CUFORT_INVALID_VALUE);   /* a device exec refuses a dead stream */
    else {
        side is, os;
        layout(p, 1, in_place, &is);
        layout(p, 0, in_place, &os);
        fz_wide ni = extent(&is, p->batch), no = extent(&os, p->batch);
        fz_wide bi = fz_mul(ni, esize(p, &is)), bo = fz_mul(no, esize(p, &os)), span = bi > bo ? bi : bo;
        int si = fz_array_state(c, 1, in_place ? span : bi, 1, op->host);
        int so = in_place ? FZ_FITS : fz_array_state(c, 2, bo, 1, op->host);
        fz_wide work = (fz_wide)p->batch;
        for (int i = 0; i < p->rank; i++)
            work = fz_mul(work, p->n[i]);
        /* host arrays too large to be cheap, or too short for what a legal call reads: skipped */
        int huge_host = op->host && ((si == FZ_BAD && a[1].a.place != FZ_NULL && (bi >> 64) == 0) ||
                                     (so == FZ_BAD && a[2].a.place != FZ_NULL && (bo >> 64) == 0));
        if ((si == FZ_FITS && so == FZ_FITS && (double)work * (log2((double)work) + 1) > fz_cfg.work_cap) ||
            huge_host)
            return FZ_SKIPPED;
        fz_wide pi = (uintptr_t)w->val[1].p, po = (uintptr_t)w->val[2].p;
        int partial = !in_place && pi && po && po < pi + bi && pi < po + bo;
        if (partial || si == FZ_MAYBE || so == FZ_MAYBE)
            want = fz_expect_any();
        else if (si == FZ_BAD || so == FZ_BAD)
            want = op->host ? fz_expect_failure() : fz_expect_status(CUFORT_BAD_POINTER);
        else   /* FFTW or cuFFT may not take a layout; the host backend narrows sizes to int */
            want = (fz_pred){FZ_P_STATUS, CUFORT_SUCCESS, 0,
                             p->advanced || work > INT_MAX ? FZ_ALSO(CUFORT_NOT_SUPPORTED) : 0};
    }
    int st = op->host ? cufort_fft_exec_host(w->val[0].p, w->val[1].p, w->val[2].p, dir)
                      : cufort_fft_exec(w->val[0].p, w->val[1].p, w->val[2].p, dir);
    fz_check(w, c, fn, st, want);
    return FZ_RAN;
}

/* ---- plan handles: destroy, stream, normalisation, type, extents ---- */

static const fz_param ON_PLAN[] = {
    {"plan", FZ_HANDLE, 'P', 0, 0, NULL}, {"value", FZ_INT, FZ_R_FLAG, 0, 0, NULL},
    {"stream", FZ_HANDLE, 'S', 0, 0, NULL},
};

static void draw_on_plan(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    (void)op;
    c->arg[0].type = FZ_HANDLE;
    fz_draw_handle_slot(w, r, 'P', &c->arg[0].h);
    c->arg[1].type = FZ_INT;
    c->arg[1].i = fz_percent(r, 80) ? (int64_t)fz_below(r, 3) : fz_draw_int(r, FZ_R_DIM);
    c->arg[2].type = FZ_HANDLE;
    fz_draw_handle_slot(w, r, 'S', &c->arg[2].h);
}

static int exec_on_plan(fz_worker *w, const fz_op *op, const fz_call *c)
{
    const fz_arg *a = c->arg;
    fz_slot *s = fz_live(w, a[0].h), *named = fz_slot_of(w, a[0].h), *ss = fz_slot_of(w, a[2].h);
    int stream_gone = strcmp(op->name, "cufort_fft_set_stream") == 0 && fz_gone_since_drawn(w, a[2].h);
    if ((fz_threads > 1 && a[0].h.slot >= 0 && !s) || stream_gone)
        return FZ_SKIPPED;   /* gone since it was drawn (a shutdown): see fz_draw_handle_slot */
    int live = s != NULL, init = cufort_is_initialized();
    int null_plan = a[0].h.slot == FZ_H_NULL || (named && !named->h);
    if (strcmp(op->name, "cufort_fft_set_stream") == 0 && fz_avoiding(FZ_K_STREAM_HANDLES) &&
        !(a[2].h.slot == FZ_H_NULL || (ss && !ss->h) || fz_live(w, a[2].h)))
        return FZ_AVOIDED;   /* a stale or made-up stream would reach cuFFT at the next execution */
    fz_resolve(w, c);
    void *plan = w->val[0].p;
    fz_pred want = !init ? fz_expect_status(CUFORT_NOT_INITIALIZED)
                   : live ? fz_expect_status(CUFORT_SUCCESS) : fz_expect_status(CUFORT_INVALID_VALUE);
    int st;
    if (strcmp(op->name, "cufort_fft_destroy") == 0) {
        if (init && null_plan)
            want = fz_expect_status(CUFORT_SUCCESS);
        st = cufort_fft_destroy(plan);
        if (st == CUFORT_SUCCESS && live)
            s->live = 0;
    } else if (strcmp(op->name, "cufort_fft_set_stream") == 0) {
        if (init && live && !(a[2].h.slot == FZ_H_NULL || (ss && !ss->h) || fz_live(w, a[2].h)))
            want = fz_expect_status(CUFORT_INVALID_VALUE);   /* a stale or made-up stream */
        st = cufort_fft_set_stream(plan, w->val[2].p);
        if (st == CUFORT_SUCCESS && live)
            s->stream = w->val[2].p;
    } else if (strcmp(op->name, "cufort_fft_set_normalize") == 0) {
        st = cufort_fft_set_normalize(plan, (int)a[1].i);
    } else if (strcmp(op->name, "cufort_fft_get_type") == 0) {
        int type = -7;
        if (init && live && a[1].i == 0)
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        st = cufort_fft_get_type(plan, a[1].i ? &type : NULL);
        if (st == CUFORT_SUCCESS && live && type != s->plan.type)
            fz_failf(w, c, "cufort_fft_get_type gave %#x for a plan made as %#x", type, s->plan.type);
    } else {   /* extents: value 0 out of place, 1 in place, 2 a null pointer for the answers */
        int64_t ie = -7, oe = -7;
        if (init && live && a[1].i == 2)
            want = fz_expect_status(CUFORT_INVALID_VALUE);
        if (live && fz_avoiding(FZ_K_FFT_SPAN) && span_overflows(&s->plan))
            return FZ_AVOIDED;
        st = cufort_fft_extents(plan, a[1].i == 1, &ie, a[1].i == 2 ? NULL : &oe);
        if (st == CUFORT_SUCCESS && live) {
            side is, os;
            layout(&s->plan, 1, a[1].i == 1, &is);
            layout(&s->plan, 0, a[1].i == 1, &os);
            fz_wide ni = extent(&is, s->plan.batch), no = extent(&os, s->plan.batch);
            if (ni <= INT64_MAX && no <= INT64_MAX && (ie != ni || oe != no))
                fz_failf(w, c, "cufort_fft_extents gave %lld and %lld elements, the layout spans %lld and %lld",
                         (long long)ie, (long long)oe, (long long)ni, (long long)no);
        }
    }
    fz_check(w, c, op->name, st, want);
    return FZ_RAN;
}

/* ---- the plan cache: release and clear ---- */

static const fz_param RELEASE[] = {
    {"plan", FZ_HANDLE, 'P', 0, 0, NULL}, {"generation", FZ_INT, FZ_R_FLAG, 0, 0, NULL},
};

static void draw_release(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    (void)op;
    c->arg[0].type = FZ_HANDLE;
    fz_draw_handle_slot(w, r, 'P', &c->arg[0].h);
    c->arg[1].type = FZ_INT;   /* 0: the plan's own generation, 1: the one before, 2: one to come */
    c->arg[1].i = fz_percent(r, 85) ? 0 : (int64_t)fz_below(r, 2) + 1;
}

/* A released plan belongs to the cache: the handle is no longer the caller's (a stale handle). */
static int exec_release(fz_worker *w, const fz_op *op, const fz_call *c)
{
    const fz_arg *a = c->arg;
    fz_slot *s = fz_live(w, a[0].h), *named = fz_slot_of(w, a[0].h);
    if (fz_threads > 1 && a[0].h.slot >= 0 && !s)
        return FZ_SKIPPED;   /* gone since it was drawn (a shutdown): see fz_draw_handle_slot */
    fz_resolve(w, c);
    int now = cufort_fft_generation();
    int own = s ? s->generation : named && named->h ? named->generation : now;
    int generation = a[1].i == 0 ? own : a[1].i == 1 ? own - 1 : now + 1;
    fz_pred want;
    if (!w->val[0].p || !cufort_is_initialized() || generation != now) {
        want = fz_expect_status(CUFORT_SUCCESS);   /* nothing to give back, or a plan gone with its init */
        /* another thread's host-array call may start cufort meanwhile, moving the generation to the
         * one passed: then a handle that is no live plan is refused */
        if (fz_threads > 1 && !s && w->val[0].p)
            want.also |= FZ_ALSO(CUFORT_INVALID_VALUE);
    } else {
        want = fz_expect_status(s ? CUFORT_SUCCESS : CUFORT_INVALID_VALUE);
    }
    int st = cufort_fft_plan_release(w->val[0].p, generation);
    fz_check(w, c, op->name, st, want);
    if (st == CUFORT_SUCCESS && s && generation == now && cufort_is_initialized())
        s->live = 0;
    return FZ_RAN;
}

static void draw_clear(fz_worker *w, const fz_op *op, fz_call *c, fz_rng *r)
{
    (void)w, (void)op, (void)c, (void)r;
}

static int exec_clear(fz_worker *w, const fz_op *op, const fz_call *c)
{
    (void)op;
    int cleared = cufort_fft_cache_clear();
    if (cleared < 0 || cleared > CACHE_MAX)
        fz_failf(w, c, "cufort_fft_cache_clear cleared %d plans; the cache holds 0 to %d", cleared, CACHE_MAX);
    return FZ_RAN;
}

void fz_fft_ops(void)
{
    static const fz_op ops[] = {
        {"cufort_fft_plan_many", FZ_G_FFT, PLAN_MANY, M_COUNT, draw_plan_many, exec_plan_many, NULL, 0},
        {"cufort_fft_plan_many", FZ_G_FFT, PLAN_MANY, M_COUNT, draw_plan_many, exec_plan_many, NULL, 0},
        {"cufort_fft_plan_nd", FZ_G_FFT, PLAN_ND, 6, draw_plan_nd, exec_plan_nd, NULL, 0},
        {"cufort_fft_exec", FZ_G_FFT, EXEC, 4, draw_exec, exec_exec, NULL, 0},
        {"cufort_fft_exec", FZ_G_FFT, EXEC, 4, draw_exec, exec_exec, NULL, 0},
        {"cufort_fft_exec_host", FZ_G_FFT, EXEC, 4, draw_exec, exec_exec, NULL, 1},
        {"cufort_fft_exec_host", FZ_G_FFT, EXEC, 4, draw_exec, exec_exec, NULL, 1},
        {"cufort_fft_destroy", FZ_G_FFT, ON_PLAN, 3, draw_on_plan, exec_on_plan, NULL, 0},
        {"cufort_fft_set_stream", FZ_G_FFT, ON_PLAN, 3, draw_on_plan, exec_on_plan, NULL, 0},
        {"cufort_fft_set_normalize", FZ_G_FFT, ON_PLAN, 3, draw_on_plan, exec_on_plan, NULL, 0},
        {"cufort_fft_get_type", FZ_G_FFT, ON_PLAN, 3, draw_on_plan, exec_on_plan, NULL, 0},
        {"cufort_fft_extents", FZ_G_FFT, ON_PLAN, 3, draw_on_plan, exec_on_plan, NULL, 0},
        {"cufort_fft_plan_acquire", FZ_G_FFT, PLAN_MANY, M_COUNT, draw_acquire, exec_plan_many, NULL, 0},
        {"cufort_fft_plan_acquire", FZ_G_FFT, PLAN_MANY, M_COUNT, draw_acquire, exec_plan_many, NULL, 0},
        {"cufort_fft_plan_release", FZ_G_FFT, RELEASE, 2, draw_release, exec_release, NULL, 0},
        {"cufort_fft_plan_release", FZ_G_FFT, RELEASE, 2, draw_release, exec_release, NULL, 0},
        {"cufort_fft_cache_clear", FZ_G_FFT, NULL, 0, draw_clear, exec_clear, NULL, 0},
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        fz_add_op(&ops[i]);
}
