/* staging.c — host arrays to and from the device at PCIe speed.
 * Pinned arrays (cufort_host_alloc, cufort_host_register) go straight to the DMA engine.  Pageable
 * arrays, which cudaMemcpy moves at a fraction of that (8.5 GB/s H2D on the H100 host), go through
 * two pinned staging slots in chunks: host threads pack chunk i out of the caller's array while the
 * DMA engine moves chunk i-1, and the way back mirrors it.  Arrays under 64 KiB take the plain
 * path, where the set-up would cost more than it saves. */
#include <omp.h>
#include <stdlib.h>

#include "staging.h"
#include "thread_state.h"

/* PIPELINE_MIN: below it a plain copy costs no more than the slot's bookkeeping.  PER_THREAD: the
 * least a host thread is given, so that small blocks do not pay for waking up eight threads. */
enum { SLOTS = 2, CHUNK = 8 << 20, PIPELINE_MIN = 64 << 10, MAX_THREADS = 8, PER_THREAD = 256 << 10 };

typedef struct {
    cufort_thread_state link;
    void *slot[SLOTS];
    size_t slot_bytes;
    cufort_event done[SLOTS];   /* the last DMA that used the slot */
    int pending[SLOTS];
} stage;

static void release_stage(cufort_thread_state *s)   /* at a reset, with the device still there */
{
    stage *st = (stage *)s;
    for (int i = 0; i < SLOTS; i++) {
        if (st->slot[i])
            cufort_host_free(st->slot[i]);
        if (st->done[i])
            cufort_event_destroy(st->done[i]);
    }
}

static cufort_thread_states stages = CUFORT_THREAD_STATES(stage, release_stage);
static _Thread_local stage *mine;

static int my_stage(size_t bytes, stage **out)
{
    stage *me = cufort_thread_state_get(&stages, (void **)&mine);
    if (!me)
        return CUFORT_ALLOC_FAILED;
    for (int i = 0; i < SLOTS; i++) {
        int st = CUFORT_SUCCESS;
        if (me->slot_bytes < bytes && me->slot[i]) {
            if (me->pending[i] && (st = cufort_event_synchronize(me->done[i])))
                return st;
            cufort_host_free(me->slot[i]);
            me->slot[i] = NULL;
            me->pending[i] = 0;
        }
        if (!me->slot[i] && (st = cufort_host_alloc(&me->slot[i], (int64_t)bytes)))
            return st;
        if (!me->done[i] && (st = cufort_event_create(&me->done[i])))
            return st;
    }
    if (me->slot_bytes < bytes)
        me->slot_bytes = bytes;
    *out = me;
    return CUFORT_SUCCESS;
}

int cufort_host_pinned(const void *p, size_t bytes)
{
    cufort_registry *sets[] = {&cufort_pinned_blocks, &cufort_registered_ranges};
    uintptr_t base;
    size_t size;
    for (int i = 0; i < 2; i++)
        if (cufort_registry_floor(sets[i], p, &base, &size) && (uintptr_t)p + bytes <= base + size)
            return 1;
    return 0;
}

/* cols columns of width bytes between two pitches, split over host threads */
static void parallel_copy(char *dst, size_t dpitch, const char *src, size_t spitch, size_t width,
                          size_t cols)
{
    /* CUFORT_STAGING_THREADS overrides the count (tests use more threads than CI has cores) */
    const char *env = getenv("CUFORT_STAGING_THREADS");
    int threads = env && atoi(env) > 0 ? atoi(env) : omp_get_max_threads();
    threads = threads < MAX_THREADS ? threads : MAX_THREADS;
    size_t useful = width * cols / PER_THREAD;
    threads = useful < (size_t)threads ? (int)useful + (useful == 0) : threads;
    if (dpitch == width && spitch == width) {          /* one block: cut it in equal parts */
        /* each part a whole number of pages, rounded up so the parts cover the block */
        size_t total = width * cols, part = ((total + threads - 1) / threads + 4095) / 4096 * 4096;
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int t = 0; t < threads; t++) {
            size_t at = (size_t)t * part;
            if (at < total)
                memcpy(dst + at, src + at, total - at < part ? total - at : part);
        }
        return;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t c = 0; c < cols; c++)
        memcpy(dst + c * dpitch, src + c * spitch, width);
}

/* The pieces a transfer is cut into: whole columns, or byte ranges of a packed array. */
typedef struct { size_t width, cols, per_piece, pieces; int packed; } cut;

