/* pin_cache.c — host arrays that thunked calls keep passing, pinned in place (pin_cache.h).
 * The table is small and scanned whole.  An entry is the whole pages inside an array; entries that
 * are watched or pinned never overlap (the driver refuses to pin a page twice, and a watch shared by
 * two entries could not be dropped for one).  The partial pages at an array's ends are copied as
 * they are.
 * Pinning (milliseconds) runs outside the lock, so the watcher, which takes the lock to report a
 * lost range, never waits for it; an entry lost meanwhile is unpinned by the thread that pinned it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "env.h"
#include "internal.h"
#include "pin_cache.h"
#include "range_watch.h"
#include "unmap_only.h"

enum { ENTRIES = 64, FIRST_NEED = 3, MOST_NEED = 1 << 12 };
/* Over 32 MiB, any private anonymous array: glibc serves every such malloc with a mapping of its
 * own (32 MiB is the most its mmap threshold grows to), so free() unmaps it, which the watcher
 * hears.  From 1 MiB, only memory that nothing but an unmap takes away (unmap_only.h): a smaller
 * array may lie in the heap or on the stack, where a pin outlives the array.  Under 1 MiB a copy
 * takes tens of microseconds either way, and the table's entries are kept for pins that pay. */
#define ANY_BYTES (((size_t)32 << 20) + 1)
#define UNMAP_ONLY_BYTES ((size_t)1 << 20)

typedef enum { SEEN, WATCHED, PINNING, PINNED, REFUSED } pin_state;

typedef struct {
    uintptr_t start, end;
    pin_state state;
    int sightings, need;   /* watched at sighting need - 1, pinned at need */
    int lost;              /* its pages went while it was being pinned */
    uint64_t used;         /* the last sighting, for least-recently-used eviction */
    uint64_t id;           /* names the entry to cufort_pin_cache_done (entries move in the table) */
    int users;             /* copies from or to the pin under way: it stays until they are done */
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER;   /* a pin's last copy is done */
static entry table[ENTRIES];
static int entries;
static int pins;                /* PINNED entries (atomic reads without the lock) */
static uint64_t tick, ids;
static size_t pinned;           /* bytes, PINNING entries included */
static int64_t limit = -1;      /* -1: not read yet */
static int watching = -1;       /* -1: not tried yet; 0: userfaultfd refused here, or a child */
static unsigned epoch;          /* bumped by every reset, which empties the table */

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static int64_t default_limit(void)
{
    int64_t mb;   /* a limit past the address space is no limit */
    if (cufort_env_int("CUFORT_PIN_CACHE_MB", 0, INT64_MAX >> 20, &mb))
        return mb == INT64_MAX >> 20 ? INT64_MAX : mb << 20;
    return (int64_t)sysconf(_SC_PHYS_PAGES) * (int64_t)page_size() / 4;
}

/* the backend's (un)registration, leaving the calling thread's error message as it was: the cache
 * is an optimisation, and a refusal is no error of the call that triggered it */
static int backend_pin(const cufort_backend_ops *ops, uintptr_t start, size_t bytes, int on)
{
    char saved[512];
    snprintf(saved, sizeof saved, "%s", cufort_last_error());
    int rc = on ? ops->host_register((void *)start, bytes) : ops->host_unregister((void *)start);
    cufort_fail(CUFORT_SUCCESS, "%s", saved);
    return rc;
}

static int overlaps(const entry *e, uintptr_t start, uintptr_t end)
{
    return e->start < end && start < e->end;
}

/* counting sightings again, unwatched, needing twice as many as before */
static void count_again(entry *e)
{
    e->state = SEEN;
    e->sightings = 0;
    e->need = e->need * 2 < MOST_NEED ? e->need * 2 : MOST_NEED;
}

/* unpinned and unwatched (an entry being pinned is marked: its pinning thread does it, and finds
 * it gone if it was dropped meanwhile) */
static void release(entry *e)
{
    if (e->state == PINNING) {
        e->lost = 1;
        return;
    }
    if (e->state == PINNED) {
        const cufort_backend_ops *ops = cufort_ops();
        if (ops)
            backend_pin(ops, e->start, 0, 0);
        pinned -= e->end - e->start;
        __atomic_store_n(&pins, pins - 1, __ATOMIC_RELAXED);
    }
    if (e->state == WATCHED || e->state == PINNED)
        cufort_unwatch(e->start, e->end - e->start);
    count_again(e);
}

static void drop(int i)
{
    release(&table[i]);
    table[i] = table[--entries];
}

static int by_id(uint64_t id)
{
    for (int i = 0; i < entries; i++)
        if (table[i].id == id)
            return i;
    return -1;
}

/* lock held: the index of entry `id` once no copy uses its pin (-1 if it went meanwhile) */
static int once_idle(uint64_t id)
{
    int i;
    while ((i = by_id(id)) >= 0 && table[i].users > 0)
        pthread_cond_wait(&idle, &lock);
    return i;
}

/* watched, pinned or being pinned, and not yet marked lost */
static int holds_pages(const entry *e)
{
    return e->state == WATCHED || e->state == PINNED || (e->state == PINNING && !e->lost);
}

/* the watcher's report (its lock held): every entry touching [start, end) lost its pages */
static void lost(uintptr_t start, uintptr_t end)
{
    for (int i = 0; i < entries; i++)
        if (overlaps(&table[i], start, end) && holds_pages(&table[i])) {
            int k = once_idle(table[i].id);   /* a copy under way has pages to finish with */
            if (k >= 0)
                release(&table[k]);
            i = -1;   /* the table may have changed while waiting: look again */
        }
}

/* shutdown and device changes: the pins belong to the context that goes */
static void reset(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (entries > 0)
        drop(entries - 1);
    pinned = 0;
    epoch++;
    pthread_mutex_unlock(&lock);
}

static void hook(void) { cufort_at_reset(reset, NULL); }

/* A fork's child has no watcher thread, and the pins are the parent's: the cache is off there.
 * (Taking the lock first means no other thread holds it at the fork.) */
static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&lock); }
static void after_fork_child(void)
{
    entries = 0;
    pins = 0;
    pinned = 0;
    watching = 0;
    cufort_watch_forget();
    pthread_mutex_unlock(&lock);
}

