/* memory.c — device and pinned host allocation, host registration, and the checks every array
 * argument goes through.  Every block is recorded, so both backends refuse the same misuse
 * (freeing what they never gave out, a second free, unregistering what was never registered). */
#include "internal.h"
#include "pin_cache.h"

/* The backend's calls for a registry's blocks, looked up after cufort_enter: another thread may
 * initialise cufort between the two, and a lookup made before would find no backend. */
static int (*alloc_op(const cufort_registry *blocks))(void **, size_t)
{
    return blocks == &cufort_pinned_blocks ? cufort_ops()->host_alloc : cufort_ops()->alloc;
}
static int (*free_op(const cufort_registry *blocks))(void *)
{
    const cufort_backend_ops *ops = cufort_ops();
    if (blocks == &cufort_device_blocks)
        return ops->free;
    return blocks == &cufort_pinned_blocks ? ops->host_free : ops->host_unregister;
}

/* cufort_alloc / cufort_host_alloc share everything but the backend call and the registry */
static int allocate(const char *fn, void **p, int64_t bytes, cufort_registry *blocks, const char *what,
                    int own)
{
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (!p)
        return cufort_null_arg(fn, "the pointer to set");
    *p = NULL;
    if (bytes < 0)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: negative size %lld", fn, (long long)bytes);
    if (bytes == 0)         /* NULL stands for an empty array everywhere in the C ABI */
        return CUFORT_SUCCESS;
    st = alloc_op(blocks)(p, (size_t)bytes);
    if (st && blocks == &cufort_device_blocks) {
        /* an array the program has just freed may still be pinned, its addresses still the
         * driver's (cudaErrorAlreadyMapped), until the pin cache's watcher has released it */
        cufort_clear_error();
        cufort_pin_cache_settle();
        st = alloc_op(blocks)(p, (size_t)bytes);
    }
    if (st)
        return cufort_fail(st, "%s: cannot allocate %lld bytes of %s (%s)", fn, (long long)bytes,
                           what, cufort_last_error());
    st = own ? cufort_registry_add_own(blocks, *p, (size_t)bytes)
             : cufort_registry_add(blocks, *p, (size_t)bytes);
    if (st) {
        free_op(blocks)(*p);
        *p = NULL;
    }
    return cufort_in(fn, st);
}

static int release(const char *fn, void *p, cufort_registry *blocks, const char *from, int own)
{
    int st = cufort_enter(fn);
    if (st || !p)
        return st;
    if (!(own ? cufort_registry_remove_own(blocks, p) : cufort_registry_remove(blocks, p)))
        return cufort_fail(CUFORT_BAD_POINTER, "%s: %p was not returned by %s, or was freed already",
                           fn, p, from);
    return cufort_in(fn, free_op(blocks)(p));
}

/* A block the program frees goes once no other thread's call is in flight (gate.h): such a call
 * may hold a stale pointer of its own that now lies in this block, checked before the free and
 * used after it, which the driver does not survive.  A free made from inside a call (a callback)
 * goes at once: the gate cannot close there. */
static int release_closed(const char *fn, void *p, cufort_registry *blocks, const char *from)
{
    if (!p || cufort_gate_inside()) {
        CUFORT_HOLD_GATE;
        return release(fn, p, blocks, from, 0);
    }
    cufort_gate_close(fn);   /* refused only from inside a call */
    int st = release(fn, p, blocks, from, 0);
    cufort_gate_open();
    return st;
}

int cufort_alloc(void **device_ptr, int64_t bytes)
{
    CUFORT_HOLD_GATE;
    return allocate("cufort_alloc", device_ptr, bytes, &cufort_device_blocks, "device memory", 0);
}

int cufort_free(void *device_ptr)
{
    return release_closed("cufort_free", device_ptr, &cufort_device_blocks, "cufort_alloc");
}

int cufort_host_alloc(void **host_ptr, int64_t bytes)
{
    CUFORT_HOLD_GATE;
    return allocate("cufort_host_alloc", host_ptr, bytes, &cufort_pinned_blocks, "pinned host memory", 0);
}

int cufort_host_free(void *host_ptr)
{
    return release_closed("cufort_host_free", host_ptr, &cufort_pinned_blocks, "cufort_host_alloc");
}

int cufort_own_alloc(void **p, int64_t bytes, int pinned)
{
    CUFORT_HOLD_GATE;
    return pinned ? allocate("cufort_host_alloc", p, bytes, &cufort_pinned_blocks, "pinned host memory", 1)
                  : allocate("cufort_alloc", p, bytes, &cufort_device_blocks, "device memory", 1);
}

int cufort_own_free(void *p, int pinned)
{
    CUFORT_HOLD_GATE;
    return pinned ? release("cufort_host_free", p, &cufort_pinned_blocks, "cufort_host_alloc", 1)
                  : release("cufort_free", p, &cufort_device_blocks, "cufort_alloc", 1);
}

