/* forward_single.c — what only the real FFTW runs, single precision (forward.inc). */
#define _GNU_SOURCE
#define CUFORT_FFTW_SINGLE 1
#include "forward.inc"
