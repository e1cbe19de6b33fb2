/* cufort_info.c — what cufort will run on here: the backend chosen from CUFORT_BACKEND (cuda|host|auto)
 * and the device from CUFORT_DEVICE or the MPI local rank.  Also a minimal C-ABI example:
 *   gcc cufort_info.c -Ic_wrappers/include -Lbuild/lib -lcufort -Wl,-rpath,$PWD/build/lib */
#include <stdio.h>
#include <stdlib.h>

#include "cufort.h"

int main(void)
{
    const char *req = getenv("CUFORT_BACKEND");
    int st = cufort_init();
    if (st != CUFORT_SUCCESS) {
        fprintf(stderr, "cufort_init failed: %s (%s)\n", cufort_status_string(st), cufort_last_error());
        return 1;
    }
    printf("backend: %s (CUFORT_BACKEND=%s)\n", cufort_backend_name(), req ? req : "auto");
    int count = 0, dev = -1;
    cufort_device_count(&count);
    cufort_get_device(&dev);
    printf("devices: %d, using device %d\n", count, dev);
    cufort_device_properties p;
    if (dev >= 0 && cufort_get_device_properties(dev, &p) == CUFORT_SUCCESS) {
        printf("device: %s, %.1f GiB, %d multiprocessors, compute capability %d.%d\n", p.name,
               (double)p.total_memory / (1024.0 * 1024.0 * 1024.0), p.multiprocessors, p.major,
               p.minor);
    }
    if (cufort_backend() == CUFORT_BACKEND_HOST) {
        const char *blas = getenv("CUFORT_CPU_BLAS");
        printf("cpu blas: %s\n", blas ? blas : "libopenblas.so.0, else libblas.so.3");
    }
    cufort_shutdown();
    return 0;
}
