/* fuzz_draw.c — the random stream and the values drawn from it: mostly small legal sizes (so a call
 * stays cheap), often the edges (0, 1, -1, INT32_MAX, INT64_MAX, INT64_MIN, huge), and arrays that
 * are usually right and sometimes wrong in one of the ways cufort must catch. */
#include "fuzz.h"

#include <math.h>
#include <stdlib.h>

uint64_t fz_u64(fz_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t fz_below(fz_rng *r, uint64_t n) { return fz_u64(r) % n; }
int fz_percent(fz_rng *r, int p) { return (int)fz_below(r, 100) < p; }

fz_rng fz_rng_for(uint64_t seed, int thread, int64_t index)
{
    fz_rng r = {seed * 0x9e3779b97f4a7c15ull ^ ((uint64_t)thread << 48) ^ (uint64_t)index};
    fz_u64(&r);
    return r;
}

static const int64_t EDGES[] = {
    0, 1, -1, 2, INT32_MAX, (int64_t)INT32_MAX + 1, INT32_MIN, (int64_t)UINT32_MAX + 1, INT64_MAX,
    INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, (int64_t)1 << 62, -((int64_t)1 << 62), (int64_t)1 << 40,
    (int64_t)1 << 31 >> 1, 1000003,
};
#define NEDGES (sizeof EDGES / sizeof *EDGES)

int64_t fz_draw_int(fz_rng *r, int role)
{
    int p = (int)fz_below(r, 100);
    if (p < 12)
        return EDGES[fz_below(r, NEDGES)];
    switch (role) {
    case FZ_R_INC:
        if (p < 70) {
            static const int64_t incs[] = {1, 1, 1, 1, -1, 2, -2, 3, 0, 5};
            return incs[fz_below(r, sizeof incs / sizeof *incs)];
        }
        return (int64_t)fz_below(r, 40) - 20;
    case FZ_R_BYTES:
        if (p < 70)
            return (int64_t)fz_below(r, 4096) + 1;
        return (int64_t)fz_below(r, 1 << 20);
    case FZ_R_SMALL:
        return (int64_t)fz_below(r, 8) - 2;
    case FZ_R_FLAG:
        return (int64_t)fz_below(r, 3);
    default:   /* sizes, leading dimensions, strides drawn on their own */
        if (p < 70)
            return (int64_t)fz_below(r, 9);
        if (p < 90)
            return (int64_t)fz_below(r, 40);
        if (p < 95)
            return -(int64_t)fz_below(r, 3) - 1;
        return (int64_t)fz_below(r, 300);
    }
}

int64_t fz_draw_near(fz_rng *r, int64_t least, int role)
{
    int q = (int)fz_below(r, 100);
    fz_wide x;
    if (q < 72)
        x = (fz_wide)least + (fz_percent(r, 50) ? 0 : (int64_t)fz_below(r, 4));
    else if (q < 82)
        x = (fz_wide)least - 1;
    else
        x = fz_draw_int(r, role);
    return x > INT64_MAX ? INT64_MAX : x < INT64_MIN ? INT64_MIN : (int64_t)x;
}

char fz_draw_char(fz_rng *r, const char *opts)
{
    int p = (int)fz_below(r, 100);
    size_t n = strlen(opts);
    if (p < 88 && n) {
        char c = opts[fz_below(r, n)];
        return fz_percent(r, 25) ? (char)tolower((unsigned char)c) : c;
    }
    static const char junk[] = {0, 'X', 'n' + 1, ' ', '\n', (char)0xff, 'A', 'R', 'H'};
    return junk[fz_below(r, sizeof junk)];
}

void fz_draw_scalar(fz_rng *r, double re[2], int complex_value)
{
    for (int i = 0; i < 2; i++) {
        int p = (int)fz_below(r, 100);
        double x;
        if (p < 10)
            x = 0;
        else if (p < 20)
            x = 1;
        else if (p < 25)
            x = -1;
        else if (p < 27)
            x = NAN;
        else if (p < 29)
            x = INFINITY;
        else if (p < 30)
            x = 1e300;
        else
            x = ((double)fz_below(r, 2000) - 1000) / 256.0;
        re[i] = (i == 0 || complex_value) ? x : 0;
    }
}

int fz_free_slot(fz_worker *w, fz_rng *r, int kind)
{
    fz_slot *s = kind == 'P' ? w->plans : kind == 'S' ? w->streams : w->events;
    int start = (int)fz_below(r, FZ_SLOTS);
    for (int i = 0; i < FZ_SLOTS; i++) {
        int k = (start + i) % FZ_SLOTS;
        if (!s[k].live)
            return k;
    }
    return -1;
}

/* Mostly a live slot of that kind when there is one; sometimes a stale one, null or made up.
 * Returns whether the handle is a live object. */
int fz_draw_handle_slot(fz_worker *w, fz_rng *r, int kind, fz_handle *h)
{
    fz_slot *s = kind == 'P' ? w->plans : kind == 'S' ? w->streams : w->events;
    int live[FZ_SLOTS], nlive = 0, used[FZ_SLOTS], nused = 0;
    for (int i = 0; i < FZ_SLOTS; i++) {
        if (s[i].live)
            live[nlive++] = i;
        if (s[i].h)
            used[nused++] = i;
    }
    h->kind = kind;
    int p = (int)fz_below(r, 100);
    if (nlive && p < 75) {
        h->slot = live[fz_below(r, (uint64_t)nlive)];
        return 1;
    }
    /* With several threads a stale handle's address may be another thread's live object by now
     * (a plan sized differently, a stream in use): executing, destroying or attaching it would be
     * the caller's error, not cufort's, and the other thread's next call would pay for it.  Stale
     * handles are drawn on one thread; there a stale handle equal to a live one is that one. */
    if (nused && p < 85 && fz_threads == 1) {
        h->slot = used[fz_below(r, (uint64_t)nused)];
        return s[h->slot].live;
    }
    static const int bad[] = {FZ_H_NULL, FZ_H_NULL, FZ_H_BOGUS, FZ_H_JUNK};
    h->slot = p < 90 ? (int)fz_below(r, FZ_SLOTS) : bad[fz_below(r, 4)];
    if (fz_threads > 1 && h->slot >= 0 && s[h->slot].h && !s[h->slot].live)
        h->slot = FZ_H_BOGUS;   /* made up instead: never anybody's object */
    return h->slot >= 0 && s[h->slot].live;
}

/* Device allocations come in a few sizes, so that a small cache of them serves every call. */
static const int64_t CLASSES[] = {256, 1024, 4096, 16384, 65536, 262144, 1048576};
#define NCLASSES (sizeof CLASSES / sizeof *CLASSES)

static int64_t size_class(fz_wide bytes)
{
    for (size_t i = 0; i < NCLASSES; i++)
        if (bytes <= CLASSES[i])
            return CLASSES[i];
    return CLASSES[NCLASSES - 1];
}

void fz_draw_array(fz_worker *w, fz_rng *r, fz_array *a, fz_wide need, int esize, int host)
{
    (void)w;
    fz_wide bytes = need > 0 ? fz_mul(need, esize) : 0;   /* negative with illegal leading dimensions */
    int p = (int)fz_below(r, 100);
    memset(a, 0, sizeof *a);
    if (host) {
        if (p < 86) {
            a->place = FZ_HOST;
            a->bytes = bytes <= fz_cfg.host_cap ? (int64_t)bytes : 64;
        } else if (p < 90) {
            a->place = FZ_NULL;
        } else {
            a->place = FZ_PINNED;
            a->bytes = size_class(bytes);
            a->of = (int)fz_below(r, 3);
            if (bytes <= a->bytes && fz_percent(r, 60))
                a->off = a->bytes - (int64_t)bytes;
        }
        return;
    }
    int64_t cls = size_class(bytes);
    a->bytes = cls;
    a->of = (int)fz_below(r, 3);      /* which block of that size */
    int fits = bytes <= cls;
    if (p < 80) {
        a->place = FZ_DEV;
        if (fits && fz_percent(r, 55))
            a->off = cls - (int64_t)bytes;              /* flush with the end */
        else if (fits && cls - bytes >= 2 * esize && fz_percent(r, 30))
            a->off = (int64_t)fz_below(r, (uint64_t)((cls - bytes) / esize)) * esize;
    } else if (p < 85) {                                 /* one element too long for its block */
        a->place = FZ_DEV;
        a->off = fits ? cls - (int64_t)bytes + esize : 0;
    } else if (p < 88) {                                 /* starting at or past the end */
        a->place = FZ_DEV;
        a->off = cls + (fz_percent(r, 50) ? 0 : 256 * (int64_t)fz_below(r, 3));
    } else if (p < 91) {
        a->place = FZ_NULL;
    } else if (p < 93) {
        a->place = FZ_FREED;
#if defined(__SANITIZE_THREAD__)
        /* another thread may get a freed block back, and the call then races its writes: the
         * program's race, which ThreadSanitizer would report in place of cufort's */
        if (fz_threads > 1)
            a->place = FZ_BOGUS;
#endif
    } else if (p < 95) {
        a->place = FZ_HOSTMEM;
        a->bytes = bytes <= fz_cfg.host_cap ? (int64_t)(bytes ? bytes : 1) : 64;
    } else if (p < 97) {   /* pinned memory, which the cuda backend may take for device memory */
        a->place = fits ? FZ_PINNED : FZ_DEV;
        a->off = fits && fz_percent(r, 50) ? cls - (int64_t)bytes : 0;
    } else {
        a->place = FZ_BOGUS;
    }
}

int fz_array_state(const fz_call *c, int i, fz_wide need, int esize, int host_form)
{
    const fz_array *a = &c->arg[i].a;
    int64_t off = a->off;
    for (int hops = 0; a->place == FZ_ALIAS && hops < FZ_MAX_ARGS; hops++) {
        const fz_array *b = &c->arg[a->of].a;
        off += b->off;
        a = b;
    }
    if (need <= 0)
        return FZ_FITS;
    int inside = off >= 0 && off + fz_mul(need, esize) <= a->bytes;
    switch (a->place) {
    case FZ_DEV:   /* a start past its block may fall inside another block: valid device memory */
        return host_form || off >= a->bytes ? FZ_MAYBE : inside ? FZ_FITS : FZ_BAD;
    case FZ_HOST:
        return host_form ? (inside ? FZ_FITS : FZ_BAD) : FZ_BAD;
    case FZ_PINNED:   /* device-accessible on the cuda backend, not on the host one */
        return host_form ? (inside ? FZ_FITS : FZ_BAD) : cufort_backend() == CUFORT_BACKEND_HOST ? FZ_BAD
                                                                                              : FZ_MAYBE;
    case FZ_HOSTMEM:
        return cufort_backend() == CUFORT_BACKEND_HOST ? FZ_BAD : FZ_MAYBE;
    case FZ_FREED:   /* with other threads allocating, the address may be theirs again */
        return fz_threads > 1 ? FZ_MAYBE : FZ_BAD;
    default:
        return FZ_BAD;
    }
}
