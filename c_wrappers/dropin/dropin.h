/* dropin.h — what the pieces of the drop-in BLAS (libcufort_blas) share.  Not installed.
 *
 * generated/dropin_blas.c  every standard Fortran BLAS name (sgemm_, ddot_, ...): argument unpacking,
 *                          the routing decision, the engine call or the CPU BLAS call
 * generated/dropin_table.c the routines in table order, each with its counters
 * profile.c                what the shared routing core (c_wrappers/route: router, measured routing,
 *                          counters, report) needs to know of this library
 * public.c                 cufort_dropin_*: the counters, re-configuration, the report on demand
 * cpu_blas.c               the CPU BLAS found at run time (never ourselves)
 * errors.c                 xerbla calls, xerbla_array_, INTEGER narrowing (F77_INT64)
 * lsame.c                  the BLAS auxiliary lsame_
 * lapack_nb.c, lapack_laswp.c  LAPACK helpers for a LAPACK on this library: ILAENV's block size,
 *                          the row interchanges xLASWP on every core
 * pblas_nb.c               ScaLAPACK's PBLAS block size (PILAENV)
 * The default xerbla_ is c_wrappers/f77/xerbla.c, linked in unchanged. */
#ifndef CUFORT_DROPIN_H
#define CUFORT_DROPIN_H

#include <ctype.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "cufort.h"
#include "cufort_dropin.h"
#include "f77.h"
#include "route.h"

/* The helpers the routine table's conditions use. */
#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define NOTR(c) (toupper((unsigned char)(c)) == 'N')
#define LEFT(c) (toupper((unsigned char)(c)) == 'L')
#define IMIN(a, b) ((a) < (b) ? (a) : (b))

static inline int dropin_opt_in(char c, const char *allowed)
{
    return c != 0 && strchr(allowed, toupper((unsigned char)c)) != NULL;
}

/* The CPU BLAS takes 4-byte INTEGERs.  With F77_INT64 the caller's 8-byte values are narrowed, and
 * one that does not fit stops the program with a message rather than being truncated. */
#ifdef CUFORT_F77_INT64
DROPIN_HIDDEN int dropin_narrow(int64_t v, const char *routine, const char *arg);
#define CPU_INT(p, v, routine) (&(const int){dropin_narrow((v), routine, #v)})
#else
#define CPU_INT(p, v, routine) ((void)(v), (const int *)(p))
#endif

/* ---- errors ---- */
/* Reference BLAS's call: XERBLA(name blank-padded to 6, position); a user's xerbla_ overrides. */
DROPIN_HIDDEN void dropin_xerbla(const char *name, int position);

/* ---- LAPACK and ScaLAPACK block sizes (lapack_nb.c) ---- */
/* The block size in environment variable `variable`, read at the first call into *cache (which
 * starts at -2): -1 when unset or not a number from 0 to 2^20. */
DROPIN_HIDDEN f77_int dropin_block_size(const char *variable, f77_int *cache);

/* ---- the CPU BLAS (cpu_blas.c) ---- */
/* The CPU BLAS's `symbol`, cached in *slot; no CPU BLAS or no such symbol stops the program. */
DROPIN_HIDDEN void *dropin_cpu(void **slot, const char *symbol);
DROPIN_HIDDEN const char *dropin_cpu_path(void);

#endif
