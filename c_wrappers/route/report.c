/* report.c — a drop-in's CUFORT_REPORT table written at exit, from what stats.c, router.c and
 * adapt.c publish; nothing below calls back here.  The table goes to stderr, or to
 * CUFORT_REPORT_FILE ("%p" in the name becomes the process id, "%r" the MPI rank), appended in one
 * write so that several processes sharing one file do not interleave their lines. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "route.h"

/* the rank in the job of an MPI launch (its local rank when only that is known), else 0 */
static int job_rank(void)
{
    int r = cufort_world_rank();
    return r >= 0 ? r : cufort_local_rank() >= 0 ? cufort_local_rank() : 0;
}

/* "# rank R (local L of S), device D (name)": which GPU each rank of a job used */
static void placement(FILE *f)
{
    int device = -1;
    cufort_device_properties props;
    fprintf(f, "# rank %d", job_rank());
    if (cufort_local_size() > 0)
        fprintf(f, " (local %d of %d)", cufort_local_rank(), cufort_local_size());
    if (route_core_open() && CORE(cufort_is_initialized)() &&
        !strcmp(CORE(cufort_backend_name)(), "cuda") &&
        CORE(cufort_get_device)(&device) == CUFORT_SUCCESS &&
        CORE(cufort_get_device_properties)(device, &props) == CUFORT_SUCCESS)
        fprintf(f, ", device %d (%s)\n", device, props.name);
    else
        fprintf(f, ", no GPU in use\n");
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
    fprintf(f, "# %s report (%s %d.%d.%d), pid %ld; %s: %s\n# %s\n", dropin_this.title,
            dropin_this.library, CUFORT_VERSION_MAJOR, CUFORT_VERSION_MINOR, CUFORT_VERSION_PATCH,
            (long)getpid(), dropin_this.cpu_name, dropin_this.cpu_path(), cfgline);
    placement(f);
    dropin_adapt_list(f);
    fprintf(f, "# %-9s %10s %10s %10s %9s %12s %10s %16s\n", "routine", "calls", "gpu", "cpu",
            "fallback", "time_s", "GFLOP/s", "bytes_h<->d");
    for (int i = 0; i < dropin_nroutines; i++) {
        dropin_snapshot s;
        dropin_stats_copy(&dropin_routines[i], &s);
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

/* "%p" -> pid, "%r" -> the rank in the job; anything else verbatim. */
static void expand_path(const char *in, char *out, size_t n)
{
    size_t o = 0;
    for (; *in && o + 1 < n; in++) {
        if (in[0] == '%' && (in[1] == 'p' || in[1] == 'r')) {
            long v = in[1] == 'p' ? (long)getpid() : (long)job_rank();
            int w = snprintf(out + o, n - o, "%ld", v);
            o = w > 0 && (size_t)w < n - o ? o + (size_t)w : n - 1;
            in++;
        } else {
            out[o++] = *in;
        }
    }
    out[o] = 0;
}

int dropin_write_report(const char *path)
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
            fprintf(stderr, "%s: cannot write the report to %s\n", dropin_this.title, name);
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
    dropin_write_report(getenv("CUFORT_REPORT_FILE"));
}

/* Registered when the library loads, so that routing never has to call up here: at exit the
 * table is written if CUFORT_REPORT turned the counters on. */
__attribute__((constructor)) static void register_exit(void) { atexit(at_exit); }
