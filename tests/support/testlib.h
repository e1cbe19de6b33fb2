/* testlib.h — support for the generated BLAS tests (tests/generated/test_blas.c).
 *
 * One generated source is compiled into four binaries, one per layer (-DLAYER_DEVICE, -DLAYER_HOST,
 * -DLAYER_F77_DEVICE, -DLAYER_F77_THUNKING).  For every case the generated code declares the
 * routine's arguments, registers its arrays here (tl_arr), lets this library fill and stage them
 * (tl_fill, tl_stage), calls the layer's entry point, runs the double-precision oracle on upcast
 * copies of the same inputs and hands over to tl_finish, which compares and prints
 *     ok <layer> <variant> <case>            or
 *     FAIL <layer> <variant> <case>: <reason>
 * tl_summary prints "N passed, M failed".
 *
 * Comparison rule (whole allocation, guard elements included): an element the oracle left
 * bit-for-bit unchanged is one BLAS does not define (a gap between strided elements, the other
 * triangle, rows past m inside ld, a zero-size call) and must come back bit-for-bit unchanged;
 * every other element must match the oracle to the precision's tolerance.  Inputs are never zero
 * (uniform in +-[0.1, 1]); outputs that must not be read (io "out", or C/y when beta = 0) are
 * poisoned with NaN first.
 */
#ifndef CUFORT_TESTLIB_H
#define CUFORT_TESTLIB_H

#include <complex.h>
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>

#include "cufort.h"

/* ---- which layer this binary tests ---- */
#if defined(LAYER_DEVICE)
#define TL_LAYER "device"
#define TL_F77 0
#define TL_DEVICE_MEM 1
#define CAPI(f) f
#elif defined(LAYER_HOST)
#define TL_LAYER "host"
#define TL_F77 0
#define TL_DEVICE_MEM 0
#define CAPI(f) f##_host
#elif defined(LAYER_F77_DEVICE)
#define TL_LAYER "f77_device"
#define TL_F77 1
#define TL_DEVICE_MEM 1
#elif defined(LAYER_F77_THUNKING)
#define TL_LAYER "f77_thunking"
#define TL_F77 1
#define TL_DEVICE_MEM 0
#elif defined(LAYER_DROPIN)
/* the drop-in library (libcufort_blas): standard names, Fortran convention, host arrays; the F77
 * protocol's cublas_init_/cublas_get_error_ come from tests/dropin/layer.c */
#define TL_LAYER "dropin"
#define TL_F77 1
#define TL_DEVICE_MEM 0
#define TL_DROPIN 1
#else
#error "define one of LAYER_DEVICE, LAYER_HOST, LAYER_F77_DEVICE, LAYER_F77_THUNKING, LAYER_DROPIN"
#endif
#ifndef TL_DROPIN
#define TL_DROPIN 0
#endif

/* Fortran calling convention: everything by reference, INTEGER is the F77 layer's (int32_t, or
 * int64_t in a build with F77_INT64=1), device arrays are integer*8 addresses (non-thunking) or the
 * host arrays themselves (thunking). */
#ifdef CUFORT_F77_INT64
typedef int64_t tl_fint;
#else
typedef int32_t tl_fint;
#endif
#define TL_FINT(v) (&(tl_fint){(tl_fint)(v)})
#if TL_F77 && TL_DEVICE_MEM
#define F77ARRT(T) const int64_t *
#define F77ARR(a) (&(int64_t){(int64_t)(intptr_t)tl_ptr(a)})
#else
#define F77ARRT(T) T *
#define F77ARR(a) tl_ptr(a)
#endif

/* Netlib (oracle) integers are default Fortran INTEGER. */
#define TL_INT(v) (&(int){(int)(v)})

/* The helpers the routine table's conditions use. */
#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define NOTR(c) (toupper((unsigned char)(c)) == 'N')
#define LEFT(c) (toupper((unsigned char)(c)) == 'L')
#define MUL_WIDE(a, b) ((__int128)(a) * (__int128)(b))

enum { TL_S, TL_D, TL_C, TL_Z };                       /* element types */
enum { TL_IN = 1, TL_OUT = 2, TL_INOUT = 3 };          /* array directions */
enum { TL_SCALED = 4, TL_HOSTREF = 8 };                /* array flags, or-ed into io */
enum { TL_RANDOM = 0, TL_BETA0 = 1, TL_ALPHA0 = 2 };   /* scalar mode of a case */
enum { TL_BADPTR_HOST = 1, TL_BADPTR_END = 2 };

#define TL_MAXARGS 24
#define TL_MAXARRAYS 6

typedef struct {
    int pos;        /* 1-based argument position; 0 ends the list */
    int64_t val;
} tl_set;

