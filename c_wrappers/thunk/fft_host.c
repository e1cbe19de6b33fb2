/* fft_host.c — FFTs on host arrays: the thunk engine's side of the plans that the core owns
 * (c_wrappers/core/fft_api.c).  A large batch on DMA-ready arrays is split over the devices, each
 * running its range of transforms with a plan of its own; on one device a large batch goes in
 * parts whose copies overlap (fft_pipeline.c); anything else is staged whole around one device
 * execution. */
#include "devices_run.h"
#include "fft_internal.h"
#include "fft_pipeline.h"
#include "staging.h"
#include "thunk.h"

/* A plan's arrays in bytes, in place or not: each side's span (which fits: checked at plan
 * time), and the distance from one transform to the next */
typedef struct {
    int64_t in, out;
    size_t in_dist, out_dist;
} array_bytes;

static array_bytes bytes_of(cufort_fft_plan plan, int in_place)
{
    const cufort_fft_side *is = &plan->side[in_place][0], *os = &plan->side[in_place][1];
    size_t ies = (size_t)cufort_fft_elem_size(plan, is);
    size_t oes = (size_t)cufort_fft_elem_size(plan, os);
    return (array_bytes){plan->span[in_place][0] * (int64_t)ies,
                         plan->span[in_place][1] * (int64_t)oes, (size_t)is->dist * ies,
                         (size_t)os->dist * oes};
}

static int exec_host_on(const char *fn, cufort_thunk *t, cufort_fft_plan plan, const void *in,
                        void *out, int direction)
{
    int in_place = in == out;
    array_bytes b = bytes_of(plan, in_place);
    int64_t ibytes = b.in, obytes = b.out;
    int st;
    if (in && out) {   /* a large batch on pinned arrays goes in parts, its copies both ways at once */
        int handled = 0;
        int64_t span = in_place ? IMAX(ibytes, obytes) : ibytes;
        st = cufort_fft_exec_host_parts(plan, in, out, direction, b.in_dist, (size_t)span,
                                        b.out_dist, in_place ? (size_t)span : (size_t)obytes,
                                        &handled);
        if (handled)
            return cufort_in(fn, st);
    }
    int i, o;
    if (in_place) {
        i = o = cufort_thunk_span(t, in, IMAX(ibytes, obytes), 1, CUFORT_INOUT);
    } else {
        /* an advanced output layout may have gaps the transform leaves alone: they must come back
         * as they were, so the output travels both ways */
        i = cufort_thunk_span(t, in, ibytes, 1, CUFORT_IN);
        o = cufort_thunk_span(t, out, obytes, 1, plan->advanced ? CUFORT_INOUT : CUFORT_OUT);
    }
    st = cufort_thunk_stage_in(t);
    /* on the stream the staging copies use: another stream would race with them */
    if (!st)
        st = cufort_fft_exec_on(fn, plan, cufort_thunk_ptr(t, i), cufort_thunk_ptr(t, o), direction,
                                cufort_thread_stream());
    return cufort_thunk_finish(t, st);
}

/* ---- a batch over several devices ---- */

typedef struct {
    cufort_fft_plan plan;
    const char *in;
    char *out;
    int direction;
    size_t in_dist, out_dist;    /* bytes from one transform to the next */
    int64_t per;                 /* transforms per device; the last takes the rest */
} spread_batch;

/* One device's range of the batch, with a plan made on that device (from the plan cache, so that
 * repeated calls plan nothing), staged as a call of its own. */
static int device_range(void *ctx, int index)
{
    static const char fn[] = "cufort_fft_exec_host";
    const spread_batch *c = ctx;
    const struct cufort_fft_plan_s *p = c->plan;
    int64_t first = index * c->per, count = p->batch - first < c->per ? p->batch - first : c->per;
    cufort_fft_plan sub;
    int generation;
    cufort_thunk t;
    int st = cufort_thunk_begin(&t, fn);
    if (st || (st = cufort_fft_plan_acquire(&sub, &generation, p->type, p->rank, p->n, count, NULL,
                                            0, 0, NULL, 0, 0)))
        return cufort_in(fn, st);
    sub->normalize = p->normalize;
    st = exec_host_on(fn, &t, sub, c->in + (size_t)first * c->in_dist,
                      c->out + (size_t)first * c->out_dist, c->direction);
    cufort_fft_plan_release(sub, generation);
    return st;
}

/* A plan of the basic layout with a batch worth several devices (devices_run.h), on arrays the DMA
 * engines read directly: its batch in one contiguous range per device (*handled = 1, the status
 * returned); else nothing (*handled = 0). */
static int exec_spread(cufort_fft_plan plan, const void *in, void *out, int direction, int *handled)
{
    int in_place = in == out;
    array_bytes b = bytes_of(plan, in_place);
    int devs[CUFORT_MAX_DEVICES], n = 1;
    *handled = 0;
    if (plan->advanced || plan->batch < 2 || !in || !out ||
        (in_place && (plan->in_place_refusal[0] || b.in_dist != b.out_dist)))
        return CUFORT_SUCCESS;
    int ready = cufort_host_dma_ready(in, (size_t)b.in) &&
                cufort_host_dma_ready(out, (size_t)b.out);
    int st = cufort_spread_copies((double)(b.in + b.out), ready, plan->batch, devs, &n);
    if (st || n < 2)
        return st;
    *handled = 1;
    spread_batch c = {plan, in, out, direction, b.in_dist, b.out_dist, (plan->batch + n - 1) / n};
    n = (int)((plan->batch + c.per - 1) / c.per);
    return cufort_on_devices(n, devs, device_range, &c);
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
    if (st || (st = cufort_fft_check_exec(fn, plan, direction, in == out)))
        return st;
    int spread = 0;
    if ((st = exec_spread(plan, in, out, direction, &spread)) || spread)
        return cufort_in(fn, st);
    cufort_fft_plan run = plan, twin = NULL;
    int generation = 0;
    /* a compare-exchange, so that a caller who finds the plan busy writes nothing: its runner may
     * be copying the plan (cufort_fft_exec_on) */
    int idle = 0;
    if (!__atomic_compare_exchange_n(&plan->busy, &idle, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
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