static int find(uintptr_t start, uintptr_t end)
{
    for (int i = 0; i < entries; i++)
        if (table[i].start == start && table[i].end == end)
            return i;
    return -1;
}

/* a new entry, first sighting; where the table is full, the least recently seen entry that is not
 * pinned goes (one not watched before one watched); none is added when every entry is pinned */
static void add(uintptr_t start, uintptr_t end)
{
    if (entries == ENTRIES) {
        int victim = -1;
        for (int i = 0; i < entries; i++) {
            const entry *e = &table[i], *v = victim < 0 ? NULL : &table[victim];
            int rank = e->state == WATCHED, vrank = v && v->state == WATCHED;
            if (e->state != PINNED && e->state != PINNING &&
                (!v || rank < vrank || (rank == vrank && e->used < v->used)))
                victim = i;
        }
        if (victim < 0)
            return;
        drop(victim);
    }
    table[entries++] = (entry){start, end, SEEN, 1, FIRST_NEED, 0, ++tick, ++ids, 0};
}

/* free pinned bytes for `bytes` more, least recently seen first */
static void make_room(size_t bytes, const entry *keep)
{
    while (pinned + bytes > (size_t)limit) {
        entry *oldest = NULL;
        for (int i = 0; i < entries; i++)
            if (table[i].state == PINNED && &table[i] != keep && table[i].users == 0 &&
                (!oldest || table[i].used < oldest->used))
                oldest = &table[i];
        if (!oldest)
            return;
        release(oldest);
    }
}

/* Entries that are only counted may overlap; watched and pinned ones may not.  A range about to be
 * watched takes over from those it overlaps (x(1:n) after x(1:m), m < n, in turn, gets the pin);
 * two ranges used in turns lose it in turns, each needing twice the sightings the next time. */
static int take_over(entry *e)
{
    for (int k = 0; k < entries; k++)
        if (&table[k] != e && (table[k].state == PINNING || table[k].users > 0) &&
            overlaps(&table[k], e->start, e->end))
            return 0;   /* at a later sighting */
    for (int k = 0; k < entries; k++)
        if (&table[k] != e && (table[k].state == WATCHED || table[k].state == PINNED) &&
            overlaps(&table[k], e->start, e->end))
            release(&table[k]);
    return 1;
}