/* One test case: deviations from the routine's default arguments. */
typedef struct {
    const char *name;
    char opt[TL_MAXARGS];    /* option letter by argument position */
    tl_set set[4];           /* integer arguments given explicit values */
    int scal;                /* TL_RANDOM | TL_BETA0 | TL_ALPHA0 */
    int sub;                 /* arrays start at an offset inside larger allocations */
    int bad;                 /* position of the argument given an illegal value, 0: none */
    char badopt;             /* the illegal letter when that argument is an option */
    int badptr;              /* device layers: TL_BADPTR_HOST | TL_BADPTR_END on the first array */
    double flag;             /* rotm: param[0] */
    int rep;                 /* varies the random inputs of otherwise identical cases */
    int big;                 /* dimensions several times the defaults */
} tl_case;

typedef struct {
    const char *name;
    int type, rtype;         /* element type under test, oracle element type */
    int io, flags;
    int64_t extent;          /* elements the routine spans from the pointer it is given */
    int64_t off, total;      /* pointer offset inside the allocation, allocation size */
    int64_t shift;           /* TL_BADPTR_END: the pointer given is one element further */
    size_t es, res;          /* element sizes */
    void *host, *orig, *ref, *dev, *badbuf;
    void *raw;               /* host's allocation (host itself is deliberately minimally aligned) */
    unsigned char *ignore;   /* elements excluded from the comparison (rotmg's unused H) */
} tl_array;

typedef struct {
    const tl_case *tc;
    const char *variant;
    int prec;                /* TL_S .. TL_Z: tolerance */
    uint64_t rng;
    tl_array arr[TL_MAXARRAYS];
    int narr;
    int ready;               /* arrays staged, the call may run */
    int status, info;        /* what the call returned (F77: derived from xerbla/get_error) */
    char xname[32];          /* F77: name xerbla received */
    int xcalled;
    int result;              /* 0, 'I', 'R' or 'T' */
    double _Complex res, rres;
    int64_t ires, rires;
    int have_rres;
    char fail[768];
} tl_ctx;

/* ---- a case ---- */
void tl_begin(tl_ctx *X, const char *variant, int prec, const tl_case *tc, int result);
char tl_opt(const tl_case *tc, int pos, char dflt);
int64_t tl_int(const tl_case *tc, int pos, int64_t dflt);
double _Complex tl_scalar(tl_ctx *X, const char *name, int is_complex);
tl_array *tl_arr(tl_ctx *X, const char *name, int type, int rtype, int io, int64_t extent,
                 int64_t lead);
void tl_fill(tl_ctx *X);                      /* random inputs, NaN-poisoned outputs */
void tl_stage(tl_ctx *X);                     /* originals, oracle copies, device copies */
void tl_bad_check(tl_ctx *X, int still_legal);/* the illegal value must break the check */
void *tl_ptr(tl_array *a);                    /* what the layer under test is given */
void *tl_ref(tl_array *a);                    /* the oracle's copy, at the same offset */
void tl_capi_end(tl_ctx *X, int status);
void tl_f77_begin(tl_ctx *X);
void tl_f77_end(tl_ctx *X);
void tl_result(tl_ctx *X, double _Complex v);
void tl_iresult(tl_ctx *X, int64_t v);
void tl_rresult(tl_ctx *X, double _Complex v);
void tl_riresult(tl_ctx *X, int64_t v);
int tl_expect_call(const tl_ctx *X);          /* a legal call whose outputs the oracle gives */
void tl_finish(tl_ctx *X);

/* ---- extents, independent of the library's own ---- */
int64_t tl_extent_mat(int64_t rows, int64_t cols, int64_t ld);
int64_t tl_extent_vec(int64_t n, int64_t inc);
int64_t tl_extent_pack(int64_t count);
int64_t tl_extent_bmat(int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t batch);

/* ---- special inputs ---- */
/* Triangular solves: |diag| in [1, 2], off-diagonal elements scaled by 1/n. */
void tl_dominant_full(tl_array *a, int64_t n, int64_t ld);
void tl_dominant_band(tl_array *a, int64_t n, int64_t k, int64_t ld, char uplo);
void tl_dominant_packed(tl_array *a, int64_t n, char uplo);
void tl_set_elem(tl_array *a, int64_t i, double _Complex v);
void tl_positive(tl_array *a);                /* |x| of every element */
/* herkx: B = A scaled per column (trans N) or per row (trans C) by positive reals, so that
 * op(A) op(B)^H is hermitian as cuBLAS requires. */
void tl_herkx_inputs(tl_array *A, tl_array *B, int64_t rows, int64_t cols, int64_t lda,
                     int64_t ldb, char trans);
void tl_rotmg_ignore(tl_array *param);        /* after the oracle: H entries its flag leaves */

/* ---- run ---- */
void tl_init(void);                           /* cufort_init / cublas_init_, line buffering */
int tl_selected(const char *variant);         /* CUFORT_BLAS_FILTER=name[,name...] */
int tl_summary(void);                         /* prints the summary, returns the exit status */
/* One more outcome beyond the generated cases: "ok <layer> <variant> <what>" when fail is NULL,
 * else "FAIL ...: <fail>"; counted in the summary. */
void tl_outcome(const char *variant, const char *what, const char *fail);
#if TL_DROPIN
void tl_dropin_routing(void);                 /* tests/dropin/layer.c: where each routine ran */
#endif

#endif
