/* report.c — the drop-in BLAS's counters and the CUFORT_REPORT table written at exit.
 *
 * Counters are kept only while CUFORT_REPORT is on: a Level-1 call in a hot loop should not pay for
 * a clock read and shared atomics nobody will look at.  The table goes to stderr, or to
 * CUFORT_REPORT_FILE ("%p" in the name becomes the process id, for MPI runs), appended in one
 * write so that several processes sharing one file do not interleave their lines. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dropin.h"

int dropin_reporting = -1;

uint64_t dropin_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void add_double(double *x, double v)
{
    double old, want;
    __atomic_load(x, &old, __ATOMIC_RELAXED);
    do {
        want = old + v;
    } while (!__atomic_compare_exchange(x, &old, &want, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

void dropin_end(dropin_call *c, int gpu, double flops, double bytes)
{
    if (c->adapt)
        dropin_adapt_record(c, gpu);
    if (!c->on)
        return;
    dropin_stats *s = c->s;
    __atomic_add_fetch(&s->ns, dropin_now_ns() - c->t0, __ATOMIC_RELAXED);
    __atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(gpu ? &s->gpu : &s->cpu, 1, __ATOMIC_RELAXED);
    if (c->fell_back)
        __atomic_add_fetch(&s->fallback, 1, __ATOMIC_RELAXED);
    if (flops > 0)
        add_double(&s->flops, flops);
    if (gpu)
        __atomic_add_fetch(&s->bytes, (uint64_t)bytes, __ATOMIC_RELAXED);
}

static void copy_out(const dropin_stats *s, cufort_dropin_stats *out)
{
    out->name = s->name;
    out->gpu_capable = s->gpu_capable;
    out->calls = (int64_t)__atomic_load_n(&s->calls, __ATOMIC_RELAXED);
    out->gpu = (int64_t)__atomic_load_n(&s->gpu, __ATOMIC_RELAXED);
    out->cpu = (int64_t)__atomic_load_n(&s->cpu, __ATOMIC_RELAXED);
    out->fallback = (int64_t)__atomic_load_n(&s->fallback, __ATOMIC_RELAXED);
    out->seconds = (double)__atomic_load_n(&s->ns, __ATOMIC_RELAXED) * 1e-9;
    __atomic_load(&s->flops, &out->flops, __ATOMIC_RELAXED);
    out->bytes = (double)__atomic_load_n(&s->bytes, __ATOMIC_RELAXED);
}

int cufort_dropin_stats_at(int index, cufort_dropin_stats *out)
{
    if (index < 0 || index >= dropin_nroutines || !out)
        return -1;
    copy_out(&dropin_routines[index], out);
    return 0;
}

int cufort_dropin_stats_of(const char *routine, cufort_dropin_stats *out)
{
    for (int i = 0; routine && i < dropin_nroutines; i++)
        if (strcmp(dropin_routines[i].name, routine) == 0)
            return cufort_dropin_stats_at(i, out);
    return -1;
}

/* The whole report in one malloc'd string. */
static char *format_report(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    char cfgline[1024];
    dropin_config_line(cfgline, sizeof cfgline);
    fprintf(f, "# cufort drop-in BLAS report (libcufort_blas %d.%d.%d), pid %ld; CPU BLAS: %s\n# %s\n",
            CUFORT_VERSION_MAJOR, CUFORT_VERSION_MINOR, CUFORT_VERSION_PATCH, (long)getpid(),
            dropin_cpu_path(), cfgline);
    dropin_adapt_list(f);
    fprintf(f, "# %-9s %10s %10s %10s %9s %12s %10s %16s\n", "routine", "calls", "gpu", "cpu",
            "fallback", "time_s", "GFLOP/s", "bytes_h<->d");
    for (int i = 0; i < dropin_nroutines; i++) {
        cufort_dropin_stats s;
        copy_out(&dropin_routines[i], &s);
        if (s.calls == 0)
            continue;
        double rate = s.seconds > 0 ? s.flops / s.seconds * 1e-9 : 0;
        fprintf(f, "%-11s %10lld %10lld %10lld %9lld %12.6f %10.4g %16.0f\n", s.name,
                (long long)s.calls, (long long)s.gpu, (long long)s.cpu, (long long)s.fallback,
                s.seconds, rate, s.bytes);
    }
    fclose(f);
    return text;
}

/* "%p" -> pid; anything else verbatim. */
static void expand_path(const char *in, char *out, size_t n)
{
    size_t o = 0;
    for (; *in && o + 1 < n; in++) {
        if (in[0] == '%' && in[1] == 'p') {
            int w = snprintf(out + o, n - o, "%ld", (long)getpid());
            o = w > 0 && (size_t)w < n - o ? o + (size_t)w : n - 1;
            in++;
        } else {
            out[o++] = *in;
        }
    }
    out[o] = 0;
}

int cufort_dropin_write_report(const char *path)
{
    char *text = format_report();
    if (!text)
        return -1;
    int fd = STDERR_FILENO, rc = 0;
    if (path && *path && strcmp(path, "-") != 0) {
        char name[4096];
        expand_path(path, name, sizeof name);
        fd = open(name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0) {
            fprintf(stderr, "cufort drop-in BLAS: cannot write the report to %s\n", name);
            fd = STDERR_FILENO;
            rc = -1;
        }
    }
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    if (fd != STDERR_FILENO)
        close(fd);
    free(text);
    return rc;
}

extern void _gfortran_flush_i4(const int32_t *unit) __attribute__((weak));   /* NULL: all units */

/* A Fortran program's own output is flushed first (where the runtime is gfortran's), so that on a
 * terminal the table comes after what the program printed. */
static void at_exit(void)
{
    if (__atomic_load_n(&dropin_reporting, __ATOMIC_RELAXED) <= 0)
        return;
    if (_gfortran_flush_i4)
        _gfortran_flush_i4(NULL);
    fflush(stdout);
    cufort_dropin_write_report(getenv("CUFORT_REPORT_FILE"));
}

static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static void register_exit(void) { atexit(at_exit); }

void dropin_report_enable(void)
{
    pthread_once(&exit_once, register_exit);
    __atomic_store_n(&dropin_reporting, 1, __ATOMIC_RELAXED);
}
