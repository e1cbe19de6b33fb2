/* host_floor.c — the least a host must do for one GEMM C = A*B + beta*C on pageable arrays,
 * whatever its GPUs do: read A and B once, and read and write C once.  No GPU can read a pageable
 * array (the DMA engines reach only pinned memory, and the hosts measured have no HMM: hmm_probe),
 * so these bytes cross the host's memory system through its cores in any scheme (staging,
 * registration, or the driver's own copies).  Times that traffic alone on T threads (8, 16, ...
 * up to every core): each thread takes 1 MiB pieces of the three arrays in turn, reads A's and
 * B's (summed, so the loads stay), and writes C's back with 1 added, with streaming stores as the
 * engine's unpacking does.  Its time is a floor under a first call of that size on any number of
 * GPUs.
 * Usage: host_floor [n] [element bytes]   (default 16384 8: DGEMM n = 16384, three 2 GiB arrays)
 * Output: "threads T floor ms GB/s" (bytes read + written), medians of REPS after a warm-up. */
#define _GNU_SOURCE
#include <emmintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench_util.h"

enum { REPS = 5, PIECE = 1 << 20 };

static void fill(char *p, size_t bytes)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < bytes / 8; i++)
        ((uint64_t *)p)[i] = (uint64_t)i * 0x9E3779B97F4A7C15u + 1;
}

/* one pass: read a and b, read c and stream it back plus one; returns the sum (kept live) */
static uint64_t pass(const char *a, const char *b, char *c, size_t bytes, int threads)
{
    size_t pieces = bytes / PIECE;
    uint64_t total = 0;
#pragma omp parallel for num_threads(threads) schedule(static, 1) reduction(+ : total)
    for (size_t k = 0; k < pieces; k++) {
        const __m128i *x = (const __m128i *)(a + k * PIECE), *y = (const __m128i *)(b + k * PIECE);
        __m128i *z = (__m128i *)(c + k * PIECE), s = _mm_setzero_si128(), one = _mm_set1_epi64x(1);
        for (size_t i = 0; i < PIECE / sizeof(__m128i); i++) {
            s = _mm_add_epi64(s, _mm_add_epi64(_mm_load_si128(x + i), _mm_load_si128(y + i)));
            _mm_stream_si128(z + i, _mm_add_epi64(_mm_load_si128(z + i), one));
        }
        uint64_t v[2];
        _mm_storeu_si128((__m128i *)v, s);
        total += v[0] + v[1];
    }
    _mm_sfence();
    return total;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 16384;
    size_t esize = argc > 2 ? strtoull(argv[2], NULL, 10) : 8;
    size_t bytes = n * n * esize / PIECE * PIECE;
    if (bytes == 0) {
        fprintf(stderr, "host_floor: arrays under 1 MiB\n");
        return 2;
    }
    char *a = aligned_alloc(4096, bytes), *b = aligned_alloc(4096, bytes),
         *c = aligned_alloc(4096, bytes);
    if (!a || !b || !c) {
        fprintf(stderr, "host_floor: no memory for 3 x %zu bytes\n", bytes);
        return 1;
    }
    fill(a, bytes), fill(b, bytes), fill(c, bytes);
    int cores = omp_get_num_procs();
    printf("# n %zu, %zu-byte elements: 3 arrays of %.2f GiB; %d cores\n", n, esize,
           (double)bytes / (1 << 30), cores);
    uint64_t keep = 0;
    for (int t = 8; t <= cores + 7; t += 8) {
        int threads = t > cores ? cores : t;
        double ms[REPS];
        keep += pass(a, b, c, bytes, threads);
        for (int r = 0; r < REPS; r++) {
            double t0 = bench_now();
            keep += pass(a, b, c, bytes, threads);
            ms[r] = (bench_now() - t0) * 1e3;
        }
        double med = bench_median(ms, REPS);
        printf("threads %3d floor %8.2f ms %7.1f GB/s\n", threads, med, 4.0 * bytes / med / 1e6);
        if (threads == cores)
            break;
    }
    volatile uint64_t sink = keep;   /* the sums stay live */
    (void)sink;
    free(a), free(b), free(c);
    return 0;
}
