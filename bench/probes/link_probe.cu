/* link_probe.cu — how fast pinned host memory reaches the GPUs, by which mover, and how many GPUs
 * the host's memory feeds at once: the questions behind the staging engine (docs/performance.md):
 *   fresh     One GPU.  A 32 MiB upload in 8 MiB groups, each group packed by T threads from a
 *             pageable array just before it moves, as the staging engine packs its slots.  The
 *             mover is the DMA engine (cudaMemcpyAsync) or a copy kernel on 16 to 2 x SMs
 *             blocks reading the slot through its mapping; the DMA engine reads lines still in the
 *             CPU's caches slower than settled ones.  Also each mover alone on 32 MiB just packed,
 *             and on 32 MiB evicted from the caches; and each mover's 16 MiB beside a running SGEMM
 *             of n = 2048, the copy kernel on a high-priority stream (it must find free SMs between
 *             the GEMM's blocks).
 *   down      One GPU.  An 8 MiB download by DMA into a pinned slot whose lines the CPU has just
 *             written (packed, as an upload leaves a slot of the ring), just read (unpacked, as a
 *             download leaves it; also read with the non-temporal hint, or flushed line by line
 *             after reading), or not touched since the caches were flushed: how much longer the
 *             DMA engine takes to write lines that sit in the cores' caches.
 *   mixed     One GPU.  Each just-packed 8 MiB group moved part by the DMA engine and the rest by
 *             the copy kernel at once, 24 and 32 MiB: whether the two movers' reads add up.
 *   stores    One GPU.  32 MiB packed in 8 MiB groups with ordinary stores, `rep movsb`, or
 *             streaming stores 16 (the library's), 32 or 64 bytes wide; packed alone, and packed
 *             with each group's DMA queued as it is packed.
 *   gemmout   One GPU.  A GEMM's C leaving the GPU: cuBLAS writing C straight into a pinned slot
 *             through its mapping (beta = 0), against the GEMM into device memory and a DMA down,
 *             for SGEMM and DGEMM n = 2048 and 4096, C whole, in halves and in quarters of its
 *             columns (each part's GEMM then its move); also beside a 16 MiB DMA up.  Reports the
 *             whole and the last part, which is the tail a staged call waits for after its last
 *             upload.
 *   gpus      1..N GPUs at once, each moving 512 MiB between a pinned buffer of its own and its
 *             memory by DMA: up, down, and both at once.  The aggregate is what the host's memory
 *             gives the DMA engines, the ceiling of a GEMM spread over the GPUs on pinned arrays.
 * Medians of REPS after a warm-up, wall clock to the last stream's end.
 * Usage: link_probe [fresh|down|gpus|all|mixed|stores|gemmout] ("all": the first three) */
#include <cpuid.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../bench_util.h"
#include "copy_streaming.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

enum { REPS = 9, MAXG = 16 };
static const size_t MIB = (size_t)1 << 20;

static void report(const char *what, double *t, int n, size_t bytes)
{
    double median = bench_median(t, n);   /* sorts t */
    printf("%-58s median %8.3f ms  %6.1f GB/s  (min %.3f max %.3f)\n", what, 1e3 * median,
           bytes / median * 1e-9, 1e3 * t[0], 1e3 * t[n - 1]);
    fflush(stdout);
}

__global__ void pull(int4 *dst, const int4 *src, size_t n)
{
    size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += step)
        dst[i] = src[i];
}

/* ---- fresh: one GPU, slots just packed ---- */
static char *src, *slot, *slot_dev, *dev, *junk;
static cudaStream_t s_copy, s_high, s_gemm;
static int blocks;

static void pack(size_t at, size_t len, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num();
        size_t piece = len / threads, lo = at + t * piece;
        memcpy(slot + lo, src + lo, t == threads - 1 ? len - t * piece : piece);
    }
}

static void move(size_t at, size_t len, int kernel, cudaStream_t s)
{
    if (kernel)
        pull<<<blocks, 512, 0, s>>>((int4 *)(dev + at), (const int4 *)(slot_dev + at), len / 16);
    else
        CK(cudaMemcpyAsync(dev + at, slot + at, len, cudaMemcpyHostToDevice, s));
    CK(cudaGetLastError());
}

