/* l3_transfer.c — one Level-3 engine call's streams and copies (l3_internal.h).
 *
 * Host arrays the program pinned, or that the pin cache holds whole (held_array.h), go to the DMA
 * engines as they lie; the others go through staging, which is told not to offer their parts to
 * the pin cache. */
#include <stdlib.h>

#include "beta_add.h"
#include "l3_internal.h"
#include "scratch.h"
#include "stage_trace.h"
#include "staging.h"
#include "thread_state.h"

typedef struct {
    cufort_thread_state link;
    cufort_stream h2d, comp, d2h;
    cufort_event resident;
    cufort_event ev[L3_SLOTS][L3_EVENTS];
    cufort_event blk[L3_BLOCK_EVENTS];
} engine;

static void release_engine(cufort_thread_state *s)
{
    engine *e = (engine *)s;
    cufort_thunk_events_release(&e->resident, 1);
    cufort_thunk_events_release(e->blk, L3_BLOCK_EVENTS);
    for (int i = 0; i < L3_SLOTS; i++)
        cufort_thunk_events_release(e->ev[i], L3_EVENTS);
    cufort_thunk_streams_release((cufort_stream *const[]){&e->h2d, &e->comp, &e->d2h}, 3);
}

static cufort_thread_states engines = CUFORT_THREAD_STATES(engine, release_engine);
static _Thread_local engine *mine;

int cufort_l3_begin(cufort_l3_job *j)
{
    engine *e = cufort_thread_state_get(&engines, (void **)&mine);
    if (!e)
        return CUFORT_ALLOC_FAILED;
    int st = cufort_thunk_streams((cufort_stream *const[]){&e->h2d, &e->comp, &e->d2h}, 3);
    for (int i = 0; i < L3_SLOTS && !st; i++)
        st = cufort_thunk_events(e->ev[i], L3_EVENTS);
    if (!st)
        st = cufort_thunk_events(&e->resident, 1);
    if (st)
        return st;
    j->h2d = e->h2d, j->comp = e->comp, j->d2h = e->d2h, j->resident = e->resident;
    for (int i = 0; i < L3_SLOTS; i++)
        j->ev[i] = e->ev[i];
    j->blk = e->blk;
    j->ops = cufort_ops();
    j->es = cufort_prec_size(j->c->prec);
    return CUFORT_SUCCESS;
}

int cufort_l3_identity(cufort_l3_job *j, char *dev, int64_t n)
{
    size_t es = j->es, bytes = (size_t)(n * n) * es;
    char *host = calloc(1, bytes);
    if (!host)
        return CUFORT_ALLOC_FAILED;
    for (int64_t i = 0; i < n; i++) {   /* 1 in the precision: a float or double 1, imaginary 0 */
        char *e = host + (size_t)(i + i * n) * es;
        if (j->c->prec == 's' || j->c->prec == 'c')
            *(float *)e = 1;
        else
            *(double *)e = 1;
    }
    int st = j->ops->copy2d(dev, bytes, host, bytes, bytes, 1, CUFORT_H2D, j->h2d, 0);
    free(host);
    return st;
}

int cufort_l3_block_events(cufort_l3_job *j, int count)
{
    return count <= L3_BLOCK_EVENTS ? cufort_thunk_events(j->blk, count) : CUFORT_INTERNAL_ERROR;
}

void cufort_l3_offer(cufort_l3_job *j, cufort_held_array *o, const void *p, int64_t rows,
                     int64_t cols, int64_t ld)
{
    cufort_held_offer(o, p, rows, cols, ld, j->es);
}

static void release(cufort_l3_job *j)
{
    cufort_held_release(&j->a);
    cufort_held_release(&j->b);
    cufort_held_release(&j->out);
}

static const char *at(const cufort_l3_job *j, const cufort_held_array *o, int64_t r, int64_t c)
{
    return o->p + (size_t)(r + c * o->ld) * j->es;
}

int cufort_l3_put(cufort_l3_job *j, const cufort_held_array *o, int64_t r, int64_t c, int64_t rows,
                  int64_t cols, char *dev, int64_t dld, char *tmp)
{
    if (rows <= 0 || cols <= 0)
        return CUFORT_SUCCESS;
    const char *h = at(j, o, r, c);
    size_t w = (size_t)rows * j->es, hp = (size_t)o->ld * j->es, dp = (size_t)dld * j->es;
    if (cufort_held_dma(o))
        return cufort_held_copy(o, (char *)h, hp, dev, dp, w, cols, CUFORT_H2D, j->h2d);
    if (dld == rows)
        return cufort_stage_to_device_unoffered(j->h2d, dev, h, hp, w, (size_t)cols);
    int st = cufort_stage_to_device_unoffered(j->h2d, tmp, h, hp, w, (size_t)cols);
    return st ? st : j->ops->copy2d(dev, dp, tmp, w, w, (size_t)cols, CUFORT_D2D, j->h2d, 1);
}

