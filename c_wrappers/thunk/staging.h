/* staging.h — moving a caller's host array to or from device memory as fast as PCIe allows.
 * The host side is `cols` columns of `width` bytes, `hpitch` bytes apart; the device side is
 * packed (width bytes per column).  Both calls run on this thread's stream and return when the
 * host array may be reused (to device) or holds the data (to host). */
#ifndef CUFORT_STAGING_H
#define CUFORT_STAGING_H

#include "internal.h"

int cufort_stage_to_device(void *dev, const void *host, size_t hpitch, size_t width, size_t cols);
int cufort_stage_to_host(void *host, size_t hpitch, const void *dev, size_t width, size_t cols);

#endif