static void evict(void)   /* write more than the last-level cache holds */
{
#pragma omp parallel for num_threads(16)
    for (long i = 0; i < 1024; i++) memset(junk + i * MIB, (int)i, MIB);
}

static int check(size_t bytes)
{
    char *back = (char *)malloc(bytes);
    CK(cudaMemcpy(back, dev, bytes, cudaMemcpyDeviceToHost));
    int ok = !memcmp(back, src, bytes);
    free(back);
    return ok;
}

static void fresh(void)
{
    const size_t BYTES = 32 * MIB, GROUP = 8 * MIB, GEMM_BYTES = 16 * MIB;
    int lo, hi, sms;
    CK(cudaSetDevice(0));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    blocks = 2 * sms;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CK(cudaStreamCreateWithFlags(&s_copy, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithPriority(&s_high, cudaStreamNonBlocking, hi));
    CK(cudaStreamCreateWithFlags(&s_gemm, cudaStreamNonBlocking));
    src = (char *)malloc(BYTES);
    junk = (char *)malloc(1024 * MIB);
    for (size_t i = 0; i < BYTES / 4; i++) ((unsigned *)src)[i] = (unsigned)(i * 2654435761u);
    CK(cudaHostAlloc((void **)&slot, BYTES, cudaHostAllocPortable | cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&slot_dev, slot, 0));
    CK(cudaMalloc((void **)&dev, BYTES));
    double t[REPS];
    char what[96];
    for (int kernel = 0; kernel < 5; kernel++) {   /* 1-4: the copy kernel, 16 to 2 x SMs blocks */
        blocks = kernel == 4 ? 2 * sms : kernel > 0 ? 8 << kernel : 0;
        char mover[32];
        snprintf(mover, sizeof mover, kernel ? "kernel x %d" : "dma", blocks);
        for (int threads = 8; threads <= 12; threads += 4) {
            for (int r = -1; r < REPS; r++) {   /* r = -1: warm-up */
                CK(cudaMemset(dev, 0, BYTES));
                CK(cudaDeviceSynchronize());
                evict();
                double t0 = bench_now();
                for (size_t at = 0; at < BYTES; at += GROUP) {
                    pack(at, GROUP, threads);
                    move(at, GROUP, kernel, kernel ? s_high : s_copy);
                }
                CK(cudaDeviceSynchronize());
                if (r >= 0) t[r] = bench_now() - t0;
            }
            snprintf(what, sizeof what, "32 MiB packed in 8 MiB groups, %d threads, %s%s", threads,
                     mover, check(BYTES) ? "" : " WRONG");
            report(what, t, REPS, BYTES);
        }
        for (int settled = 0; settled < 2; settled++) {
            for (int r = -1; r < REPS; r++) {
                pack(0, BYTES, 8);
                if (settled) evict();
                double t0 = bench_now();
                move(0, BYTES, kernel, kernel ? s_high : s_copy);
                CK(cudaDeviceSynchronize());
                if (r >= 0) t[r] = bench_now() - t0;
            }
            snprintf(what, sizeof what, "32 MiB %s, moved alone, %s",
                     settled ? "evicted from the caches" : "just packed", mover);
            report(what, t, REPS, BYTES);
        }
    }
    /* beside a GEMM: the mover's own time from events, and the pair's wall clock */
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        exit(1);
    }
    cublasSetStream(h, s_gemm);
    const int n = 2048;
    float *a, *c, one = 1.0f;
    CK(cudaMalloc((void **)&a, (size_t)n * n * 4));
    CK(cudaMalloc((void **)&c, (size_t)n * n * 4));
    CK(cudaMemset(a, 0, (size_t)n * n * 4));   /* zeros: only the GEMM's hold on the SMs matters */
    CK(cudaMemset(c, 0, (size_t)n * n * 4));   /* here (docs/performance.md's figures: these) */
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int kernel = -1; kernel < 5; kernel++) {   /* -1: the GEMM alone */
        blocks = kernel == 4 ? 2 * sms : kernel > 0 ? 8 << kernel : 0;
        double tm[REPS];
        for (int r = -1; r < REPS; r++) {
            pack(0, GEMM_BYTES, 8);
            CK(cudaDeviceSynchronize());
            double t0 = bench_now();
            cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &one, c, n);
            if (kernel >= 0) {
                cudaStream_t s = kernel ? s_high : s_copy;
                usleep(50);   /* the GEMM holds the SMs, as when an upload joins a running GEMM */
                CK(cudaEventRecord(e0, s));
                move(0, GEMM_BYTES, kernel, s);
                CK(cudaEventRecord(e1, s));
            }
            CK(cudaDeviceSynchronize());
            if (r >= 0) {
                t[r] = bench_now() - t0;
                float ms = 0;
                if (kernel >= 0) CK(cudaEventElapsedTime(&ms, e0, e1));
                tm[r] = 1e-3 * ms;
            }
        }
        if (kernel < 0) {
            report("SGEMM n = 2048 alone (wall)", t, REPS, 0);
            continue;
        }
        snprintf(what, sizeof what, "16 MiB just packed beside SGEMM 2048, %s (own time)",
                 kernel ? "kernel, high priority" : "dma");
        if (kernel)
            snprintf(what, sizeof what, "16 MiB beside SGEMM 2048, kernel x %d, high priority",
                     blocks);
        report(what, tm, REPS, GEMM_BYTES);
        snprintf(what, sizeof what, "  the pair's wall clock");
        report(what, t, REPS, 0);
    }
    cublasDestroy(h);
    CK(cudaFree(a));
    CK(cudaFree(c));
    CK(cudaFree(dev));
    CK(cudaFreeHost(slot));
    free(src);
    free(junk);
}

