/* fft_api.c — FFT plans: validation, layouts, lifetime, execution on device or host arrays.
 * Every live plan is in a registry, so a stale or garbage handle is an error, not a crash, and
 * shutdown destroys what the program left. */
#include <stdlib.h>

#include "fft_internal.h"
#include "fft_pipeline.h"
#include "thunk.h"

static cufort_registry plans = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

static const cufort_fft_backend *fft_backend(void)
{
    return cufort_on_host() ? &cufort_host_fft : &cufort_cuda_fft;
}

static int known_type(int type)
{
    return type == CUFORT_FFT_C2C || type == CUFORT_FFT_R2C || type == CUFORT_FFT_C2R ||
           type == CUFORT_FFT_Z2Z || type == CUFORT_FFT_D2Z || type == CUFORT_FFT_Z2D;
}

static int destroy_one(void *p)
{
    struct cufort_fft_plan_s *plan = p;
    fft_backend()->destroy(plan);
    free(plan);
    return CUFORT_SUCCESS;
}

static void destroy_all(void *unused)
{
    (void)unused;
    cufort_registry_drain(&plans, destroy_one);
}

int cufort_fft_unlist(cufort_fft_plan plan) { return cufort_registry_remove(&plans, plan); }
int cufort_fft_relist(cufort_fft_plan plan) { return cufort_registry_add(&plans, plan, 1); }
void cufort_fft_free(cufort_fft_plan plan) { destroy_one(plan); }

static int live(const char *fn, cufort_fft_plan plan)
{
    uintptr_t base;
    size_t bytes;
    if (plan && cufort_registry_floor(&plans, plan, &base, &bytes) && base == (uintptr_t)plan)
        return CUFORT_SUCCESS;
    return cufort_fail(CUFORT_INVALID_VALUE,
                       "%s: %p is not a live FFT plan (never created, destroyed, or cufort was shut "
                       "down since)", fn, (void *)plan);
}

/* Logical sizes of the input or output side: the complex side of a real transform keeps
 * n_last/2+1 elements in its last dimension. */
static void side_sizes(const struct cufort_fft_plan_s *p, int input, cufort_fft_side *s)
{
    int real = input ? cufort_fft_real_in(p->type) : cufort_fft_real_out(p->type);
    int half = !real && (cufort_fft_real_in(p->type) || cufort_fft_real_out(p->type));
    for (int i = 0; i < 3; i++)
        s->m[i] = i < 3 - p->rank ? 1 : p->n[i - (3 - p->rank)];
    if (half)
        s->m[2] = s->m[2] / 2 + 1;
    s->complex_side = !real;
}

/* The basic layout, or the caller's advanced one; in place, a real side is padded to the complex
 * side's length (2*(n_last/2+1) reals per row). */
static void side_layout(const struct cufort_fft_plan_s *p, int input, int in_place, cufort_fft_side *s)
{
    side_sizes(p, input, s);
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
    if (in_place && !s->complex_side)
        s->embed[2] = 2 * (s->m[2] / 2 + 1);
    s->stride = 1;
    s->dist = s->embed[0] * s->embed[1] * s->embed[2];
}

static void sides(const struct cufort_fft_plan_s *p, int in_place, cufort_fft_side *in,
                  cufort_fft_side *out)
{
    side_layout(p, 1, in_place, in);
    side_layout(p, 0, in_place, out);
}

static int64_t side_extent(const cufort_fft_side *s, int64_t batch)
{
    int64_t last = (s->m[0] - 1) * s->embed[1] * s->embed[2] + (s->m[1] - 1) * s->embed[2] + s->m[2] - 1;
    return (batch - 1) * s->dist + last * s->stride + 1;
}

static size_t elem_size(const cufort_fft_side *s, int type)
{
    return (cufort_fft_double(type) ? 8u : 4u) * (s->complex_side ? 2u : 1u);
}

