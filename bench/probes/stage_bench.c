/* stage_bench.c — how fast can a pageable host array reach the GPU (and come back) on this host?
 * The experiment behind c_wrappers/thunk/staging.c's design (docs/design.md, docs/performance.md).  One 512 MiB
 * pageable array each way, random data, medians of REPS after a warm-up, wall clock around the whole
 * transfer (it returns when the data is where it should be).  Cases:
 *   host      memcpy between pageable arrays, plain and with non-temporal stores, 1..16 threads
 *   dma       cudaMemcpyAsync from/to pinned memory, each way and both at once (the PCIe ceiling)
 *   two-slot  the v1 scheme: two 8 MiB pinned slots, all threads pack one slot per step
 *   ring      each host thread owns a ring of S pinned slots of C bytes and streams its own chunks
 *             (chunk k goes to thread k mod T), plain or non-temporal stores
 *   both      a ring upload and a ring download at once (what a tiled GEMM does)
 *   register  cudaHostRegister + cudaHostUnregister of the array; with argv[2] = "register", only
 *             the array registered in chunks from several threads, each chunk's DMA right after
 *   grouped   (argv[2] = "grouped", alone) one pinned ring shared by all threads, a DMA per group
 *             of pieces, against the ring, taking turns, on 128 and 512 MiB; variants: each DMA
 *             a group late, odd groups on a second stream, slots (and source) in huge pages,
 *             packed lines demoted to L3 as they are written
 * Output: one line per case, "direction case GB/s", and a CSV on argv[1] when given. */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <emmintrin.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../bench_util.h"
#include "copy_streaming.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

enum { REPS = 7, MAXT = 16, MAXS = 4 };
static const size_t BYTES = (size_t)512 << 20;
static const size_t POOL = (size_t)256 << 20;


/* non-temporal copy: the library's (c_wrappers/thunk/copy_streaming.h) */
static void copy_nt(void *dst, const void *src, size_t n) { cufort_copy_streaming(dst, src, n); }

/* memcpy page by page, touching one line of the page PF_PAGES ahead first: the page walk (two
 * levels under a hypervisor) of the next pages overlaps this page's copy */
enum { PF_PAGES = 4 };
static void copy_pf_page(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    for (size_t i = 0; i < n; i += 4096) {
        if (i + PF_PAGES * 4096 < n) __builtin_prefetch(s + i + PF_PAGES * 4096, 0, 3);
        memcpy(d + i, s + i, n - i < 4096 ? n - i : 4096);
    }
}

/* the same, every line of the page ahead */
static void copy_pf_all(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    for (size_t i = 0; i < n; i += 4096) {
        size_t ahead = i + 2 * 4096;
        for (size_t l = ahead; l < ahead + 4096 && l < n; l += 64) __builtin_prefetch(s + l, 0, 3);
        memcpy(d + i, s + i, n - i < 4096 ? n - i : 4096);
    }
}

/* memcpy, then each destination line demoted from this core's L1/L2 to the shared L3 (CLDEMOTE,
 * a no-op hint where the CPU lacks it): the DMA engine then reads the slot from L3 instead of
 * snooping it out of the core's private L2 */
static void copy_demote(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
    for (size_t i = 0; i < n; i += 64) __asm__ volatile("cldemote %0" ::"m"(((const char *)dst)[i]));
}

/* memcpy, then each line written back (CLWB): the DMA engine reads clean lines */
static void copy_clwb(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
    for (size_t i = 0; i < n; i += 64) __asm__ volatile("clwb %0" ::"m"(((const char *)dst)[i]));
    _mm_sfence();
}

/* memcpy 4 KiB at a time, each 4 KiB's lines demoted at once, still in L1 (copy_demote's second
 * pass over a whole 2 MiB piece cost more than the DMA gained; docs/performance.md) */
static void copy_demote_inline(void *dst, const void *src, size_t n)
{
    for (size_t at = 0; at < n; at += 4096) {
        size_t len = n - at < 4096 ? n - at : 4096;
        memcpy((char *)dst + at, (const char *)src + at, len);
        for (size_t i = 0; i < len; i += 64) __asm__ volatile("cldemote %0" ::"m"(((const char *)dst)[at + i]));
    }
}