/* 8 threads read the slot into sink (as an unpacking does), with the non-temporal hint, or
 * flushing the lines after */
__attribute__((target("clflushopt"))) static void read_slot(char *sink, size_t bytes, int nta,
                                                            int flush)
{
#pragma omp parallel num_threads(8)
    {
        size_t piece = bytes / 8, lo = omp_get_thread_num() * piece;
        for (size_t o = lo; o < lo + piece; o += 8192) {
            if (nta)
                for (size_t a = o; a < o + 8192; a += 64) _mm_prefetch(slot + a, _MM_HINT_NTA);
            memcpy(sink + o, slot + o, 8192);
            if (flush)
                for (size_t a = o; a < o + 8192; a += 64) _mm_clflushopt(slot + a);
        }
    }
}

/* ---- down: one GPU, downloads into slots the CPU has just written or read ---- */
static void down(void)
{
    const size_t BYTES = 8 * MIB;
    CK(cudaSetDevice(0));
    CK(cudaStreamCreateWithFlags(&s_copy, cudaStreamNonBlocking));
    src = (char *)malloc(BYTES);
    char *sink = (char *)malloc(BYTES);
    junk = (char *)malloc(1024 * MIB);
    for (size_t i = 0; i < BYTES / 4; i++) ((unsigned *)src)[i] = (unsigned)(i * 2654435761u);
    memset(sink, 1, BYTES);
    CK(cudaHostAlloc((void **)&slot, BYTES, cudaHostAllocPortable));
    CK(cudaMalloc((void **)&dev, BYTES));
    CK(cudaMemcpy(dev, src, BYTES, cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const char *state[] = {"just written by 8 threads", "just read by 8 threads",
                           "evicted from the caches", "just written by 8 threads, down twice",
                           "just read by 8 threads, non-temporal hint",
                           "just read by 8 threads, then flushed"};
    unsigned a, b = 0, c, d;
    int can_flush = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 23 & 1);   /* CLFLUSHOPT */
    for (int round = 0; round < 2; round++)
        for (int k = 0; k < 6 - !can_flush; k++) {
            double t[REPS], tw[REPS], th[REPS];
            for (int r = -1; r < REPS; r++) {
                memset(slot, 2, BYTES);
                evict();
                double h0 = bench_now();
                if (k == 0 || k == 3)
                    pack(0, BYTES, 8);
                else if (k != 2)
                    read_slot(sink, BYTES, k == 4, k == 5);
                double t0 = bench_now();
                CK(cudaEventRecord(e0, s_copy));
                for (int rep = 0; rep < (k == 3 ? 2 : 1); rep++)
                    CK(cudaMemcpyAsync(slot, dev, BYTES, cudaMemcpyDeviceToHost, s_copy));
                CK(cudaEventRecord(e1, s_copy));
                CK(cudaStreamSynchronize(s_copy));
                float ms = 0;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (r >= 0) t[r] = 1e-3 * ms, tw[r] = bench_now() - t0, th[r] = t0 - h0;
            }
            char what[96];
            snprintf(what, sizeof what, "8 MiB down into a slot %s%s", state[k],
                     memcmp(slot, src, BYTES) ? " WRONG" : "");
            report(what, t, REPS, k == 3 ? 2 * BYTES : BYTES);
            report("  wall clock", tw, REPS, k == 3 ? 2 * BYTES : BYTES);
            if (k != 2)
                report("  the CPU's write or read of the slot before it", th, REPS, BYTES);
        }
    CK(cudaFree(dev));
    CK(cudaFreeHost(slot));
    free(src);
    free(sink);
    free(junk);
}

/* ---- gpus: aggregate DMA over several GPUs ---- */
static void gpus(void)
{
    const size_t BYTES = 512 * MIB;
    int count;
    CK(cudaGetDeviceCount(&count));
    if (count > MAXG) count = MAXG;
    char *host_up[MAXG], *host_down[MAXG], *dev_up[MAXG], *dev_down[MAXG];
    cudaStream_t up[MAXG], down[MAXG];
    for (int g = 0; g < count; g++) {
        CK(cudaSetDevice(g));
        CK(cudaHostAlloc((void **)&host_up[g], BYTES, cudaHostAllocPortable));
        CK(cudaHostAlloc((void **)&host_down[g], BYTES, cudaHostAllocPortable));
        memset(host_up[g], g + 1, BYTES);
        memset(host_down[g], 0, BYTES);
        CK(cudaMalloc((void **)&dev_up[g], BYTES));
        CK(cudaMalloc((void **)&dev_down[g], BYTES));
        CK(cudaMemset(dev_down[g], 7, BYTES));
        CK(cudaStreamCreateWithFlags(&up[g], cudaStreamNonBlocking));
        CK(cudaStreamCreateWithFlags(&down[g], cudaStreamNonBlocking));
    }
    printf("%d GPU(s), 512 MiB per GPU each way\n", count);
    double t[REPS];
    char what[96];
    static const char *dirs[3] = {"up", "down", "both"};
    for (int k = 1; k <= count; k++) {
        for (int d = 0; d < 3; d++) {
            for (int r = -1; r < REPS; r++) {
                double t0 = bench_now();
                for (int g = 0; g < k; g++) {
                    CK(cudaSetDevice(g));
                    if (d != 1)
                        CK(cudaMemcpyAsync(dev_up[g], host_up[g], BYTES, cudaMemcpyHostToDevice,
                                           up[g]));
                    if (d != 0)
                        CK(cudaMemcpyAsync(host_down[g], dev_down[g], BYTES, cudaMemcpyDeviceToHost,
                                           down[g]));
                }
                for (int g = 0; g < k; g++) {
                    CK(cudaSetDevice(g));
                    CK(cudaDeviceSynchronize());
                }
                if (r >= 0) t[r] = bench_now() - t0;
            }
            snprintf(what, sizeof what, "%d GPU(s) at once, dma %s, all GPUs together", k, dirs[d]);
            report(what, t, REPS, BYTES * k * (d == 2 ? 2 : 1));
        }
    }
    for (int g = 0; g < count; g++) {
        CK(cudaSetDevice(g));
        CK(cudaFreeHost(host_up[g]));
        CK(cudaFreeHost(host_down[g]));
        CK(cudaFree(dev_up[g]));
        CK(cudaFree(dev_down[g]));
    }
}

/* ---- mixed: one GPU, both movers on the same just-packed groups, no kernel running beside ----
 * Each 8 MiB group, once packed, is moved part by the DMA engine and the rest by the copy kernel at
 * once: whether the two movers' reads of lines still in the packing cores' caches add up. */
static void move_split(size_t at, size_t len, double dma_share)
{
    size_t d = (size_t)(len * dma_share) / 4096 * 4096;
    if (d) CK(cudaMemcpyAsync(dev + at, slot + at, d, cudaMemcpyHostToDevice, s_copy));
    if (len > d) {
        pull<<<blocks, 512, 0, s_high>>>((int4 *)(dev + at + d), (const int4 *)(slot_dev + at + d),
                                         (len - d) / 16);
        CK(cudaGetLastError());
    }
}

static void mixed(void)
{
    const size_t MAXB = 32 * MIB, GROUP = 8 * MIB;
    int lo, hi, sms;
    CK(cudaSetDevice(0));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CK(cudaStreamCreateWithFlags(&s_copy, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithPriority(&s_high, cudaStreamNonBlocking, hi));
    src = (char *)malloc(MAXB);
    junk = (char *)malloc(1024 * MIB);
    for (size_t i = 0; i < MAXB / 4; i++) ((unsigned *)src)[i] = (unsigned)(i * 2654435761u) | 1u;
    CK(cudaHostAlloc((void **)&slot, MAXB, cudaHostAllocPortable | cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&slot_dev, slot, 0));
    CK(cudaMalloc((void **)&dev, MAXB));
    const double shares[] = {1.0, 0.0, 0.5, 0.375, 0.25};
    const int block_counts[] = {sms, 2 * sms};
    double t[REPS];
    char what[96];
    for (int round = 0; round < 2; round++)
        for (size_t bytes = 24 * MIB; bytes <= MAXB; bytes += 8 * MIB)
            for (int cached = 0; cached < 2; cached++)   /* src evicted, or in the caches */
                for (int si = 0; si < 5; si++)
                    for (int bi = 0; bi < 2; bi++) {
                        if (si == 0 && bi) continue;
                        blocks = block_counts[bi];
                        for (int r = -1; r < REPS; r++) {
                            CK(cudaMemset(dev, 0, MAXB));
                            CK(cudaDeviceSynchronize());
                            evict();
                            if (cached) memcpy(junk, src, bytes);   /* src read: in L3 */
                            double t0 = bench_now();
                            for (size_t at = 0; at < bytes; at += GROUP) {
                                pack(at, GROUP, 12);
                                move_split(at, GROUP, shares[si]);
                            }
                            CK(cudaDeviceSynchronize());
                            if (r >= 0) t[r] = bench_now() - t0;
                        }
                        char *back = (char *)malloc(bytes);
                        CK(cudaMemcpy(back, dev, bytes, cudaMemcpyDeviceToHost));
                        int ok = !memcmp(back, src, bytes);
                        free(back);
                        snprintf(what, sizeof what, "%2zu MiB%s, dma share %.3f, kernel x %d%s",
                                 bytes / MIB, cached ? " (src cached)" : "", shares[si],
                                 shares[si] == 1.0 ? 0 : blocks, ok ? "" : " WRONG");
                        report(what, t, REPS, bytes);
                    }
    CK(cudaFree(dev));
    CK(cudaFreeHost(slot));
    free(src);
    free(junk);
}

/* ---- stores: one GPU, how the packing's stores decide an upload ----
 * 32 MiB packed in 8 MiB groups by T threads with ordinary stores (memcpy), `rep movsb`, or
 * non-temporal stores 16, 32 or 64 bytes wide; packed alone, and packed with each group's DMA
 * queued as it is packed (the staging engine's upload).  Sources evicted, or in the caches. */
typedef void (*packer)(char *, const char *, size_t);
static void st_memcpy(char *d, const char *s, size_t n) { memcpy(d, s, n); }
static void st_movsb(char *d, const char *s, size_t n)
{
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}
static void st_nt16(char *d, const char *s, size_t n) { cufort_copy_streaming(d, s, n); }   /* the library's */
__attribute__((target("avx2"))) static void st_nt32(char *d, const char *s, size_t n)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + 32));
        _mm256_stream_si256((__m256i *)(d + i), a);
        _mm256_stream_si256((__m256i *)(d + i + 32), b);
    }
    memcpy(d + i, s + i, n - i);
    _mm_sfence();
}
__attribute__((target("avx512f"))) static void st_nt64(char *d, const char *s, size_t n)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        _mm512_stream_si512((__m512i *)(d + i), _mm512_loadu_si512((const void *)(s + i)));
    memcpy(d + i, s + i, n - i);
    _mm_sfence();
}

