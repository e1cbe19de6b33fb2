/* memory.c — device and pinned host allocation, and the check every array argument goes through. */
#include "internal.h"

int cufort_alloc(void **device_ptr, int64_t bytes)
{
    static const char fn[] = "cufort_alloc";
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (!device_ptr)
        return cufort_null_arg(fn, "device_ptr");
    *device_ptr = NULL;
    if (bytes < 0)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: negative size %lld", fn, (long long)bytes);
    if (bytes == 0)         /* NULL stands for an empty array everywhere in the C ABI */
        return CUFORT_SUCCESS;
    st = cufort_ops()->alloc(device_ptr, (size_t)bytes);
    if (st)
        return cufort_fail(st, "%s: cannot allocate %lld bytes of %s memory (%s)", fn,
                           (long long)bytes, cufort_ops()->name, cufort_last_error());
    cufort_registry_add(*device_ptr, (size_t)bytes);
    return CUFORT_SUCCESS;
}

int cufort_free(void *device_ptr)
{
    static const char fn[] = "cufort_free";
    int st = cufort_enter(fn);
    if (st || !device_ptr)
        return st;
    if (!cufort_registry_remove(device_ptr))
        return cufort_fail(CUFORT_BAD_POINTER,
                           "%s: %p was not returned by cufort_alloc, or was freed already", fn,
                           device_ptr);
    return cufort_ops()->free(device_ptr);
}

int cufort_host_alloc(void **host_ptr, int64_t bytes)
{
    static const char fn[] = "cufort_host_alloc";
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (!host_ptr)
        return cufort_null_arg(fn, "host_ptr");
    *host_ptr = NULL;
    if (bytes < 0)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: negative size %lld", fn, (long long)bytes);
    if (bytes == 0)
        return CUFORT_SUCCESS;
    st = cufort_ops()->host_alloc(host_ptr, (size_t)bytes);
    if (st)
        return cufort_fail(st, "%s: cannot allocate %lld bytes of pinned host memory (%s)", fn,
                           (long long)bytes, cufort_last_error());
    return CUFORT_SUCCESS;
}

int cufort_host_free(void *host_ptr)
{
    int st = cufort_enter("cufort_host_free");
    return st || !host_ptr ? st : cufort_ops()->host_free(host_ptr);
}

int cufort_host_register(void *host_ptr, int64_t bytes)
{
    static const char fn[] = "cufort_host_register";
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (!host_ptr)
        return cufort_null_arg(fn, "host_ptr");
    if (bytes <= 0)
        return cufort_fail(CUFORT_INVALID_VALUE, "%s: size %lld must be positive", fn,
                           (long long)bytes);
    return cufort_ops()->host_register(host_ptr, (size_t)bytes);
}

int cufort_host_unregister(void *host_ptr)
{
    static const char fn[] = "cufort_host_unregister";
    int st = cufort_enter(fn);
    if (st)
        return st;
    if (!host_ptr)
        return cufort_null_arg(fn, "host_ptr");
    return cufort_ops()->host_unregister(host_ptr);
}

int cufort_check_array(const char *routine, const char *name, const void *p, int64_t elems,
                       size_t elem_size)
{
    if (elems <= 0)
        return CUFORT_SUCCESS;
    if (!p)
        return cufort_fail(CUFORT_BAD_POINTER, "%s: %s is a null pointer but must hold %lld elements",
                           routine, name, (long long)elems);
    size_t bytes = (size_t)elems * elem_size;
    uintptr_t base;
    size_t size;
    if (cufort_registry_find(p, &base, &size)) {
        size_t room = base + size - (uintptr_t)p;
        if (bytes > room)
            return cufort_fail(CUFORT_BAD_POINTER,
                               "%s: %s spans %zu bytes but only %zu remain in its %zu-byte "
                               "allocation", routine, name, bytes, room, size);
        return CUFORT_SUCCESS;
    }
    return cufort_ops()->foreign_pointer(routine, name, p, bytes);
}
