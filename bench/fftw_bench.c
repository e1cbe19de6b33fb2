/* fftw_bench.c — one FFTW implementation, loaded by path, on the FFTW drop-in's benchmark cases.
 *
 *   fftw_bench --lib PATH --name NAME [--threads-lib PATH] [--threads N] [--double] [--cases LIST]
 *              [--memory pageable,fftw_malloc] [--reps N] [--csv FILE]
 *              [--vs PATH --vs-name NAME [--vs-threads-lib PATH]]
 *
 * The library (libcufort_fftw.so, NVIDIA's libcufftw.so, the real libfftw3f.so.3 ...) is opened with
 * RTLD_LOCAL|RTLD_DEEPBIND and used through dlsym on its handle, so each contestant runs with its own
 * FFTW names in a process of its own (bench/fftw_run.sh runs them one after the other).  With
 * --threads N the program does what a threaded FFTW program does: init_threads, then
 * plan_with_nthreads(N) (from --threads-lib for the real FFTW, whose threads live apart).
 *
 * Cases (single precision unless --double; out of place, forward, FFTW_ESTIMATE):
 *   c2c_2^24        one 1-d transform of 2^24 points
 *   c2c_4096x4096   one 2-d transform
 *   batch_256x65536 plan_many: 256 1-d transforms of 65536 points, back to back
 *   r2c_512^3       one 3-d real-to-complex transform
 *   small_2^k       1-d c2c of 2^k points, k = 8..20 (where the drop-in's threshold belongs)
 * Each on arrays from malloc (pageable) and from the library's own fftw_malloc.  Measured by wall
 * clock (every contestant's execute returns with the result in host memory): the planner's time,
 * the first execution, and the median and minimum of the repeated ones (enough of them to last
 * ~0.5 s, at least 5, at most --reps).  Every result is checked against the real FFTW (opened apart,
 * one thread): the relative error max|y - ref| / max|ref| goes into the table and the CSV; one over
 * 1e-3 (single) / 1e-9 (double) fails the run (exit 1).  Table on stdout; rows appended to --csv
 * (default $OUT/fftw_bench.csv, else fftw_bench.csv), with a header when the file is new.
 *
 * --vs times a second library in the same process, in turns with the first: blocks of TURN calls
 * of each, the first call of every block not counted (it pays for the other library's threads
 * going to sleep, or waking), over the same number of counted calls.  Two processes run minutes
 * apart differ by more than the 5% that matters for small transforms; calls in turns do not.  Both
 * get the same thread count, which for the real FFTW is one setting they share. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fftw3.h>   /* flag and sign values */

#include "bench_util.h"

typedef struct {
    void *(*plan_dft_1d)(int, void *, void *, int, unsigned);
    void *(*plan_dft_2d)(int, int, void *, void *, int, unsigned);
    void *(*plan_many_dft)(int, const int *, int, void *, const int *, int, int, void *, const int *,
                           int, int, int, unsigned);
    void *(*plan_dft_r2c_3d)(int, int, int, void *, void *, unsigned);
    void (*execute)(void *);
    void (*destroy_plan)(void *);
    void *(*malloc)(size_t);
    void (*free)(void *);
} fftw_api;

static const char *prefix = "fftwf_";
static size_t real_bytes = 4;   /* one real of the precision */

static void *must(void *lib, const char *name, const char *path)
{
    char sym[80];
    snprintf(sym, sizeof sym, "%s%s", prefix, name);
    void *f = dlsym(lib, sym);
    if (!f) {
        fprintf(stderr, "fftw_bench: %s has no %s\n", path, sym);
        exit(2);
    }
    return f;
}

static void load(fftw_api *a, const char *path)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!lib) {
        fprintf(stderr, "fftw_bench: cannot open %s: %s\n", path, dlerror());
        exit(2);
    }
    a->plan_dft_1d = must(lib, "plan_dft_1d", path);
    a->plan_dft_2d = must(lib, "plan_dft_2d", path);
    a->plan_many_dft = must(lib, "plan_many_dft", path);
    a->plan_dft_r2c_3d = must(lib, "plan_dft_r2c_3d", path);
    a->execute = must(lib, "execute", path);
    a->destroy_plan = must(lib, "destroy_plan", path);
    a->malloc = must(lib, "malloc", path);
    a->free = must(lib, "free", path);
}

