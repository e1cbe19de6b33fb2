/* pool.h — host threads that help the calling thread with one job at a time, asleep when idle.
 *
 * Staged copies need several cores (one copies ~8 GB/s on the H100 host).  Not OpenMP teams:
 * libgomp's idle threads spin for milliseconds after every parallel region (its spin count is read
 * once, at program start) and take cores away from whatever the program does next: a CPU BLAS call
 * right after a GPU call ran 6x slower that way (docs/performance.md).
 * These threads spin for 200 us after a job, so back-to-back copies find them awake, then sleep. */
#ifndef CUFORT_POOL_H
#define CUFORT_POOL_H

typedef void (*cufort_pool_fn)(void *ctx, int worker);

/* the pool's threads: helpers for two staged copies of 16 threads at once (staging.c), as a GEMM's
 * upload and download run together */
enum { CUFORT_POOL_HELPERS = 30 };

/* fn(ctx, 0) on this thread and fn(ctx, w) for w = 1, 2, ... on up to workers - 1 pool threads
 * (fewer when other callers hold them: a job's workers must not depend on how many there are);
 * returns when every call has returned. */
void cufort_pool_run(int workers, cufort_pool_fn fn, void *ctx);

#endif
