/* cpu_noise.c — bursts of busy threads, as other guests of a shared host make them: T threads, each
 * spinning for a random 1..2*B ms then sleeping a random 1..2*S ms, until killed or D seconds pass.
 * Used to check the drop-in's routing under load (docs/performance.md).
 * usage: cpu_noise T B_ms S_ms D_s */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double busy_ms, sleep_ms, until;
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static void *worker(void *arg)
{
    unsigned seed = (unsigned)(size_t)arg * 2654435761u;
    volatile double x = 1;
    while (now() < until) {
        double end = now() + (1 + rand_r(&seed) % (int)(2 * busy_ms)) * 1e-3;
        while (now() < end)
            for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9;
        usleep((useconds_t)((1 + rand_r(&seed) % (int)(2 * sleep_ms)) * 1000));
    }
    return NULL;
}
int main(int argc, char **argv)
{
    int threads = argc == 5 ? atoi(argv[1]) : 0;
    busy_ms = argc == 5 ? atof(argv[2]) : 0, sleep_ms = argc == 5 ? atof(argv[3]) : 0;
    if (threads < 1 || threads > 256 || busy_ms < 1 || sleep_ms < 1) {
        fprintf(stderr, "usage: cpu_noise threads(1-256) busy_ms(>=1) sleep_ms(>=1) seconds\n");
        return 2;
    }
    until = now() + atof(argv[4]);
    pthread_t t[256];
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, (void *)(size_t)(i + 1));
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    return 0;
}
