/* devices.c — which devices a process's host-array calls may spread over (see internal.h):
 * CUFORT_DEVICES, else CUFORT_DEVICES_PER_RANK under an MPI launcher, else every visible device
 * for a process alone and its own device for each of several ranks. */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

/* CUFORT_DEVICES=0,2,3: each listed once, each below count */
static int parse_list(const char *list, int count, int *devs, int max, int *n)
{
    *n = 0;
    const char *p = list;
    while (*p) {
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p || d < 0 || d >= count || (*end && *end != ','))
            return cufort_fail(CUFORT_INVALID_VALUE,
                               "CUFORT_DEVICES=%s: expected device numbers in [0, %d) separated by "
                               "commas", list, count);
        for (int i = 0; i < *n; i++)
            if (devs[i] == d)
                return cufort_fail(CUFORT_INVALID_VALUE, "CUFORT_DEVICES=%s names device %ld twice",
                                   list, d);
        if (*n < max)
            devs[(*n)++] = (int)d;
        p = *end ? end + 1 : end;
    }
    if (*n == 0)
        return cufort_fail(CUFORT_INVALID_VALUE, "CUFORT_DEVICES is set but names no device");
    return CUFORT_SUCCESS;
}

int cufort_first_device(int count, int *device)
{
    int devs[CUFORT_MAX_DEVICES], n = 0;
    const char *list = getenv("CUFORT_DEVICES");
    if (list && *list) {
        int st = parse_list(list, count, devs, CUFORT_MAX_DEVICES, &n);
        if (!st)
            *device = devs[0];
        return st;
    }
    int rank = cufort_local_rank(), k = cufort_devices_per_rank();
    *device = count <= 0 || rank < 0 ? 0 : k ? (rank * k) % count : rank % count;
    return CUFORT_SUCCESS;
}

int cufort_engine_devices(int *devs, int max, int *n)
{
    int count = 0, self = cufort_current_device();
    *n = 1;
    devs[0] = self;
    const cufort_backend_ops *ops = cufort_ops();
    if (!ops || ops->device_count(&count) || count <= 1) {
        cufort_clear_error();
        return CUFORT_SUCCESS;
    }
    int list[CUFORT_MAX_DEVICES], m = 0, rank = cufort_local_rank(), k = cufort_devices_per_rank();
    const char *env = getenv("CUFORT_DEVICES");
    if (env && *env) {
        int st = parse_list(env, count, list, CUFORT_MAX_DEVICES, &m);
        if (st)
            return st;
    } else if (k) {          /* the rank's k devices, from (local rank * k) round the node */
        for (int i = 0; i < k && i < count && m < CUFORT_MAX_DEVICES; i++)
            list[m++] = ((rank < 0 ? 0 : rank) * k + i) % count;
    } else if (rank >= 0 && cufort_local_size() > 1) {
        return CUFORT_SUCCESS;   /* ranks sharing a node: each its own device */
    } else {
        for (int i = 0; i < count && m < CUFORT_MAX_DEVICES; i++)
            list[m++] = i;
    }
    /* the calling thread's own device first (the one its caches are on), if listed */
    *n = 0;
    for (int i = 0; i < m; i++)
        if (list[i] == self)
            devs[(*n)++] = self;
    for (int i = 0; i < m && *n < max; i++)
        if (list[i] != self)
            devs[(*n)++] = list[i];
    return CUFORT_SUCCESS;
}
