/* forward_double.c — what only the real FFTW runs, double precision (forward.inc). */
#define _GNU_SOURCE
#define CUFORT_FFTW_SINGLE 0
#include "forward.inc"
