/* registry.c — every live cufort_alloc block, sorted by address, so that any pointer handed to a
 * BLAS call can be traced to its block and checked for running past its end. */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

typedef struct { uintptr_t base; size_t bytes; } block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static block *blocks;
static size_t count, capacity;

/* index of the last block with base <= p, or -1 */
static ptrdiff_t floor_index(uintptr_t p)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)count - 1, found = -1;
    while (lo <= hi) {
        ptrdiff_t mid = lo + (hi - lo) / 2;
        if (blocks[mid].base <= p) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return found;
}

void cufort_registry_add(const void *p, size_t bytes)
{
    pthread_mutex_lock(&lock);
    if (count == capacity) {
        size_t cap = capacity ? 2 * capacity : 64;
        block *grown = realloc(blocks, cap * sizeof *blocks);
        if (!grown) {  /* untracked blocks are still checked as foreign pointers */
            pthread_mutex_unlock(&lock);
            return;
        }
        blocks = grown;
        capacity = cap;
    }
    size_t at = (size_t)(floor_index((uintptr_t)p) + 1);
    memmove(blocks + at + 1, blocks + at, (count - at) * sizeof *blocks);
    blocks[at] = (block){(uintptr_t)p, bytes};
    count++;
    pthread_mutex_unlock(&lock);
}

int cufort_registry_remove(const void *p)
{
    pthread_mutex_lock(&lock);
    ptrdiff_t i = floor_index((uintptr_t)p);
    int hit = i >= 0 && blocks[i].base == (uintptr_t)p;
    if (hit) {
        memmove(blocks + i, blocks + i + 1, (count - (size_t)i - 1) * sizeof *blocks);
        count--;
    }
    pthread_mutex_unlock(&lock);
    return hit;
}

int cufort_registry_find(const void *p, uintptr_t *base, size_t *bytes)
{
    pthread_mutex_lock(&lock);
    ptrdiff_t i = floor_index((uintptr_t)p);
    int hit = i >= 0 && (uintptr_t)p < blocks[i].base + blocks[i].bytes;
    if (hit) {
        *base = blocks[i].base;
        *bytes = blocks[i].bytes;
    }
    pthread_mutex_unlock(&lock);
    return hit;
}
