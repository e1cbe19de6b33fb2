/* f77_kernels_thunking.c — the legacy names of cufort's own kernels on ordinary Fortran arrays
 * (staged through the thunk engine by the C ABI's _host forms).  Into libcufort_f77_thunking only.
 * The names are listed in f77_kernels.h. */
#include "f77_kernels.h"

#define ARR(T) const T *
#define MARR(T) T *
#define PTR(arg) (arg)
#define CALL(cname) cname##_host

CUF_ALL_NAMES
