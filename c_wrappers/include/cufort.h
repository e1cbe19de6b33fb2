/* cufort.h — the cufort C ABI.
 *
 * Conventions: column-major matrices as in BLAS; indices are 0-based (the Fortran layers add 1);
 * sizes, dimensions, increments and leading dimensions are int64_t; every call returns a status
 * (CUFORT_SUCCESS = 0) and, on failure, leaves a one-line message for this thread in
 * cufort_last_error().  "Device memory" means memory from cufort_alloc (or cudaMalloc): on the host
 * backend it is host memory, so the same program runs with or without a GPU.
 */
#ifndef CUFORT_H
#define CUFORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#include <complex>
typedef std::complex<float> cufort_cfloat;
typedef std::complex<double> cufort_cdouble;
extern "C" {
#else
typedef float _Complex cufort_cfloat;
typedef double _Complex cufort_cdouble;
#endif

/* Status codes carry cuBLAS's cublasStatus_t values where one exists, so the legacy
 * cublas_get_error reports exactly what fortran.c users test for. */
enum {
    CUFORT_SUCCESS = 0,
    CUFORT_NOT_INITIALIZED = 1,
    CUFORT_ALLOC_FAILED = 3,
    CUFORT_INVALID_VALUE = 7,      /* bad argument; for BLAS, cufort_last_info() is its position */
    CUFORT_ARCH_MISMATCH = 8,
    CUFORT_MAPPING_ERROR = 11,     /* cuBLAS's own, passed through; a failed copy is EXECUTION_FAILED */
    CUFORT_EXECUTION_FAILED = 13,  /* a CUDA or cuBLAS call failed, copies included */
    CUFORT_INTERNAL_ERROR = 14,
    CUFORT_NOT_SUPPORTED = 15,
    CUFORT_NO_DEVICE = 100,        /* the cuda backend was asked for and no usable GPU exists */
    CUFORT_BAD_POINTER = 101       /* not device memory, or the array runs past its allocation */
};

enum { CUFORT_BACKEND_AUTO = 0, CUFORT_BACKEND_CUDA = 1, CUFORT_BACKEND_HOST = 2 };

/* ---- version ------------------------------------------------------------------------------------ */
/* The one place the version is set: the Makefile reads these three lines for the SONAMEs
 * (libcufort.so.MAJOR), the pkg-config files and the CMake package.  The major version changes when
 * the ABI breaks.  CUFORT_VERSION is comparable in #if: 10203 for 1.2.3. */
#define CUFORT_VERSION_MAJOR 1
#define CUFORT_VERSION_MINOR 0
#define CUFORT_VERSION_PATCH 0
#define CUFORT_VERSION (CUFORT_VERSION_MAJOR * 10000 + CUFORT_VERSION_MINOR * 100 + CUFORT_VERSION_PATCH)

/* The version of the library the program runs with (the macros above give the header's, which may be
 * older or newer): any of the pointers may be NULL.  Needs no cufort_init; returns CUFORT_SUCCESS. */
int cufort_version(int *major, int *minor, int *patch);
const char *cufort_version_string(void);  /* "1.0.0", static storage */

/* ---- context ------------------------------------------------------------------------------------ */
/* Chooses the backend from CUFORT_BACKEND=cuda|host|auto (default auto: cuda when a GPU is usable)
 * and the device from CUFORT_DEVICE, else the first of CUFORT_DEVICES, else the MPI local rank
 * (OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID,
 * PMI_LOCAL_RANK, PMIX_LOCAL_RANK) modulo the device count, else 0; a value naming no backend or
 * device is CUFORT_INVALID_VALUE.  Idempotent and thread-safe.
 *
 * cufort_shutdown frees everything cufort allocated: device and pinned blocks, registrations,
 * streams, events, FFT plans, cuBLAS handles and per-thread buffers.  It is safe while other
 * threads are inside cufort calls: it waits for those calls to return, and calls that arrive while
 * it runs wait until it is done.  Afterwards device-pointer calls return CUFORT_NOT_INITIALIZED,
 * host-array calls initialise cufort again, and every handle and device pointer from before the
 * shutdown is dead (refused with a status where cufort can tell, which it can for plans, streams,
 * events and its own blocks).  Called from code cufort runs during one of its calls, it is refused
 * with CUFORT_INVALID_VALUE (a program's xerbla runs after the failed call has returned).
 * cufort_set_device after init waits the same way, and what belongs to the old device goes with
 * it: FFT plans, streams, events, per-thread buffers (device blocks stay; on the cuda backend they
 * are the old device's memory).
 *
 * Per-thread state (buffers, staging slots, streams, cuBLAS handle) goes back to a small pool when
 * its thread exits, where the next new thread takes it over: memory stays bounded however many
 * threads come and go. */
int cufort_init(void);
int cufort_init_backend(int backend);
int cufort_shutdown(void);
int cufort_is_initialized(void);
int cufort_backend(void);                 /* CUFORT_BACKEND_CUDA or _HOST; 0 before init */
const char *cufort_backend_name(void);    /* "cuda", "host" or "none" */

/* ---- errors ------------------------------------------------------------------------------------- */
const char *cufort_last_error(void);      /* this thread's last message, "" when none */
int cufort_last_info(void);               /* position of the bad BLAS argument, 0 when none */
void cufort_clear_error(void);
const char *cufort_status_string(int status);

/* ---- devices ------------------------------------------------------------------------------------ */
typedef struct {
    char name[256];
    int64_t total_memory;                 /* bytes */
    int multiprocessors;
    int major, minor;                     /* compute capability; 0.0 on the host backend */
    int64_t memory_clock_khz;
    int memory_bus_width;                 /* bits */
} cufort_device_properties;

int cufort_device_count(int *count);
int cufort_set_device(int device);        /* before or after init; after init it re-binds */
int cufort_get_device(int *device);
int cufort_get_device_properties(int device, cufort_device_properties *props);
int cufort_device_synchronize(void);
int cufort_mem_info(int64_t *free_bytes, int64_t *total_bytes);

/* ---- memory ------------------------------------------------------------------------------------- */
int cufort_alloc(void **device_ptr, int64_t bytes);
int cufort_free(void *device_ptr);
int cufort_host_alloc(void **host_ptr, int64_t bytes);     /* pinned (page-locked) */
int cufort_host_free(void *host_ptr);
int cufort_host_register(void *host_ptr, int64_t bytes);   /* pin an existing array */
int cufort_host_unregister(void *host_ptr);
/* cufort_free, cufort_host_free and cufort_host_unregister wait until the calls other threads have
 * in flight return (calls arriving meanwhile wait for the free): such a call may hold a stale
 * pointer that now lies in the block, checked as valid before the free.  From inside a cufort call
 * (a callback) they do not wait. */
/* The pin cache (README "Repeated host arrays"): a contiguous host array that thunked calls keep
 * passing (any over 32 MiB; from 1 MiB, static data and malloc blocks with a mapping of their own)
 * is pinned in place from its third copy on, and unpinned as soon as the program unmaps or
 * discards its pages.  limit: the most bytes it may hold pinned; 0 turns it
 * off and unpins everything, a negative value restores the default (CUFORT_PIN_CACHE_MB, else a
 * quarter of the host's memory).  info: what it holds now, and whether this host lets it watch
 * ranges at all (userfaultfd; without, it never pins). */
int cufort_pin_cache_limit(int64_t bytes);
int cufort_pin_cache_info(int64_t *pinned_bytes, int *pinned_arrays, int *can_watch);

/* ---- streams and events ------------------------------------------------------------------------- */
typedef struct cufort_stream_s *cufort_stream;   /* NULL is the default stream */
typedef struct cufort_event_s *cufort_event;

int cufort_stream_create(cufort_stream *stream);
int cufort_stream_destroy(cufort_stream stream);
int cufort_stream_synchronize(cufort_stream stream);
int cufort_set_stream(cufort_stream stream);     /* the stream this thread's BLAS calls run on */
int cufort_get_stream(cufort_stream *stream);
int cufort_event_create(cufort_event *event);
int cufort_event_destroy(cufort_event event);
int cufort_event_record(cufort_event event, cufort_stream stream);
int cufort_event_synchronize(cufort_event event);
int cufort_event_elapsed_ms(float *ms, cufort_event start, cufort_event stop);  /* waits for stop */

/* ---- transfers (elem_size in bytes; increments and leading dimensions in elements, > 0) ----------- */
int cufort_set_vector(int64_t n, int64_t elem_size, const void *x, int64_t incx, void *dy, int64_t incy);
int cufort_get_vector(int64_t n, int64_t elem_size, const void *dx, int64_t incx, void *y, int64_t incy);
int cufort_set_matrix(int64_t rows, int64_t cols, int64_t elem_size, const void *a, int64_t lda,
                      void *db, int64_t ldb);
int cufort_get_matrix(int64_t rows, int64_t cols, int64_t elem_size, const void *da, int64_t lda,
                      void *b, int64_t ldb);
int cufort_copy_matrix(int64_t rows, int64_t cols, int64_t elem_size, const void *da, int64_t lda,
                       void *db, int64_t ldb);                              /* device to device */
int cufort_set_vector_async(int64_t n, int64_t elem_size, const void *x, int64_t incx, void *dy,
                            int64_t incy, cufort_stream stream);
int cufort_get_vector_async(int64_t n, int64_t elem_size, const void *dx, int64_t incx, void *y,
                            int64_t incy, cufort_stream stream);
int cufort_set_matrix_async(int64_t rows, int64_t cols, int64_t elem_size, const void *a, int64_t lda,
                            void *db, int64_t ldb, cufort_stream stream);
int cufort_get_matrix_async(int64_t rows, int64_t cols, int64_t elem_size, const void *da,
                            int64_t lda, void *b, int64_t ldb, cufort_stream stream);

/* ---- BLAS --------------------------------------------------------------------------------------
 * cufort_<name>(...)       arrays are device pointers (cuBLAS underneath on the cuda backend)
 * cufort_<name>_host(...)  arrays are host arrays: copied in, computed on the device, copied back
 * Arguments follow reference BLAS order and meaning, scalars by value; a function's value (dot,
 * nrm2, asum, i?amax) comes back through the last argument, i?amax/i?amin 0-based (-1: empty).
 * Illegal arguments return CUFORT_INVALID_VALUE with cufort_last_info() = the reference BLAS
 * parameter number. */
#include "cufort_blas.h"
#include "cufort_kernels.h"
#include "cufort_fft.h"

#ifdef __cplusplus
}
#endif
#endif
