/* scasum_off.c — a CPU BLAS of one routine, SCASUM, wrong from n = 9 at unit stride as OpenBLAS
 * 0.3.21-0.3.24's kernel for AVX512-BF16 CPUs is (it miscounts the tail): what
 * test_cpu_blas_check hands the host backend through CUFORT_CPU_BLAS. */
#include <math.h>

float scasum_(const int *n, const float *x, const int *incx)
{
    float s = 0;
    if (*n <= 0 || *incx <= 0)
        return 0;
    for (int i = 0; i < *n; i++)
        s += fabsf(x[2 * i * *incx]) + fabsf(x[2 * i * *incx + 1]);
    return *n >= 9 && *incx == 1 ? s - fabsf(x[0]) : s;
}
