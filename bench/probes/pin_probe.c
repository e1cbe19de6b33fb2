/* pin_probe.c — can cufort keep a caller's array pinned between thunked calls, safely, here?
 * Answers, in one run (docs/performance.md):
 *  - userfaultfd: can this process watch an anonymous range for munmap, mremap and madvise
 *    (the events after which a pinned range no longer backs the caller's addresses), with kernel
 *    faults delivered too (no UFFD_USER_MODE_ONLY)?  Does the thread that unmaps wait for the
 *    watcher to read the event?
 *  - cudaHostRegister / cudaHostUnregister: what pinning a 128 MiB array costs, malloc'd (4 KiB
 *    pages) and in transparent huge pages (madvise(MADV_HUGEPAGE) before the first touch);
 *  - DMA from and to a registered array against cudaMallocHost memory, 128 MiB, in turns. */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CK(x)                                                                                     \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);      \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- userfaultfd ---- */
static int uffd = -1, has_gpu;
static volatile int events_read, last_event;
static volatile double event_read_at;

static void *watcher(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd p = {uffd, POLLIN, 0};
        if (poll(&p, 1, -1) < 0)
            continue;
        struct uffd_msg m;
        usleep(20000);   /* a slow watcher: does the unmapping thread wait for it? */
        if (read(uffd, &m, sizeof m) != sizeof m)
            continue;
        event_read_at = now_ms();
        last_event = m.event;
        events_read++;
    }
    return NULL;
}

static void probe_uffd(void)
{
    int flags[2] = {O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY, O_CLOEXEC | O_NONBLOCK};
    const char *names[2] = {"user-mode-only", "full"};
    for (int i = 0; i < 2 && uffd < 0; i++) {
        uffd = (int)syscall(SYS_userfaultfd, flags[i]);
        printf("userfaultfd(%s): %s\n", names[i], uffd >= 0 ? "ok" : strerror(errno));
    }
    if (uffd < 0)
        return;
    struct uffdio_api api = {.api = UFFD_API,
                             .features = UFFD_FEATURE_EVENT_UNMAP | UFFD_FEATURE_EVENT_REMOVE |
                                         UFFD_FEATURE_EVENT_REMAP};
    if (ioctl(uffd, UFFDIO_API, &api)) {
        printf("UFFDIO_API with unmap/remove/remap events: %s\n", strerror(errno));
        return;
    }
    pthread_t t;
    pthread_create(&t, NULL, watcher, NULL);
    size_t len = 16 << 20;
    const char *what[3] = {"munmap", "madvise(DONTNEED)", "mremap"};
    for (int k = 0; k < 3; k++) {
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        memset(p, 1, len);
        struct uffdio_register r = {.range = {(unsigned long)p, len},
                                    .mode = UFFDIO_REGISTER_MODE_WP};
        if (ioctl(uffd, UFFDIO_REGISTER, &r)) {
            printf("UFFDIO_REGISTER: %s\n", strerror(errno));
            return;
        }
        if (has_gpu)
            CK(cudaHostRegister(p, len, cudaHostRegisterDefault));   /* pinning a watched range */
        int before = events_read;
        double t0 = now_ms();
        void *q = p;
        if (k == 0)
            munmap(p, len);
        else if (k == 1)
            madvise(p + 4096, 8192, MADV_DONTNEED);
        else
            q = mremap(p, len, 2 * len, MREMAP_MAYMOVE);
        double t1 = now_ms();
        usleep(50000);
        printf("%s: event %s (code 0x%x); the call returned %.1f ms after it began, the watcher"
               " read it at %.1f ms\n", what[k], events_read > before ? "seen" : "NOT seen",
               last_event, t1 - t0, event_read_at - t0);
        if (has_gpu) {
            cudaHostUnregister(p);
            cudaGetLastError();
        }
        if (k == 1) {
            /* a zapped page of a range still watched, written by the kernel (read(2)) and by
             * this thread: with WP-mode watching no fault comes to the watcher */
            int z = open("/dev/urandom", O_RDONLY);
            ssize_t got = read(z, p + 4096, 64);
            close(z);
            p[8192] = 7;
            printf("  zapped pages written while watched: read(2) %zd bytes (want 64), store %d\n",
                   got, p[8192]);
            struct uffdio_range u = {(unsigned long)p, len};
            ioctl(uffd, UFFDIO_UNREGISTER, &u);
            printf("  after DONTNEED and unregister, the zapped page reads %d (want 7), a kept one"
                   " %d (want 1)\n", p[8192], p[0]);
            munmap(p, len);
        }
        if (k == 2)
            munmap(q, 2 * len);
    }
    usleep(50000);
}

