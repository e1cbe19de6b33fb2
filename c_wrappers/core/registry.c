/* registry.c — sets of live memory blocks sorted by address: device blocks from cufort_alloc (so
 * any pointer handed to a BLAS call can be traced to its block and checked for running past its
 * end, and shutdown can free what the program left allocated), pinned blocks and registered host
 * ranges (so both backends refuse to free or unregister what they never gave out). */
#include <stdlib.h>

#include "internal.h"

cufort_registry cufort_device_blocks = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};
cufort_registry cufort_pinned_blocks = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};
cufort_registry cufort_registered_ranges = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

/* index of the last block with base <= p, or -1 */
static ptrdiff_t floor_index(const cufort_registry *r, uintptr_t p)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)r->count - 1, found = -1;
    while (lo <= hi) {
        ptrdiff_t mid = lo + (hi - lo) / 2;
        if (r->blocks[mid].base <= p) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return found;
}

static int add(cufort_registry *r, const void *p, size_t bytes, int own)
{
    pthread_mutex_lock(&r->lock);
    if (r->count == r->capacity) {
        size_t cap = r->capacity ? 2 * r->capacity : 64;
        cufort_block *grown = realloc(r->blocks, cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&r->lock);
            return cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory for the block registry");
        }
        r->blocks = grown;
        r->capacity = cap;
    }
    size_t at = (size_t)(floor_index(r, (uintptr_t)p) + 1);
    memmove(r->blocks + at + 1, r->blocks + at, (r->count - at) * sizeof *r->blocks);
    r->blocks[at] = (cufort_block){(uintptr_t)p, bytes, own};
    r->count++;
    pthread_mutex_unlock(&r->lock);
    return CUFORT_SUCCESS;
}

/* A pointer one past the end of the program's array can be the base of a block cufort holds for
 * itself (its scratch, its staging slots): such a block is found only by cufort's own free. */
static int take(cufort_registry *r, const void *p, int own)
{
    pthread_mutex_lock(&r->lock);
    ptrdiff_t i = floor_index(r, (uintptr_t)p);
    int hit = i >= 0 && r->blocks[i].base == (uintptr_t)p && r->blocks[i].own == own;
    if (hit) {
        memmove(r->blocks + i, r->blocks + i + 1, (r->count - (size_t)i - 1) * sizeof *r->blocks);
        r->count--;
    }
    pthread_mutex_unlock(&r->lock);
    return hit;
}

int cufort_registry_add(cufort_registry *r, const void *p, size_t bytes) { return add(r, p, bytes, 0); }
int cufort_registry_add_own(cufort_registry *r, const void *p, size_t bytes) { return add(r, p, bytes, 1); }
int cufort_registry_remove(cufort_registry *r, const void *p) { return take(r, p, 0); }
int cufort_registry_remove_own(cufort_registry *r, const void *p) { return take(r, p, 1); }

int cufort_registry_floor_block(cufort_registry *r, const void *p, cufort_block *block)
{
    pthread_mutex_lock(&r->lock);
    ptrdiff_t i = floor_index(r, (uintptr_t)p);
    if (i >= 0)
        *block = r->blocks[i];
    pthread_mutex_unlock(&r->lock);
    return i >= 0;
}

int cufort_registry_floor(cufort_registry *r, const void *p, uintptr_t *base, size_t *bytes)
{
    cufort_block b;
    if (!cufort_registry_floor_block(r, p, &b))
        return 0;
    *base = b.base;
    *bytes = b.bytes;
    return 1;
}

void cufort_registry_drain(cufort_registry *r, int (*release)(void *p))
{
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->count; i++)
        release((void *)r->blocks[i].base);
    r->count = 0;
    pthread_mutex_unlock(&r->lock);
}
