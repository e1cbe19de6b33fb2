/* staging.h — moving a caller's host array to or from device memory as fast as PCIe allows.
 * The host side is `cols` columns of `width` bytes, `hpitch` bytes apart; the device side is
 * packed (width bytes per column).  The calls run on this thread's stream (or s).  To host: they
 * return when the host array holds the data.  To device: they return once the copy is queued; a
 * pageable array may be reused then, a pinned one (cufort's or the caller's own) only once s is
 * past the copy.  (A small or pinned array goes to the DMA engine as it is, and that upload is not
 * waited for: the wait made a thunked sscal of 4 KiB 10-15% slower.) */
#ifndef CUFORT_STAGING_H
#define CUFORT_STAGING_H

#include "internal.h"

int cufort_stage_to_device(void *dev, const void *host, size_t hpitch, size_t width, size_t cols);
int cufort_stage_to_host(void *host, size_t hpitch, const void *dev, size_t width, size_t cols);
/* The same on stream s (the copies are ordered after what s waits for). */
int cufort_stage_to_device_on(cufort_stream s, void *dev, const void *host, size_t hpitch,
                              size_t width, size_t cols);
int cufort_stage_to_host_on(cufort_stream s, void *host, size_t hpitch, const void *dev,
                            size_t width, size_t cols);
/* A download that lands through combine(dst, src, bytes, ctx) instead of a copy (NULL: copied):
 * dst in the host array, src the device image, bytes a whole number of elements of up to 16 bytes
 * (every piece and column is).  The GEMM engine folds beta*C into C this way.
 * With a gate, the download may start before its whole image is written: before each of its DMAs,
 * which moves the image's bytes up to `end`, gate(s, end, ctx) makes s wait for the work that
 * writes bytes [0, end) (the GEMM engine's last tile, computed in pieces).  Without one (NULL), s
 * must already be past that work.  With a combine or a gate, the copy goes through the staging
 * slots whatever the host array, pinned or not, and is never offered to the pin cache. */
typedef void (*cufort_unpack_fn)(char *dst, const char *src, size_t bytes, const void *ctx);
typedef int (*cufort_stage_gate_fn)(cufort_stream s, size_t end, const void *ctx);
int cufort_stage_to_host_combined(cufort_stream s, void *host, size_t hpitch, const void *dev,
                                  size_t width, size_t cols, cufort_unpack_fn combine,
                                  cufort_stage_gate_fn gate, const void *ctx);
/* The same without offering parts of the array to the pin cache: for a caller that offers the
 * whole array itself (pin_cache.h), whose parts would otherwise compete with it for the pin. */
int cufort_stage_to_device_unoffered(cufort_stream s, void *dev, const void *host, size_t hpitch,
                                     size_t width, size_t cols);
int cufort_stage_to_host_unoffered(cufort_stream s, void *host, size_t hpitch, const void *dev,
                                   size_t width, size_t cols);
/* The calling thread's staged copies from now on belong to a call spread over `devices` GPUs at
 * once (0 or 1: none): each goes round SPREAD_SLOTS of its slots, and takes more threads than
 * usual only where every device's copy could (staging.c).  A GEMM spread over several GPUs
 * staging A and B sets it (gemm_engine.c). */
void cufort_staging_spread(int devices);
/* how many threads (the caller and pool helpers) copy one staged array */
int cufort_staging_threads(void);
/* 1 when [p, p+bytes) lies in memory cufort pinned (cufort_host_alloc / cufort_host_register) */
int cufort_host_pinned(const void *p, size_t bytes);
/* 1 when the staging functions copy [p, p+bytes) by DMA without packing it: pinned, or held by the
 * pin cache (pin_cache.h) but for the partial pages at its ends */
int cufort_host_dma_ready(const void *p, size_t bytes);

#endif
