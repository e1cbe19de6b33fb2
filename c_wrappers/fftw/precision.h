/* precision.h — FFTW's names and types in the precision of the including file: api_double.c and
 * friends define CUFORT_FFTW_SINGLE 0, api_single.c and friends 1, as FFTW builds its own API once
 * per precision from one source. */
#ifndef CUFORT_FFTW_PRECISION_H
#define CUFORT_FFTW_PRECISION_H

#include <stdio.h>
#include <stdlib.h>

#include "fftw_dropin.h"
#include "host_internal.h"   /* the planner lock */

#if CUFORT_FFTW_SINGLE
#define X(name) fftwf_##name
#define R float
#define C fftwf_complex
#define XNAME(name) "fftwf_" #name
#else
#define X(name) fftw_##name
#define R double
#define C fftw_complex
#define XNAME(name) "fftw_" #name
#endif
#define SINGLE CUFORT_FFTW_SINGLE

/* The plan behind an fftw_plan, and back. */
#define DROP(p) ((drop_plan *)(p))
#define PLAN(d) ((X(plan))(d))

#endif
