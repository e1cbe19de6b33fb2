/* f77.h — what the legacy F77 shims share: Fortran integer size, device pointers, name mangling. */
#ifndef CUFORT_F77_H
#define CUFORT_F77_H

#include <stdint.h>

#include "cufort.h"

/* Fortran default INTEGER is 4 bytes; build with -DCUFORT_F77_INT64 for -fdefault-integer-8 codes. */
#ifdef CUFORT_F77_INT64
typedef int64_t f77_int;
#else
typedef int32_t f77_int;
#endif

/* Device addresses travel from Fortran as integer*8, never as a 32-bit integer. */
typedef int64_t cufort_devptr;
static inline void *cufort_f77_ptr(cufort_devptr p) { return (void *)(intptr_t)p; }

/* External names, chosen at build time with CUFORT_F77_MANGLING (make F77_MANGLING=...):
 *   1 lower_   gfortran, ifort/ifx, flang, nvfortran (default)
 *   2 lower__  gfortran -fsecond-underscore, g77 and f2c: a name that contains an underscore gets
 *              a second one (functions return values gfortran's way, not f2c's: docs/legacy-f77.md)
 *   3 lower    xlf, HP
 *   4 UPPER    Cray, old Windows compilers */
#if !defined(CUFORT_F77_MANGLING) || CUFORT_F77_MANGLING == 1
#define F77_NAME(lower, UPPER) lower##_
#elif CUFORT_F77_MANGLING == 2
#define F77_NAME(lower, UPPER) lower##__
#elif CUFORT_F77_MANGLING == 3
#define F77_NAME(lower, UPPER) lower
#elif CUFORT_F77_MANGLING == 4
#define F77_NAME(lower, UPPER) UPPER
#else
#error "CUFORT_F77_MANGLING must be 1, 2, 3 or 4"
#endif

/* A name with no underscore of its own (the BLAS and LAPACK names of the drop-in, xerbla) gets one
 * trailing underscore under scheme 2, as g77 and f2c give it; the preprocessor cannot look inside
 * a name, so such names say so. */
#if defined(CUFORT_F77_MANGLING) && CUFORT_F77_MANGLING == 2
#define F77_PLAIN_NAME(lower, UPPER) lower##_
#else
#define F77_PLAIN_NAME(lower, UPPER) F77_NAME(lower, UPPER)
#endif
#define F77_XERBLA F77_PLAIN_NAME(xerbla, XERBLA)

void F77_XERBLA(const char *srname, const f77_int *info, size_t srname_len);

/* Records st for cublas_get_error; an illegal BLAS argument also calls xerbla(blas_name, position)
 * exactly as reference BLAS does. */
void cufort_f77_done(int st, const char *blas_name);

#endif
