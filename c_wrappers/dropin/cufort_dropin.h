/* cufort_dropin.h — the few C entry points of the drop-in BLAS (libcufort_blas) beyond the standard
 * Fortran BLAS names: the counters behind CUFORT_REPORT, and re-reading the environment.  A program
 * that only relinks never needs them; tests and tools do. */
#ifndef CUFORT_DROPIN_PUBLIC_H
#define CUFORT_DROPIN_PUBLIC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *name;        /* lower case, no underscore: "dgemm" */
    int gpu_capable;         /* Level 3: may run on the engine */
    int64_t calls;           /* completed calls (those stopped by xerbla not counted) */
    int64_t gpu, cpu;        /* of which on the engine / on the CPU BLAS */
    int64_t fallback;        /* of the cpu ones: meant for the engine, which could not run them */
    double seconds;          /* wall time inside the routine, all calls */
    double flops;            /* real flops by the usual formulas (gemm 2mnk, x4 for complex, ...) */
    double bytes;            /* host<->device, engine calls only: inputs once, updated arrays both ways */
} cufort_dropin_stats;

/* Counters are kept only while CUFORT_REPORT is set (otherwise all zero).  Returns 0, or -1 for an
 * unknown routine / an index past the end. */
int cufort_dropin_stats_of(const char *routine, cufort_dropin_stats *out);
int cufort_dropin_stats_at(int index, cufort_dropin_stats *out);

/* Re-reads CUFORT_GPU_THRESHOLD, CUFORT_GPU_MIN_DIM, CUFORT_DROPIN_FORCE_GPU, CUFORT_REPORT and the
 * measuring settings (read once, at the first BLAS call, otherwise), and forgets the measured
 * classes. */
void cufort_dropin_configure(void);

/* Writes the report now: to `path` ("-" or NULL: stderr).  0, or -1 when the file cannot be written. */
int cufort_dropin_write_report(const char *path);

#ifdef __cplusplus
}
#endif
#endif