/* init_threads and plan_with_nthreads, from `path` (the main library when NULL) */
static void set_threads(const char *lib_path, const char *threads_path, int n)
{
    void *lib = dlopen(threads_path ? threads_path : lib_path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    char s1[64], s2[64];
    snprintf(s1, sizeof s1, "%sinit_threads", prefix);
    snprintf(s2, sizeof s2, "%splan_with_nthreads", prefix);
    int (*init)(void) = lib ? (int (*)(void))dlsym(lib, s1) : NULL;
    void (*with)(int) = lib ? (void (*)(int))dlsym(lib, s2) : NULL;
    if (!init || !with || !init()) {
        fprintf(stderr, "fftw_bench: no threads API in %s; one thread\n", threads_path ? threads_path : lib_path);
        return;
    }
    with(n);
}

typedef struct {
    char name[32];
    int kind;             /* 0: 1-d, 1: 2-d, 2: many 1-d, 3: r2c 3-d */
    int n0, n1, n2, howmany;
    size_t in_reals, out_reals;
    double flops;
} bench_case;

static void *make_plan(const fftw_api *a, const bench_case *c, void *in, void *out)
{
    switch (c->kind) {
    case 0: return a->plan_dft_1d(c->n0, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
    case 1: return a->plan_dft_2d(c->n0, c->n1, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
    case 2: return a->plan_many_dft(1, &c->n0, c->howmany, in, NULL, 1, c->n0, out, NULL, 1, c->n0,
                                    FFTW_FORWARD, FFTW_ESTIMATE);
    default: return a->plan_dft_r2c_3d(c->n0, c->n1, c->n2, in, out, FFTW_ESTIMATE);
    }
}

static void fill(void *x, size_t reals)
{
    unsigned long long s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < reals; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double v = (double)(s >> 11) / 9007199254740992.0 - 0.5;
        if (real_bytes == 4)
            ((float *)x)[i] = (float)v;
        else
            ((double *)x)[i] = v;
    }
}

static double rel_err(const void *y, const void *ref, size_t reals)
{
    double worst = 0, norm = 0;
    for (size_t i = 0; i < reals; i++) {
        double a = real_bytes == 4 ? ((const float *)y)[i] : ((const double *)y)[i];
        double b = real_bytes == 4 ? ((const float *)ref)[i] : ((const double *)ref)[i];
        if (!(fabs(a - b) <= worst))
            worst = isnan(a) ? INFINITY : fabs(a - b);
        norm = fmax(norm, fabs(b));
    }
    return norm > 0 ? worst / norm : worst;
}

static int by_value(const void *p, const void *q)
{
    double x = *(const double *)p, y = *(const double *)q;
    return (x > y) - (x < y);
}

static fftw_api oracle;

enum { TURN = 10 };

/* one execution's wall time */
static double timed(const fftw_api *a, void *p)
{
    double s = bench_now();
    a->execute(p);
    return bench_now() - s;
}

static double median_sorted(double *ts, int n)
{
    qsort(ts, (size_t)n, sizeof *ts, by_value);
    return n % 2 ? ts[n / 2] : 0.5 * (ts[n / 2 - 1] + ts[n / 2]);
}

/* The first library's plan p against the second's on arrays of its own (same data), in turns;
 * the first's counted times into ts, the second's row written here. */
static void in_turns(const fftw_api *a, void *p, const fftw_api *b, const bench_case *c, const void *in,
                     const void *out, int pageable, int reps, double *ts, const char *vs_name,
                     const char *mem, FILE *f)
{
    size_t ib = c->in_reals * real_bytes, ob = c->out_reals * real_bytes;
    /* pageable arrays at the same offsets within a page as the first library's: FFTW picks its SIMD
     * codelets by the arrays' alignment, which malloc's 16 bytes leave to chance, and input and
     * output at the same offset in their pages slow each other's loads and stores */
    void *bin0 = pageable ? malloc(ib + 4096) : b->malloc(ib), *bout0 = pageable ? malloc(ob + 4096) : b->malloc(ob);
    char *bin = bin0, *bout = bout0;
    if (pageable) {
        bin += ((uintptr_t)in - (uintptr_t)bin) % 4096;
        bout += ((uintptr_t)out - (uintptr_t)bout) % 4096;
    }
    memcpy(bin, in, ib);
    memset(bout, 0, ob);
    void *q = make_plan(b, c, bin, bout);
    memcpy(bin, in, ib);   /* planning may have used the arrays */
    double *us = malloc(sizeof *us * (size_t)reps);
    int na = 0, nb = 0;
    b->execute(q);
    while (na < reps || nb < reps) {
        for (int k = 0; k < TURN && na < reps; k++) {
            double t = timed(a, p);
            if (k)
                ts[na++] = t;
        }
        for (int k = 0; k < TURN && nb < reps; k++) {
            double t = timed(b, q);
            if (k)
                us[nb++] = t;
        }
    }
    double med = median_sorted(us, reps);
    printf("%-16s %-12s %10s %10s %10.6f %10.6f %5d %9.1f %9s  (%s, in turns)\n", c->name, mem, "", "",
           med * 1e3, us[0] * 1e3, reps, c->flops / med * 1e-9, "", vs_name);
    fprintf(f, "%s,%s,%s,%s,,,%.6f,%.6f,%d,%.2f,\n", vs_name, real_bytes == 4 ? "single" : "double",
            c->name, mem, med * 1e3, us[0] * 1e3, reps, c->flops / med * 1e-9);
    free(us);
    b->destroy_plan(q);
    if (pageable) {
        free(bin0);
        free(bout0);
    } else {
        b->free(bin0);
        b->free(bout0);
    }
}

int main(int argc, char **argv)
{
    const char *lib = NULL, *name = NULL, *threads_lib = NULL, *csv = NULL;
    const char *vs = NULL, *vs_name = NULL, *vs_threads_lib = NULL;
    const char *cases_arg = "c2c_2^24,c2c_4096x4096,batch_256x65536,r2c_512^3,small";
    const char *memory_arg = "pageable,fftw_malloc";
    int threads = 0, max_reps = 50;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(argv[i], "--lib")) lib = v, i++;
        else if (!strcmp(argv[i], "--name")) name = v, i++;
        else if (!strcmp(argv[i], "--threads-lib")) threads_lib = v, i++;
        else if (!strcmp(argv[i], "--threads")) threads = atoi(v), i++;
        else if (!strcmp(argv[i], "--cases")) cases_arg = v, i++;
        else if (!strcmp(argv[i], "--memory")) memory_arg = v, i++;
        else if (!strcmp(argv[i], "--reps")) max_reps = atoi(v), i++;
        else if (!strcmp(argv[i], "--csv")) csv = v, i++;
        else if (!strcmp(argv[i], "--double")) prefix = "fftw_", real_bytes = 8;
        else if (!strcmp(argv[i], "--vs")) vs = v, i++;
        else if (!strcmp(argv[i], "--vs-name")) vs_name = v, i++;
        else if (!strcmp(argv[i], "--vs-threads-lib")) vs_threads_lib = v, i++;
        else {
            fprintf(stderr, "usage: fftw_bench --lib PATH --name NAME [--threads-lib PATH] [--threads N] "
                            "[--double] [--cases LIST] [--memory pageable,fftw_malloc] [--reps N] [--csv FILE] "
                            "[--vs PATH --vs-name NAME [--vs-threads-lib PATH]]\n");
            return 2;
        }
    }
    if (!lib || !name || (vs && !vs_name)) {
        fprintf(stderr, "fftw_bench: --lib and --name are needed (and --vs-name with --vs)\n");
        return 2;
    }
    fftw_api a, b;
    load(&a, lib);
    if (vs)
        load(&b, vs);
    const char *oracle_path = getenv(real_bytes == 4 ? "BENCH_ORACLE_FFTWF" : "BENCH_ORACLE_FFTW");
    load(&oracle, oracle_path && *oracle_path ? oracle_path : real_bytes == 4 ? "libfftw3f.so.3" : "libfftw3.so.3");
    if (threads > 0)
        set_threads(lib, threads_lib, threads);
    if (vs && threads > 0)
        set_threads(vs, vs_threads_lib, threads);

    bench_case cases[32];
    int ncases = 0;
    const double c5 = 5.0;
#define ADD(nm, k, a0, a1, a2, h, ir, orl, fl)                                                     \
    cases[ncases++] = (bench_case){nm, k, a0, a1, a2, h, ir, orl, fl}
    if (strstr(cases_arg, "c2c_2^24"))
        ADD("c2c_2^24", 0, 1 << 24, 0, 0, 1, 2u << 24, 2u << 24, c5 * (1 << 24) * 24);
    if (strstr(cases_arg, "c2c_4096x4096"))
        ADD("c2c_4096x4096", 1, 4096, 4096, 0, 1, 2u << 24, 2u << 24, c5 * (1 << 24) * 24);
    if (strstr(cases_arg, "batch_256x65536"))
        ADD("batch_256x65536", 2, 65536, 0, 0, 256, 2u << 24, 2u << 24, c5 * 65536 * 16 * 256);
    if (strstr(cases_arg, "r2c_512^3"))
        ADD("r2c_512^3", 3, 512, 512, 512, 1, (size_t)512 * 512 * 512, (size_t)512 * 512 * 257 * 2,
            2.5 * 512.0 * 512 * 512 * 27);
    if (strstr(cases_arg, "small"))
        for (int k = 8; k <= 20; k++) {
            char nm[32];
            snprintf(nm, sizeof nm, "small_2^%d", k);
            ADD("", 0, 1 << k, 0, 0, 1, 2u << k, 2u << k, c5 * (1 << k) * k);
            snprintf(cases[ncases - 1].name, sizeof cases[ncases - 1].name, "%s", nm);
        }

    char csv_default[4096];
    if (!csv) {
        const char *out = getenv("OUT");
        snprintf(csv_default, sizeof csv_default, "%s%sfftw_bench.csv", out && *out ? out : "",
                 out && *out ? "/" : "");
        csv = csv_default;
    }
    int fresh = access(csv, F_OK) != 0;
    FILE *f = fopen(csv, "a");
    if (!f) {
        fprintf(stderr, "fftw_bench: cannot open %s for writing\n", csv);
        return 2;
    }
    if (fresh)
        fprintf(f, "contestant,precision,case,memory,plan_ms,first_ms,median_ms,min_ms,reps,gflops,rel_err\n");
    printf("# %s (%s), %s precision, %d threads\n", name, lib, real_bytes == 4 ? "single" : "double",
           threads > 0 ? threads : 1);
    printf("%-16s %-12s %10s %10s %10s %10s %5s %9s %9s\n", "case", "memory", "plan_ms", "first_ms",
           "median_ms", "min_ms", "reps", "GFLOP/s", "rel_err");
    int failed = 0;
    double tol = real_bytes == 4 ? 1e-3 : 1e-9;
    for (int ci = 0; ci < ncases; ci++) {
        const bench_case *c = &cases[ci];
        size_t ib = c->in_reals * real_bytes, ob = c->out_reals * real_bytes;
        /* the reference, once per case, on its own arrays */
        void *rin = malloc(ib), *rout = malloc(ob);
        fill(rin, c->in_reals);
        void *rp = make_plan(&oracle, c, rin, rout);
        fill(rin, c->in_reals);
        oracle.execute(rp);
        oracle.destroy_plan(rp);
        free(rin);
        for (int pageable = 1; pageable >= 0; pageable--) {
            const char *mem = pageable ? "pageable" : "fftw_malloc";
            if (!strstr(memory_arg, mem))
                continue;
            void *in = pageable ? malloc(ib) : a.malloc(ib), *out = pageable ? malloc(ob) : a.malloc(ob);
            fill(in, c->in_reals);   /* touched before planning, as a program's data would be */
            memset(out, 0, ob);
            double t0 = bench_now();
            void *p = make_plan(&a, c, in, out);
            double t1 = bench_now();
            if (!p) {
                printf("%-16s %-12s the planner returned NULL\n", c->name, mem);
                failed = 1;
                continue;
            }
            fill(in, c->in_reals);
            double t2 = bench_now();
            a.execute(p);
            double t3 = bench_now();
            double first = t3 - t2;
            int reps = (int)fmin(max_reps, fmax(5, 0.5 / fmax(first, 1e-6)));
            double *ts = malloc(sizeof *ts * (size_t)reps);
            if (vs) {
                in_turns(&a, p, &b, c, in, out, pageable, reps, ts, vs_name, mem, f);
            } else {
                for (int r = 0; r < reps; r++)
                    ts[r] = timed(&a, p);
            }
            double med = median_sorted(ts, reps);
            double err = rel_err(out, rout, c->out_reals);
            failed |= !(err <= tol);
            printf("%-16s %-12s %10.4f %10.4f %10.6f %10.6f %5d %9.1f %9.2e%s\n", c->name, mem,
                   (t1 - t0) * 1e3, first * 1e3, med * 1e3, ts[0] * 1e3, reps, c->flops / med * 1e-9,
                   err, err <= tol ? "" : "  WRONG");
            fprintf(f, "%s,%s,%s,%s,%.4f,%.4f,%.6f,%.6f,%d,%.2f,%.3e\n", name,
                    real_bytes == 4 ? "single" : "double", c->name, mem, (t1 - t0) * 1e3, first * 1e3,
                    med * 1e3, ts[0] * 1e3, reps, c->flops / med * 1e-9, err);
            fflush(f);
            fflush(stdout);
            free(ts);
            a.destroy_plan(p);
            if (pageable) {
                free(in);
                free(out);
            } else {
                a.free(in);
                a.free(out);
            }
        }
        free(rout);
    }
    fclose(f);
    return failed;
}
