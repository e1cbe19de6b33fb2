/* fft_pipeline.c — see fft_pipeline.h.  Each part is a sub-batch run by a plan of its own (from the
 * plan cache, so repeated calls plan nothing): uploads on one stream, transforms on another after
 * the part's upload, downloads on a third after the part's transform, queued by the pipeline's
 * worker thread so that their unpacking overlaps the packing of the next part. */
#include <stdint.h>

#include "fft_pipeline.h"
#include "staging.h"
#include "thread_state.h"
#include "scratch.h"
#include "thunk.h"
#include "worker.h"

enum { PARTS = 8, MIN_BYTES = 16 << 20, ALIGN = 256 };

typedef struct {
    cufort_thread_state link;
    cufort_stream up, fft, down;
    cufort_event uploaded[PARTS], transformed[PARTS];
    cufort_worker *downloads;
} pipeline;

static void release_pipeline(cufort_thread_state *s)   /* at a reset, with the device still there */
{
    pipeline *p = (pipeline *)s;
    cufort_worker_stop(p->downloads);
    cufort_thunk_events_release(p->uploaded, PARTS);
    cufort_thunk_events_release(p->transformed, PARTS);
    cufort_thunk_streams_release((cufort_stream *const[]){&p->up, &p->fft, &p->down}, 3);
}

static cufort_thread_states pipelines = CUFORT_THREAD_STATES(pipeline, release_pipeline);
static _Thread_local pipeline *mine;

static int my_pipeline(pipeline **out)
{
    pipeline *p = cufort_thread_state_get(&pipelines, (void **)&mine);
    *out = p;
    if (!p)
        return CUFORT_ALLOC_FAILED;
    int st = cufort_thunk_streams((cufort_stream *const[]){&p->up, &p->fft, &p->down}, 3);
    if (!st)
        st = cufort_thunk_events(p->uploaded, PARTS);
    if (!st)
        st = cufort_thunk_events(p->transformed, PARTS);
    if (!st && !p->downloads)
        st = cufort_worker_start(&p->downloads);
    return st;
}

/* one part's way back, run by the worker thread */
typedef struct {
    pipeline *p;
    cufort_event after;
    char *host;
    const char *dev;
    size_t bytes;
} part_download;

static int download_part(void *arg)
{
    part_download *d = arg;
    int st = cufort_ops()->stream_wait(d->p->down, d->after);
    return st ? st : cufort_stage_to_host_on(d->p->down, d->host, d->bytes, d->dev, d->bytes, 1);
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

int cufort_fft_exec_host_parts(struct cufort_fft_plan_s *plan, const void *in, void *out,
                               int direction, size_t in_dist, size_t in_bytes, size_t out_dist,
                               size_t out_bytes, int *handled)
{
    int in_place = in == out;
    if (in_place && plan->in_place_refusal[0]) {   /* refused whole, as by cufort_fft_exec */
        *handled = 1;
        return cufort_fail(CUFORT_INVALID_VALUE, "%s", plan->in_place_refusal);
    }
    *handled = !plan->advanced && plan->batch >= PARTS && in_bytes + out_bytes >= MIN_BYTES &&
               (!in_place || in_dist == out_dist) && cufort_host_dma_ready(in, in_bytes) &&
               cufort_host_dma_ready(out, out_bytes);
    if (!*handled)
        return CUFORT_SUCCESS;
    const cufort_backend_ops *ops = cufort_ops();
    int64_t per = (plan->batch + PARTS - 1) / PARTS, parts = (plan->batch + per - 1) / per;
    int64_t last = plan->batch - (parts - 1) * per;
    size_t in_span = (in_bytes + ALIGN - 1) / ALIGN * ALIGN;
    pipeline *p = NULL;
    char *dev = NULL;
    cufort_fft_plan sub[2] = {NULL, NULL};
    int gen[2] = {0, 0};
    int st = my_pipeline(&p);
    if (!st)
        st = cufort_thunk_scratch(in_place ? in_bytes : in_span + out_bytes, (void **)&dev);
    for (int i = 0; i < 2 && !st; i++)   /* the parts' plans: `per` transforms, and the last part's */
        if (i == 0 || last != per)
            st = cufort_fft_plan_acquire(&sub[i], &gen[i], plan->type, plan->rank, plan->n,
                                         i ? last : per, NULL, 0, 0, NULL, 0, 0);
    char *dev_out = in_place ? dev : dev + in_span;
    part_download jobs[PARTS];
    int64_t ticket = 0;
    for (int64_t k = 0; k < parts && !st; k++) {
        cufort_fft_plan sp = k == parts - 1 && sub[1] ? sub[1] : sub[0];
        int64_t count = k == parts - 1 ? last : per;
        size_t i0 = (size_t)(k * per) * in_dist, o0 = (size_t)(k * per) * out_dist;
        /* the last part ends where the array does (its last transform need not be padded) */
        size_t ib = min_size(in_bytes - i0, (size_t)count * in_dist);
        size_t ob = min_size(out_bytes - o0, (size_t)count * out_dist);
        if (in_place)
            ib = ob = min_size(in_bytes - i0, (size_t)count * in_dist);
        st = cufort_stage_to_device_on(p->up, dev + i0, (const char *)in + i0, ib, ib, 1);
        if (!st && !(st = ops->event_record(p->uploaded[k], p->up)) &&
            !(st = ops->stream_wait(p->fft, p->uploaded[k]))) {
            sp->normalize = plan->normalize;   /* on the pipeline's own stream, which no program holds */
            st = cufort_fft_exec_on("cufort_fft_exec_host", sp, dev + i0, dev_out + o0, direction, p->fft);
        }
        if (!st && !(st = ops->event_record(p->transformed[k], p->fft))) {
            jobs[k] = (part_download){p, p->transformed[k], (char *)out + o0, dev_out + o0, ob};
            ticket = cufort_worker_post(p->downloads, download_part, &jobs[k]);
        }
    }
    if (ticket) {   /* the worker must be done with this call's parts before they go */
        int done = cufort_worker_wait(p->downloads, ticket);
        st = st ? st : done;
    }
    cufort_stream streams[] = {p->up, p->fft};   /* nothing may still read the caller's input */
    for (int i = 0; i < 2 && p; i++) {
        int sync = ops->stream_synchronize(streams[i]);
        st = st ? st : sync;
    }
    for (int i = 0; i < 2; i++)
        if (sub[i])
            cufort_fft_plan_release(sub[i], gen[i]);
    return st;
}