int cufort_fft_plan_many(cufort_fft_plan *plan, int type, int rank, const int64_t *n, int64_t batch,
                         const int64_t *inembed, int64_t istride, int64_t idist,
                         const int64_t *onembed, int64_t ostride, int64_t odist)
{
    CUFORT_HOLD_GATE;
    static const char fn[] = "cufort_fft_plan_many";
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (!plan || !n)
        return cufort_null_arg(fn, !plan ? "plan" : "n");
    *plan = NULL;
    if (!known_type(type))
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: unknown transform type %#x", fn, type);
    if (rank < 1 || rank > 3)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: rank %d not in 1..3", fn, rank);
    if (batch < 1)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: batch %lld must be >= 1", fn, (long long)batch);
    for (int i = 0; i < rank; i++)
        if (n[i] < 1)
            return cufort_fail(CUFORT_INVALID_VALUE, "%s: n[%d] = %lld must be >= 1", fn, i,
                               (long long)n[i]);
    if (!inembed != !onembed)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: give both inembed and onembed, or neither", fn);
    struct cufort_fft_plan_s *p = calloc(1, sizeof *p);
    if (!p)
        return cufort_fail(CUFORT_ALLOC_FAILED, "%s: out of host memory", fn);
    p->type = type;
    p->rank = rank;
    p->batch = batch;
    p->advanced = inembed != NULL;
    for (int i = 0; i < rank; i++) {
        p->n[i] = n[i];
        if (p->advanced) {
            p->inembed[i] = inembed[i];
            p->onembed[i] = onembed[i];
        }
    }
    p->istride = istride, p->idist = idist, p->ostride = ostride, p->odist = odist;
    if (p->advanced) {     /* every logical element must fit its embedding */
        for (int side = 0; side < 2 && !st; side++) {
            cufort_fft_side s;
            side_sizes(p, side == 0, &s);
            const int64_t *e = side == 0 ? inembed : onembed;
            for (int i = 1; i < rank && !st; i++)
                if (e[i] < s.m[3 - rank + i])
                    st = cufort_fail(CUFORT_INVALID_VALUE, "%s: %s[%d] = %lld is smaller than the "
                                     "%lld elements of that dimension", fn, side ? "onembed" : "inembed",
                                     i, (long long)e[i], (long long)s.m[3 - rank + i]);
            if (!st && ((side ? ostride : istride) < 1 || (side ? odist : idist) < 1))
                st = cufort_fail(CUFORT_INVALID_VALUE, "%s: %s stride and distance must be >= 1", fn,
                                 side ? "output" : "input");
        }
    }
    if (!st)
        st = cufort_in(fn, fft_backend()->create(p));
    if (!st && (st = cufort_registry_add(&plans, p, 1)))
        fft_backend()->destroy(p);
    if (st) {
        free(p);
        return st;
    }
    cufort_at_reset(destroy_all, NULL);
    *plan = p;
    return CUFORT_SUCCESS;
}

int cufort_fft_plan_1d(cufort_fft_plan *plan, int type, int64_t nx, int64_t batch)
{
    int64_t n[1] = {nx};
    return cufort_fft_plan_many(plan, type, 1, n, batch, NULL, 1, 0, NULL, 1, 0);
}

int cufort_fft_plan_2d(cufort_fft_plan *plan, int type, int64_t nx, int64_t ny)
{
    int64_t n[2] = {nx, ny};
    return cufort_fft_plan_many(plan, type, 2, n, 1, NULL, 1, 0, NULL, 1, 0);
}

int cufort_fft_plan_3d(cufort_fft_plan *plan, int type, int64_t nx, int64_t ny, int64_t nz)
{
    int64_t n[3] = {nx, ny, nz};
    return cufort_fft_plan_many(plan, type, 3, n, 1, NULL, 1, 0, NULL, 1, 0);
}

int cufort_fft_destroy(cufort_fft_plan plan)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter("cufort_fft_destroy");
    if (st || !plan)
        return st;
    if ((st = live("cufort_fft_destroy", plan)))
        return st;
    cufort_registry_remove(&plans, plan);
    return destroy_one(plan);
}

int cufort_fft_set_stream(cufort_fft_plan plan, cufort_stream stream)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter("cufort_fft_set_stream");
    if (!st && !(st = live("cufort_fft_set_stream", plan)) &&
        !(st = cufort_check_stream("cufort_fft_set_stream", stream)))
        plan->stream = stream;
    return st;
}

int cufort_fft_set_normalize(cufort_fft_plan plan, int normalize_inverse)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter("cufort_fft_set_normalize");
    if (!st && !(st = live("cufort_fft_set_normalize", plan)))
        plan->normalize = normalize_inverse != 0;
    return st;
}

int cufort_fft_get_type(cufort_fft_plan plan, int *type)
{
    CUFORT_HOLD_GATE;
    int st = cufort_enter("cufort_fft_get_type");
    if (st || (st = live("cufort_fft_get_type", plan)))
        return st;
    if (!type)
        return cufort_null_arg("cufort_fft_get_type", "type");
    *type = plan->type;
    return CUFORT_SUCCESS;
}

int cufort_fft_extents(cufort_fft_plan plan, int in_place, int64_t *in_elements,
                       int64_t *out_elements)
{
    CUFORT_HOLD_GATE;
    static const char fn[] = "cufort_fft_extents";
    int st = cufort_enter(fn);
    if (st || (st = live(fn, plan)))
        return st;
    if (!in_elements || !out_elements)
        return cufort_null_arg(fn, "in_elements/out_elements");
    cufort_fft_side in, out;
    sides(plan, in_place, &in, &out);
    *in_elements = side_extent(&in, plan->batch);
    *out_elements = side_extent(&out, plan->batch);
    return CUFORT_SUCCESS;
}

static int check_direction(const char *fn, const struct cufort_fft_plan_s *p, int direction)
{
    if (direction != CUFORT_FFT_FORWARD && direction != CUFORT_FFT_INVERSE)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: direction %d is neither forward (-1) nor "
                           "inverse (+1)", fn, direction);
    if (cufort_fft_real_in(p->type) && direction != CUFORT_FFT_FORWARD)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: a real-to-complex plan only runs forward", fn);
    if (cufort_fft_real_out(p->type) && direction != CUFORT_FFT_INVERSE)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: a complex-to-real plan only runs inverse", fn);
    return CUFORT_SUCCESS;
}