int cufort_l3_get(cufort_l3_job *j, int64_t r, int64_t c, int64_t rows, int64_t cols,
                  const char *dev, int64_t dld, char *tmp)
{
    if (rows <= 0 || cols <= 0)
        return CUFORT_SUCCESS;
    char *h = (char *)at(j, &j->out, r, c);
    size_t w = (size_t)rows * j->es, hp = (size_t)j->out.ld * j->es, dp = (size_t)dld * j->es;
    if (cufort_held_dma(&j->out))
        return cufort_held_copy(&j->out, h, hp, (char *)dev, dp, w, cols, CUFORT_D2H, j->d2h);
    if (dld != rows) {   /* packed on the device first */
        int st = j->ops->copy2d(tmp, w, dev, dp, w, (size_t)cols, CUFORT_D2D, j->d2h, 1);
        if (st)
            return st;
        dev = tmp;
    }
    return cufort_stage_to_host_unoffered(j->d2h, h, hp, dev, w, (size_t)cols);
}

/* staging's combine for host_beta */
static void add_to_beta_c(char *dst, const char *src, size_t bytes, const void *ctx)
{
    const cufort_l3 *c = ctx;
    cufort_beta_add(c->prec, c->beta, dst, src, bytes);
}

int cufort_l3_get_onto_beta(cufort_l3_job *j, int64_t r, int64_t c, int64_t rows, int64_t cols,
                            const char *dev)
{
    if (rows <= 0 || cols <= 0)
        return CUFORT_SUCCESS;
    char *h = (char *)at(j, &j->out, r, c);
    return cufort_stage_to_host_combined(j->d2h, h, (size_t)j->out.ld * j->es, dev,
                                         (size_t)rows * j->es, (size_t)cols, add_to_beta_c, NULL,
                                         j->c);
}

static int download_step(cufort_l3_job *j, const cufort_l3_steps *steps, void *ctx, int64_t i)
{
    cufort_event *ev = j->ev[i % L3_SLOTS];
    int st = j->ops->stream_wait(j->d2h, ev[L3_COMPUTED]);
    if (!st)
        st = steps->download(ctx, i);
    TRACE_GPU(j->d2h, 'o', i, 0);
    return st ? st : j->ops->event_record(ev[L3_DONE], j->d2h);
}

int cufort_l3_pipeline(cufort_l3_job *j, int64_t n, const cufort_l3_steps *steps, void *ctx)
{
    const cufort_backend_ops *ops = j->ops;
    const int64_t lag = steps->lag_two ? 2 : 1;   /* (L3_SLOTS slots allow up to L3_SLOTS - 1) */
    int st = CUFORT_SUCCESS;
    TRACE_HOST('L', n, j->w);
    TRACE_GPU(j->h2d, 'l', n, j->w);
    for (int64_t i = 0; i < n && !st; i++) {
        cufort_event *ev = j->ev[i % L3_SLOTS];
        if (steps->reuse_slots && i >= L3_SLOTS)
            st = ops->stream_wait(j->h2d, ev[L3_DONE]);
        if (!st)
            st = steps->upload(ctx, i);
        TRACE_GPU(j->h2d, 'u', i, 0);
        if (!st)
            st = ops->event_record(ev[L3_READY], j->h2d);
        if (!st && steps->uploaded)
            st = steps->uploaded(ctx, i);
        if (!st)
            st = ops->stream_wait(j->comp, ev[L3_READY]);
        if (!st)
            st = steps->compute(ctx, i);
        TRACE_GPU(j->comp, 'c', i, 0);
        if (!st)
            st = ops->event_record(ev[L3_COMPUTED], j->comp);
        if (!st && i >= lag)
            st = download_step(j, steps, ctx, i - lag);
    }
    for (int64_t i = n > lag ? n - lag : 0; i < n && !st; i++)
        st = download_step(j, steps, ctx, i);
    return st;
}

int cufort_l3_finish(cufort_l3_job *j, int st)
{
    cufort_stream streams[] = {j->h2d, j->comp, j->d2h};
    for (int i = 0; i < 3; i++) {   /* nothing may still touch the caller's arrays */
        int sync = j->ops->stream_synchronize(streams[i]);
        st = st ? st : sync;
    }
    release(j);
    return st;
}