/* the entry's need-th sighting, lock held (dropped while the driver pins): 1 when pinned */
static int pin(entry *e)
{
    uintptr_t start = e->start, end = e->end;
    size_t bytes = end - start;
    if (bytes > (size_t)limit || !cufort_anonymous_private(start, end)) {
        cufort_unwatch(start, bytes);
        e->state = REFUSED;
        return 0;
    }
    make_room(bytes, e);
    if (pinned + bytes > (size_t)limit)
        return 0;   /* the rest is being pinned by other threads: try at the next sighting */
    e->state = PINNING;
    e->lost = 0;
    pinned += bytes;
    const cufort_backend_ops *ops = cufort_ops();
    unsigned my_epoch = epoch;
    pthread_mutex_unlock(&lock);
    int rc = backend_pin(ops, start, bytes, 1);
    pthread_mutex_lock(&lock);
    int i = my_epoch == epoch ? find(start, end) : -1;
    if (i < 0 || table[i].state != PINNING) {   /* dropped meanwhile, or the table emptied */
        if (!rc)
            backend_pin(ops, start, 0, 0);
        if (my_epoch == epoch)
            pinned -= bytes;
        cufort_unwatch(start, bytes);
        return 0;
    }
    e = &table[i];
    if (!rc && !e->lost) {
        e->state = PINNED;
        __atomic_store_n(&pins, pins + 1, __ATOMIC_RELAXED);
        return 1;
    }
    if (!rc)
        backend_pin(ops, start, 0, 0);
    pinned -= bytes;
    cufort_unwatch(start, bytes);
    if (rc)
        e->state = REFUSED;
    else
        count_again(e);
    return 0;
}

static void start_watching(void)
{
    watching = cufort_watch_open(&lock, lost) == 0;
    if (watching)
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* limits read and the watcher started, lock held: 0 when the cache is off or cannot work here */
static int ready(void)
{
    if (limit < 0)
        limit = default_limit();
    if (limit > 0 && watching < 0)
        start_watching();
    return limit > 0 && watching > 0 && cufort_ops() != NULL;
}

/* the whole pages inside [p, p + bytes): the partial pages at its ends may hold a neighbour's data
 * (adjacent heap arrays share a page), which another entry may need */
static void inner_pages(const void *p, size_t bytes, uintptr_t *start, uintptr_t *end)
{
    uintptr_t pg = page_size();
    *start = ((uintptr_t)p + pg - 1) / pg * pg;
    *end = ((uintptr_t)p + bytes) / pg * pg;
}

/* a pinned entry holding [p, p + bytes) but for less than a page at either end, lock held */
static entry *holder(const void *p, size_t bytes)
{
    uintptr_t start = (uintptr_t)p, end = start + bytes, pg = page_size();
    for (int i = 0; i < entries; i++) {
        entry *e = &table[i];
        if (e->state == PINNED && overlaps(e, start, end) && start + pg > e->start &&
            e->end + pg > end)
            return e;
    }
    return NULL;
}

/* the pin of entry `e` (if any) serves a copy of [p, p + bytes), [*lo, *hi) of it pinned: counted
 * until cufort_pin_cache_done, and recently used */
static int use(entry *e, const void *p, size_t bytes, uintptr_t *lo, uintptr_t *hi, uint64_t *id)
{
    if (!e)
        return 0;
    uintptr_t start = (uintptr_t)p, end = start + bytes;
    *lo = start > e->start ? start : e->start;
    *hi = end < e->end ? end : e->end;
    e->users++;
    e->used = ++tick;
    *id = e->id;
    return 1;
}

/* the entry's watch starts where it may take over, lock held.  A range under ANY_BYTES is looked
 * at first, with the lock dropped: the look takes the loader's lock, which a thread unloading a
 * library may hold while it waits for the watcher, which waits for this lock. */
static void watch(entry *e, const void *p, size_t bytes)
{
    if (bytes < ANY_BYTES) {
        uint64_t id = e->id;
        pthread_mutex_unlock(&lock);
        int lasting = cufort_unmap_only(p, bytes);
        pthread_mutex_lock(&lock);
        int i = by_id(id);
        if (i < 0 || table[i].state != SEEN)
            return;   /* it changed meanwhile: at a later sighting */
        e = &table[i];
        if (!lasting) {
            e->state = REFUSED;
            return;
        }
    }
    if (take_over(e))
        e->state = cufort_watch(e->start, e->end - e->start) ? REFUSED : WATCHED;
}

int cufort_pin_cache_offer(const void *p, size_t bytes, uintptr_t *lo, uintptr_t *hi, uint64_t *id)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, hook);   /* outside the lock: reset hooks run under the context's lock */
    uintptr_t start, end;
    inner_pages(p, bytes, &start, &end);
    pthread_mutex_lock(&lock);
    int now = use(holder(p, bytes), p, bytes, lo, hi, id);   /* a part of a pinned array too */
    int i = now || bytes < UNMAP_ONLY_BYTES || !ready() ? -2 : find(start, end);
    if (i == -1) {
        add(start, end);
    } else if (i >= 0) {
        entry *e = &table[i];
        e->used = ++tick;
        if (e->state == SEEN && ++e->sightings >= e->need - 1)
            watch(e, p, bytes);
        else if (e->state == WATCHED && ++e->sightings >= e->need && pin(e))
            now = use(holder(p, bytes), p, bytes, lo, hi, id);
    }
    pthread_mutex_unlock(&lock);
    return now;
}

