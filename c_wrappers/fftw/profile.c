/* profile.c — the FFTW drop-in as the shared routing core (c_wrappers/route) sees it.  Data only.
 *
 * The default threshold, 5e6 flops (a 64K-point complex transform, 5 N log2 N), is an estimate until
 * measured on the GPU machine: an engine execution costs a fixed ~30-50 us (a synchronised stream,
 * the staging machinery) plus its copies, 16 bytes a point in single precision at ~20 GB/s from
 * pageable memory (0.8 ns a point); one core of FFTW runs ~20 GFLOP/s in cache and less beyond,
 * 0.25 N log2 N ns.  The two meet near N = 2^14 - 2^15 (1-2.5e6 flops); the threshold sits a little
 * above, since FFTW with threads moves the crossover up and a wrong engine call costs more than a
 * wrong CPU call there.  Within a factor 8 either side (6e5 - 4e7 flops: 2^13 to 2^19 points) the
 * faster path is measured per kind and size (adapt.c).  make FFTW_GPU_THRESHOLD=... sets it. */
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
    .cpu_path = drop_cpu_path,
    .bad_argument = NULL,
};
