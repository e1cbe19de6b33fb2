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

/* FFTW calls its own API, and when the program has FFTW loaded itself (linked with -lfftw3, the
 * drop-in preloaded) those calls arrive here: a call made while this thread is inside FFTW goes
 * straight back to FFTW's function of the same name (c_wrappers/host/cpu_fftw.c). */
#define PASS(name, ...)                                                                            \
    do {                                                                                           \
        if (cufort_cpu_fftw_inside()) {                                                            \
            static void *pass_;                                                                    \
            return ((__typeof__(&X(name)))drop_cpu(SINGLE, &pass_, #name))(__VA_ARGS__);           \
        }                                                                                          \
    } while (0)
#define PASS_VOID(name, ...)                                                                       \
    do {                                                                                           \
        if (cufort_cpu_fftw_inside()) {                                                            \
            static void *pass_;                                                                    \
            ((__typeof__(&X(name)))drop_cpu(SINGLE, &pass_, #name))(__VA_ARGS__);                  \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* A call into FFTW outside the planner lock: marked for PASS. */
#define INSIDE_FFTW(call)                                                                          \
    do {                                                                                           \
        cufort_cpu_fftw_enter();                                                                   \
        call;                                                                                      \
        cufort_cpu_fftw_leave();                                                                   \
    } while (0)

/* The plan behind an fftw_plan, and back. */
#define DROP(p) ((drop_plan *)(p))
#define PLAN(d) ((X(plan))(d))

#endif
