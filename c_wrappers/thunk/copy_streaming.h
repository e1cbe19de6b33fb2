/* copy_streaming.h — a copy whose stores bypass the cache, so the destination is not read before
 * it is written (staging.c's unpacking, and bench/probes/stage_bench.c, which measures it). */
#ifndef CUFORT_COPY_STREAMING_H
#define CUFORT_COPY_STREAMING_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* copies under 4 KiB, and every copy where SSE2 is missing, are plain memcpy */
static inline void cufort_copy_streaming(char *d, const char *s, size_t n)
{
#if defined(__SSE2__)
    if (n >= 4096) {
        size_t head = (16 - ((uintptr_t)d & 15)) & 15;
        memcpy(d, s, head);
        d += head, s += head, n -= head;
        size_t i = 0;
        for (; i + 64 <= n; i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
            __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
            _mm_stream_si128((__m128i *)(d + i), a);
            _mm_stream_si128((__m128i *)(d + i + 16), b);
            _mm_stream_si128((__m128i *)(d + i + 32), c);
            _mm_stream_si128((__m128i *)(d + i + 48), e);
        }
        memcpy(d + i, s + i, n - i);
        _mm_sfence();
        return;
    }
#endif
    memcpy(d, s, n);
}

#endif
