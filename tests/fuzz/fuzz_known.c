/* fuzz_known.c — defects known and being fixed, which the fuzzer can generate but skips (counted as
 * "avoided") while they are listed in --avoid-known.  When a fix is merged, its name comes out of
 * fz_default_avoid and its cases in regressions.txt start running. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const NAMES[FZ_K_COUNT] = {
    [FZ_K_SHUTDOWN_RACE] = "shutdown-race",       /* host-array calls racing shutdown/init */
    [FZ_K_STREAM_HANDLES] = "stream-handles",     /* stream/event destroyed twice, made up, used
                                                     stale, alive at shutdown */
    [FZ_K_FFT_REAL_INPLACE] = "fft-real-inplace", /* advanced real FFTs executed in place */
    [FZ_K_FFT_SPAN] = "fft-span",                 /* FFT layouts spanning past int64 */
    [FZ_K_GEAM_HUGE] = "geam-huge",               /* geam/dgmm: m or n 0, the other huge */
    [FZ_K_INC_MIN] = "inc-min",                   /* increments of INT64_MIN */
    [FZ_K_GEAM_OVERLAP] = "geam-overlap",         /* geam: C partly over A or B */
};

/* what `make check`, CI and the GPU check avoid: none, since every defect named above is fixed
 * (each name still selects its cases with --avoid-known, to compare against an older library) */
const char fz_default_avoid[] = "";

unsigned fz_avoid;

const char *fz_known_name(int k) { return k >= 0 && k < FZ_K_COUNT ? NAMES[k] : "?"; }

int fz_parse_avoid(const char *list, unsigned *mask)
{
    *mask = 0;
    if (!list || !*list || strcmp(list, "none") == 0)
        return 0;
    if (strcmp(list, "all") == 0) {
        *mask = (1u << FZ_K_COUNT) - 1;
        return 0;
    }
    char copy[512], *save;
    snprintf(copy, sizeof copy, "%s", list);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < FZ_K_COUNT && strcmp(NAMES[k], t) != 0)
            k++;
        if (k == FZ_K_COUNT) {
            fprintf(stderr, "fuzz_capi: no known defect named '%s' (known: ", t);
            for (int i = 0; i < FZ_K_COUNT; i++)
                fprintf(stderr, "%s%s", i ? ", " : "", NAMES[i]);
            fprintf(stderr, ")\n");
            return -1;
        }
        *mask |= 1u << k;
    }
    return 0;
}
