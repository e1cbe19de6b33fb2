/* table.c — the FFTW drop-in's counters: one row per transform kind and precision (the report's
 * lines), and one per precision for what only the real FFTW runs (r2r, split arrays). */
#include "fftw_dropin.h"

dropin_stats dropin_routines[] = {
    {.name = "c2c_double", .gpu_capable = 1}, {.name = "r2c_double", .gpu_capable = 1},
    {.name = "c2r_double", .gpu_capable = 1}, {.name = "c2c_single", .gpu_capable = 1},
    {.name = "r2c_single", .gpu_capable = 1}, {.name = "c2r_single", .gpu_capable = 1},
    {.name = "other_double", .gpu_capable = 0}, {.name = "other_single", .gpu_capable = 0},
};
const int dropin_nroutines = sizeof dropin_routines / sizeof *dropin_routines;

dropin_stats *drop_stats_of(int single, int kind) { return &dropin_routines[3 * (single != 0) + kind]; }

dropin_stats *drop_stats_other(int single) { return &dropin_routines[6 + (single != 0)]; }
