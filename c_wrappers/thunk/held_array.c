/* held_array.c — a call's host array held for DMA (held_array.h). */
#include "held_array.h"
#include "pin_cache.h"
#include "staging.h"

void cufort_held_offer(cufort_held_array *o, const void *p, int64_t rows, int64_t cols, int64_t ld,
                       size_t es)
{
    *o = (cufort_held_array){.p = p, .ld = ld};
    if (!p || rows <= 0 || cols <= 0)
        return;
    size_t span = (size_t)cufort_extent_mat(rows, cols, ld) * es;
    if (cufort_host_pinned(p, span)) {
        o->lo = (uintptr_t)p;
        o->hi = o->lo + span;
    } else {
        o->cached = cufort_pin_cache_offer(p, span, &o->lo, &o->hi, &o->pin);
    }
}

int cufort_held_offer_c(cufort_held_array *o, const void *p, int64_t rows, int64_t cols, int64_t ld,
                        size_t es, int onto_beta, int keep)
{
    if (onto_beta && keep) {
        *o = (cufort_held_array){.p = p, .ld = ld};
        return 1;
    }
    cufort_held_offer(o, p, rows, cols, ld, es);
    return onto_beta && !cufort_held_dma(o);
}

void cufort_held_release(cufort_held_array *o)
{
    if (o->cached) {
        cufort_pin_cache_done(o->pin);
        o->cached = 0;
    }
}

/* The columns [*first, *last) of a block (cols columns of w bytes, hp apart from h) that lie in
 * the array's pinned range, none when *first == *last.  The pin cache holds an array's whole
 * pages only, so the blocks at an array's start and end have columns partly outside it. */
static void dma_columns(const cufort_held_array *o, const char *h, size_t hp, size_t w,
                        int64_t cols, int64_t *first, int64_t *last)
{
    uintptr_t a = (uintptr_t)h;
    *first = *last = 0;
    if (a + w > o->hi)
        return;
    int64_t f = a >= o->lo ? 0 : (int64_t)((o->lo - a + hp - 1) / hp);
    int64_t l = (int64_t)((o->hi - a - w) / hp) + 1;
    if (l > cols)
        l = cols;
    if (f < l)
        *first = f, *last = l;
}

/* One column partly or wholly outside the pin: its part inside by DMA, the parts outside (in the
 * array's partial first or last page) as small pageable copies.  No copy may start inside a pin
 * and run past its end: the driver refuses those. */
static int column_pieces(const cufort_held_array *o, char *host, char *dev, size_t w,
                         cufort_copy_kind kind, cufort_stream s)
{
    uintptr_t a = (uintptr_t)host, e = a + w;
    uintptr_t in0 = a > o->lo ? a : o->lo, in1 = e < o->hi ? e : o->hi;
    if (in0 >= in1)
        in0 = in1 = e;
    size_t at[3] = {0, in0 - a, in1 - a}, size[3] = {in0 - a, in1 - in0, e - in1};
    int st = CUFORT_SUCCESS, up = kind == CUFORT_H2D;
    for (int k = 0; k < 3 && !st; k++) {
        char *d = dev + at[k], *h = host + at[k];
        if (size[k])
            st = cufort_ops()->copy2d(up ? d : h, size[k], up ? h : d, size[k], size[k], 1, kind, s,
                                      1);
    }
    return st;
}

int cufort_held_copy(const cufort_held_array *o, char *host, size_t hp, char *dev, size_t dp,
                     size_t w, int64_t cols, cufort_copy_kind kind, cufort_stream s)
{
    int64_t f, l;
    dma_columns(o, host, hp, w, cols, &f, &l);
    int st = CUFORT_SUCCESS, up = kind == CUFORT_H2D;
    for (int64_t c = 0; c < f && !st; c++)
        st = column_pieces(o, host + (size_t)c * hp, dev + (size_t)c * dp, w, kind, s);
    for (int64_t c = l; c < cols && !st; c++)
        st = column_pieces(o, host + (size_t)c * hp, dev + (size_t)c * dp, w, kind, s);
    if (!st && l > f) {
        char *h = host + (size_t)f * hp, *d = dev + (size_t)f * dp;
        st = cufort_ops()->copy2d(up ? d : h, up ? dp : hp, up ? h : d, up ? hp : dp, w,
                                  (size_t)(l - f), kind, s, 1);
    }
    return st;
}
