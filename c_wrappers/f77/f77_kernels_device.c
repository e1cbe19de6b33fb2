/* f77_kernels_device.c — the legacy names of cufort's own kernels on device arrays: every array is
 * an integer*8 device address (cublas_alloc'd).  Into libcufort_f77 only.  The names are listed in
 * f77_kernels.h; the _dev subroutines below leave their result in device memory without waiting. */
#include "f77_kernels.h"

#define ARR(T) const cufort_devptr *
#define MARR(T) const cufort_devptr *
#define PTR(arg) cufort_f77_ptr(*(arg))
#define CALL(cname) cname

CUF_ALL_NAMES

#define CUF_DEV1(lower, UPPER, T, cname)                                                           \
    void F77_NAME(lower, UPPER)(const f77_int *n, const cufort_devptr *x, const f77_int *incx,     \
                                const cufort_devptr *result)                                       \
    {                                                                                              \
        cufort_f77_done(cname(*n, (const T *)PTR(x), *incx, cufort_f77_ptr(*result)), #UPPER);    \
    }
#define CUF_DEV2(lower, UPPER, T, cname)                                                           \
    void F77_NAME(lower, UPPER)(const f77_int *n, const cufort_devptr *x, const f77_int *incx,     \
                                const cufort_devptr *y, const f77_int *incy,                       \
                                const cufort_devptr *result)                                       \
    {                                                                                              \
        cufort_f77_done(cname(*n, (const T *)PTR(x), *incx, (const T *)PTR(y), *incy,              \
                              cufort_f77_ptr(*result)), #UPPER);                                   \
    }

CUF_DEV1(cuf_ssum_dev, CUF_SSUM_DEV, float, cufort_sreduce_sum_dev)
CUF_DEV1(cuf_dsum_dev, CUF_DSUM_DEV, double, cufort_dreduce_sum_dev)
CUF_DEV1(cuf_csum_dev, CUF_CSUM_DEV, cufort_cfloat, cufort_creduce_sum_dev)
CUF_DEV1(cuf_zsum_dev, CUF_ZSUM_DEV, cufort_cdouble, cufort_zreduce_sum_dev)
CUF_DEV1(cuf_ssumk_dev, CUF_SSUMK_DEV, float, cufort_sreduce_sumk_dev)
CUF_DEV1(cuf_dsumk_dev, CUF_DSUMK_DEV, double, cufort_dreduce_sumk_dev)
CUF_DEV1(cuf_sasum_dev, CUF_SASUM_DEV, float, cufort_sreduce_asum_dev)
CUF_DEV1(cuf_dasum_dev, CUF_DASUM_DEV, double, cufort_dreduce_asum_dev)
CUF_DEV1(cuf_scasum_dev, CUF_SCASUM_DEV, cufort_cfloat, cufort_creduce_asum_dev)
CUF_DEV1(cuf_dzasum_dev, CUF_DZASUM_DEV, cufort_cdouble, cufort_zreduce_asum_dev)
CUF_DEV1(cuf_snrm2_dev, CUF_SNRM2_DEV, float, cufort_sreduce_nrm2_dev)
CUF_DEV1(cuf_dnrm2_dev, CUF_DNRM2_DEV, double, cufort_dreduce_nrm2_dev)
CUF_DEV1(cuf_scnrm2_dev, CUF_SCNRM2_DEV, cufort_cfloat, cufort_creduce_nrm2_dev)
CUF_DEV1(cuf_dznrm2_dev, CUF_DZNRM2_DEV, cufort_cdouble, cufort_zreduce_nrm2_dev)
CUF_DEV1(cuf_smin_dev, CUF_SMIN_DEV, float, cufort_sreduce_min_dev)
CUF_DEV1(cuf_dmin_dev, CUF_DMIN_DEV, double, cufort_dreduce_min_dev)
CUF_DEV1(cuf_smax_dev, CUF_SMAX_DEV, float, cufort_sreduce_max_dev)
CUF_DEV1(cuf_dmax_dev, CUF_DMAX_DEV, double, cufort_dreduce_max_dev)
CUF_DEV2(cuf_sdot_dev, CUF_SDOT_DEV, float, cufort_sreduce_dot_dev)
CUF_DEV2(cuf_ddot_dev, CUF_DDOT_DEV, double, cufort_dreduce_dot_dev)
CUF_DEV2(cuf_cdotu_dev, CUF_CDOTU_DEV, cufort_cfloat, cufort_creduce_dot_dev)
CUF_DEV2(cuf_zdotu_dev, CUF_ZDOTU_DEV, cufort_cdouble, cufort_zreduce_dot_dev)
CUF_DEV2(cuf_cdotc_dev, CUF_CDOTC_DEV, cufort_cfloat, cufort_creduce_dotc_dev)
CUF_DEV2(cuf_zdotc_dev, CUF_ZDOTC_DEV, cufort_cdouble, cufort_zreduce_dotc_dev)
