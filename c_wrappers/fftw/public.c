/* public.c — the FFTW drop-in's C entry points (cufort_fftw.h) over the shared routing core. */
#include "fftw_dropin.h"

static void to_public(const dropin_snapshot *s, cufort_fftw_stats *out)
{
    *out = (cufort_fftw_stats){s->name, s->gpu_capable, s->calls, s->gpu, s->cpu, s->fallback,
                               s->seconds, s->flops, s->bytes};
}

int cufort_fftw_stats_at(int index, cufort_fftw_stats *out)
{
    dropin_snapshot s;
    if (!out || dropin_stats_at(index, &s))
        return -1;
    to_public(&s, out);
    return 0;
}

int cufort_fftw_stats_of(const char *name, cufort_fftw_stats *out)
{
    dropin_snapshot s;
    if (!out || dropin_stats_of(name, &s))
        return -1;
    to_public(&s, out);
    return 0;
}

void cufort_fftw_configure(void) { dropin_configure(); }

int cufort_fftw_write_report(const char *path) { return dropin_write_report(path); }
