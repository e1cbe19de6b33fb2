/* fft_host.c — FFTs on host arrays: the thunk engine's side of the plans that the core owns
 * (c_wrappers/core/fft_api.c).  A large batch goes in parts whose copies overlap
 * (fft_pipeline.c); anything else is staged whole around one device execution. */
#include "fft_internal.h"
#include "fft_pipeline.h"
#include "thunk.h"

/* Thunking: the input's span goes in, the output's span comes back; in place, one span both ways. */
int cufort_fft_exec_host(cufort_fft_plan plan, const void *in, void *out, int direction)
{
    CUFORT_HOLD_GATE;
    static const char fn[] = "cufort_fft_exec_host";
    cufort_clear_error();
    cufort_thunk t;
    int st = cufort_thunk_begin(&t, fn);
    int in_place = in == out;
    if (st || (st = cufort_fft_check_exec(fn, plan, direction, in_place)))
        return st;
    const cufort_fft_side *is = &plan->side[in_place][0], *os = &plan->side[in_place][1];
    size_t ies = (size_t)cufort_fft_elem_size(plan, is), oes = (size_t)cufort_fft_elem_size(plan, os);
    int64_t ibytes = plan->span[in_place][0] * (int64_t)ies;   /* fit: checked at plan time */
    int64_t obytes = plan->span[in_place][1] * (int64_t)oes;
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
        i = o = cufort_thunk_span(&t, in, IMAX(ibytes, obytes), 1, CUFORT_INOUT);
    } else {
        /* an advanced output layout may have gaps the transform leaves alone: they must come back
         * as they were, so the output travels both ways */
        i = cufort_thunk_span(&t, in, ibytes, 1, CUFORT_IN);
        o = cufort_thunk_span(&t, out, obytes, 1, plan->advanced ? CUFORT_INOUT : CUFORT_OUT);
    }
    st = cufort_thunk_stage_in(&t);
    if (!st) {
        /* on the stream the staging copies use: another stream would race with them */
        cufort_stream own = plan->stream;
        plan->stream = cufort_thread_stream();
        st = cufort_fft_exec(plan, cufort_thunk_ptr(&t, i), cufort_thunk_ptr(&t, o), direction);
        plan->stream = own;
    }
    return cufort_thunk_finish(&t, st);
}
