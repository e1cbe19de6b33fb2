/* errors.c — illegal arguments the reference BLAS way: XERBLA(name, position), where a program's own
 * xerbla_ overrides the library's weak default (c_wrappers/f77/xerbla.c, linked in unchanged); and
 * XERBLA_ARRAY, the variant for callers from C that netlib's BLAS also provides. */
#include <stdio.h>
#include <stdlib.h>

#include "dropin.h"

/* Reference BLAS passes a CHARACTER*6 name in upper case, blank-padded ('DGEMM ', 'SROTG '). */
void dropin_xerbla(const char *name, int position)
{
    char padded[32];
    size_t len = 0;
    for (; name[len] && len < sizeof padded - 1; len++)
        padded[len] = (char)toupper((unsigned char)name[len]);
    while (len < 6)
        padded[len++] = ' ';
    padded[len] = '\0';                  /* not part of the Fortran string; kind to C xerblas */
    f77_int info = position;
    F77_XERBLA(padded, &info, len);
}

/* SUBROUTINE XERBLA_ARRAY(SRNAME_ARRAY, SRNAME_LEN, INFO): the name as an array of characters,
 * handed to XERBLA as a CHARACTER*32, as netlib's does. */
void F77_NAME(xerbla_array, XERBLA_ARRAY)(const char *srname_array, const f77_int *srname_len,
                                          const f77_int *info, size_t elem_len)
{
    (void)elem_len;
    char name[33];
    memset(name, ' ', 32);
    name[32] = '\0';
    for (f77_int i = 0; i < *srname_len && i < 32; i++)
        name[i] = srname_array[i];
    F77_XERBLA(name, info, 32);
}

#ifdef CUFORT_F77_INT64
int dropin_narrow(int64_t v, const char *routine, const char *arg)
{
    if (v > INT32_MAX || v < INT32_MIN) {
        fprintf(stderr, "cufort drop-in BLAS: %s: %s = %lld does not fit the CPU BLAS's 4-byte "
                "INTEGER\n", routine, arg, (long long)v);
        exit(1);
    }
    return (int)v;
}
#endif
