/* c_abi.c — a C program built against an installed cufort (tests/examples/install.sh): the header's
 * version against the library's, then a DAXPY on host arrays.  Prints "version X.Y.Z" and
 * "daxpy ok (<backend>)"; exits non-zero on any mismatch. */
#include <stdio.h>
#include <string.h>

#include "cufort.h"

int main(void)
{
    int major = -1, minor = -1, patch = -1;
    cufort_version(&major, &minor, &patch);
    printf("version %s\n", cufort_version_string());
    if (major != CUFORT_VERSION_MAJOR || minor != CUFORT_VERSION_MINOR || patch != CUFORT_VERSION_PATCH) {
        printf("library %d.%d.%d, header %d.%d.%d\n", major, minor, patch, CUFORT_VERSION_MAJOR,
               CUFORT_VERSION_MINOR, CUFORT_VERSION_PATCH);
        return 1;
    }
    int st = cufort_init();
    if (st != CUFORT_SUCCESS) {
        printf("cufort_init: %s (%s)\n", cufort_status_string(st), cufort_last_error());
        return 1;
    }
    enum { N = 37 };
    double x[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = 1.0 + 0.5 * i;
        y[i] = 3.0 - 0.25 * i;
    }
    st = cufort_daxpy_host(N, 2.0, x, 1, y, 1);
    int bad = st != CUFORT_SUCCESS;
    for (int i = 0; i < N; i++)
        bad += y[i] != 5.0 + 0.75 * i;   /* exact: dyadic values */
    if (bad) {
        printf("daxpy: status %d, %d wrong elements (%s)\n", st, bad, cufort_last_error());
        return 1;
    }
    printf("daxpy ok (%s)\n", cufort_backend_name());
    cufort_shutdown();
    return 0;
}
