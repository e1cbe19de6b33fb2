/* fuzz_arrays.c — a call's array descriptions and handles made into pointers.  Device and pinned
 * blocks are cached by size (a call needs a fresh allocation only on a miss), host arrays are
 * malloc'd at exactly their size for every call (so a sanitizer sees any read past them), freed and
 * made-up pointers are made on demand.  With CUFORT_FUZZ_GUARD_HOST=after (or before), each host
 * array is a mapping of its own, flush (to 16 bytes) against an inaccessible page after (before)
 * it: a read past it faults whoever makes it, the CUDA driver and cuBLAS included. */
#include "fuzz.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Made-up addresses: below the lowest address Linux lets a process map, so using one faults. */
#define BOGUS_ARRAY ((uintptr_t)0x8000)
#define BOGUS_HANDLE ((uintptr_t)0x9000)
/* A made-up handle that is readable memory but no object (freeing it is a bad free). */
static _Alignas(64) unsigned char junk[256];

static void fill(fz_rng *r, void *p, size_t bytes)
{
    float *f = p;
    size_t n = bytes / sizeof *f;
    for (size_t i = 0; i < n; i++)   /* finite, non-zero values whatever the element type */
        f[i] = (float)((int)fz_below(r, 2000) - 1000 + 0.5) / 1024.0f;
    memset((char *)p + n * sizeof *f, 0x3c, bytes - n * sizeof *f);
}

/* CUFORT_FUZZ_GUARD_HOST: 0 off, 1 a guard page after each host array, 2 before */
static int guard_side(void)
{
    static int side = -1;
    int s = __atomic_load_n(&side, __ATOMIC_RELAXED);
    if (s < 0) {
        const char *e = getenv("CUFORT_FUZZ_GUARD_HOST");
        s = !e ? 0 : !strcmp(e, "after") ? 1 : !strcmp(e, "before") ? 2 : 0;
        __atomic_store_n(&side, s, __ATOMIC_RELAXED);
    }
    return s;
}

/* `bytes` in a mapping of their own, flush against a guard page; *len: the mapping's length */
static void *guarded_host(size_t bytes, int side, size_t *len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), used = (bytes + 15) / 16 * 16;
    size_t data = used > pg ? (used + pg - 1) / pg * pg : pg;
    *len = data + 2 * pg;
    char *m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    mprotect(m, pg, PROT_NONE);
    mprotect(m + pg + data, pg, PROT_NONE);
    return side == 1 ? m + pg + data - used : m + pg;
}

static void *fresh_host(fz_worker *w, int64_t bytes)
{
    size_t want = bytes > 0 ? (size_t)bytes : 1, len = 0;
    int side = guard_side();
    void *p = side ? guarded_host(want, side, &len) : malloc(want);
    if (!p) {
        fprintf(stderr, "fuzz: out of host memory\n");
        abort();
    }
    fill(&w->fill, p, (size_t)(bytes > 0 ? bytes : 0));
    w->owned_map[w->nowned] = len;
    w->owned[w->nowned++] = p;
    return p;
}

/* the cached block of this size and number, allocated on a miss (NULL when cufort cannot) */
static void *cached(fz_worker *w, fz_block *cache, int64_t bytes, int which, int pinned)
{
    fz_block *lru = &cache[0];
    for (int i = 0; i < FZ_CACHE; i++) {
        if (cache[i].p && cache[i].bytes == bytes && cache[i].which == which) {
            cache[i].used = ++w->tick;
            return cache[i].p;
        }
        if (!cache[i].p || (lru->p && cache[i].used < lru->used))
            lru = &cache[i];
    }
    if (lru->p)
        pinned ? cufort_host_free(lru->p) : cufort_free(lru->p);
    lru->p = NULL;
    void *p = NULL;
    if ((pinned ? cufort_host_alloc(&p, bytes) : cufort_alloc(&p, bytes)) != CUFORT_SUCCESS)
        return NULL;
    void *src = malloc((size_t)bytes);
    if (src) {
        fill(&w->fill, src, (size_t)bytes);
        if (pinned)
            memcpy(p, src, (size_t)bytes);
        else
            cufort_set_vector(bytes, 1, src, 1, p, 1);
        free(src);
    }
    *lru = (fz_block){bytes, which, p, ++w->tick};
    return p;
}