static cut cut_up(size_t hpitch, size_t width, size_t cols)
{
    cut c = {width, cols, 0, 0, hpitch == width};
    if (c.packed) {                       /* a packed array is one long column */
        c.width = width * cols;
        c.cols = 1;
        c.per_piece = CHUNK;
        c.pieces = (c.width + CHUNK - 1) / CHUNK;
    } else {
        c.per_piece = width >= CHUNK ? 1 : CHUNK / width;
        c.pieces = (cols + c.per_piece - 1) / c.per_piece;
    }
    return c;
}

/* piece k: where it starts on each side, its width, column count and host pitch (a piece of a
 * packed array is one packed block, so the copy can be cut between threads) */
static void piece(const cut *c, size_t hpitch, size_t k, size_t *host_off, size_t *dev_off,
                  size_t *width, size_t *cols, size_t *pitch)
{
    size_t first = k * c->per_piece;
    size_t n = c->packed ? c->width - first : c->cols - first;
    n = n < c->per_piece ? n : c->per_piece;
    *host_off = c->packed ? first : first * hpitch;
    *dev_off = c->packed ? first : first * c->width;
    *width = c->packed ? n : c->width;
    *cols = c->packed ? 1 : n;
    *pitch = c->packed ? n : hpitch;
}

static size_t slot_size(const cut *c)
{
    return c->packed ? (c->width < CHUNK ? c->width : CHUNK) : c->per_piece * c->width;
}

int cufort_stage_to_device(void *dev, const void *host, size_t hpitch, size_t width, size_t cols)
{
    return cufort_stage_to_device_on(cufort_thread_stream(), dev, host, hpitch, width, cols);
}

int cufort_stage_to_host(void *host, size_t hpitch, const void *dev, size_t width, size_t cols)
{
    return cufort_stage_to_host_on(cufort_thread_stream(), host, hpitch, dev, width, cols);
}

int cufort_stage_to_device_on(cufort_stream s, void *dev, const void *host, size_t hpitch,
                              size_t width, size_t cols)
{
    const cufort_backend_ops *ops = cufort_ops();
    if (width * cols < PIPELINE_MIN || cufort_host_pinned(host, hpitch * (cols - 1) + width)) {
        int rc = ops->copy2d(dev, width, host, hpitch, width, cols, CUFORT_H2D, s, 1);
        return rc ? rc : ops->stream_synchronize(s);
    }
    cut c = cut_up(hpitch, width, cols);
    stage *st;
    int rc = my_stage(slot_size(&c), &st);
    for (size_t k = 0; k < c.pieces && !rc; k++) {
        int i = (int)(k % SLOTS);
        size_t ho, dof, w, n, hp;
        piece(&c, hpitch, k, &ho, &dof, &w, &n, &hp);
        if (st->pending[i] && (rc = cufort_event_synchronize(st->done[i])))
            break;
        parallel_copy(st->slot[i], w, (const char *)host + ho, hp, w, n);
        rc = ops->copy2d((char *)dev + dof, w * n, st->slot[i], w * n, w * n, 1, CUFORT_H2D, s, 1);
        if (!rc && !(rc = cufort_event_record(st->done[i], s)))
            st->pending[i] = 1;
    }
    return rc;
}

int cufort_stage_to_host_on(cufort_stream s, void *host, size_t hpitch, const void *dev,
                            size_t width, size_t cols)
{
    const cufort_backend_ops *ops = cufort_ops();
    if (width * cols < PIPELINE_MIN || cufort_host_pinned(host, hpitch * (cols - 1) + width)) {
        int rc = ops->copy2d(host, hpitch, dev, width, width, cols, CUFORT_D2H, s, 1);
        return rc ? rc : ops->stream_synchronize(s);
    }
    cut c = cut_up(hpitch, width, cols);
    stage *st;
    int rc = my_stage(slot_size(&c), &st);
    /* DMA piece k into its slot, then unpack piece k-1 while that runs */
    for (size_t k = 0; k <= c.pieces && !rc; k++) {
        size_t ho, dof, w, n, hp;
        if (k < c.pieces) {
            int i = (int)(k % SLOTS);
            piece(&c, hpitch, k, &ho, &dof, &w, &n, &hp);
            if (st->pending[i] && (rc = cufort_event_synchronize(st->done[i])))
                break;
            rc = ops->copy2d(st->slot[i], w * n, (const char *)dev + dof, w * n, w * n, 1, CUFORT_D2H,
                             s, 1);
            if (rc || (rc = cufort_event_record(st->done[i], s)))
                break;
            st->pending[i] = 1;
        }
        if (k > 0) {
            int i = (int)((k - 1) % SLOTS);
            piece(&c, hpitch, k - 1, &ho, &dof, &w, &n, &hp);
            if ((rc = cufort_event_synchronize(st->done[i])))
                break;
            st->pending[i] = 0;
            parallel_copy((char *)host + ho, hp, st->slot[i], w, w, n);
        }
    }
    return rc;
}
