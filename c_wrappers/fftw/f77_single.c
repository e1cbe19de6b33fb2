/* f77_single.c — FFTW's legacy Fortran interface, single precision (f77.inc). */
#define _GNU_SOURCE
#define CUFORT_FFTW_SINGLE 1
#include "f77.inc"