static void *resolve_array(fz_worker *w, const fz_array *a)
{
    static _Alignas(256) unsigned char nowhere[256];   /* device memory when cufort has none */
    char *base;
    /* A call that may overlap another thread's shutdown (a host-array call, when that race is being
     * fuzzed) gets no memory cufort allocated: the shutdown frees it, and writing the array's
     * contents into it would be the fuzzer's own use after free.  Plain host memory stands in. */
    if (fz_threads > 1 && !w->locked && (a->place == FZ_DEV || a->place == FZ_PINNED))
        return (char *)fresh_host(w, a->bytes) + a->off;
    switch (a->place) {
    case FZ_NULL:
        return NULL;
    case FZ_DEV:
        base = cached(w, w->dev, a->bytes, a->of, 0);
        w->nowhere |= !base;
        return base ? base + a->off : (char *)nowhere;
    case FZ_PINNED:
        base = cached(w, w->pinned, a->bytes, a->of, 1);
        return (base ? base : (char *)fresh_host(w, a->bytes)) + a->off;
    case FZ_HOST:
    case FZ_HOSTMEM:
        return (char *)fresh_host(w, a->bytes) + a->off;
    case FZ_FREED: {
        void *p = NULL;
        if (cufort_alloc(&p, a->bytes) != CUFORT_SUCCESS || !p)
            return (void *)(BOGUS_ARRAY + (uintptr_t)a->off);
        cufort_free(p);
        return (char *)p + a->off;
    }
    default:   /* FZ_BOGUS */
        return (void *)(BOGUS_ARRAY + (uintptr_t)a->off);
    }
}

void *fz_handle_value(fz_worker *w, fz_handle h)
{
    if (h.slot == FZ_H_BOGUS)
        return (void *)BOGUS_HANDLE;
    if (h.slot == FZ_H_JUNK)
        return junk + 64;
    fz_slot *s = fz_slot_of(w, h);
    return s ? s->h : NULL;
}

fz_slot *fz_slot_of(fz_worker *w, fz_handle h)
{
    if (h.slot < 0 || h.slot >= FZ_SLOTS)
        return NULL;
    return h.kind == 'P' ? &w->plans[h.slot] : h.kind == 'S' ? &w->streams[h.slot] : &w->events[h.slot];
}

fz_slot *fz_live(fz_worker *w, fz_handle h)
{
    fz_slot *s = fz_slot_of(w, h);
    if (!s || !s->h)
        return NULL;
    if (s->live)
        return s;
    fz_slot *all = h.kind == 'P' ? w->plans : h.kind == 'S' ? w->streams : w->events;
    for (int i = 0; i < FZ_SLOTS; i++)
        if (all[i].live && all[i].h == s->h)
            return &all[i];
    return NULL;
}

int fz_gone_since_drawn(fz_worker *w, fz_handle h)
{
    fz_slot *s = fz_slot_of(w, h);
    return fz_threads > 1 && s && s->h && !fz_live(w, h);
}

void fz_resolve(fz_worker *w, const fz_call *c)
{
    const fz_op *op = &fz_ops[c->op];
    w->nowned = 0;
    w->nowhere = 0;
    for (int i = 0; i < op->nparams; i++) {
        const fz_arg *a = &c->arg[i];
        fz_val *v = &w->val[i];
        memset(v, 0, sizeof *v);
        switch (a->type) {
        case FZ_INT: v->i = a->i; break;
        case FZ_CHAR: v->c = a->c; break;
        case FZ_REAL:
        case FZ_CPLX: v->re[0] = a->re[0], v->re[1] = a->re[1]; break;
        case FZ_HANDLE: v->p = fz_handle_value(w, a->h); break;
        case FZ_ARRAY:
            if (a->a.place != FZ_ALIAS && a->a.place != FZ_FREED)
                v->p = resolve_array(w, &a->a);
            break;
        }
    }
    /* freed blocks last, so that no allocation of this call gets their memory back */
    for (int i = 0; i < op->nparams; i++)
        if (c->arg[i].type == FZ_ARRAY && c->arg[i].a.place == FZ_FREED)
            w->val[i].p = resolve_array(w, &c->arg[i].a);
    for (int i = 0; i < op->nparams; i++) {   /* aliases, once what they alias is known */
        const fz_arg *a = &c->arg[i];
        if (a->type == FZ_ARRAY && a->a.place == FZ_ALIAS) {
            int of = a->a.of >= 0 && a->a.of < op->nparams ? a->a.of : 0;
            w->val[i].p = w->val[of].p ? (char *)w->val[of].p + a->a.off : NULL;
        }
    }
}

void fz_release(fz_worker *w)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < w->nowned; i++) {
        if (w->owned_map[i])   /* the mapping starts at the guard page before the array's first page */
            munmap((char *)((uintptr_t)w->owned[i] / pg * pg) - pg, w->owned_map[i]);
        else
            free(w->owned[i]);
    }
    w->nowned = 0;
}

void fz_forget_device_memory(fz_worker *w)
{
    for (int i = 0; i < FZ_CACHE; i++)
        w->dev[i].p = w->pinned[i].p = NULL;
    for (int i = 0; i < FZ_SLOTS; i++)
        w->plans[i].live = 0;
    if (!fz_avoiding(FZ_K_STREAM_HANDLES)) {   /* a shutdown or device change destroys them */
        for (int i = 0; i < FZ_SLOTS; i++)
            w->streams[i].live = w->events[i].live = 0;
        w->thread_stream = NULL;
    }
}

void fz_drop_caches(fz_worker *w)
{
    for (int i = 0; i < FZ_CACHE; i++) {
        if (w->dev[i].p)
            cufort_free(w->dev[i].p);
        if (w->pinned[i].p)
            cufort_host_free(w->pinned[i].p);
        w->dev[i].p = w->pinned[i].p = NULL;
    }
}