int cufort_pin_cache_holds(const void *p, size_t bytes)
{
    pthread_mutex_lock(&lock);
    int held = holder(p, bytes) != NULL;
    pthread_mutex_unlock(&lock);
    return held;
}

void cufort_pin_cache_done(uint64_t id)
{
    pthread_mutex_lock(&lock);
    int i = by_id(id);
    if (i >= 0 && table[i].users > 0 && --table[i].users == 0)
        pthread_cond_broadcast(&idle);
    pthread_mutex_unlock(&lock);
}

/* lock held: drop entry k once no copy uses it (the table may change meanwhile) */
static void drop_idle(int k)
{
    int i = once_idle(table[k].id);
    if (i >= 0)
        drop(i);
}

/* a pin that a copy of [start, end) would start inside and run past the end of */
static int straddled(const entry *e, uintptr_t start, uintptr_t end)
{
    return e->state == PINNED && e->start <= start && start < e->end && end > e->end;
}

void cufort_pin_cache_clear_way(const void *p, size_t bytes)
{
    if (!__atomic_load_n(&pins, __ATOMIC_RELAXED))
        return;
    uintptr_t start = (uintptr_t)p, end = start + bytes;
    pthread_mutex_lock(&lock);
    for (int k = entries - 1; k >= 0; k--)
        if (straddled(&table[k], start, end)) {
            drop_idle(k);
            k = entries;   /* look again */
        }
    pthread_mutex_unlock(&lock);
}

int cufort_pin_cache_try_clear_way(const void *p, size_t bytes)
{
    if (!__atomic_load_n(&pins, __ATOMIC_RELAXED))
        return 1;
    uintptr_t start = (uintptr_t)p, end = start + bytes;
    int clear = 1;
    pthread_mutex_lock(&lock);
    for (int k = entries - 1; k >= 0; k--)
        if (straddled(&table[k], start, end)) {
            if (table[k].users > 0)
                clear = 0;
            else
                drop(k);
        }
    pthread_mutex_unlock(&lock);
    return clear;
}

void cufort_pin_cache_settle(void)
{
    pthread_mutex_lock(&lock);
    pthread_mutex_unlock(&lock);
}

void cufort_pin_cache_forget(const void *p, size_t bytes)
{
    uintptr_t start = (uintptr_t)p, end = start + bytes;
    pthread_mutex_lock(&lock);
    for (int k = entries - 1; k >= 0; k--)
        if (overlaps(&table[k], start, end)) {
            drop_idle(k);
            k = entries;   /* look again */
        }
    pthread_mutex_unlock(&lock);
}

int cufort_pin_cache_limit(int64_t bytes)
{
    CUFORT_HOLD_GATE;
    cufort_clear_error();
    pthread_mutex_lock(&lock);
    limit = bytes < 0 ? default_limit() : bytes;
    while (limit == 0 && entries > 0)
        drop_idle(entries - 1);
    make_room(0, NULL);
    pthread_mutex_unlock(&lock);
    return CUFORT_SUCCESS;
}

int cufort_pin_cache_info(int64_t *pinned_bytes, int *pinned_arrays, int *can_watch)
{
    CUFORT_HOLD_GATE;
    cufort_clear_error();
    if (!pinned_bytes || !pinned_arrays || !can_watch)
        return cufort_null_arg("cufort_pin_cache_info", "an output argument");
    pthread_mutex_lock(&lock);
    if (watching < 0)
        start_watching();
    int64_t bytes = 0;
    int arrays = 0;
    for (int i = 0; i < entries; i++)
        if (table[i].state == PINNED) {
            bytes += (int64_t)(table[i].end - table[i].start);
            arrays++;
        }
    *pinned_bytes = bytes;
    *pinned_arrays = arrays;
    *can_watch = watching;
    pthread_mutex_unlock(&lock);
    return CUFORT_SUCCESS;
}
