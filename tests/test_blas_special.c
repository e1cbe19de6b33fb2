/* test_blas_special.c — Level-1 BLAS (and a little Level 2) on the inputs random data never makes:
 * huge and tiny elements (nrm2 must scale where a plain sum of squares overflows or underflows),
 * Inf and NaN (first, in the middle, several), ties, zero scalars against NaN, the Givens
 * generators' edge cases, every rotm flag, and n <= 0, zero and negative increments.
 *
 * Each case runs through three surfaces and is held against netlib's reference BLAS (the static
 * oracle every test links): the C ABI on host arrays (cufort_<name>_host), the thunking F77 names
 * (cublas_<name>, from the libcufort_f77_thunking.so beside the libcufort.so in use) and the
 * drop-in's standard names (libcufort_blas.so, from the same directory; both opened RTLD_LOCAL so
 * that their names never meet the oracle's).  Where cufort documents another answer than the
 * oracle's, the case expects the documented one and says so.  The drop-in hands Level 1 and 2 to
 * the CPU BLAS as they are (docs/dropin-blas.md): its answer may be the CPU BLAS's instead.
 * CUFORT_BACKEND picks the backend, as for every test: on the cuda backend the first two surfaces
 * reach cuBLAS, whose answers docs/c-abi.md lists where they differ.
 *
 * Integers are compared exactly, copies bit for bit, other values to a few ulps of the oracle, a
 * NaN only by a NaN and an infinity only by the same infinity. */
#include "check.h"

#include <complex.h>
#include <ctype.h>
#include <dlfcn.h>
#include <float.h>
#include <libgen.h>

#include "f77.h"

typedef float _Complex cf;
typedef double _Complex zd;

/* CPU: the CPU BLAS the drop-in forwards Level 1 and 2 to, whose answer it may give instead */
enum { REF, CAPI, F77, DROPIN, NSURF, CPU = NSURF };
static const char *surf_name[NSURF] = {"reference", "C ABI", "F77", "drop-in"};
static void *lib_of[NSURF + 1];

#define RI(v) (&(int){(int)(v)})
#define FI(v) (&(f77_int){(f77_int)(v)})

/* ---- the two libraries opened by name, under the build's F77 name mangling ---- */
static void *open_beside(const char *file)
{
    Dl_info info;
    char dir[4096], path[4200];
    if (!dladdr((void *)cufort_init, &info) || !info.dli_fname) return NULL;
    snprintf(dir, sizeof dir, "%s", info.dli_fname);
    snprintf(path, sizeof path, "%s/%s", dirname(dir), file);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) printf("# %s: %s\n", path, dlerror());
    return lib;
}

static void *fsym(int surf, const char *name)
{
    char sym[64], *p = sym;
    int scheme = 1;
#ifdef CUFORT_F77_MANGLING
    scheme = CUFORT_F77_MANGLING;
#endif
    snprintf(sym, sizeof sym, "%s%s", surf == F77 ? "cublas_" : "", name);
    if (surf == CPU)
        strcat(sym, "_");
    else if (scheme == 4)
        for (; *p; p++) *p = (char)toupper((unsigned char)*p);
    else if (scheme != 3)
        strcat(sym, scheme == 2 && surf == F77 ? "__" : "_");
    void *f = lib_of[surf] ? dlsym(lib_of[surf], sym) : NULL;
    if (!f) {
        printf("FAIL %s %s: %s not found\n", ck_test, surf_name[surf], sym);
        exit(1);
    }
    return f;
}

/* ---- elements: type letter s d c z; values as (re, im) doubles ---- */
static int cplx(char t) { return t == 'c' || t == 'z'; }
static int single(char t) { return t == 's' || t == 'c'; }
static size_t esize(char t) { return t == 's' ? 4 : t == 'z' ? 16 : 8; }

static void put(char t, void *b, int64_t i, double re, double im)
{
    switch (t) {
    case 's': ((float *)b)[i] = (float)re; break;
    case 'd': ((double *)b)[i] = re; break;
    case 'c': ((cf *)b)[i] = CMPLXF((float)re, (float)im); break;
    default: ((zd *)b)[i] = CMPLX(re, im);
    }
}

