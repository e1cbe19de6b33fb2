/* xerbla.c — the default XERBLA of the legacy F77 libraries.
 *
 * Reference semantics: an illegal argument to a BLAS routine calls XERBLA(SRNAME, INFO), and the
 * reference XERBLA (BLAS/SRC/xerbla.f) writes to unit * (stdout)
 *     ' ** On entry to ', SRNAME(1:LEN_TRIM(SRNAME)), ' parameter number ', INFO (I2), ' had ',
 *     'an illegal value'
 * and then STOPs.  Legacy codes ported from reference BLAS expect exactly that, so this one prints
 * the same line and ends the program.  It exits with status 1 rather than the 0 that gfortran
 * gives a bare STOP, so that batch jobs and CI see the failure.
 *
 * It is weak: a program's own XERBLA (Fortran or C, e.g. one that records the error and returns, as
 * LAPACK test drivers and our tests do) overrides it at link time, static or shared; the callers in
 * f77_common.c then carry on and report CUFORT_INVALID_VALUE through cublas_get_error.
 *
 * Fortran's own buffered output to unit * is flushed first where the runtime is gfortran's (a weak
 * reference: absent, nothing happens), so the line lands after what the program already wrote
 * even when stdout is a file or a pipe. */

#include <stdio.h>
#include <stdlib.h>

#include "f77.h"

extern void _gfortran_flush_i4(const int32_t *unit) __attribute__((weak));   /* NULL: all units */

__attribute__((weak)) void F77_XERBLA(const char *srname, const f77_int *info, size_t srname_len)
{
    size_t len = srname_len;
    while (len > 0 && srname[len - 1] == ' ') len--;           /* LEN_TRIM */
    long v = (long)*info;
    char num[8] = "**";                                          /* I2: ** when it does not fit */
    if (v >= -9 && v <= 99) snprintf(num, sizeof num, "%2ld", v);
    if (_gfortran_flush_i4) _gfortran_flush_i4(NULL);
    fflush(stdout);
    printf(" ** On entry to %.*s parameter number %s had an illegal value\n", (int)len, srname,
           num);
    fflush(stdout);
    exit(1);
}
