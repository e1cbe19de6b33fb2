/* test_cpu_blas_check.c — a CPU BLAS routine that fails the loader's check is replaced: the host
 * backend over a CPU BLAS whose SCASUM miscounts (tests/cpu_blas/scasum_off.c, built beside this
 * binary in lib/) names the replacement in its backend description and computes every SCASUM
 * right, each increment and length against a double-precision sum.  Runs on the host backend
 * whatever CUFORT_BACKEND says: the CPU BLAS is the host backend's. */
#include "check.h"

#include <libgen.h>
#include <math.h>

int main(void)
{
    ck_begin("test_cpu_blas_check", 120);
    char self[4096] = {0};
    if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0)
        snprintf(self, sizeof self, ".");
    const char *lib = ckf("%s/lib/libscasum_off.so", dirname(self));
    setenv("CUFORT_CPU_BLAS", lib, 1);
    CHECK_OK(cufort_init_backend(CUFORT_BACKEND_HOST), "cufort_init_backend(host)");
    cufort_device_properties info = {0};
    CHECK_OK(cufort_get_device_properties(0, &info), "device properties");
    CHECK(strstr(info.name, lib) && strstr(info.name, "scasum_ replaced"),
          "the backend names the CPU BLAS and its replaced scasum_", "\"%s\"", info.name);

    int bad = 0, cases = 0;
    char first[256] = "";
    for (int64_t inc = -1; inc <= 3; inc++)
        for (int64_t n = 0; n <= 40; n++) {
            int64_t len = n > 0 ? 1 + (n - 1) * (inc > 0 ? inc : 1) : 1;
            float *h = malloc((size_t)(2 * len) * sizeof *h);
            double want = 0;
            for (int64_t i = 0; i < 2 * len; i++)
                h[i] = (float)((int)(ck_rand64() % 2001) - 1000) / 64.0f + 0.25f;
            for (int64_t i = 0; inc > 0 && i < n; i++)
                want += fabs(h[2 * i * inc]) + fabs(h[2 * i * inc + 1]);
            void *d = NULL;
            float got = NAN;
            int st = cufort_alloc(&d, 8 * len);
            st = st ? st : cufort_set_vector(len, 8, h, 1, d, 1);
            st = st ? st : cufort_scasum(n, d, inc, &got);
            cases++;
            if ((st || fabs(got - want) > 1e-6 * (want > 1 ? want : 1)) && !bad++)
                snprintf(first, sizeof first, "first n = %lld, incx = %lld: status %d, %.9g against %.9g",
                         (long long)n, (long long)inc, st, got, want);
            cufort_free(d);
            free(h);
        }
    CHECK(bad == 0, ckf("scasum right for n = 0..40, incx = -1..3 (%d cases)", cases), "%d wrong, %s", bad, first);
    cufort_shutdown();
    return ck_end();
}
