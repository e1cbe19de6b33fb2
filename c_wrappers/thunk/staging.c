/* staging.c — host arrays to and from the device at PCIe speed.
 * Pinned arrays (cufort_host_alloc, cufort_host_register) go straight to the DMA engine.  Pageable
 * arrays, which cudaMemcpy moves at a fraction of that (7–8.5 GB/s H2D on the H100 host), go
 * through a ring of SLOTS pinned slots of GROUP bytes owned by the calling thread (or its first
 * few: cufort_staging_spread).  The copy's workers (the calling thread and helpers from pool.c,
 * which sleep when idle, unlike OpenMP's) claim pieces of the array in order and pack each into its
 * place in its group's slot; whoever packs a group's last piece queues the group's one DMA.  The
 * way back mirrors it: a ring's worth of groups in flight, and whoever unpacks a group's last piece
 * queues the group that reuses the slot.  Why this shape (bench/probes/stage_bench.c,
 * docs/performance.md): one core of that host copies at only ~8.5 GB/s, so the copies must be
 * spread over threads; and the DMA engine, not the packing, is the slower side, faster in large
 * copies: groups of 8 MiB packed in 1 MiB pieces moved 128 MiB at 44-49 GB/s up and 51 down where a
 * ring per thread with one 2 MiB DMA per piece moved 29-45 and 40-42 (the two taking turns in one
 * run; nine runs up, two down).  Packing uses ordinary stores (non-temporal ones measured 36-40
 * against 44-49 GB/s), except in the last TAIL groups of an upload under 32 MiB.  The DMA engine
 * reads those right after they are packed, while their lines sit in the packing cores' caches, and
 * reads them there at ~18 GB/s (a thunked 4 MiB sscal's four 1 MiB DMAs took 232 us, all four
 * streamed 111 us, in bench/probes/trace_calls' timeline); streamed, thunked 4 and 16 MiB calls
 * took 2-23% less.  A larger upload streams its tail only when the DMA engine is behind the packing
 * (choose_tail): where the packing is the slower side, the slower streaming stores would delay the
 * tail more than the engine's cache reads do.  Unpacking uses non-temporal stores (the caller's
 * array is not read for ownership first: 50 against 42 GB/s).  Arrays under 64 KiB take the plain
 * path, where the set-up would cost more than it saves. */
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "copy_streaming.h"
#include "env.h"
#include "pin_cache.h"
#include "pool.h"
#include "scratch.h"
#include "stage_trace.h"
#include "staging.h"
#include "thread_state.h"

/* GROUP: a slot, the most one DMA moves; PIECE: the most one worker packs or unpacks at a time;
 * MIN_PIECE: the least worth a worker of its own in an array of 1 MiB or more, SMALL_PIECE in a
 * smaller one (min_piece()); TAIL: an upload's last groups, which may be packed with streaming
 * stores. */
enum { SLOTS = 6, SPREAD_SLOTS = 4, GROUP = 8 << 20, RAMP = 1 << 20, WORKERS = 8, MAX_WORKERS = 16,
       PIECE = 1 << 20, MIN_PIECE = 256 << 10, SMALL_PIECE = 64 << 10, PIPELINE_MIN = 64 << 10,
       TAIL = 2 };

/* the GPUs at once of the call this thread's copies belong to (cufort_staging_spread); 0: one */
static _Thread_local int spread_devices;

typedef struct {
    cufort_thread_state link;
    char *slot[SLOTS];            /* GROUP bytes each, pinned, made on first use */
    cufort_event done[SLOTS];     /* the last DMA through the slot */
    int pending[SLOTS];
    int next;                     /* the slot where the next transfer starts (ring()) */
} stage;

static void release_stage(cufort_thread_state *s)   /* at a reset, with the device still there */
{
    stage *st = (stage *)s;
    for (int i = 0; i < SLOTS; i++)
        if (st->slot[i])
            cufort_own_free(st->slot[i], 1);
    cufort_thunk_events_release(st->done, SLOTS);
}

static cufort_thread_states stages = CUFORT_THREAD_STATES(stage, release_stage);
static _Thread_local stage *mine;

