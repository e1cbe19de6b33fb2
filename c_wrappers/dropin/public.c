/* public.c — the drop-in BLAS's C entry points (cufort_dropin.h) over the shared routing core. */
#include "dropin.h"

static void to_public(const dropin_snapshot *s, cufort_dropin_stats *out)
{
    *out = (cufort_dropin_stats){s->name, s->gpu_capable, s->calls, s->gpu, s->cpu, s->fallback,
                                 s->seconds, s->flops, s->bytes};
}

int cufort_dropin_stats_at(int index, cufort_dropin_stats *out)
{
    dropin_snapshot s;
    if (!out || dropin_stats_at(index, &s))
        return -1;
    to_public(&s, out);
    return 0;
}

int cufort_dropin_stats_of(const char *routine, cufort_dropin_stats *out)
{
    dropin_snapshot s;
    if (!out || dropin_stats_of(routine, &s))
        return -1;
    to_public(&s, out);
    return 0;
}

void cufort_dropin_configure(void) { dropin_configure(); }

int cufort_dropin_write_report(const char *path) { return dropin_write_report(path); }
