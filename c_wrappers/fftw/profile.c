/* profile.c — the FFTW drop-in as the shared routing core (c_wrappers/route) sees it.  Data only.
 *
 * Above 5e6 flops (a 64K-point complex transform, 5 N log2 N) a transform goes to the engine, below
 * 1e4 (256 points) to the real FFTW; in between the faster path is measured per kind and size
 * (adapt.c).  The band is that wide because the crossover depends on the program's FFTW thread
 * count more than on the size: on the H100 machine (docs/performance.md), single-precision 1-D
 * transforms took 25-42 us on the engine for 2^8..2^13 points against 2-44 us on one FFTW thread
 * but 31-75 us on sixteen, where FFTW's threads cost more than they save.  make
 * FFTW_GPU_THRESHOLD=... sets the upper edge.  The engine must measure 10% faster than FFTW to be
 * chosen, on the medians of 8 timed calls of each: near the threshold FFTW's threaded calls vary
 * by more than that from one to the next, and a few timed calls could otherwise pick the engine
 * where it is the slower path. */
#include "fftw_dropin.h"

#ifndef CUFORT_FFTW_THRESHOLD
#define CUFORT_FFTW_THRESHOLD 5e6
#endif

const dropin_profile dropin_this = {
    .title = DROP_TITLE,
    .library = "libcufort_fftw",
    .cpu_name = "real FFTW",
    .call = "transform",
    .env_threshold = "CUFORT_FFTW_THRESHOLD",
    .env_min_dim = NULL,
    .env_prefix = "CUFORT_FFTW",
    .threshold = CUFORT_FFTW_THRESHOLD,
    .min_dim = 0,
    .band_low = 1e4,
    .engine_margin = 0.9,
    .timed_calls = 8,
    .cpu_path = drop_cpu_path,
    .bad_argument = NULL,
};
