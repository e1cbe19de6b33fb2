/* host_guard.c — the host backend's "device" blocks flush against an inaccessible page, for
 * CUFORT_HOST_GUARD_PAGES=before (each block starts right after one) or =after (each ends right
 * before one, to 16 bytes).  A read or write past that edge then faults at once, whoever makes it:
 * the CPU BLAS, FFTW and the C library, which no sanitizer of this build sees into, as well as
 * cufort.  A block takes its own mapping: a header page (the mapping's length), a guard page, its
 * data pages and a guard page after them. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host_internal.h"

enum { AFTER_ALIGN = 16 };

/* read once: every block of the process is made and freed the same way */
int cufort_host_guard_side(void)
{
    static int side = -1;
    int s = __atomic_load_n(&side, __ATOMIC_RELAXED);
    if (s < 0) {
        const char *env = getenv("CUFORT_HOST_GUARD_PAGES");
        s = !env                    ? CUFORT_HOST_GUARD_NONE
            : !strcmp(env, "after") ? CUFORT_HOST_GUARD_AFTER
            : !strcmp(env, "before") ? CUFORT_HOST_GUARD_BEFORE
                                     : CUFORT_HOST_GUARD_NONE;
        __atomic_store_n(&side, s, __ATOMIC_RELAXED);
    }
    return s;
}

int cufort_host_guarded_alloc(void **p, size_t bytes, int side)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t used = (bytes + AFTER_ALIGN - 1) / AFTER_ALIGN * AFTER_ALIGN;
    size_t data = used > pg ? (used + pg - 1) / pg * pg : pg;
    *p = NULL;
    if (used < bytes || data < used || data > SIZE_MAX - 3 * pg)
        return cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory");
    size_t len = data + 3 * pg;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return cufort_fail(CUFORT_ALLOC_FAILED, "out of host memory (a guarded block of %zu bytes)",
                           bytes);
    if (mprotect(m + pg, pg, PROT_NONE) || mprotect(m + 2 * pg + data, pg, PROT_NONE)) {
        munmap(m, len);
        return cufort_fail(CUFORT_ALLOC_FAILED, "mprotect failed on a guarded block");
    }
    memcpy(m, &len, sizeof len);
    *p = side == CUFORT_HOST_GUARD_AFTER ? m + 2 * pg + data - used : m + 2 * pg;
    return CUFORT_SUCCESS;
}

/* The block lies in its mapping's first data page either way: the header is two pages below. */
void cufort_host_guarded_free(void *p)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), len;
    char *m = (char *)((uintptr_t)p / pg * pg) - 2 * pg;
    memcpy(&len, m, sizeof len);
    munmap(m, len);
}
