/* stage_trace.c — see stage_trace.h.  Empty unless built with -DCUFORT_STAGE_TRACE. */
#ifdef CUFORT_STAGE_TRACE
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stage_trace.h"

enum { MAX_EVENTS = 1 << 20, MAX_GPU = 1 << 16 };

typedef struct { long long t_ns, a, b; int thread; char code; } event;
typedef struct { cudaEvent_t e; long long a, b; int dev; char code; } gpu_event;

static event events[MAX_EVENTS];
static gpu_event gpu[MAX_GPU];
static int count, gpu_count, threads;
static _Thread_local int me = -1;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void cufort_trace_host(char code, long long a, long long b)
{
    int i = __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED);
    if (me < 0)
        me = __atomic_fetch_add(&threads, 1, __ATOMIC_RELAXED);
    if (i < MAX_EVENTS)
        events[i] = (event){now_ns(), a, b, me, code};
}

void cufort_trace_gpu(void *stream, char code, long long a, long long b)
{
    static int off = -1;
    if (off < 0)
        off = getenv("CUFORT_STAGE_TRACE_GPU") && atoi(getenv("CUFORT_STAGE_TRACE_GPU")) == 0;
    if (off)
        return;
    int i = __atomic_fetch_add(&gpu_count, 1, __ATOMIC_RELAXED);
    if (i >= MAX_GPU || cudaEventCreate(&gpu[i].e) != cudaSuccess)
        return;
    gpu[i].a = a, gpu[i].b = b, gpu[i].code = code;
    cudaGetDevice(&gpu[i].dev);
    cudaEventRecord(gpu[i].e, (cudaStream_t)stream);
}

/* GPU times relative to a reference event on each device whose host time is taken as it completes;
 * device d's events are written as thread -1 - d */
void cufort_trace_dump(void)
{
    static int dumped;
    const char *path = getenv("CUFORT_STAGE_TRACE");
    FILE *f = path && !dumped++ ? fopen(path, "w") : NULL;
    if (!f)
        return;
    int n = count < MAX_EVENTS ? count : MAX_EVENTS, g = gpu_count < MAX_GPU ? gpu_count : MAX_GPU;
    long long t0 = n ? events[0].t_ns : now_ns();
    for (int i = 0; i < n; i++)
        fprintf(f, "%.3f %d %c %lld %lld\n", (events[i].t_ns - t0) / 1e3, events[i].thread,
                events[i].code, events[i].a, events[i].b);
    int devices = 0, was = 0;
    cudaGetDevice(&was);
    for (int i = 0; i < g; i++)
        devices = gpu[i].dev >= devices ? gpu[i].dev + 1 : devices;
    for (int d = 0; d < devices; d++) {
        cudaEvent_t ref;
        if (cudaSetDevice(d) != cudaSuccess || cudaEventCreate(&ref) != cudaSuccess)
            continue;
        cudaDeviceSynchronize();
        cudaEventRecord(ref, 0);
        while (cudaEventQuery(ref) == cudaErrorNotReady)
            ;
        long long t_ref = now_ns();
        for (int i = 0; i < g; i++) {
            float ms;
            if (gpu[i].dev == d && cudaEventElapsedTime(&ms, gpu[i].e, ref) == cudaSuccess)
                fprintf(f, "%.3f %d %c %lld %lld\n", (t_ref - t0) / 1e3 - ms * 1e3, -1 - d,
                        gpu[i].code, gpu[i].a, gpu[i].b);
        }
        cudaEventDestroy(ref);
    }
    cudaSetDevice(was);
    fclose(f);
}
__attribute__((destructor)) static void dump_at_exit(void) { cufort_trace_dump(); }
#endif
