/* held_array.h — one host array of a thunked Level-3 or GEMM call, and the part of it the DMA
 * engines reach as it lies: pinned by the program, or held whole by the pin cache until the call
 * ends.  The engines offer each array whole, once per call, and tell their staging not to offer
 * its parts, which would compete with it for the pin; so a program that repeats a call on the same
 * arrays gets them pinned, and from then on every block of them goes by DMA where it lies. */
#ifndef CUFORT_HELD_ARRAY_H
#define CUFORT_HELD_ARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

typedef struct {
    const char *p;
    int64_t ld;
    uintptr_t lo, hi;   /* the part DMA reaches; lo == hi: none */
    uint64_t pin;
    int cached;         /* the pin cache's: handed back by cufort_held_release */
} cufort_held_array;

/* rows x cols elements of es bytes at p, ld apart: pinned by the program, or offered to the pin
 * cache (a sighting; held when it holds them) */
void cufort_held_offer(cufort_held_array *o, const void *p, int64_t rows, int64_t cols, int64_t ld,
                       size_t es);
/* C of an engine that can add beta C on the host as the product comes back (onto_beta): kept on
 * the host unoffered when `keep` (no DMA would reach it), else offered as above.  Returns whether
 * beta C is added on the host: onto_beta, and C kept or out of DMA's reach. */
int cufort_held_offer_c(cufort_held_array *o, const void *p, int64_t rows, int64_t cols, int64_t ld,
                        size_t es, int onto_beta, int keep);
/* once nothing touches the array any more: the pin cache's hold handed back */
void cufort_held_release(cufort_held_array *o);

static inline int cufort_held_dma(const cufort_held_array *o) { return o->hi > o->lo; }

/* cols columns of w bytes, hp apart from host (inside a DMA-reachable o), to or from dev (dp
 * apart) on s: the columns inside the pin by one DMA, the few at the array's partial first or last
 * page in pieces */
int cufort_held_copy(const cufort_held_array *o, char *host, size_t hp, char *dev, size_t dp,
                     size_t w, int64_t cols, cufort_copy_kind kind, cufort_stream s);

#endif
