/* cufort_fftw.h — the few C entry points of the FFTW drop-in (libcufort_fftw) beyond FFTW's own
 * API: the counters behind CUFORT_REPORT, and re-reading the environment.  A program that only
 * relinks never needs them; tests and tools do. */
#ifndef CUFORT_FFTW_PUBLIC_H
#define CUFORT_FFTW_PUBLIC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *name;        /* "c2c_double", "r2c_single", ..., "other_double" (r2r, split arrays) */
    int gpu_capable;         /* may run on the engine */
    int64_t calls;           /* executions */
    int64_t gpu, cpu;        /* of which on the engine / on the real FFTW */
    int64_t fallback;        /* of the cpu ones: meant for the engine, which could not run them */
    double seconds;          /* wall time inside the executions */
    double flops;            /* 5 N log2 N per complex transform of N points, 2.5 N log2 N real */
    double bytes;            /* host<->device, engine executions only: input once, output once */
} cufort_fftw_stats;

/* Counters are kept only while CUFORT_REPORT is set (otherwise all zero).  Returns 0, or -1 for an
 * unknown name / an index past the end. */
int cufort_fftw_stats_of(const char *name, cufort_fftw_stats *out);
int cufort_fftw_stats_at(int index, cufort_fftw_stats *out);

/* Re-reads CUFORT_FFTW_THRESHOLD, CUFORT_FFTW_FORCE_GPU, CUFORT_FFTW_ADAPT, CUFORT_REPORT and the
 * measuring settings (read once, at the first plan, otherwise), and forgets the measured classes.
 * Plans made before keep the paths they were made for. */
void cufort_fftw_configure(void);

/* Writes the report now: to `path` ("-" or NULL: stderr).  0, or -1 when the file cannot be written. */
int cufort_fftw_write_report(const char *path);

#ifdef __cplusplus
}
#endif
#endif
