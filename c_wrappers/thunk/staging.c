/* staging.c — host arrays to and from the device at PCIe speed.
 * Pinned arrays (cufort_host_alloc, cufort_host_register) go straight to the DMA engine.  Pageable
 * arrays, which cudaMemcpy moves at a fraction of that (7–8.5 GB/s H2D on the H100 host), are cut
 * into pieces of at most 2 MiB that host threads stream through pinned rings: each worker of a
 * copy (the calling thread and helpers from pool.c, which sleep when idle, unlike OpenMP's) owns a
 * ring of three slots, claims the next piece, packs it into a free slot and queues its DMA itself,
 * so packing, DMA and the other workers never wait for one another (the way back mirrors it, three
 * DMAs in flight per worker).  Why this shape (bench/stage_bench.c, bench/NOTES_staging.md):
 * one core of that host copies at only ~8.5 GB/s, so the copies must be spread over threads, and a
 * step-locked scheme (all threads pack one 8 MiB slot, then the DMA) reached 40 / 35 GB/s where
 * these rings reach 49.5 / 50 GB/s of the 54.7 the DMA engine moves from pinned memory.  Packing
 * uses ordinary stores (non-temporal ones measured 35 against 49.5 GB/s, though the DMA reads a
 * slot still in a core's cache more slowly); unpacking uses non-temporal stores (the caller's
 * array is not read for ownership first: 50 against 42 GB/s).  Arrays under 64 KiB take the plain
 * path, where the set-up would cost more than it saves. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "copy_streaming.h"
#include "pool.h"
#include "staging.h"
#include "thread_state.h"
#include "thunk.h"

/* PIECE: the largest piece (a slot); MIN_PIECE: the smallest worth a thread of its own, so that a
 * 1 MiB array is cut four ways but a 100 KiB one is not cut at all. */
enum { SLOTS = 3, WORKERS = 8, MAX_WORKERS = 16, PIECE = 2 << 20, MIN_PIECE = 256 << 10,
       PIPELINE_MIN = 64 << 10 };

typedef struct {
    cufort_thread_state link;
    char *ring[MAX_WORKERS];                    /* SLOTS slots of PIECE bytes, pinned */
    cufort_event done[MAX_WORKERS][SLOTS];      /* the last DMA through the slot */
    int pending[MAX_WORKERS][SLOTS];
} stage;

static void release_stage(cufort_thread_state *s)   /* at a reset, with the device still there */
{
    stage *st = (stage *)s;
    for (int w = 0; w < MAX_WORKERS; w++) {
        if (st->ring[w])
            cufort_host_free(st->ring[w]);
        cufort_thunk_events_release(st->done[w], SLOTS);
    }
}

static cufort_thread_states stages = CUFORT_THREAD_STATES(stage, release_stage);
static _Thread_local stage *mine;