typedef void (*copy_fn)(void *, const void *, size_t);
static void copy_plain(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
static copy_fn copies[6] = {copy_plain, copy_nt, copy_pf_page, copy_pf_all, copy_demote, copy_clwb};
static const char *copy_names[6] = {"plain", "nt", "pf-page", "pf-all", "demote", "clwb"};

static FILE *csv;
static void report(const char *dir, const char *what, double *t, int reps, size_t bytes)
{
    qsort(t, reps, sizeof *t, bench_cmp);
    double med = t[reps / 2];
    printf("%-5s %-34s %8.2f ms %7.1f GB/s (min %.2f ms)\n", dir, what, med * 1e3, bytes / med / 1e9,
           t[0] * 1e3);
    if (csv) fprintf(csv, "%s,%s,%.4f,%.2f\n", dir, what, med * 1e3, bytes / med / 1e9);
    fflush(stdout);
}

/* ---- host copies ---- */
static void host_copy(char *dst, const char *src, size_t n, int threads, copy_fn f)
{
    size_t part = (n / threads + 4095) / 4096 * 4096;
#pragma omp parallel num_threads(threads)
    {
        size_t at = (size_t)omp_get_thread_num() * part;
        if (at < n) f(dst + at, src + at, n - at < part ? n - at : part);
    }
}

static double host_read(const char *src, size_t n, int threads)
{
    double s = 0;
#pragma omp parallel for num_threads(threads) reduction(+ : s) schedule(static)
    for (size_t i = 0; i < n / 8; i++) s += ((const uint64_t *)src)[i] & 1;
    return s;
}

/* ---- the pinned pool, the stream and per-thread events ---- */
static char *pool;

/* REPS timings of POOL pinned bytes moved by DMA in copies of `piece` bytes (POOL: one copy) */
static void time_dma(double *t, char *dst, const char *src, size_t piece, enum cudaMemcpyKind kind,
                     cudaStream_t s)
{
    for (int r = 0; r < REPS; r++) {
        double t0 = bench_now();
        for (size_t at = 0; at < POOL; at += piece)
            CK(cudaMemcpyAsync(dst + at, src + at, piece, kind, s));
        CK(cudaStreamSynchronize(s));
        t[r] = bench_now() - t0;
    }
}
static cudaStream_t up, down;
static cudaEvent_t ev[2][MAXT][MAXS];

/* v1: two 8 MiB slots shared by all threads; pack slot i while the DMA drains slot i^1 */
static void two_slot_up(char *dev, const char *host, size_t n, int threads)
{
    const size_t C = 8 << 20;
    int pending[2] = {0, 0};
    for (size_t k = 0; k * C < n; k++) {
        int i = k & 1;
        size_t len = n - k * C < C ? n - k * C : C;
        if (pending[i]) CK(cudaEventSynchronize(ev[0][0][i]));
        host_copy(pool + i * C, host + k * C, len, threads, copy_plain);
        CK(cudaMemcpyAsync(dev + k * C, pool + i * C, len, cudaMemcpyHostToDevice, up));
        CK(cudaEventRecord(ev[0][0][i], up));
        pending[i] = 1;
    }
    CK(cudaStreamSynchronize(up));
}

static void two_slot_down(char *host, const char *dev, size_t n, int threads)
{
    const size_t C = 8 << 20;
    size_t chunks = (n + C - 1) / C;
    for (size_t k = 0; k <= chunks; k++) {
        if (k < chunks) {
            size_t len = n - k * C < C ? n - k * C : C;
            CK(cudaMemcpyAsync(pool + (k & 1) * C, dev + k * C, len, cudaMemcpyDeviceToHost, down));
            CK(cudaEventRecord(ev[1][0][k & 1], down));
        }
        if (k > 0) {
            size_t j = k - 1, len = n - j * C < C ? n - j * C : C;
            CK(cudaEventSynchronize(ev[1][0][j & 1]));
            host_copy(host + j * C, pool + (j & 1) * C, len, threads, copy_plain);
        }
    }
}

/* ring: thread t streams chunks t, t+T, ... through its own S slots of C bytes */
typedef struct { int T, S; size_t C; int nt; char *slots; int streams; } ring;
static cudaStream_t ups[MAXT], downs[MAXT];

static void ring_up(const ring *r, char *dev, const char *host, size_t n)
{
    size_t chunks = (n + r->C - 1) / r->C;
#pragma omp parallel num_threads(r->T)
    {
        int t = omp_get_thread_num();
        char *mine = r->slots + (size_t)t * r->S * r->C;
        size_t j = 0;
        for (size_t k = t; k < chunks; k += r->T, j++) {
            int s = (int)(j % r->S);
            size_t len = n - k * r->C < r->C ? n - k * r->C : r->C;
            if (j >= (size_t)r->S) CK(cudaEventSynchronize(ev[0][t][s]));
            copies[r->nt](mine + s * r->C, host + k * r->C, len);
            cudaStream_t st_ = r->streams > 1 ? ups[t % r->streams] : up;
            CK(cudaMemcpyAsync(dev + k * r->C, mine + s * r->C, len, cudaMemcpyHostToDevice, st_));
            CK(cudaEventRecord(ev[0][t][s], st_));
        }
    }
    CK(cudaStreamSynchronize(up));
    for (int i = 0; i < r->streams; i++) CK(cudaStreamSynchronize(ups[i]));
}

static void ring_down(const ring *r, char *host, const char *dev, size_t n)
{
    size_t chunks = (n + r->C - 1) / r->C;
#pragma omp parallel num_threads(r->T)
    {
        int t = omp_get_thread_num();
        char *mine = r->slots + (size_t)t * r->S * r->C;
        size_t mine_n = chunks > (size_t)t ? (chunks - t + r->T - 1) / r->T : 0;
        /* keep S DMAs in flight ahead of the unpacking */
        for (size_t j = 0; j < mine_n + r->S; j++) {
            if (j >= (size_t)r->S) {
                size_t jj = j - r->S, k = t + jj * r->T;
                if (jj < mine_n) {
                    int s = (int)(jj % r->S);
                    size_t len = n - k * r->C < r->C ? n - k * r->C : r->C;
                    CK(cudaEventSynchronize(ev[1][t][s]));
                    copies[r->nt](host + k * r->C, mine + s * r->C, len);
                }
            }
            if (j < mine_n) {
                size_t k = t + j * r->T;
                int s = (int)(j % r->S);
                size_t len = n - k * r->C < r->C ? n - k * r->C : r->C;
                cudaStream_t st_ = r->streams > 1 ? downs[t % r->streams] : down;
                CK(cudaMemcpyAsync(mine + s * r->C, dev + k * r->C, len, cudaMemcpyDeviceToHost, st_));
                CK(cudaEventRecord(ev[1][t][s], st_));
            }
        }
    }
}

static int check(const char *a, const char *b, size_t n, const char *what)
{
    if (memcmp(a, b, n)) {
        fprintf(stderr, "MISMATCH after %s\n", what);
        exit(1);
    }
    return 0;
}

/* grouped: one ring of NG groups of G bytes shared by T threads.  Pieces of P bytes are claimed in
 * order and packed at their place in their group; the thread that completes a group queues one DMA
 * for all of it.  Does the DMA engine keep up with the packing when it gets 4-8 MiB copies instead
 * of one 2 MiB copy per piece?  (ring: ~46 GB/s from freshly packed 2 MiB slots) */
/* nt: 0 memcpy, 1 non-temporal stores, 2 memcpy with the lines demoted to L3 as they are written */
typedef struct { int T, NG; size_t G, P; char *slots; int nt, ramp, lag, two, thp_src; } grouped;
/* transparent huge pages (the host has them on madvise only): slots registered after the fact,
 * and a copy of the source array, to see what the 4 KiB page walks cost */
static char *pool_thp, *src_thp;

/* with ramp (as staging.c): groups of G/8, G/8, G/4, G/2, then G; pieces a quarter of a group,
 * 256 KiB to P.  Group of byte y: its index, start and size. */
static long group_at(const grouped *q, size_t y, size_t n, size_t *start, size_t *size, size_t *piece)
{
    size_t r = q->G / 8;
    long k = !q->ramp ? (long)(y / q->G) : y < r ? 0 : y < 2 * r ? 1 : y < 4 * r ? 2 : y < q->G ? 3 : 3 + (long)(y / q->G);
    size_t lo = !q->ramp ? (size_t)k * q->G : k == 0 ? 0 : k < 4 ? r << (k - 1) : (size_t)(k - 3) * q->G;
    size_t hi = !q->ramp ? lo + q->G : k < 4 ? r << k : lo + q->G;
    hi = hi < n ? hi : n;
    *start = lo, *size = hi - lo;
    size_t p = *size / 4 < (256 << 10) ? 256 << 10 : *size / 4;
    *piece = q->ramp ? (p < q->P ? p : q->P) : q->P;
    return k;
}
static cudaEvent_t gev[64];

/* lag: a group's DMA waits until the next group is packed too (or it is the last), so that the DMA
 * engine reads lines the packing threads have moved on from (a slot just written read at 31 GB/s
 * against 45 from one in no cache).  Not with ramp. */
enum { MAX_GROUPS = 1024 };
static int g_done[MAX_GROUPS], g_issuing[MAX_GROUPS];

/* group h's one DMA, bytes [g0, g0 + gbytes), from its slot; two: odd groups on a second stream,
 * so that two copy engines read the slots */
static void issue_up(const grouped *q, char *dev, long h, size_t g0, size_t gbytes, long *issued)
{
    int slot = (int)(h % q->NG);
    cudaStream_t st = q->two && h % 2 ? ups[1] : up;
    CK(cudaMemcpyAsync(dev + g0, q->slots + (size_t)slot * q->G, gbytes, cudaMemcpyHostToDevice, st));
    CK(cudaEventRecord(gev[slot], st));
    __atomic_store_n(&issued[slot], h, __ATOMIC_RELEASE);
}

static void lag_issue(const grouped *q, char *dev, size_t n, long h, long *issued)
{
    if (__atomic_exchange_n(&g_issuing[h], 1, __ATOMIC_SEQ_CST)) return;
    size_t g0 = (size_t)h * q->G;
    issue_up(q, dev, h, g0, n - g0 < q->G ? n - g0 : q->G, issued);
}

static void grouped_up(const grouped *q, char *dev, const char *host, size_t n)
{
    size_t next = 0;
    size_t packed[64] = {0};
    long issued[64], last = (long)((n + q->G - 1) / q->G) - 1;
    for (int i = 0; i < q->NG; i++) issued[i] = -1;
    memset(g_done, 0, sizeof g_done);
    memset(g_issuing, 0, sizeof g_issuing);
#pragma omp parallel num_threads(q->T)
    for (;;) {
        size_t at = __atomic_load_n(&next, __ATOMIC_RELAXED), len, g0, gbytes, piece;
        long g;
        do {
            if (at >= n) break;
            g = group_at(q, at, n, &g0, &gbytes, &piece);
            len = g0 + gbytes - at < piece ? g0 + gbytes - at : piece;
        } while (!__atomic_compare_exchange_n(&next, &at, at + len, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        if (at >= n) break;
        int slot = (int)(g % q->NG);
        if (g >= q->NG) {   /* the slot's previous group: queued, then done */
            while (__atomic_load_n(&issued[slot], __ATOMIC_ACQUIRE) < g - q->NG) _mm_pause();
            CK(cudaEventSynchronize(gev[slot]));
        }
        char *dst = q->slots + (size_t)slot * q->G + (at - g0);
        if (q->nt == 1) copy_nt(dst, host + at, len);
        else if (q->nt == 2) copy_demote_inline(dst, host + at, len);
        else memcpy(dst, host + at, len);
        if (__atomic_add_fetch(&packed[slot], len, __ATOMIC_ACQ_REL) == gbytes) {
            packed[slot] = 0;
            if (q->lag) {
                __atomic_store_n(&g_done[g], 1, __ATOMIC_SEQ_CST);
                if (g == last || __atomic_load_n(&g_done[g + 1], __ATOMIC_SEQ_CST))
                    lag_issue(q, dev, n, g, issued);
                if (g > 0 && __atomic_load_n(&g_done[g - 1], __ATOMIC_SEQ_CST))
                    lag_issue(q, dev, n, g - 1, issued);
                continue;
            }
            issue_up(q, dev, g, g0, gbytes, issued);
        }
    }
    CK(cudaStreamSynchronize(up));
    CK(cudaStreamSynchronize(ups[1]));
}

/* the way back: group g's DMA is queued when the slot's previous group is all unpacked (the first
 * NG at the start), and a piece is unpacked (non-temporal stores) once its group has landed.
 * Groups of G and pieces of P throughout (no ramp, whatever q->ramp says). */
static void grouped_issue_down(const grouped *q, const char *dev, size_t n, long g, long *issued)
{
    int slot = (int)(g % q->NG);
    size_t gbytes = n - (size_t)g * q->G < q->G ? n - (size_t)g * q->G : q->G;
    CK(cudaMemcpyAsync(q->slots + (size_t)slot * q->G, dev + (size_t)g * q->G, gbytes,
                       cudaMemcpyDeviceToHost, down));
    CK(cudaEventRecord(gev[slot], down));
    __atomic_store_n(&issued[slot], g, __ATOMIC_RELEASE);
}

static void grouped_down(const grouped *q, char *host, const char *dev, size_t n)
{
    size_t next = 0, pieces = (n + q->P - 1) / q->P;
    long groups = (long)((n + q->G - 1) / q->G);
    size_t unpacked[64] = {0};
    long issued[64];
    for (int i = 0; i < q->NG; i++) issued[i] = -1;
    for (long g = 0; g < q->NG && g < groups; g++) grouped_issue_down(q, dev, n, g, issued);
#pragma omp parallel num_threads(q->T)
    for (;;) {
        size_t k = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
        if (k >= pieces) break;
        size_t at = k * q->P, len = n - at < q->P ? n - at : q->P;
        long g = (long)(at / q->G);
        int slot = (int)(g % q->NG);
        size_t gbytes = n - (size_t)g * q->G < q->G ? n - (size_t)g * q->G : q->G;
        while (__atomic_load_n(&issued[slot], __ATOMIC_ACQUIRE) < g) _mm_pause();
        CK(cudaEventSynchronize(gev[slot]));
        copy_nt(host + at, q->slots + (size_t)slot * q->G + at % q->G, len);
        if (__atomic_add_fetch(&unpacked[slot], len, __ATOMIC_ACQ_REL) == gbytes) {
            unpacked[slot] = 0;
            if (g + q->NG < groups) grouped_issue_down(q, dev, n, g + q->NG, issued);
        }
    }
}

static char *thp_alloc(size_t n)
{
    size_t huge = (size_t)2 << 20;
    char *p = mmap(NULL, n + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { perror("mmap"); exit(1); }
    p = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
    if (madvise(p, n, MADV_HUGEPAGE)) perror("madvise");
    memset(p, 1, n);
    return p;
}

static void print_thp(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "AnonHugePages", 13)) printf("# %s", line);
    if (f) fclose(f);
}

/* grouped uploads against the ring, taking turns rep by rep, on n bytes */
static void grouped_cases(char *dev, char *const src[3], const char *a, size_t n)
{
    /* T, NG, G, P, slots, nt, ramp, lag, two, thp_src: staging.c's, then the variants
     * tried against it (docs/performance.md, "Tried and not kept") */
    grouped qs[] = {{8, 6, 8 << 20, 1 << 20, pool, 0, 0, 0, 0, 0}, {8, 6, 8 << 20, 1 << 20, pool, 0, 1, 0, 0, 0},
                    {8, 6, 8 << 20, 2 << 20, pool, 0, 0, 0, 0, 0}, {8, 6, 8 << 20, 1 << 20, pool, 1, 0, 0, 0, 0},
                    {8, 6, 8 << 20, 1 << 20, pool, 0, 0, 1, 0, 0}, {8, 6, 4 << 20, 1 << 20, pool, 0, 0, 0, 0, 0},
                    {8, 6, 8 << 20, 1 << 20, pool, 0, 0, 0, 1, 0},
                    {8, 6, 8 << 20, 1 << 20, pool_thp, 0, 0, 0, 0, 0},
                    {8, 6, 8 << 20, 1 << 20, pool_thp, 0, 0, 0, 0, 1},
                    {8, 6, 8 << 20, 1 << 20, pool, 2, 0, 0, 0, 0}};
    enum { NQ = sizeof qs / sizeof *qs };
    ring r = {8, 3, 2 << 20, 0, pool, 1};
    double t[NQ + 1][REPS];
    char what[160];
    for (int k = 0; k < REPS; k++)
        for (int i = 0; i <= NQ; i++) {
            const char *from = i < NQ && qs[i].thp_src ? src_thp : src[(k + i) % 3];
            double t0 = bench_now();
            if (i == NQ) ring_up(&r, dev, from, n);
            else grouped_up(&qs[i], dev, from, n);
            t[i][k] = bench_now() - t0;
            if (k == 0) {   /* checked once per case */
                char *back = malloc(n);
                CK(cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost));
                check(a, back, n, "grouped upload");
                free(back);
            }
        }
    for (int i = 0; i <= NQ; i++) {
        if (i == NQ) snprintf(what, sizeof what, "ring T=8 C=2048K S=3 plain, %zu MiB (turns)", n >> 20);
        else snprintf(what, sizeof what, "grouped T=%d G=%zuK x%d P=%zuK%s%s%s, %zu MiB (turns)", qs[i].T,
                      qs[i].G >> 10, qs[i].NG, qs[i].P >> 10, qs[i].nt == 1 ? " nt" : qs[i].nt ? " demote" : "",
                      qs[i].ramp ? " ramp" : "",
                      qs[i].lag ? " lag" : qs[i].two ? " two streams" : qs[i].thp_src ? " thp slots+source"
                      : qs[i].slots == pool_thp ? " thp slots" : "", n >> 20);
        report("h2d", what, t[i], REPS, n);
    }
    char *back = malloc(n);
    r.nt = 1;
    for (int k = 0; k < REPS; k++)
        for (int i = 0; i <= NQ; i++) {
            memset(back, 0x5a, n);
            double t0 = bench_now();
            if (i == NQ) ring_down(&r, back, dev, n);
            else grouped_down(&qs[i], back, dev, n);
            t[i][k] = bench_now() - t0;
            if (k == 0) check(a, back, n, "grouped download");
        }
    free(back);
    for (int i = 0; i <= NQ; i++) {
        if (i == NQ) snprintf(what, sizeof what, "ring T=8 C=2048K S=3 nt, %zu MiB (turns)", n >> 20);
        else snprintf(what, sizeof what, "grouped T=%d G=%zuK x%d P=%zuK nt, %zu MiB (turns)", qs[i].T,
                      qs[i].G >> 10, qs[i].NG, qs[i].P >> 10, n >> 20);
        report("d2h", what, t[i], REPS, n);
    }
}

/* both at once: the upload on this thread, the download on a helper */
typedef struct { const ring *r; char *host; const char *dev; size_t n; } down_job;
static void *down_thread(void *p)
{
    down_job *j = p;
    ring_down(j->r, j->host, j->dev, j->n);
    return NULL;
}

/* one ring each way: an untimed upload, REPS uploads (src[k % 3]: more than L3), then REPS
 * downloads into a poisoned b unpacking with copy down_nt, checked against a */
static void time_ring(ring *r, const char *what, char *dev, char *const src[3], const char *a, char *b,
                      int down_nt)
{
    double t[REPS];
    ring_up(r, dev, a, BYTES);
    for (int k = 0; k < REPS; k++) {
        double t0 = bench_now();
        ring_up(r, dev, src[k % 3], BYTES);
        t[k] = bench_now() - t0;
    }
    report("h2d", what, t, REPS, BYTES);
    r->nt = down_nt;
    memset(b, 0x5a, BYTES);
    for (int k = 0; k < REPS; k++) {
        double t0 = bench_now();
        ring_down(r, b, dev, BYTES);
        t[k] = bench_now() - t0;
    }
    check(a, b, BYTES, what);
    report("d2h", what, t, REPS, BYTES);
}

/* Registering the array in page-aligned chunks from T threads at once, each chunk's DMA queued as
 * soon as it is registered, every chunk unregistered once the DMAs are done: can pinning the
 * caller's pages in parallel beat copying them?  (dir 0: upload, 1: download) */
static void register_chunks(char *host, char *dev, size_t n, size_t chunk, int T, int dir, double *reg_s)
{
    double r0 = 0;
#pragma omp parallel num_threads(T) reduction(+ : r0)
    {
        int me = omp_get_thread_num();
        cudaStream_t s = dir ? downs[me] : ups[me];
        for (size_t at = (size_t)me * chunk; at < n; at += (size_t)T * chunk) {
            size_t len = n - at < chunk ? n - at : chunk;
            double t0 = bench_now();
            CK(cudaHostRegister(host + at, len, cudaHostRegisterDefault));
            r0 += bench_now() - t0;
            if (dir)
                CK(cudaMemcpyAsync(host + at, dev + at, len, cudaMemcpyDeviceToHost, s));
            else
                CK(cudaMemcpyAsync(dev + at, host + at, len, cudaMemcpyHostToDevice, s));
        }
        CK(cudaStreamSynchronize(s));
        for (size_t at = (size_t)me * chunk; at < n; at += (size_t)T * chunk)
            CK(cudaHostUnregister(host + at));
    }
    *reg_s = r0;
}

static void register_cases(char *a, char *b, char *dev)
{
    double t[REPS], reg[REPS], t0;
    char what[96];
    for (int dir = 0; dir < 2; dir++)
        for (int T = 1; T <= 16; T *= 2)
            for (size_t chunk = (size_t)4 << 20; chunk <= ((size_t)32 << 20); chunk *= 4) {
                char *host = dir ? b : a;
                register_chunks(host, dev, BYTES, chunk, T, dir, &reg[0]);
                for (int r = 0; r < REPS; r++) {
                    t0 = bench_now();
                    register_chunks(host, dev, BYTES, chunk, T, dir, &reg[r]);
                    t[r] = bench_now() - t0;
                }
                if (dir) check(a, b, BYTES, "register chunks");
                qsort(reg, REPS, sizeof *reg, bench_cmp);
                snprintf(what, sizeof what, "register %zu MiB chunks T=%d (register %.1f ms thread-sum)",
                         chunk >> 20, T, reg[REPS / 2] * 1e3);
                report(dir ? "d2h" : "h2d", what, t, REPS, BYTES);
            }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        csv = fopen(argv[1], "w");
        if (csv) fprintf(csv, "direction,case,median_ms,GB_per_s\n");
    }
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int hmm = 0, hmm_pt = 0;
    cudaDeviceGetAttribute(&hmm, cudaDevAttrPageableMemoryAccess, 0);
    cudaDeviceGetAttribute(&hmm_pt, cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0);
    printf("device %s; pageable memory access %d (host page tables %d); %d host threads; %zu MiB\n",
           prop.name, hmm, hmm_pt, omp_get_max_threads(), BYTES >> 20);

    /* page-aligned, so that the register cases' chunks never share a page */
    char *a = aligned_alloc(4096, BYTES), *b = aligned_alloc(4096, BYTES), *c = malloc(BYTES), *dev, *dev2;
    char *src[3] = {a, malloc(BYTES), malloc(BYTES)};   /* 1.5 GiB: more than the host's L3 */
    if (!a || !b || !c || !src[1] || !src[2]) return 1;
    int quick = argc > 2 && !strcmp(argv[2], "quick");
    srand(7);
    for (size_t i = 0; i < BYTES / 4; i++) ((uint32_t *)a)[i] = (uint32_t)rand() * 2654435761u;
    memcpy(src[1], a, BYTES);
    memcpy(src[2], a, BYTES);
    memset(b, 0x5a, BYTES);
    memset(c, 0x33, BYTES);
    CK(cudaMalloc((void **)&dev, BYTES));
    CK(cudaMalloc((void **)&dev2, BYTES));
    CK(cudaHostAlloc((void **)&pool, POOL, cudaHostAllocDefault));
    memset(pool, 1, POOL);
    CK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
    for (int i = 0; i < MAXT; i++) {
        CK(cudaStreamCreateWithFlags(&ups[i], cudaStreamNonBlocking));
        CK(cudaStreamCreateWithFlags(&downs[i], cudaStreamNonBlocking));
    }
    for (int d = 0; d < 2; d++)
        for (int t = 0; t < MAXT; t++)
            for (int s = 0; s < MAXS; s++) CK(cudaEventCreateWithFlags(&ev[d][t][s], cudaEventDisableTiming));
    double t[REPS], t0;
    char what[96];
    if (argc > 2 && !strcmp(argv[2], "register")) {
        CK(cudaMemcpy(dev, a, BYTES, cudaMemcpyHostToDevice));
        register_cases(a, b, dev);
        if (csv) fclose(csv);
        return 0;
    }

    if (argc > 2 && !strcmp(argv[2], "grouped")) {
        for (int i = 0; i < 64; i++) CK(cudaEventCreateWithFlags(&gev[i], cudaEventDisableTiming));
        pool_thp = thp_alloc((size_t)64 << 20);
        CK(cudaHostRegister(pool_thp, (size_t)64 << 20, cudaHostRegisterDefault));
        src_thp = thp_alloc(BYTES);
        memcpy(src_thp, a, BYTES);
        print_thp();
        grouped_cases(dev, src, a, (size_t)128 << 20);
        grouped_cases(dev, src, a, BYTES);
        if (csv) fclose(csv);
        return 0;
    }

    /* host memory system */
    int tcounts[] = {1, 2, 4, 8, 12, 16};
    for (int f = 0; f < 4; f++)
        for (int i = 0; i < 6; i++) {
            host_copy(b, a, BYTES, tcounts[i], copies[f]);
            for (int r = 0; r < REPS; r++) {
                t0 = bench_now();
                host_copy(b, src[r % 3], BYTES, tcounts[i], copies[f]);
                t[r] = bench_now() - t0;
            }
            snprintf(what, sizeof what, "memcpy %s T=%d", copy_names[f], tcounts[i]);
            report("host", what, t, REPS, BYTES);
        }
    check(a, b, BYTES, "host copy");
    for (int i = 0; i < 6; i++) {
        volatile double sink = host_read(a, BYTES, tcounts[i]);
        for (int r = 0; r < REPS; r++) {
            t0 = bench_now();
            sink += host_read(src[r % 3], BYTES, tcounts[i]);
            t[r] = bench_now() - t0;
        }
        (void)sink;
        snprintf(what, sizeof what, "read T=%d", tcounts[i]);
        report("host", what, t, REPS, BYTES);
    }

    /* the PCIe ceiling: pinned pool, 256 MiB each way */
    time_dma(t, dev, pool, POOL, cudaMemcpyHostToDevice, up);
    report("h2d", "dma pinned 256 MiB", t, REPS, POOL);
    time_dma(t, pool, dev, POOL, cudaMemcpyDeviceToHost, down);
    report("d2h", "dma pinned 256 MiB", t, REPS, POOL);
    for (int r = 0; r < REPS; r++) {
        t0 = bench_now();
        CK(cudaMemcpyAsync(dev, pool, POOL / 2, cudaMemcpyHostToDevice, up));
        CK(cudaMemcpyAsync(pool + POOL / 2, dev2, POOL / 2, cudaMemcpyDeviceToHost, down));
        CK(cudaStreamSynchronize(up));
        CK(cudaStreamSynchronize(down));
        t[r] = bench_now() - t0;
    }
    report("both", "dma pinned 128+128 MiB", t, REPS, POOL);
    /* the same bytes in many copies: the DMA engine's cost per copy */
    for (size_t piece = 1 << 20; piece <= (8 << 20); piece *= 2) {
        time_dma(t, dev, pool, piece, cudaMemcpyHostToDevice, up);
        snprintf(what, sizeof what, "dma pinned 256 MiB in %zu KiB copies", piece >> 10);
        report("h2d", what, t, REPS, POOL);
        time_dma(t, pool, dev, piece, cudaMemcpyDeviceToHost, down);
        report("d2h", what, t, REPS, POOL);
    }
    /* a 2 MiB slot the CPU has just written (still in its cache), copied 128 times */
    for (int r = 0; r < REPS; r++) {
        t[r] = 0;
        for (int k = 0; k < 128; k++) {
            memcpy(pool, a + (size_t)k * (2 << 20), 2 << 20);
            t0 = bench_now();
            CK(cudaMemcpyAsync(dev, pool, 2 << 20, cudaMemcpyHostToDevice, up));
            CK(cudaStreamSynchronize(up));
            t[r] += bench_now() - t0;
        }
    }
    report("h2d", "dma of a 2 MiB slot just written, x128", t, REPS, (size_t)128 << 21);
    for (int f = 4; f < 6; f++) {
        for (int r = 0; r < REPS; r++) {
            t[r] = 0;
            for (int k = 0; k < 128; k++) {
                copies[f](pool, a + (size_t)k * (2 << 20), 2 << 20);
                t0 = bench_now();
                CK(cudaMemcpyAsync(dev, pool, 2 << 20, cudaMemcpyHostToDevice, up));
                CK(cudaStreamSynchronize(up));
                t[r] += bench_now() - t0;
            }
        }
        snprintf(what, sizeof what, "dma of a 2 MiB slot just written, %s, x128", copy_names[f]);
        report("h2d", what, t, REPS, (size_t)128 << 21);
    }
    for (int r = 0; r < REPS; r++) {
        t[r] = 0;
        for (int k = 0; k < 128; k++) {
            t0 = bench_now();
            CK(cudaMemcpyAsync(dev, pool + (size_t)(k % 64) * (2 << 20), 2 << 20, cudaMemcpyHostToDevice, up));
            CK(cudaStreamSynchronize(up));
            t[r] += bench_now() - t0;
        }
    }
    report("h2d", "dma of a 2 MiB slot not in cache, x128", t, REPS, (size_t)128 << 21);
    for (int r = 0; r < REPS; r++) {
        t0 = bench_now();
        CK(cudaMemcpy(dev, a, BYTES, cudaMemcpyHostToDevice));
        t[r] = bench_now() - t0;
    }
    report("h2d", "cudaMemcpy pageable", t, REPS, BYTES);

    /* v1 two-slot scheme */
    for (int T = 8; T <= 16; T += 8) {
        two_slot_up(dev, a, BYTES, T);
        for (int r = 0; r < REPS; r++) {
            t0 = bench_now();
            two_slot_up(dev, a, BYTES, T);
            t[r] = bench_now() - t0;
        }
        snprintf(what, sizeof what, "two-slot 8M T=%d", T);
        report("h2d", what, t, REPS, BYTES);
        memset(b, 0x5a, BYTES);
        for (int r = 0; r < REPS; r++) {
            t0 = bench_now();
            two_slot_down(b, dev, BYTES, T);
            t[r] = bench_now() - t0;
        }
        check(a, b, BYTES, "two-slot");
        report("d2h", what, t, REPS, BYTES);
    }

    /* DMA streams: one for all threads, or one per thread group */
    if (quick)
        for (int ci = 0; ci < 3; ci++)
            for (int ns = 1; ns <= 8; ns *= 2) {
                size_t C = (size_t[]){1 << 20, 2 << 20, 4 << 20}[ci];
                ring r = {8, 3, C, 0, pool, ns};
                snprintf(what, sizeof what, "ring T=8 C=%zuK S=3 streams=%d up plain/down nt", C >> 10, ns);
                time_ring(&r, what, dev, src, a, b, 1);
            }

    /* rings */
    int Ts[] = {4, 8, 12, 16};
    size_t Cs[] = {256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20};
    int Ss[] = {2, 3, 4};
    for (int ti = 0; ti < 4; ti++)
        for (int ci = 0; ci < 5; ci++)
            for (int si = 0; si < 3; si++)
                for (int f = 0; f < 6; f++) {
                    ring r = {Ts[ti], Ss[si], Cs[ci], f, pool, 1};
                    if ((size_t)r.T * r.S * r.C > POOL) continue;
                    if (quick && (r.C != (2 << 20) || r.S != 3 || (r.T != 8 && r.T != 16))) continue;
                    if (!quick && f > 1) continue;
                    snprintf(what, sizeof what, "ring T=%d C=%zuK S=%d %s", r.T, r.C >> 10, r.S,
                             copy_names[f]);
                    time_ring(&r, what, dev, src, a, b, f);
                }

    /* both directions at once, half the pool each */
    CK(cudaMemcpy(dev2, dev, BYTES, cudaMemcpyDeviceToDevice));
    for (int ti = 0; ti < 3; ti++)
        for (int ci = 0; ci < 3; ci++)
            for (int f = 0; f < 4; f++) {
                int T = (int[]){4, 6, 8}[ti];
                size_t C = (size_t[]){512 << 10, 1 << 20, 2 << 20}[ci];
                if (f > 3 || (quick ? T != 8 || C != (2 << 20) || f == 1 : f > 1)) continue;
                /* quick: the upload packs with copy f, the download unpacks with nt */
                ring ru = {T, 3, C, quick ? f : 0, pool, 1}, rd = {T, 3, C, quick ? 1 : f, pool + POOL / 2, 1};
                snprintf(what, sizeof what, "rings T=%d+%d C=%zuK S=3 up %s; down %s", T, T, C >> 10,
                         copy_names[ru.nt], copy_names[rd.nt]);
                for (int k = 0; k < REPS; k++) {
                    down_job j = {&rd, b, dev2, BYTES};
                    pthread_t th;
                    memset(b, 0x5a, BYTES);
                    t0 = bench_now();
                    pthread_create(&th, NULL, down_thread, &j);
                    ring_up(&ru, dev, src[k % 3], BYTES);
                    pthread_join(th, NULL);
                    t[k] = bench_now() - t0;
                }
                check(a, b, BYTES, what);
                report("both", what, t, REPS, 2 * BYTES);
            }

    /* registering the array instead */
    for (int r = 0; r < REPS; r++) {
        t0 = bench_now();
        CK(cudaHostRegister(c, BYTES, cudaHostRegisterDefault));
        CK(cudaMemcpyAsync(dev, c, BYTES, cudaMemcpyHostToDevice, up));
        CK(cudaStreamSynchronize(up));
        CK(cudaHostUnregister(c));
        t[r] = bench_now() - t0;
    }
    report("h2d", "register + dma + unregister", t, REPS, BYTES);
    for (int r = 0; r < REPS; r++) {
        t0 = bench_now();
        CK(cudaHostRegister(c, BYTES, cudaHostRegisterDefault));
        CK(cudaHostUnregister(c));
        t[r] = bench_now() - t0;
    }
    report("reg", "register + unregister only", t, REPS, BYTES);
    if (csv) fclose(csv);
    return 0;
}
