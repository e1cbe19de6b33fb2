/* pin_cache.h — a host array that thunked calls keep passing stays pinned between them.
 * Staging a pageable array costs a pass through host memory on each call; pinning it in place once
 * (cudaHostRegister, 4-10 ms for 128 MiB on the H100's host) lets every later call DMA it directly.
 * Pinning is only safe while the addresses keep their pages, so a range is pinned only once it is
 * watched (range_watch.h), and its pin is dropped the moment the kernel reports it unmapped,
 * moved or discarded.  Policy, per contiguous array of the sizes and kinds of memory that
 * pin_cache.c names (its whole pages): the 2nd sighting watches it, the 3rd pins it; a range that
 * loses its pages or its pin starts again with twice the sightings needed (a temporary allocated
 * and freed on every call soon stops costing anything); a range about to be watched takes over
 * from the ones it overlaps; any part of a pinned array is served from the pin.  The pinned bytes
 * are capped (cufort_pin_cache_limit, CUFORT_PIN_CACHE_MB; the least recently used pin goes
 * first). */
#ifndef CUFORT_PIN_CACHE_H
#define CUFORT_PIN_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* A contiguous host array about to be copied: 1 when the cache holds [p, p + bytes) pinned but for
 * less than a page at either end; [*lo, *hi) is the pinned part.  offer counts a sighting (and may
 * pin); when it returns 1, the pin stays (nothing but a shutdown drops it) until the copy, done,
 * hands *id to cufort_pin_cache_done.  holds only asks whether it would return 1. */
int cufort_pin_cache_offer(const void *p, size_t bytes, uintptr_t *lo, uintptr_t *hi, uint64_t *id);
void cufort_pin_cache_done(uint64_t id);
int cufort_pin_cache_holds(const void *p, size_t bytes);
/* before a plain copy of [p, p + bytes): the driver refuses a copy that starts inside a pinned
 * range and runs past its end, so such a pin is dropped first, once no copy uses it.  The try form
 * waits for nobody: 0 when such a pin is in use (a thunked call holds it, maybe the caller's own),
 * and the copy must then go another way. */
void cufort_pin_cache_clear_way(const void *p, size_t bytes);
int cufort_pin_cache_try_clear_way(const void *p, size_t bytes);
/* returns once the watcher has released the pins of ranges the program unmapped so far: free()
 * returns when the watcher has read the unmapping, the driver forgets the pin only after it */
void cufort_pin_cache_settle(void);
/* drop whatever the cache holds of [p, p + bytes): the program pins it itself */
void cufort_pin_cache_forget(const void *p, size_t bytes);

#endif
