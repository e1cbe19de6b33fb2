/* fft_host.c — FFTs on host arrays: the thunk engine's side of the plans that the core owns
 * (c_wrappers/core/fft_api.c).  A large batch goes in parts whose copies overlap
 * (fft_pipeline.c); anything else is staged whole around one device execution. */
#include "fft_internal.h"
#include "fft_pipeline.h"
#include "thunk.h"

static int exec_host_on(const char *fn, cufort_thunk *t, cufort_fft_plan plan, const void *in,
                        void *out, int direction)
{
    int in_place = in == out;
    const cufort_fft_side *is = &plan->side[in_place][0], *os = &plan->side[in_place][1];
    size_t ies = (size_t)cufort_fft_elem_size(plan, is), oes = (size_t)cufort_fft_elem_size(plan, os);
    int64_t ibytes = plan->span[in_place][0] * (int64_t)ies;   /* fit: checked at plan time */
    int64_t obytes = plan->span[in_place][1] * (int64_t)oes;
    int st;
    if (in && out) {   /* a large batch on pinned arrays goes in parts, its copies both ways at once */
        int handled = 0;
        int64_t span = in_place ? IMAX(ibytes, obytes) : ibytes;
        st = cufort_fft_exec_host_parts(plan, in, out, direction, (size_t)is->dist * ies, (size_t)span,
                                        (size_t)os->dist * oes, in_place ? (size_t)span : (size_t)obytes,
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
    cufort_fft_plan run = plan, twin = NULL;
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