static void get(char t, const void *b, int64_t i, double *re, double *im)
{
    switch (t) {
    case 's': *re = ((const float *)b)[i], *im = 0; break;
    case 'd': *re = ((const double *)b)[i], *im = 0; break;
    case 'c': *re = crealf(((const cf *)b)[i]), *im = cimagf(((const cf *)b)[i]); break;
    default: *re = creal(((const zd *)b)[i]), *im = cimag(((const zd *)b)[i]);
    }
}

/* Markers in the case tables, made per precision: huge (squares overflow), tiny (squares
 * underflow), subnormal. */
#define HUGE_ 7.0e7
#define TINY_ 8.0e7
#define SUB_ 9.0e7
static double special(char t, double v)
{
    double s = v < 0 ? -1 : 1, a = fabs(v);
    if (a == HUGE_) return s * (single(t) ? FLT_MAX / 2 : 1e300);
    if (a == TINY_) return s * (single(t) ? 3e-30 : 1e-300);
    if (a == SUB_) return s * (single(t) ? 3 * FLT_TRUE_MIN : 3 * DBL_TRUE_MIN);
    return v;
}

/* Agreement of one value with the oracle's: NaN with NaN, equal (infinities included), or within
 * tol relatively. */
static int agree(double got, double want, double tol)
{
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
    if (got == want) return 1;
    if (isinf(want) || isinf(got)) return 0;
    return fabs(got - want) <= tol * fmax(fabs(want), fabs(got));
}
static double tol_of(char t) { return single(t) ? 2e-6 : 4e-15; }

/* a vector of n elements at increment inc: its span, filled from re/im (NULL im: real) */
#define NMAX 8
#define SPAN (1 + (NMAX - 1) * 3)
typedef struct {
    char t;
    _Alignas(16) unsigned char b[SPAN * 16];
} vec;

static void fill(vec *v, char t, const double *re, const double *im, int count)
{
    v->t = t;
    for (int i = 0; i < SPAN; i++)
        put(t, v->b, i, i < count ? special(t, re[i]) : 0.25 + i, i < count && im ? special(t, im[i]) : -0.5);
}

/* the first element in which two copies of a vector differ (-1: none); exact: bit for bit */
static int differ(const vec *got, const vec *want, int exact)
{
    for (int i = 0; i < SPAN; i++) {
        if (exact) {
            if (memcmp(got->b + i * esize(got->t), want->b + i * esize(got->t), esize(got->t))) return i;
            continue;
        }
        double gr, gi, wr, wi;
        get(got->t, got->b, i, &gr, &gi);
        get(want->t, want->b, i, &wr, &wi);
        if (!agree(gr, wr, tol_of(got->t)) || !agree(gi, wi, tol_of(got->t))) return i;
    }
    return -1;
}

static const char *show(const vec *v, int i)
{
    double re, im;
    get(v->t, v->b, i, &re, &im);
    return cplx(v->t) ? ckf("(%.9g,%.9g)", re, im) : ckf("%.9g", re);
}

#include "blas_special_calls.h"
#include "blas_special_cases.h"

int main(void)
{
    ck_begin("blas_special", 300);
    CHECK_OK(cufort_init(), "cufort_init");
    lib_of[F77] = open_beside("libcufort_f77_thunking.so");
    lib_of[DROPIN] = open_beside("libcufort_blas.so");
    const char *cpu = getenv("CUFORT_CPU_BLAS");
    lib_of[CPU] = dlopen(cpu && *cpu ? cpu : "libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib_of[CPU] && !(cpu && *cpu)) lib_of[CPU] = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
    CHECK(lib_of[F77] && lib_of[DROPIN] && lib_of[CPU], "the F77 thunking, drop-in and CPU BLAS libraries open",
          "missing");
    if (!lib_of[F77] || !lib_of[DROPIN] || !lib_of[CPU]) return ck_end();
    printf("# backend %s\n", cufort_backend_name());
    run_cases();
    CHECK_OK(cufort_shutdown(), "cufort_shutdown (frees every device allocation: a clean leak check)");
    return ck_end();
}