int cufort_host_register(void *host_ptr, int64_t bytes)
{
    CUFORT_HOLD_GATE;
    static const char fn[] = "cufort_host_register";
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (!host_ptr)
        return cufort_null_arg(fn, "host_ptr");
    if (bytes <= 0)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: size %lld must be positive", fn,
                           (long long)bytes);
    cufort_pin_cache_forget(host_ptr, (size_t)bytes);   /* the driver pins a page once */
    st = cufort_ops()->host_register(host_ptr, (size_t)bytes);
    if (!st && (st = cufort_registry_add(&cufort_registered_ranges, host_ptr, (size_t)bytes)))
        cufort_ops()->host_unregister(host_ptr);
    return cufort_in(fn, st);
}

int cufort_host_unregister(void *host_ptr)
{
    return release_closed("cufort_host_unregister", host_ptr, &cufort_registered_ranges,
                          "cufort_host_register");
}

/* A program's pointer never lies in cufort's own blocks (its scratch, its staging slots): one that
 * does is stale, and cufort may free the block, which it does inside its own calls, while the
 * program's call still uses it.  cufort's own calls pass (cufort_gate_program_call). */
static int stale_in_own_block(const char *routine, const char *name, const void *p)
{
    return cufort_fail(CUFORT_BAD_POINTER,
                       "%s: %s (%p) lies in memory cufort holds for itself: a stale pointer (kept "
                       "after its block was freed, or past its end)", routine, name, p);
}

int cufort_check_array(const char *routine, const char *name, const void *p, int64_t elems,
                       size_t elem_size)
{
    if (elems <= 0)
        return CUFORT_SUCCESS;
    if (!p)
        return cufort_fail(CUFORT_BAD_POINTER, "%s: %s is a null pointer but must hold %lld elements",
                           routine, name, (long long)elems);
    size_t bytes;
    if (__builtin_mul_overflow((size_t)elems, elem_size, &bytes))
        return cufort_fail(CUFORT_BAD_POINTER, "%s: %s would span %lld elements of %zu bytes, more "
                           "than memory can hold", routine, name, (long long)elems, elem_size);
    uintptr_t at = (uintptr_t)p;
    cufort_block b;
    if (cufort_registry_floor_block(&cufort_device_blocks, p, &b)) {
        uintptr_t end = b.base + b.bytes;
        if (at < end) {
            if (b.own && cufort_gate_program_call())
                return stale_in_own_block(routine, name, p);
            if (bytes > end - at)
                return cufort_fail(CUFORT_BAD_POINTER,
                                   "%s: %s spans %zu bytes but only %zu remain in its %zu-byte "
                                   "allocation", routine, name, bytes, (size_t)(end - at), b.bytes);
            return CUFORT_SUCCESS;
        }
        /* the driver would call this memory valid: it is the padding of the block below */
        if (at < (end + CUFORT_ALLOC_ALIGN - 1) / CUFORT_ALLOC_ALIGN * CUFORT_ALLOC_ALIGN)
            return cufort_fail(CUFORT_BAD_POINTER,
                               "%s: %s starts %zu bytes past the end of its %zu-byte allocation",
                               routine, name, (size_t)(at - end), b.bytes);
    }
    /* pinned host memory reads as device memory on the GPU (mapped): cufort knows how long its own
     * pinned blocks and registered ranges are, and a kernel running past one faults the context */
    cufort_registry *host_sets[] = {&cufort_pinned_blocks, &cufort_registered_ranges};
    for (int i = 0; i < 2; i++) {
        if (!cufort_registry_floor_block(host_sets[i], p, &b) || at >= b.base + b.bytes)
            continue;
        if (b.own && cufort_gate_program_call())
            return stale_in_own_block(routine, name, p);
        if (bytes > b.base + b.bytes - at)
            return cufort_fail(CUFORT_BAD_POINTER,
                               "%s: %s spans %zu bytes but only %zu remain in its %zu-byte pinned "
                               "host array", routine, name, bytes, (size_t)(b.base + b.bytes - at),
                               b.bytes);
    }
    return cufort_ops()->foreign_pointer(routine, name, p, bytes);
}

int cufort_check_host_array(const char *routine, const char *name, int64_t elems, size_t elem_size)
{
    size_t bytes;
    if (elems <= 0)
        return CUFORT_SUCCESS;
    if (elems == INT64_MAX || __builtin_mul_overflow((size_t)elems, elem_size, &bytes) ||
        bytes > PTRDIFF_MAX)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: %s would span %s%lld elements of %zu bytes, "
                           "more than the address space holds", routine, name,
                           elems == INT64_MAX ? "at least " : "", (long long)elems, elem_size);
    return CUFORT_SUCCESS;
}
