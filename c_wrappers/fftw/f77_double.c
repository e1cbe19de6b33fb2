/* f77_double.c — FFTW's legacy Fortran interface, double precision (f77.inc). */
#define _GNU_SOURCE
#define CUFORT_FFTW_SINGLE 0
#include "f77.inc"
