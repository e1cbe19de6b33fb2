/* host_internal.h — the host backend's helpers: the CPU BLAS and the real FFTW found at run time,
 * int narrowing. */
#ifndef CUFORT_HOST_INTERNAL_H
#define CUFORT_HOST_INTERNAL_H

#include "internal.h"

/* Resolves a Fortran BLAS symbol (e.g. "sgemm_") in the CPU BLAS: $CUFORT_CPU_BLAS if set, else
 * libopenblas.so.0, libblas.so.3 (never the drop-in library).  Caches it into *slot, which threads
 * share (read and written atomically), and gives it in *fn; fails with CUFORT_NOT_SUPPORTED
 * (cpu_blas_status.c).  cufort_cpu_blas_find (cpu_blas.c, which the drop-in library compiles in
 * too) fills the slot alone, without libcufort's error state: -1 and the reason. */
int cufort_cpu_blas_symbol(const char *symbol, void **slot, void **fn);
int cufort_cpu_blas_find(const char *symbol, void **fn, char *why, size_t why_len);
const char *cufort_cpu_blas_path(void);     /* opens it first */
const char *cufort_cpu_blas_opened(void);   /* "(not opened)" until something needed it */

/* ---- the real FFTW (cpu_fftw.c), double (single = 0) or single precision (single = 1) ----
 * $CUFORT_CPU_FFTW / $CUFORT_CPU_FFTWF, else libfftw3.so.3 / libfftw3f.so.3 (never the drop-in
 * library).  Also used by the FFTW drop-in for its CPU path.  Symbols are resolved on that library's
 * handle ("fftw_plan_dft_1d"), cached into *fn; failures are CUFORT_NOT_SUPPORTED with the reason. */
int cufort_cpu_fftw_symbol(int single, const char *symbol, void **fn);
int cufort_cpu_fftw_threads_symbol(int single, const char *symbol, void **fn);   /* init_threads, ... */
const char *cufort_cpu_fftw_path(int single);     /* opens it first */
const char *cufort_cpu_fftw_opened(int single);   /* "(not opened)" until something needed it */
/* FFTW's planner (plan creation and destruction) is not thread-safe: every caller holds this (a
 * thread may take it again while it holds it).  It also marks the thread as inside FFTW. */
void cufort_cpu_fftw_lock(void);
void cufort_cpu_fftw_unlock(void);
/* Every other call into FFTW (execution, queries) is bracketed by enter/leave: FFTW calls its own
 * API, and with the FFTW drop-in preloaded those calls reach the drop-in, which must hand them
 * straight back when cufort_cpu_fftw_inside() (see cpu_fftw.c). */
extern _Thread_local int cufort_cpu_fftw_depth __attribute__((tls_model("initial-exec")));
static inline void cufort_cpu_fftw_enter(void) { cufort_cpu_fftw_depth++; }
static inline void cufort_cpu_fftw_leave(void) { cufort_cpu_fftw_depth--; }
static inline int cufort_cpu_fftw_inside(void) { return cufort_cpu_fftw_depth > 0; }

/* What the host backend's FFT plans and runs with; plans and arrays as void * (either precision). */
typedef struct {
    void *(*plan_many_dft)(int rank, const int *n, int howmany, void *in, const int *inembed,
                           int istride, int idist, void *out, const int *onembed, int ostride,
                           int odist, int sign, unsigned flags);
    void *(*plan_many_dft_r2c)(int rank, const int *n, int howmany, void *in, const int *inembed,
                               int istride, int idist, void *out, const int *onembed, int ostride,
                               int odist, unsigned flags);
    void *(*plan_many_dft_c2r)(int rank, const int *n, int howmany, void *in, const int *inembed,
                               int istride, int idist, void *out, const int *onembed, int ostride,
                               int odist, unsigned flags);
    void (*execute_dft)(void *plan, void *in, void *out);
    void (*execute_dft_r2c)(void *plan, void *in, void *out);
    void (*execute_dft_c2r)(void *plan, void *in, void *out);
    void (*destroy_plan)(void *plan);
} cufort_fftw_api;
const cufort_fftw_api *cufort_cpu_fftw(int single);   /* NULL (error set) when not available */

/* Offset of element i of an n-element BLAS vector at stride inc: a negative inc starts at
 * (1 - n) * inc and walks backwards, inc 0 repeats element 0 (reference BLAS). */
static inline int64_t cufort_blas_vix(int64_t n, int64_t inc, int64_t i)
{
    return (inc < 0 ? (1 - n) * inc : 0) + i * inc;
}

/* A Level-2 vector of n elements at stride inc, copied for the CPU BLAS with room on both sides
 * (cpu_blas_vec.c): p holds element i at i, for increment 1; _out copies it back. */
typedef struct {
    char *buf, *p;
} cufort_cpu_vec;
int cufort_cpu_vec_in(cufort_cpu_vec *v, const void *x, int64_t n, int64_t inc, size_t es);
void cufort_cpu_vec_out(const cufort_cpu_vec *v, void *x, int64_t n, int64_t inc, size_t es);
void cufort_cpu_vec_free(cufort_cpu_vec *v);

/* CUFORT_HOST_GUARD_PAGES (host_guard.c): every "device" block flush against an inaccessible page
 * before it or after it (the variable is read once, at the first allocation). */
enum { CUFORT_HOST_GUARD_NONE, CUFORT_HOST_GUARD_BEFORE, CUFORT_HOST_GUARD_AFTER };
int cufort_host_guard_side(void);
int cufort_host_guarded_alloc(void **p, size_t bytes, int side);
void cufort_host_guarded_free(void *p);

/* CPU BLAS takes 32-bit integers: narrowing that would truncate is an error, never silent. */
int cufort_host_int(int *out, int64_t v, const char *name);

/* How the CPU libraries (BLAS, FFTW) are opened.  RTLD_DEEPBIND: a library's own internal calls
 * must not bind to symbols of the same names elsewhere in the process (a test's static reference
 * BLAS, the drop-ins' exports).  AddressSanitizer and ThreadSanitizer refuse to run with it
 * (they must see every malloc), so the sanitizer builds go without: there a library's internal
 * calls may land on such a symbol, which the drop-ins hand straight back (cpu_fftw.c's in-FFTW
 * mark) and which changes no result. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CUFORT_CPU_LIB_OPEN (RTLD_NOW | RTLD_LOCAL)
#else
#define CUFORT_CPU_LIB_OPEN (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#endif

#endif
