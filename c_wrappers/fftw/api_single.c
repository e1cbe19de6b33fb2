/* api_single.c — FFTW's DFT API in single precision (api.inc). */
#define _GNU_SOURCE
#define CUFORT_FFTW_SINGLE 1
#include "api.inc"
