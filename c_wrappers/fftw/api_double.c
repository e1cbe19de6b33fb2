/* api_double.c — FFTW's DFT API in double precision (api.inc). */
#define _GNU_SOURCE
#define CUFORT_FFTW_SINGLE 0
#include "api.inc"
