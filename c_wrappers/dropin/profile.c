/* profile.c — the drop-in BLAS as the shared routing core (c_wrappers/route) sees it.  Data only:
 * the core refers to it, and it to nothing of the core. */
#include "dropin.h"

/* The thresholds come from the build (make DROPIN_GPU_THRESHOLD=... DROPIN_GPU_MIN_DIM=...). */
#ifndef CUFORT_DROPIN_THRESHOLD
#define CUFORT_DROPIN_THRESHOLD 1e8   /* the crossover measured on the H100 host, docs/performance.md */
#endif
#ifndef CUFORT_DROPIN_MIN_DIM
#define CUFORT_DROPIN_MIN_DIM 256
#endif

const dropin_profile dropin_this = {
    .title = "cufort drop-in BLAS",
    .library = "libcufort_blas",
    .cpu_name = "CPU BLAS",
    .call = "Level-3 call",
    .env_threshold = "CUFORT_GPU_THRESHOLD",
    .env_min_dim = "CUFORT_GPU_MIN_DIM",
    .env_prefix = "CUFORT_DROPIN",
    .threshold = CUFORT_DROPIN_THRESHOLD,
    .min_dim = CUFORT_DROPIN_MIN_DIM,
    .cpu_path = dropin_cpu_path,
    .bad_argument = dropin_xerbla,
};