/* A live, checked plan on device arrays, on `stream`.  The plan object is not written: `view` is a
 * copy that carries the stream, so several threads may run one plan's host transforms at once. */
static int exec_on(const char *fn, struct cufort_fft_plan_s *plan, const void *in, void *out,
                   int direction, cufort_stream stream)
{
    struct cufort_fft_plan_s view = *plan;
    view.stream = stream;
    cufort_fft_side is, os;
    sides(&view, in == out, &is, &os);
    int st;
    if ((st = cufort_check_array(fn, "in", in, side_extent(&is, view.batch), elem_size(&is, view.type))) ||
        (st = cufort_check_array(fn, "out", out, side_extent(&os, view.batch),
                                 elem_size(&os, view.type))))
        return st;
    const cufort_fft_backend *b = fft_backend();
    st = cufort_in(fn, b->exec(&view, in, out, direction, &is, &os));
    if (!st && view.normalize && direction == CUFORT_FFT_INVERSE) {
        double n = (double)(view.n[0] * (view.rank > 1 ? view.n[1] : 1) *
                            (view.rank > 2 ? view.n[2] : 1));
        st = cufort_in(fn, b->scale(&view, out, &os, 1.0 / n));
    }
    return st;
}

int cufort_fft_exec(cufort_fft_plan plan, const void *in, void *out, int direction)
{
    CUFORT_HOLD_GATE;
    static const char fn[] = "cufort_fft_exec";
    int st = cufort_enter(fn);
    if (st || (st = live(fn, plan)) || (st = check_direction(fn, plan, direction)))
        return st;
    return exec_on(fn, plan, in, out, direction, plan->stream);
}

static int exec_host_on(const char *fn, cufort_thunk *tp, struct cufort_fft_plan_s *plan,
                        const void *in, void *out, int direction)
{
    int st;
    int in_place = in == out;
    cufort_fft_side is, os;
    sides(plan, in_place, &is, &os);
    size_t ies = elem_size(&is, plan->type), oes = elem_size(&os, plan->type);
    int64_t ibytes = side_extent(&is, plan->batch) * (int64_t)ies;
    int64_t obytes = side_extent(&os, plan->batch) * (int64_t)oes;
    if (in && out) {   /* a large batch on pinned arrays goes in parts, its copies both ways at once */
        int handled = 0;
        int64_t span = in_place ? IMAX(ibytes, obytes) : ibytes;
        st = cufort_fft_exec_host_parts(plan, in, out, direction, (size_t)is.dist * ies, (size_t)span,
                                        (size_t)os.dist * oes, in_place ? (size_t)span : (size_t)obytes,
                                        &handled);
        if (handled)
            return cufort_in(fn, st);
    }
    int i, o;
    if (in_place) {
        i = o = cufort_thunk_span(tp, in, IMAX(ibytes, obytes), 1, CUFORT_INOUT);
    } else {
        /* an advanced output layout may have gaps the transform leaves alone: they must come back
         * as they were, so the output travels both ways */
        i = cufort_thunk_span(tp, in, ibytes, 1, CUFORT_IN);
        o = cufort_thunk_span(tp, out, obytes, 1, plan->advanced ? CUFORT_INOUT : CUFORT_OUT);
    }
    st = cufort_thunk_stage_in(tp);
    /* on the stream the staging copies use: another stream would race with them */
    if (!st)
        st = exec_on(fn, plan, cufort_thunk_ptr(tp, i), cufort_thunk_ptr(tp, o), direction,
                     cufort_thread_stream());
    return cufort_thunk_finish(tp, st);
}

/* Thunking: the input's span goes in, the output's span comes back; in place, one span both ways.
 * A plan already running here on another thread lends its shape to a twin from the plan cache
 * (cuFFT's plan and work area serve one execution at a time); the twin goes back to the cache. */
int cufort_fft_exec_host(cufort_fft_plan plan, const void *in, void *out, int direction)
{
    CUFORT_HOLD_GATE;
    static const char fn[] = "cufort_fft_exec_host";
    cufort_clear_error();
    cufort_thunk t;
    int st = cufort_thunk_begin(&t, fn);
    if (st || (st = live(fn, plan)) || (st = check_direction(fn, plan, direction)))
        return st;
    struct cufort_fft_plan_s *run = plan, *twin = NULL;
    int generation = 0;
    if (__atomic_exchange_n(&plan->busy, 1, __ATOMIC_ACQUIRE)) {
        if ((st = cufort_fft_plan_acquire(&twin, &generation, plan->type, plan->rank, plan->n,
                                          plan->batch, plan->advanced ? plan->inembed : NULL,
                                          plan->istride, plan->idist,
                                          plan->advanced ? plan->onembed : NULL, plan->ostride,
                                          plan->odist)))
            return cufort_in(fn, st);
        twin->normalize = plan->normalize;
        run = twin;
    }
    st = exec_host_on(fn, &t, run, in, out, direction);
    if (twin)
        cufort_fft_plan_release(twin, generation);
    else
        __atomic_store_n(&plan->busy, 0, __ATOMIC_RELEASE);
    return st;
}