/* this thread's rings for workers [0, workers), made on first use */
static int my_stage(int workers, stage **out)
{
    stage *me = cufort_thread_state_get(&stages, (void **)&mine);
    if (!me)
        return CUFORT_ALLOC_FAILED;
    for (int w = 0; w < workers; w++) {
        int st;
        if (!me->ring[w] && (st = cufort_host_alloc((void **)&me->ring[w], (int64_t)SLOTS * PIECE)))
            return st;
        if ((st = cufort_thunk_events(me->done[w], SLOTS)))
            return st;
    }
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

/* host threads that copy: CUFORT_STAGING_THREADS (at most MAX_WORKERS; tests use more than CI has
 * cores), else WORKERS, or fewer when OpenMP offers fewer */
static int staging_threads(void)
{
    const char *env = getenv("CUFORT_STAGING_THREADS");
    int t = env && atoi(env) > 0 ? atoi(env) : omp_get_max_threads();
    int most = env && atoi(env) > 0 ? MAX_WORKERS : WORKERS;
    return t < 1 ? 1 : t < most ? t : most;
}

/* A transfer is the packed device image of cols columns of width bytes (hpitch apart on the host),
 * handed out in pieces, in order, to whichever thread asks next (a slow thread delays no other).
 * A piece is a slot, or less when that leaves a thread idle: 1 MiB goes four ways, 100 KiB one.
 * Both ends of a large transfer ramp, because the DMA engine, not the packing, is the slower side
 * (bench/NOTES_staging.md): an upload starts with pieces of 256 KiB, 256 KiB, 512 KiB and 1 MiB
 * so that the first DMA starts after 256 KiB is packed, not 2 MiB; a download ends with a round
 * of quarter pieces, so that the last unpack, which no other thread can share, is short.  (Pieces
 * shrinking through the whole second half measured slower: more pieces, more DMA gaps.) */
typedef struct {
    char *host;
    size_t width, hpitch, total, piece;
    size_t head, tail;           /* ramps: bytes handed out small at the start, at the end */
    size_t next;                 /* the first byte not yet handed out (atomic) */
    cufort_unpack_fn combine;    /* how a piece lands in the caller's array (NULL: copied) */
    const void *ctx;
} transfer;

static transfer transfer_of(void *host, size_t hpitch, size_t width, size_t cols, int threads,
                            cufort_copy_kind kind)
{
    size_t total = width * cols, p = (total / (size_t)threads + 4095) / 4096 * 4096;
    p = p < MIN_PIECE ? MIN_PIECE : p > PIECE ? PIECE : p;
    size_t head = kind == CUFORT_H2D && p == PIECE ? p : 0;
    size_t tail = kind == CUFORT_D2H && p == PIECE ? (size_t)threads * p : 0;
    return (transfer){(char *)host, width, hpitch, total, p, head, tail, 0, NULL, NULL};
}

static size_t range_size(const transfer *x, size_t at)
{
    size_t p = x->piece, left = x->total - at;
    if (at < x->head)
        p = at < MIN_PIECE ? MIN_PIECE : at;             /* 256 KiB, 256 KiB, 512 KiB, 1 MiB */
    else if (left <= x->tail)
        p = p / 4;                                       /* the last round in quarters */
    return p < left ? p : left;
}

/* the next piece [*at, *at + *bytes); 0 when all is handed out */
static int claim(transfer *x, size_t *at, size_t *bytes)
{
    size_t a = __atomic_load_n(&x->next, __ATOMIC_RELAXED), b;
    do {
        if (a >= x->total)
            return 0;
        b = range_size(x, a);
    } while (!__atomic_compare_exchange_n(&x->next, &a, a + b, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    *at = a;
    *bytes = b;
    return 1;
}

/* bytes [at, at + bytes) of the image between the caller's array and a packed slot: packed with
 * ordinary stores, unpacked with streaming ones (or through the transfer's combine).  Pieces start
 * at multiples of 1 KiB and columns at multiples of the element size, so no element is split. */
static void pack(const transfer *x, char *slot, size_t at, size_t bytes, cufort_copy_kind kind)
{
    for (size_t done = 0; done < bytes;) {
        size_t col = (at + done) / x->width, off = (at + done) % x->width;
        size_t n = x->width - off < bytes - done ? x->width - off : bytes - done;
        char *host = x->host + col * x->hpitch + off;
        if (kind == CUFORT_H2D)
            memcpy(slot + done, host, n);
        else if (x->combine)
            x->combine(host, slot + done, n, x->ctx);
        else
            cufort_copy_streaming(host, slot + done, n);
        done += n;
    }
}

/* the first failure of any worker, reported on the calling thread */
typedef struct { int rc; char message[256]; } failure;

static int failed(failure *f, int rc)
{
    static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
    if (rc) {
        pthread_mutex_lock(&first);
        if (!f->rc) {
            snprintf(f->message, sizeof f->message, "%s", cufort_last_error());
            __atomic_store_n(&f->rc, rc, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&first);
    }
    return rc;
}

static int stopped(failure *f) { return __atomic_load_n(&f->rc, __ATOMIC_ACQUIRE); }

static int settle(const failure *f)
{
    return f->rc ? cufort_fail(f->rc, "%s", f->message) : CUFORT_SUCCESS;
}

/* wait for the slot's last DMA, if it still has one */
static int free_slot(stage *st, int w, int i)
{
    int rc = st->pending[w][i] ? cufort_event_synchronize(st->done[w][i]) : CUFORT_SUCCESS;
    if (!rc)
        st->pending[w][i] = 0;
    return rc;
}

static int queue_dma(stage *st, int w, int i, cufort_stream s, void *dst, const void *src,
                     size_t bytes, cufort_copy_kind kind)
{
    int rc = cufort_ops()->copy2d(dst, bytes, src, bytes, bytes, 1, kind, s, 1);
    if (!rc && !(rc = cufort_event_record(st->done[w][i], s)))
        st->pending[w][i] = 1;
    return rc;
}

/* small arrays and pinned ones go to the DMA engine as they are */
static int direct(const void *host, size_t hpitch, size_t width, size_t cols)
{
    return width * cols < PIPELINE_MIN || cufort_host_pinned(host, hpitch * (cols - 1) + width);
}

static int direct_copy(cufort_stream s, void *dst, size_t dpitch, const void *src, size_t spitch,
                       size_t width, size_t cols, cufort_copy_kind kind)
{
    const cufort_backend_ops *ops = cufort_ops();
    int rc = ops->copy2d(dst, dpitch, src, spitch, width, cols, kind, s, 1);
    return rc ? rc : ops->stream_synchronize(s);
}

static int workers_for(size_t bytes)
{
    int threads = staging_threads();
    size_t useful = (bytes + MIN_PIECE - 1) / MIN_PIECE;
    return useful < (size_t)threads ? (int)useful : threads;
}

int cufort_stage_to_device(void *dev, const void *host, size_t hpitch, size_t width, size_t cols)
{
    return cufort_stage_to_device_on(cufort_thread_stream(), dev, host, hpitch, width, cols);
}

int cufort_stage_to_host(void *host, size_t hpitch, const void *dev, size_t width, size_t cols)
{
    return cufort_stage_to_host_on(cufort_thread_stream(), host, hpitch, dev, width, cols);
}

/* one staged copy, shared by the threads that work on it (pool.c) */
typedef struct {
    stage *st;
    transfer x;
    failure f;
    cufort_stream s;
    char *dev;
} copy_job;

/* worker w's share of an upload: claim a piece, pack it into a free slot, queue its DMA */
static void upload_share(void *job, int w)
{
    copy_job *c = job;
    size_t at, bytes;
    for (int i = 0; !stopped(&c->f) && claim(&c->x, &at, &bytes); i = (i + 1) % SLOTS) {
        char *slot = c->st->ring[w] + (size_t)i * PIECE;
        if (failed(&c->f, free_slot(c->st, w, i)))
            break;
        pack(&c->x, slot, at, bytes, CUFORT_H2D);
        if (failed(&c->f, queue_dma(c->st, w, i, c->s, c->dev + at, slot, bytes, CUFORT_H2D)))
            break;
    }
}

/* worker w's share of a download: up to SLOTS pieces in flight, unpacked oldest first */
static void download_share(void *job, int w)
{
    copy_job *c = job;
    stage *st = c->st;
    int head = 0, count = 0;
    size_t at[SLOTS], bytes[SLOTS];
    for (;;) {
        while (count < SLOTS && !stopped(&c->f)) {
            int i = (head + count) % SLOTS;
            if (!claim(&c->x, &at[i], &bytes[i]))
                break;
            if (failed(&c->f, free_slot(st, w, i)) ||
                failed(&c->f, queue_dma(st, w, i, c->s, st->ring[w] + (size_t)i * PIECE,
                                        c->dev + at[i], bytes[i], CUFORT_D2H)))
                break;
            count++;
        }
        if (count == 0 || stopped(&c->f) || failed(&c->f, free_slot(st, w, head)))
            break;
        pack(&c->x, st->ring[w] + (size_t)head * PIECE, at[head], bytes[head], CUFORT_D2H);
        head = (head + 1) % SLOTS;
        count--;
    }
}

/* a staged copy either way: this thread's rings, the transfer, its workers */
static int staged(cufort_stream s, char *dev, void *host, size_t hpitch, size_t width, size_t cols,
                  cufort_copy_kind kind, cufort_unpack_fn combine, const void *ctx)
{
    int workers = workers_for(width * cols);
    copy_job c = {.s = s, .dev = dev, .f = {0, ""}};
    int rc = my_stage(workers, &c.st);
    if (rc)
        return rc;
    c.x = transfer_of(host, hpitch, width, cols, workers, kind);
    c.x.combine = combine;
    c.x.ctx = ctx;
    cufort_pool_run(workers, kind == CUFORT_H2D ? upload_share : download_share, &c);
    return settle(&c.f);
}

int cufort_stage_to_device_on(cufort_stream s, void *dev, const void *host, size_t hpitch,
                              size_t width, size_t cols)
{
    if (direct(host, hpitch, width, cols))
        return direct_copy(s, dev, width, host, hpitch, width, cols, CUFORT_H2D);
    return staged(s, dev, (void *)host, hpitch, width, cols, CUFORT_H2D, NULL, NULL);
}

int cufort_stage_to_host_on(cufort_stream s, void *host, size_t hpitch, const void *dev,
                            size_t width, size_t cols)
{
    return cufort_stage_to_host_combined(s, host, hpitch, dev, width, cols, NULL, NULL);
}

/* (with a combine, every size goes through the slots: the host array is never a DMA target) */
int cufort_stage_to_host_combined(cufort_stream s, void *host, size_t hpitch, const void *dev,
                                  size_t width, size_t cols, cufort_unpack_fn combine,
                                  const void *ctx)
{
    if (!combine && direct(host, hpitch, width, cols))
        return direct_copy(s, host, hpitch, dev, width, width, cols, CUFORT_D2H);
    return staged(s, (char *)dev, host, hpitch, width, cols, CUFORT_D2H, combine, ctx);
}