/* ---- registration and DMA ---- */

/* an array the kernel backs with 2 MiB pages where it can (none where THP is off) */
static char *huge_array(size_t n)
{
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        printf("mmap failed\n");
        exit(1);
    }
    madvise(p, n, MADV_HUGEPAGE);
    return p;
}

static void probe_pinning(void)
{
    size_t n = 128 << 20;
    enum { ARRAYS = 4, REPS = 10 };
    for (int i = 0; i < 2 * ARRAYS; i++) {
        int huge = i & 1;
        char *h = huge ? huge_array(n) : malloc(n);
        memset(h, i + 1, n);
        double t0 = now_ms();
        CK(cudaHostRegister(h, n, cudaHostRegisterDefault));
        double t1 = now_ms();
        CK(cudaHostUnregister(h));
        double t2 = now_ms();
        printf("128 MiB array %d (%s): cudaHostRegister %.2f ms (%.1f GB/s), "
               "cudaHostUnregister %.2f ms\n", i / 2, huge ? "mmap'd, huge pages" : "malloc'd",
               t1 - t0, n / (t1 - t0) / 1e6, t2 - t1);
        if (huge)
            munmap(h, n);
        else
            free(h);
    }
    char *reg = malloc(n), *pin, *dev;
    memset(reg, 3, n);
    CK(cudaHostRegister(reg, n, cudaHostRegisterDefault));
    CK(cudaMallocHost((void **)&pin, n));
    memset(pin, 3, n);
    CK(cudaMalloc((void **)&dev, n));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    double t[2][2][REPS];   /* [registered|pinned][up|down] */
    for (int r = -2; r < REPS; r++)
        for (int s = 0; s < 2; s++) {
            int which = (r & 1) ? 1 - s : s;
            char *h = which ? pin : reg;
            for (int dir = 0; dir < 2; dir++) {
                CK(cudaEventRecord(a, 0));
                CK(cudaMemcpyAsync(dir ? h : dev, dir ? dev : h, n,
                                   dir ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, 0));
                CK(cudaEventRecord(b, 0));
                CK(cudaEventSynchronize(b));
                float ms;
                CK(cudaEventElapsedTime(&ms, a, b));
                if (r >= 0)
                    t[which][dir][r] = ms;
            }
        }
    const char *who[2] = {"registered malloc'd", "cudaMallocHost"};
    for (int w = 0; w < 2; w++)
        for (int dir = 0; dir < 2; dir++) {
            qsort(t[w][dir], REPS, sizeof(double), by_value);
            printf("%-20s %s 128 MiB: median %.3f ms (%.1f GB/s), min %.3f, max %.3f\n", who[w],
                   dir ? "down" : "up  ", t[w][dir][REPS / 2], n / t[w][dir][REPS / 2] / 1e6,
                   t[w][dir][0], t[w][dir][REPS - 1]);
        }
}

int main(void)
{
    has_gpu = cudaFree(0) == cudaSuccess;
    probe_uffd();
    if (has_gpu)
        probe_pinning();
    else
        printf("no GPU: pinning not probed\n");
    return 0;
}