static void pack_with(packer f, size_t at, size_t len, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num();
        size_t piece = len / threads / 4096 * 4096, lo = at + t * piece;
        f(slot + lo, src + lo, t == threads - 1 ? len - t * piece : piece);
    }
}

static void stores(void)
{
    const size_t BYTES = 32 * MIB, GROUP = 8 * MIB;
    CK(cudaSetDevice(0));
    CK(cudaStreamCreateWithFlags(&s_copy, cudaStreamNonBlocking));
    src = (char *)malloc(BYTES);
    junk = (char *)malloc(1024 * MIB);
    for (size_t i = 0; i < BYTES / 4; i++) ((unsigned *)src)[i] = (unsigned)(i * 2654435761u) | 1u;
    CK(cudaHostAlloc((void **)&slot, BYTES, cudaHostAllocPortable));
    CK(cudaMalloc((void **)&dev, BYTES));
    __builtin_cpu_init();
    const packer fs[] = {st_memcpy, st_movsb, st_nt16, st_nt32, st_nt64};
    const char *names[] = {"memcpy", "rep movsb", "nt 16 B", "nt 32 B", "nt 64 B"};
    int nf = __builtin_cpu_supports("avx512f") ? 5 : __builtin_cpu_supports("avx2") ? 4 : 3;
    double t[REPS];
    char what[96];
    for (int round = 0; round < 2; round++)
        for (int cached = 0; cached < 2; cached++)
            for (int threads = 12; threads <= 16; threads += 4)
                for (int f = 0; f < nf; f++)
                    for (int dma = 0; dma < 2; dma++) {
                        for (int r = -1; r < REPS; r++) {
                            CK(cudaMemset(dev, 0, BYTES));
                            CK(cudaDeviceSynchronize());
                            evict();
                            if (cached) memcpy(junk, src, BYTES);
                            double t0 = bench_now();
                            for (size_t at = 0; at < BYTES; at += GROUP) {
                                pack_with(fs[f], at, GROUP, threads);
                                if (dma)
                                    CK(cudaMemcpyAsync(dev + at, slot + at, GROUP, cudaMemcpyHostToDevice, s_copy));
                            }
                            CK(cudaDeviceSynchronize());
                            if (r >= 0) t[r] = bench_now() - t0;
                        }
                        int ok = 1;
                        if (dma) {
                            char *back = (char *)malloc(BYTES);
                            CK(cudaMemcpy(back, dev, BYTES, cudaMemcpyDeviceToHost));
                            ok = !memcmp(back, src, BYTES);
                            free(back);
                        } else {
                            ok = !memcmp(slot, src, BYTES);
                        }
                        snprintf(what, sizeof what, "32 MiB%s, %2d threads, %-9s %s%s",
                                 cached ? " (src cached)" : "", threads, names[f],
                                 dma ? "packed + dma" : "packed only", ok ? "" : " WRONG");
                        report(what, t, REPS, BYTES);
                    }
    CK(cudaFree(dev));
    CK(cudaFreeHost(slot));
    free(src);
    free(junk);
}

