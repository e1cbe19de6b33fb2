/* fft_api.c — FFT plans: validation, layouts, lifetime, execution on device or host arrays.
 * Every live plan is in a registry, so a stale or garbage handle is an error, not a crash, and
 * shutdown destroys what the program left. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fft_internal.h"

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
    p->device = cufort_current_device();
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
    st = cufort_fft_resolve_layout(fn, p);
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
    *in_elements = plan->span[in_place != 0][0];
    *out_elements = plan->span[in_place != 0][1];
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

static int check_in_place(const char *fn, const struct cufort_fft_plan_s *p, int in_place)
{
    if (in_place && p->in_place_refusal[0])
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: %s", fn, p->in_place_refusal);
    return CUFORT_SUCCESS;
}

int cufort_fft_check_exec(const char *fn, cufort_fft_plan plan, int direction, int in_place)
{
    int st = live(fn, plan);
    if (!st)
        st = check_direction(fn, plan, direction);
    return st ? st : check_in_place(fn, plan, in_place);
}

/* A live, checked plan on device arrays, on `stream`.  The plan object is not written: `view` is a
 * copy that carries the stream, so several threads may run one plan's host transforms at once. */
int cufort_fft_exec_on(const char *fn, cufort_fft_plan plan, const void *in, void *out, int direction,
                       cufort_stream stream)
{
    struct cufort_fft_plan_s view;   /* all but busy, which other callers of the plan may test */
    memcpy(&view, plan, offsetof(struct cufort_fft_plan_s, busy));
    view.busy = 1;
    view.stream = stream;
    int in_place = in == out;
    const cufort_fft_side *is = &view.side[in_place][0], *os = &view.side[in_place][1];
    int st;
    if ((st = check_in_place(fn, &view, in_place)) ||
        (st = cufort_check_array(fn, "in", in, view.span[in_place][0],
                                 (size_t)cufort_fft_elem_size(&view, is))) ||
        (st = cufort_check_array(fn, "out", out, view.span[in_place][1],
                                 (size_t)cufort_fft_elem_size(&view, os))))
        return st;
    const cufort_fft_backend *b = fft_backend();
    st = cufort_in(fn, b->exec(&view, in, out, direction, is, os));
    if (!st && view.normalize && direction == CUFORT_FFT_INVERSE) {
        double n = (double)(view.n[0] * (view.rank > 1 ? view.n[1] : 1) *
                            (view.rank > 2 ? view.n[2] : 1));
        st = cufort_in(fn, b->scale(&view, out, os, 1.0 / n));
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
    /* the stream set on the plan may have been destroyed since: cuFFT must not be given it */
    if ((st = cufort_check_stream(fn, plan->stream)))
        return cufort_fail(st, "%s: the plan's stream %p was destroyed after cufort_fft_set_stream "
                           "(set another, or NULL)", fn, (void *)plan->stream);
    return cufort_fft_exec_on(fn, plan, in, out, direction, plan->stream);
}