/* this thread's slots [0, slots), made on first use */
static int my_stage(int slots, stage **out)
{
    stage *me = cufort_thread_state_get(&stages, (void **)&mine);
    if (!me)
        return CUFORT_ALLOC_FAILED;
    for (int i = 0; i < slots; i++) {
        int st;
        if (!me->slot[i] && (st = cufort_own_alloc((void **)&me->slot[i], GROUP, 1)))
            return st;
    }
    int st = cufort_thunk_events(me->done, SLOTS);
    if (st)
        return st;
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

int cufort_host_dma_ready(const void *p, size_t bytes)
{
    return cufort_host_pinned(p, bytes) || cufort_pin_cache_holds(p, bytes);
}

/* the thread count environment variable `name` sets, at most MAX_WORKERS; 0 when unset */
static int threads_from_env(const char *name)
{
    int64_t n = 0;
    cufort_env_int(name, 1, MAX_WORKERS, &n);
    return (int)n;
}

/* the threads that OpenMP and the process's CPU affinity offer */
static int offered_threads(void)
{
    int t = omp_get_max_threads(), cpus = cufort_usable_cpus();
    return cpus > 0 && cpus < t ? cpus : t;
}

/* host threads that copy: CUFORT_STAGING_THREADS (at most MAX_WORKERS; tests use more than CI has
 * cores), else WORKERS, or fewer when OpenMP or the process's CPU affinity offers fewer: an MPI
 * rank bound to one core copies alone, since a helper with no core of its own only delays it */
int cufort_staging_threads(void)
{
    int t = threads_from_env("CUFORT_STAGING_THREADS");
    if (t)
        return t;
    t = offered_threads();
    return t < 1 ? 1 : t < WORKERS ? t : WORKERS;
}

/* A transfer is the packed device image of cols columns of width bytes (hpitch apart on the host),
 * moved in groups, one DMA each, and handed to the workers in pieces, in order, to whichever asks
 * next (a slow worker delays no other).  A piece is an eighth of its group, at least min_piece()
 * and at most PIECE: 2 MiB goes eight ways, 256 KiB four, 128 KiB two.  An upload's groups are a
 * quarter of it, from RAMP to GROUP bytes, so that an array of a few MiB is not packed whole
 * before its one DMA starts.
 * A download's last groups ramp down, 4, 2, 1 and 1 MiB, so that the unpacking left after the last
 * DMA is short.  (A large upload's first groups ramped up the same way measured slower: 128 MiB in
 * 2.99-3.24 ms against 2.82-3.06 without, three runs in turns; the DMA engine is
 * behind from the start.) */
typedef struct {
    char *host;
    size_t width, hpitch, total;
    cufort_copy_kind kind;
    long groups;
    size_t group;                /* an upload's group size */
    size_t next;                 /* the first byte not yet handed out (atomic) */
    cufort_unpack_fn combine;    /* how a piece lands in the caller's array (NULL: copied) */
    cufort_stage_gate_fn gate;   /* what a download's DMA waits for first (NULL: nothing) */
    const void *ctx;
    size_t streamed_from;        /* an upload's bytes from here on are packed with streaming stores */
    size_t tail_from;            /* a large upload's last TAIL groups: streamed as well if the DMA
                                    engine is behind when their first piece is claimed */
} transfer;

_Static_assert(GROUP == 8 * RAMP, "the ramp's groups (1, 1, 2, 4 x RAMP) add up to one GROUP");

/* counted from a download's end, the index of the group holding byte y, and its bounds */
static long ramp_group(size_t y)
{
    return y < RAMP ? 0 : y < 2 * RAMP ? 1 : y < 4 * RAMP ? 2
           : y < GROUP ? 3 : 3 + (long)(y / GROUP);
}

static void ramp_bounds(long k, size_t *lo, size_t *hi)
{
    *lo = k == 0 ? 0 : k < 4 ? (size_t)RAMP << (k - 1) : (size_t)(k - 3) * GROUP;
    *hi = k < 4 ? (size_t)RAMP << k : *lo + GROUP;
}

/* group g's bytes [*start, *start + *bytes) */
static void group_bounds(const transfer *x, long g, size_t *start, size_t *bytes)
{
    size_t lo, hi;
    if (x->kind == CUFORT_H2D)
        lo = (size_t)g * x->group, hi = lo + x->group;
    else
        ramp_bounds(x->groups - 1 - g, &lo, &hi);
    hi = hi < x->total ? hi : x->total;
    *start = x->kind == CUFORT_H2D ? lo : x->total - hi;
    *bytes = hi - lo;
}

/* the group holding byte at, and its bounds */
static long group_of(const transfer *x, size_t at, size_t *start, size_t *bytes)
{
    long g = x->kind == CUFORT_H2D ? (long)(at / x->group)
                                   : x->groups - 1 - ramp_group(x->total - 1 - at);
    group_bounds(x, g, start, bytes);
    return g;
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

static transfer transfer_of(void *host, size_t hpitch, size_t width, size_t cols,
                            cufort_copy_kind kind)
{
    size_t total = width * cols, group = round_up(total / 4, RAMP);
    group = group < RAMP ? RAMP : group > GROUP ? GROUP : group;
    long groups = kind == CUFORT_H2D ? (long)((total + group - 1) / group)
                                     : ramp_group(total - 1) + 1;
    /* an upload's last TAIL groups: a small upload's always streamed, a large one's maybe */
    size_t tail = kind == CUFORT_H2D && groups > TAIL ? (size_t)(groups - TAIL) * group : total;
    int small = group < GROUP;
    return (transfer){(char *)host, width, hpitch, total, kind, groups, group, 0, NULL, NULL, NULL,
                      small ? tail : total, small ? total : tail};
}

/* The least piece of an array of total bytes: MIN_PIECE, so that 1 MiB goes four ways; a smaller
 * array goes up to four ways too, in pieces of at least SMALL_PIECE.  (256 KiB in one piece cost
 * a thunked sscal 0.111-0.119 ms, in four 0.083-0.095; 4 MiB in 128 KiB pieces was no faster than
 * in 256 KiB ones.) */
static size_t min_piece(size_t total)
{
    if (total >= 4 * (size_t)MIN_PIECE)
        return MIN_PIECE;
    size_t quarter = round_up(total / 4, 4096);
    return quarter > SMALL_PIECE ? quarter : SMALL_PIECE;
}

/* the next piece [*at, *at + *bytes); 0 when all is handed out */
static int claim(transfer *x, size_t *at, size_t *bytes)
{
    size_t a = __atomic_load_n(&x->next, __ATOMIC_RELAXED), b;
    do {
        if (a >= x->total)
            return 0;
        size_t start, group;
        group_of(x, a, &start, &group);
        size_t least = min_piece(x->total), p = round_up(group / 8, 4096);
        p = p < least ? least : p > PIECE ? PIECE : p;
        b = start + group - a < p ? start + group - a : p;
    } while (!__atomic_compare_exchange_n(&x->next, &a, a + b, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    *at = a;
    *bytes = b;
    return 1;
}

/* W bytes per column, whole columns: a loop with a copy of constant size, which the compiler turns
 * into one load and store each, where a call per column cost more than the bytes */
#define NARROW(W)                                                                                 \
    for (size_t i = 0; i < count; i++)                                                            \
        if (up)                                                                                   \
            memcpy(slot + i * (W), host + i * hpitch, (W));                                       \
        else                                                                                      \
            memcpy(host + i * hpitch, slot + i * (W), (W))

/* columns of at most 16 bytes, such as a strided vector's elements */
static void pack_narrow(const transfer *x, char *slot, size_t at, size_t bytes, int up)
{
    size_t count = bytes / x->width, hpitch = x->hpitch;
    char *host = x->host + at / x->width * hpitch;
    switch (x->width) {
    case 4: NARROW(4); break;
    case 8: NARROW(8); break;
    case 16: NARROW(16); break;
    default: NARROW(x->width); break;
    }
}
#undef NARROW

/* bytes [at, at + bytes) of the image between the caller's array and a packed slot: packed with
 * ordinary stores, unpacked with streaming ones (or through the transfer's combine).  Pieces start
 * at multiples of 1 KiB and columns at multiples of the element size, so no element is split. */
static void pack(const transfer *x, char *slot, size_t at, size_t bytes, cufort_copy_kind kind)
{
    if (!x->combine && x->width <= 16 && at % x->width == 0 && bytes % x->width == 0) {
        pack_narrow(x, slot, at, bytes, kind == CUFORT_H2D);
        return;
    }
    for (size_t done = 0; done < bytes;) {
        size_t col = (at + done) / x->width, off = (at + done) % x->width;
        size_t n = x->width - off < bytes - done ? x->width - off : bytes - done;
        char *host = x->host + col * x->hpitch + off;
        if (kind == CUFORT_H2D && at >= __atomic_load_n(&x->streamed_from, __ATOMIC_RELAXED))
            cufort_copy_streaming(slot + done, host, n);
        else if (kind == CUFORT_H2D)
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

/* wait for the slot's last DMA, if it still has one (the workers of a group may all ask; once
 * one has seen it done, the others need not wait) */
static int free_slot(stage *st, int i)
{
    if (!__atomic_load_n(&st->pending[i], __ATOMIC_ACQUIRE))
        return CUFORT_SUCCESS;
    int rc = cufort_ops()->event_synchronize(st->done[i]);
    TRACE_HOST('X', i, 0);
    if (!rc)
        __atomic_store_n(&st->pending[i], 0, __ATOMIC_RELEASE);
    return rc;
}

static int queue_dma(stage *st, int i, cufort_stream s, void *dst, const void *src, size_t bytes,
                     cufort_copy_kind kind)
{
    int rc = cufort_ops()->copy2d(dst, bytes, src, bytes, bytes, 1, kind, s, 1);
    TRACE_GPU(s, 'G', i, bytes);
    if (!rc && !(rc = cufort_ops()->event_record(st->done[i], s)))
        __atomic_store_n(&st->pending[i], 1, __ATOMIC_RELEASE);
    return rc;
}

/* Small arrays and pinned ones go to the DMA engine as they are; but not a small one that starts
 * inside a pin of the cache and runs past its end (the driver refuses such a copy) while a call,
 * maybe this thread's own, holds that pin: it is staged instead. */
static int direct(const void *host, size_t hpitch, size_t width, size_t cols)
{
    size_t extent = hpitch * (cols - 1) + width;
    return cufort_host_pinned(host, extent) ||
           (width * cols < PIPELINE_MIN && cufort_pin_cache_try_clear_way(host, extent));
}

/* An upload is not waited for: from pageable memory the driver has copied the array out before
 * cudaMemcpyAsync returns, and a pinned one is read before anything later on s (staging.h). */
static int direct_copy(cufort_stream s, void *dst, size_t dpitch, const void *src, size_t spitch,
                       size_t width, size_t cols, cufort_copy_kind kind)
{
    const cufort_backend_ops *ops = cufort_ops();
    TRACE_HOST('D', width * cols, kind);
    int rc = ops->copy2d(dst, dpitch, src, spitch, width, cols, kind, s, 1);
    TRACE_GPU(s, 'd', width * cols, kind);
    return rc || kind == CUFORT_H2D ? rc : ops->stream_synchronize(s);
}

/* An array the pin cache holds (a contiguous one passed again and again): its whole pages go by
 * DMA from where they lie, first; the partial pages at its ends, which the cache never pins, as
 * small pageable copies.  An upload too is waited for: the pin may go (another thread's larger
 * range, the cap) once its copy is done, and only then. */
static int cached_copy(cufort_stream s, char *dev, char *host, size_t bytes, uintptr_t lo,
                       uintptr_t hi, uint64_t pin, cufort_copy_kind kind)
{
    const cufort_backend_ops *ops = cufort_ops();
    size_t from[3] = {lo - (uintptr_t)host, 0, hi - (uintptr_t)host};
    size_t size[3] = {hi - lo, from[0], bytes - from[2]};
    int rc = CUFORT_SUCCESS, up = kind == CUFORT_H2D;
    TRACE_HOST('D', bytes, kind);
    for (int k = 0; k < 3 && !rc; k++) {
        char *d = dev + from[k], *h = host + from[k];
        if (size[k])
            rc = ops->copy2d(up ? d : h, size[k], up ? h : d, size[k], size[k], 1, kind, s, 1);
    }
    TRACE_GPU(s, 'd', bytes, kind);
    int sync = ops->stream_synchronize(s);
    cufort_pin_cache_done(pin);
    return rc ? rc : sync;
}

/* A copy of LONE_BYTES or more that starts while few other staged copies run takes more threads:
 * CUFORT_STAGING_THREADS_ALONE, else three quarters of the usable cores, at most LONE_WORKERS (none
 * more where CUFORT_STAGING_THREADS sets the count), never fewer than cufort_staging_threads().
 * Few: none, or with the automatic count as many as three quarters of the usable cores and the
 * pool hold at that count (room(); on 16 cores one copy, on 32 two: the two uploads of a GEMM
 * spread over two GPUs, before their downloads start).  Should more copies start while it runs,
 * the threads beyond the usual count leave it (beside_another()).  A large copy alone is bound by
 * its packing; a smaller one keeps the usual count, being bound by the DMA engine's reads of
 * slots just packed, where more packers only add memory traffic (docs/performance.md). */
enum { LONE_WORKERS = 12, LONE_BYTES = 32 << 20 };
static int active_copies;   /* staged copies running in the process (atomic) */

/* three quarters of the usable cores: what large copies at once may hold between them */
static int large_copy_cores(void)
{
    int t = offered_threads();
    return t - t / 4;
}

/* a lone copy's threads, given the usual count */
static int lone_threads(int threads)
{
    int t = threads_from_env("CUFORT_STAGING_THREADS_ALONE");
    if (!t) {
        if (threads_from_env("CUFORT_STAGING_THREADS"))
            return threads;
        t = large_copy_cores();
        t = t < LONE_WORKERS ? t : LONE_WORKERS;
    }
    return t > threads ? t : threads;
}

/* How many copies at once may each have `lone` threads: as many as three quarters of the usable
 * cores and the pool's helpers hold; one where CUFORT_STAGING_THREADS_ALONE sets the count, or
 * where fewer than the devices of this thread's spread call, which start their copies together,
 * would have room: the devices left short of helpers would delay the whole call
 * (docs/performance.md). */
static int room(int lone)
{
    int n = large_copy_cores() / lone, helpers = lone > 1 ? CUFORT_POOL_HELPERS / (lone - 1) : n;
    n = n < helpers ? n : helpers;
    if (threads_from_env("CUFORT_STAGING_THREADS_ALONE") || n < 1 || spread_devices > n)
        return 1;
    return n;
}

/* of `threads`, as many as a copy of `bytes` has pieces for */
static int workers_for(size_t bytes, int threads)
{
    size_t least = min_piece(bytes), useful = (bytes + least - 1) / least;
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
    size_t filled[SLOTS];   /* bytes of the slot's group packed or unpacked so far (atomic) */
    long issued[SLOTS];     /* the last group whose DMA went through the slot; -1: none yet */
    int first;              /* group g goes through slot (first + g) % ring */
    int ring;               /* the slots this copy goes round */
    int shared;             /* workers from this one on leave once more than `room` copies run */
    int room;
} copy_job;

static int slot_of(const copy_job *c, long g) { return (int)((c->first + g) % c->ring); }

/* wait until group g's DMA is queued on slot i (nothing to wait for when g < 0); 0 if stopped */
static int wait_issued(copy_job *c, int i, long g)
{
    while (__atomic_load_n(&c->issued[i], __ATOMIC_ACQUIRE) < g) {
        if (stopped(&c->f))
            return 0;
        sched_yield();   /* the worker it waits for may need this core (16 threads on 2 cores) */
    }
    return 1;
}

/* a piece of group g landed: 1 when it was the group's last */
static int group_done(copy_job *c, int i, size_t bytes, size_t group)
{
    if (__atomic_add_fetch(&c->filled[i], bytes, __ATOMIC_ACQ_REL) != group)
        return 0;
    __atomic_store_n(&c->filled[i], 0, __ATOMIC_RELAXED);   /* ordered by the issued store after */
    return 1;
}

/* queue group g's one DMA through its slot, once the slot's last DMA is done (a download's slot may
 * still be read by an upload of this thread's on another stream) */
static int queue_group(copy_job *c, long g)
{
    size_t start, group;
    int i = slot_of(c, g), up = c->x.kind == CUFORT_H2D;
    group_bounds(&c->x, g, &start, &group);
    char *slot = c->st->slot[i], *dev = c->dev + start;
    int rc = free_slot(c->st, i);
    if (!rc && !up && c->x.gate)
        rc = c->x.gate(c->s, start + group, c->x.ctx);
    TRACE_HOST('q', g, group);
    if (!rc &&
        !(rc = queue_dma(c->st, i, c->s, up ? dev : slot, up ? slot : dev, group, c->x.kind)))
        __atomic_store_n(&c->issued[i], g, __ATOMIC_RELEASE);
    TRACE_HOST('Q', g, group);
    return rc;
}

/* At the first piece of a large upload's tail, stream the tail when the DMA of the group three back
 * has not finished: the engine then has two groups or more to move before the tail's, time enough
 * to pack it with streaming stores, and it will not read it from the packing cores' caches.  Where
 * the DMA engine waits for the packing instead, the tail keeps ordinary stores, which pack faster.
 * (Three back, not two: when the tail's first piece is claimed, the group two back may still be
 * being packed, its DMA not queued.) */
static void choose_tail(copy_job *c, long g)
{
    long back = g - 3;
    int i = slot_of(c, back);
    if (back >= 0 && __atomic_load_n(&c->issued[i], __ATOMIC_ACQUIRE) == back &&
        __atomic_load_n(&c->st->pending[i], __ATOMIC_ACQUIRE) &&
        cufort_ops()->event_pending(c->st->done[i]))
        __atomic_store_n(&c->x.streamed_from, c->x.tail_from, __ATOMIC_RELAXED);
    TRACE_HOST('A', g, c->x.streamed_from == c->x.tail_from);
}

/* worker w is one of a large copy's extra threads and more copies run than have room for them */
static int beside_another(const copy_job *c, int w)
{
    return w >= c->shared && __atomic_load_n(&active_copies, __ATOMIC_ACQUIRE) > c->room;
}

/* one worker's share of a copy: claim a piece, wait for its slot, pack or unpack it there; whoever
 * finishes a group queues the slot's next DMA: an upload the group's own, a download the group
 * ring later (the first ring groups are queued before the workers start) */
static void copy_share(void *job, int w)
{
    copy_job *c = job;
    int up = c->x.kind == CUFORT_H2D;
    size_t at, bytes, start, group;
    while (!stopped(&c->f) && !beside_another(c, w) && claim(&c->x, &at, &bytes)) {
        long g = group_of(&c->x, at, &start, &group), next = up ? g : g + c->ring;
        int i = slot_of(c, g);
        TRACE_HOST('C', at, bytes);
        if (up && at == c->x.tail_from)
            choose_tail(c, g);
        /* an upload waits for the slot's previous group to leave, a download for its own to land */
        if (!wait_issued(c, i, up ? g - c->ring : g) || failed(&c->f, free_slot(c->st, i)))
            break;
        TRACE_HOST('W', at, g);
        pack(&c->x, c->st->slot[i] + (at - start), at, bytes, c->x.kind);
        TRACE_HOST('P', at, g);
        if (group_done(c, i, bytes, group) && next < c->x.groups &&
            failed(&c->f, queue_group(c, next)))
            break;
    }
}

void cufort_staging_spread(int devices)
{
    spread_devices = devices > 1 ? devices : 0;
}

/* A thread's transfers go round its slots, each starting where the last one ended, so that a
 * transfer's first groups do not wait for the DMAs of the one before it, which still use the slots
 * it left (a GEMM's A, B and C tiles back to back: docs/performance.md, staging slots in a ring).
 * Only a thread that already holds every slot goes round: one that has moved only small arrays
 * keeps to its first few slots. */
static int ring(copy_job *c, int slots)
{
    int rc = my_stage(0, &c->st);
    if (rc)
        return rc;
    c->first = c->st->slot[c->ring - 1] ? c->st->next % c->ring : 0;
    if ((rc = my_stage(c->first + slots < c->ring ? c->first + slots : c->ring, &c->st)))
        return rc;
    c->st->next = (int)((c->first + c->x.groups) % c->ring);
    return CUFORT_SUCCESS;
}

/* a staged copy either way: this thread's slots, the transfer, its workers */
static int staged(cufort_stream s, char *dev, void *host, size_t hpitch, size_t width, size_t cols,
                  cufort_copy_kind kind, cufort_unpack_fn combine, cufort_stage_gate_fn gate,
                  const void *ctx)
{
    copy_job c = {.s = s, .dev = dev, .f = {0, ""}, .ring = spread_devices ? SPREAD_SLOTS : SLOTS};
    c.x = transfer_of(host, hpitch, width, cols, kind);
    c.x.combine = combine;
    c.x.gate = gate;
    c.x.ctx = ctx;
    int slots = c.x.groups < c.ring ? (int)c.x.groups : c.ring;
    int rc = ring(&c, slots);
    for (int i = 0; i < SLOTS; i++)
        c.issued[i] = -1;
    for (long g = 0; kind == CUFORT_D2H && g < slots && !rc; g++)
        rc = queue_group(&c, g);
    if (rc)
        return rc;
    TRACE_HOST('S', c.x.total, kind);
    int running = __atomic_add_fetch(&active_copies, 1, __ATOMIC_ACQ_REL);
    int threads = cufort_staging_threads(), workers = workers_for(c.x.total, threads);
    c.shared = workers;
    if (c.x.total >= LONE_BYTES) {
        int lone = lone_threads(threads);
        c.room = room(lone);
        if (running <= c.room)
            workers = workers_for(c.x.total, lone);
    }
    cufort_pool_run(workers, copy_share, &c);
    __atomic_fetch_sub(&active_copies, 1, __ATOMIC_ACQ_REL);
    TRACE_HOST('E', c.x.total, kind);
    return settle(&c.f);
}

/* Columns that touch on the host are one long column: a vector with increment 1 arrives as n
 * columns of one element, which would otherwise be packed, or copied by a 2-D DMA, an element at a
 * time.  The device image is the same either way. */
static void merge_columns(size_t *hpitch, size_t *width, size_t *cols)
{
    if (*cols > 1 && *hpitch == *width) {
        *width *= *cols;
        *hpitch = *width;
        *cols = 1;
    }
}

static int to_device(cufort_stream s, void *dev, const void *host, size_t hpitch, size_t width,
                     size_t cols, int offer)
{
    uintptr_t lo, hi;
    uint64_t pin;
    merge_columns(&hpitch, &width, &cols);
    if (direct(host, hpitch, width, cols))
        return direct_copy(s, dev, width, host, hpitch, width, cols, CUFORT_H2D);
    if (offer && cols == 1 && cufort_pin_cache_offer(host, width, &lo, &hi, &pin))
        return cached_copy(s, dev, (char *)host, width, lo, hi, pin, CUFORT_H2D);
    return staged(s, dev, (void *)host, hpitch, width, cols, CUFORT_H2D, NULL, NULL, NULL);
}

/* (with a combine or a gate, every size goes through the slots: the host array is never a DMA
 * target, and every DMA waits for its gate) */
static int to_host(cufort_stream s, void *host, size_t hpitch, const void *dev, size_t width,
                   size_t cols, cufort_unpack_fn combine, cufort_stage_gate_fn gate,
                   const void *ctx, int offer)
{
    uintptr_t lo, hi;
    uint64_t pin;
    merge_columns(&hpitch, &width, &cols);
    int plain = !combine && !gate;
    if (plain && direct(host, hpitch, width, cols))
        return direct_copy(s, host, hpitch, dev, width, width, cols, CUFORT_D2H);
    if (offer && plain && cols == 1 && cufort_pin_cache_offer(host, width, &lo, &hi, &pin))
        return cached_copy(s, (char *)dev, host, width, lo, hi, pin, CUFORT_D2H);
    return staged(s, (char *)dev, host, hpitch, width, cols, CUFORT_D2H, combine, gate, ctx);
}

int cufort_stage_to_device_on(cufort_stream s, void *dev, const void *host, size_t hpitch,
                              size_t width, size_t cols)
{
    return to_device(s, dev, host, hpitch, width, cols, 1);
}

int cufort_stage_to_host_on(cufort_stream s, void *host, size_t hpitch, const void *dev,
                            size_t width, size_t cols)
{
    return to_host(s, host, hpitch, dev, width, cols, NULL, NULL, NULL, 1);
}

int cufort_stage_to_host_combined(cufort_stream s, void *host, size_t hpitch, const void *dev,
                                  size_t width, size_t cols, cufort_unpack_fn combine,
                                  cufort_stage_gate_fn gate, const void *ctx)
{
    return to_host(s, host, hpitch, dev, width, cols, combine, gate, ctx, 1);
}

int cufort_stage_to_device_unoffered(cufort_stream s, void *dev, const void *host, size_t hpitch,
                                     size_t width, size_t cols)
{
    return to_device(s, dev, host, hpitch, width, cols, 0);
}

int cufort_stage_to_host_unoffered(cufort_stream s, void *host, size_t hpitch, const void *dev,
                                   size_t width, size_t cols)
{
    return to_host(s, host, hpitch, dev, width, cols, NULL, NULL, NULL, 0);
}
