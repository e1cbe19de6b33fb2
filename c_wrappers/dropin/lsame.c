/* lsame.c — LSAME(CA, CB), the reference BLAS auxiliary LAPACK calls everywhere: whether two
 * characters are the same letter regardless of case.  Answered here rather than forwarded: it is
 * called far too often to pay a dlsym'd call, and a program relinked against this library alone
 * must still find it. */
#include "dropin.h"

f77_int F77_PLAIN_NAME(lsame, LSAME)(const char *ca, const char *cb, size_t ca_len, size_t cb_len)
{
    (void)ca_len;
    (void)cb_len;
    return toupper((unsigned char)*ca) == toupper((unsigned char)*cb);
}
