/* stats.c — a drop-in's per-routine counters and its clock: written by every call (through
 * router.c's dropin_end), read by report.c and by the library's public stats queries.
 *
 * Counters are kept only while CUFORT_REPORT is on: a Level-1 call in a hot loop should not pay for
 * a clock read and shared atomics nobody will look at. */
#include <time.h>

#include "route.h"

int dropin_reporting = -1;

uint64_t dropin_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void add_double(double *x, double v)
{
    double old, want;
    __atomic_load(x, &old, __ATOMIC_RELAXED);
    do {
        want = old + v;
    } while (!__atomic_compare_exchange(x, &old, &want, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

void dropin_count(dropin_stats *s, uint64_t ns, int gpu, int fell_back, double flops, double bytes)
{
    __atomic_add_fetch(&s->ns, ns, __ATOMIC_RELAXED);
    __atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(gpu ? &s->gpu : &s->cpu, 1, __ATOMIC_RELAXED);
    if (fell_back)
        __atomic_add_fetch(&s->fallback, 1, __ATOMIC_RELAXED);
    if (flops > 0)
        add_double(&s->flops, flops);
    if (gpu)
        __atomic_add_fetch(&s->bytes, (uint64_t)bytes, __ATOMIC_RELAXED);
}

void dropin_stats_copy(const dropin_stats *s, dropin_snapshot *out)
{
    out->name = s->name;
    out->gpu_capable = s->gpu_capable;
    out->calls = (int64_t)__atomic_load_n(&s->calls, __ATOMIC_RELAXED);
    out->gpu = (int64_t)__atomic_load_n(&s->gpu, __ATOMIC_RELAXED);
    out->cpu = (int64_t)__atomic_load_n(&s->cpu, __ATOMIC_RELAXED);
    out->fallback = (int64_t)__atomic_load_n(&s->fallback, __ATOMIC_RELAXED);
    out->seconds = (double)__atomic_load_n(&s->ns, __ATOMIC_RELAXED) * 1e-9;
    __atomic_load(&s->flops, &out->flops, __ATOMIC_RELAXED);
    out->bytes = (double)__atomic_load_n(&s->bytes, __ATOMIC_RELAXED);
}

int dropin_stats_at(int index, dropin_snapshot *out)
{
    if (index < 0 || index >= dropin_nroutines || !out)
        return -1;
    dropin_stats_copy(&dropin_routines[index], out);
    return 0;
}

int dropin_stats_of(const char *routine, dropin_snapshot *out)
{
    for (int i = 0; routine && i < dropin_nroutines; i++)
        if (strcmp(dropin_routines[i].name, routine) == 0)
            return dropin_stats_at(i, out);
    return -1;
}