static cublasStatus_t gemm_part(cublasHandle_t h, int dbl, int n, int w, const void *A, const void *B,
                                void *C)
{
    const double one = 1, zero = 0;
    const float fone = 1, fzero = 0;
    if (dbl)
        return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, w, n, &one, (const double *)A, n,
                           (const double *)B, n, &zero, (double *)C, n);
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, w, n, &fone, (const float *)A, n,
                       (const float *)B, n, &fzero, (float *)C, n);
}

static void gemmout(void)
{
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "cublasCreate failed\n"); exit(1); }
    cudaStream_t s, up;
    CK(cudaStreamCreate(&s));
    CK(cudaStreamCreate(&up));
    cublasSetStream(h, s);
    for (int dbl = 0; dbl < 2; dbl++)
        for (int n = 2048; n <= 4096; n *= 2) {
            size_t es = dbl ? 8 : 4, bytes = (size_t)n * n * es;
            char *A, *B, *C, *Cup, *host, *host2, *hup;
            CK(cudaMalloc(&A, bytes));
            CK(cudaMalloc(&B, bytes));
            CK(cudaMalloc(&C, bytes));
            CK(cudaMalloc(&Cup, bytes));
            CK(cudaHostAlloc(&host, bytes, 0));
            CK(cudaHostAlloc(&host2, bytes, 0));
            CK(cudaHostAlloc(&hup, bytes, 0));
            for (size_t i = 0; i < bytes / es; i++) {   /* small integers: both movers' C exact */
                if (dbl) ((double *)hup)[i] = (double)(i % 7) - 3;
                else ((float *)hup)[i] = (float)(i % 5) - 2;
            }
            CK(cudaMemcpy(A, hup, bytes, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(B, hup, bytes, cudaMemcpyHostToDevice));
            for (int parts = 1; parts <= 4; parts *= 2)
                for (int beside = 0; beside < 2; beside++)
                    for (int direct = 0; direct < 2; direct++) {
                        double t[REPS], tail[REPS];
                        char *out = direct ? host2 : host;
                        size_t w = (size_t)n / parts, part = w * n * es;
                        for (int r = -1; r < REPS; r++) {
                            memset(out, 0xff, bytes);   /* the slot's lines in the caches, as a ring leaves them */
                            CK(cudaDeviceSynchronize());
                            double t0 = bench_now(), tl = t0;
                            if (beside)
                                CK(cudaMemcpyAsync(Cup, hup, 16 * MIB, cudaMemcpyHostToDevice, up));
                            for (int p = 0; p < parts; p++) {
                                if (p == parts - 1) {
                                    CK(cudaStreamSynchronize(s));
                                    tl = bench_now();
                                }
                                size_t at = p * part;
                                if (gemm_part(h, dbl, n, (int)w, A, B + at, (direct ? out : C) + at)
                                    != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "gemm failed\n"); exit(1); }
                                if (!direct)
                                    CK(cudaMemcpyAsync(out + at, C + at, part, cudaMemcpyDeviceToHost, s));
                            }
                            CK(cudaDeviceSynchronize());
                            double t1 = bench_now();
                            if (r >= 0) {
                                t[r] = t1 - t0;
                                tail[r] = t1 - tl;
                            }
                        }
                        char what[120];
                        snprintf(what, sizeof what, "%cGEMM n = %d, %d part(s)%s, %s, last part %.3f ms",
                                 dbl ? 'D' : 'S', n, parts, beside ? " beside 16 MiB up" : "",
                                 direct ? "GEMM into the slot" : "GEMM, then DMA  ",
                                 1e3 * bench_median(tail, REPS));
                        report(what, t, REPS, bytes);
                    }
            printf("%cGEMM n = %d: C from both movers %s\n", dbl ? 'D' : 'S', n,
                   memcmp(host, host2, bytes) ? "DIFFERS" : "equal");
            CK(cudaFree(A)); CK(cudaFree(B)); CK(cudaFree(C)); CK(cudaFree(Cup));
            CK(cudaFreeHost(host)); CK(cudaFreeHost(host2)); CK(cudaFreeHost(hup));
        }
    cublasDestroy(h);
    CK(cudaStreamDestroy(s));
    CK(cudaStreamDestroy(up));
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("# link_probe on %s, %d host threads\n", p.name, omp_get_max_threads());
    if (!strcmp(what, "fresh") || !strcmp(what, "all")) fresh();
    if (!strcmp(what, "down") || !strcmp(what, "all")) down();
    if (!strcmp(what, "mixed")) mixed();
    if (!strcmp(what, "stores")) stores();
    if (!strcmp(what, "gemmout")) gemmout();
    if (!strcmp(what, "gpus") || !strcmp(what, "all")) gpus();
    return 0;
}
