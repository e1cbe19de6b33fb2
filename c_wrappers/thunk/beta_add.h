/* beta_add.h — a downloaded product folded into beta C on the host, as staging unpacks it: the
 * engines that leave C on the host (the GEMM engine's pageable C, the Level-3 engine's SYMM/HEMM)
 * compute alpha op(A) op(B) alone on the device and add beta C in the same pass. */
#ifndef CUFORT_BETA_ADD_H
#define CUFORT_BETA_ADD_H

#include <complex.h>
#include <stddef.h>

/* c = d + beta c over `bytes` of elements of prec ('s', 'd', 'c' or 'z'); a real precision uses
 * beta's real part */
void cufort_beta_add(char prec, double complex beta, char *c, const char *d, size_t bytes);

#endif
