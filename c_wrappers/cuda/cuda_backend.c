/* cuda_backend.c — the cuda backend's memory, copies, streams and per-thread cuBLAS handles.
 * CUDA's current device is per host thread, so every entry first binds the calling thread to
 * cufort's device; cuBLAS handles are per thread too (created lazily, released at shutdown or
 * handed on when their thread exits). */
#include <cuda.h>
#include <pthread.h>
#include <stdlib.h>

#include "cuda_internal.h"
#include "thread_state.h"

/* ---- status mapping ---- */

int cufort_cuda_error(cudaError_t e, const char *call)
{
    if (e == cudaSuccess)
        return CUFORT_SUCCESS;
    cudaGetLastError();   /* clear a non-sticky error so the next call starts clean */
    int st = e == cudaErrorMemoryAllocation ? CUFORT_ALLOC_FAILED
             : e == cudaErrorInvalidValue   ? CUFORT_INVALID_VALUE
             : e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? CUFORT_NO_DEVICE
                                                                          : CUFORT_EXECUTION_FAILED;
    return cufort_fail(st, "%s failed: %s (%s)", call, cudaGetErrorName(e), cudaGetErrorString(e));
}

int cufort_cuda_status(cublasStatus_t s, const char *call)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return CUFORT_SUCCESS;
    return cufort_fail((int)s, "%s failed: %s", call, cublasGetStatusString(s));
}

static _Thread_local unsigned bound_generation;
static _Thread_local int bound_device;

int cufort_cuda_bind_thread(void)
{
    unsigned g = cufort_generation();
    int dev = cufort_current_device();
    if (bound_generation == g && bound_device == dev)
        return CUFORT_SUCCESS;
    int st = cufort_cuda_error(cudaSetDevice(dev), "cudaSetDevice");
    if (!st) {
        bound_generation = g;
        bound_device = dev;
    }
    return st;
}

/* ---- cuBLAS handles: one per thread, a per-thread cache (thread_state.h) ---- */

typedef struct {
    cufort_thread_state link;
    cublasHandle_t h;
    cufort_stream stream;        /* the stream h is set to */
} handle_cache;

static void release_handle(cufort_thread_state *s)
{
    handle_cache *c = (handle_cache *)s;
    if (c->h)
        cublasDestroy(c->h);
}

static cufort_thread_states handle_caches = CUFORT_THREAD_STATES(handle_cache, release_handle);
static _Thread_local handle_cache *my_handle;

/* CUFORT_ALLOW_TF32=1: single-precision GEMM-like calls may round their inputs to TF32 (10-bit
 * mantissa) on the tensor cores, accumulating in FP32: several times the FP32 rate at about 1e-3
 * relative error per product.  Off by default: BLAS users expect FP32 results. */
static int allow_tf32(cublasHandle_t h)
{
    const char *env = getenv("CUFORT_ALLOW_TF32");
    if (!env || strcmp(env, "1") != 0)
        return CUFORT_SUCCESS;
    return cufort_cuda_status(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH), "cublasSetMathMode");
}

int cufort_cuda_handle(cublasHandle_t *handle)
{
    int st = cufort_cuda_bind_thread();
    if (st)
        return st;
    handle_cache *c = cufort_thread_state_get(&handle_caches, (void **)&my_handle);
    if (!c)
        return CUFORT_ALLOC_FAILED;
    if (!c->h) {   /* none yet, or destroyed by a shutdown or device change */
        cublasHandle_t h;
        st = cufort_cuda_status(cublasCreate(&h), "cublasCreate");
        if (st)
            return st;
        if ((st = allow_tf32(h))) {
            cublasDestroy(h);
            return st;
        }
        c->h = h;
        c->stream = NULL;
    }
    cufort_stream s = cufort_thread_stream();
    if (s != c->stream) {
        st = cufort_cuda_status(cublasSetStream(c->h, (cudaStream_t)s), "cublasSetStream");
        if (st)
            return st;
        c->stream = s;
    }
    *handle = c->h;
    return CUFORT_SUCCESS;
}

/* ---- device ---- */

static int cuda_device_count(int *count)
{
    *count = 0;
    return cufort_cuda_error(cudaGetDeviceCount(count), "cudaGetDeviceCount");
}

static int cuda_open(int device)
{
    int st = cufort_cuda_error(cudaSetDevice(device), "cudaSetDevice");
    return st ? st : cufort_cuda_error(cudaFree(NULL), "creating the CUDA context");
}

/* the per-thread handles went with the reset that comes before either */
static void cuda_close(void) { cudaDeviceSynchronize(); }

static int cuda_set_device(int device)
{
    cudaDeviceSynchronize();
    return cufort_cuda_error(cudaSetDevice(device), "cudaSetDevice");
}

static int cuda_properties(int device, cufort_device_properties *p)
{
    struct cudaDeviceProp prop;
    int st = cufort_cuda_error(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    if (st)
        return st;
    memcpy(p->name, prop.name, sizeof p->name - 1);
    p->total_memory = (int64_t)prop.totalGlobalMem;
    p->multiprocessors = prop.multiProcessorCount;
    p->major = prop.major;
    p->minor = prop.minor;
    int clock = 0;
    cudaDeviceGetAttribute(&clock, cudaDevAttrMemoryClockRate, device);
    p->memory_clock_khz = clock;
    p->memory_bus_width = prop.memoryBusWidth;
    return CUFORT_SUCCESS;
}

static int cuda_synchronize(void)
{
    int st = cufort_cuda_bind_thread();
    return st ? st : cufort_cuda_error(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

static int cuda_mem_info(int64_t *free_bytes, int64_t *total_bytes)
{
    size_t f = 0, t = 0;
    int st = cufort_cuda_bind_thread();
    if (!st)
        st = cufort_cuda_error(cudaMemGetInfo(&f, &t), "cudaMemGetInfo");
    *free_bytes = (int64_t)f;
    *total_bytes = (int64_t)t;
    return st;
}

/* ---- memory ---- */

static int cuda_alloc(void **p, size_t bytes)
{
    int st = cufort_cuda_bind_thread();
    return st ? st : cufort_cuda_error(cudaMalloc(p, bytes), "cudaMalloc");
}

static int cuda_free(void *p)
{
    int st = cufort_cuda_bind_thread();
    return st ? st : cufort_cuda_error(cudaFree(p), "cudaFree");
}

static int cuda_host_alloc(void **p, size_t bytes)
{
    int st = cufort_cuda_bind_thread();
    /* portable: a multi-GPU call's devices all DMA from the same pinned buffers */
    return st ? st : cufort_cuda_error(cudaHostAlloc(p, bytes, cudaHostAllocPortable), "cudaHostAlloc");
}

static int cuda_host_free(void *p) { return cufort_cuda_error(cudaFreeHost(p), "cudaFreeHost"); }

static int cuda_host_register(void *p, size_t bytes)
{
    int st = cufort_cuda_bind_thread();
    return st ? st : cufort_cuda_error(cudaHostRegister(p, bytes, cudaHostRegisterPortable),
                                       "cudaHostRegister");
}

static int cuda_host_unregister(void *p)
{
    int st = cufort_cuda_bind_thread();   /* the pin cache's watcher thread unpins too */
    return st ? st : cufort_cuda_error(cudaHostUnregister(p), "cudaHostUnregister");
}

/* Synchronous copies run on this thread's BLAS stream and wait for it, so they are ordered
 * after the BLAS calls issued before them whatever stream the thread uses. */
static int cuda_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height, cufort_copy_kind kind, cufort_stream stream, int async)
{
    int st = cufort_cuda_bind_thread();
    if (st)
        return st;
    static const enum cudaMemcpyKind kinds[] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                                                cudaMemcpyDeviceToDevice};
    cudaStream_t s = (cudaStream_t)(async ? stream : cufort_thread_stream());
    /* contiguous data as one 1-D copy: 2-D copies refuse pitches over cudaDevAttrMaxPitch (2 GiB) */
    if (height == 1 || (dpitch == width && spitch == width))
        st = cufort_cuda_error(cudaMemcpyAsync(dst, src, width * height, kinds[kind], s),
                               "cudaMemcpyAsync");
    else {
        /* The driver checks a 2-D copy's region as height full pitches, so a last column that ends
         * its allocation (a strided vector at the end of a pinned or device block) is refused with
         * cudaErrorInvalidValue: the last column goes as a 1-D copy of its own. */
        st = height > 2 ? cufort_cuda_error(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width,
                                                              height - 1, kinds[kind], s),
                                            "cudaMemcpy2DAsync")
                        : cufort_cuda_error(cudaMemcpyAsync(dst, src, width, kinds[kind], s),
                                            "cudaMemcpyAsync");
        if (!st)
            st = cufort_cuda_error(cudaMemcpyAsync((char *)dst + dpitch * (height - 1),
                                                   (const char *)src + spitch * (height - 1), width,
                                                   kinds[kind], s),
                                   "cudaMemcpyAsync");
    }
    if (!st && !async)
        st = cufort_cuda_error(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return st;
}

/* A pointer cufort did not allocate (cudaMalloc'd by the user, managed, or mapped pinned host
 * memory) is accepted when the driver knows it; device blocks are also checked for their end. */
typedef CUresult (*address_range_fn)(CUdeviceptr *base, size_t *size, CUdeviceptr p);

static address_range_fn range_fn;
static pthread_once_t range_once = PTHREAD_ONCE_INIT;

/* Through the runtime's entry-point query, so libcufort needs no link to libcuda. */
static void resolve_address_range(void)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 12000, cudaEnableDefault,
                                         &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess)
        range_fn = (address_range_fn)fn;
    cudaGetLastError();
}

static address_range_fn address_range(void)
{
    pthread_once(&range_once, resolve_address_range);
    return range_fn;
}

/* ---- copies between devices ---- */

/* Whether two devices reach each other directly (NVLink, or PCIe peer to peer), learnt and enabled
 * both ways once per generation (a reset ends peer access).  Without it cudaMemcpyPeerAsync would
 * pass through host memory, which the caller can do better by uploading from the host itself. */
static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned peer_generation;
/* 0 unknown, 1 yes, 2 no */
static unsigned char peer_state[CUFORT_MAX_DEVICES][CUFORT_MAX_DEVICES];

static int enable_peer(int from, int to)   /* leaves `from` current */
{
    int can = 0;
    cudaError_t e = cudaDeviceCanAccessPeer(&can, from, to);
    if (e == cudaSuccess && can && (e = cudaSetDevice(from)) == cudaSuccess) {
        e = cudaDeviceEnablePeerAccess(to, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled)
            e = cudaSuccess;
    }
    cudaGetLastError();
    return e == cudaSuccess && can;
}

static int peers(int self, int other)
{
    if (self < 0 || other < 0 || self >= CUFORT_MAX_DEVICES || other >= CUFORT_MAX_DEVICES)
        return 0;
    pthread_mutex_lock(&peer_lock);
    if (peer_generation != cufort_generation()) {
        memset(peer_state, 0, sizeof peer_state);
        peer_generation = cufort_generation();
    }
    if (!peer_state[self][other]) {
        int direct = enable_peer(other, self) && enable_peer(self, other);
        cudaSetDevice(self);
        peer_state[self][other] = peer_state[other][self] = direct ? 1 : 2;
    }
    int direct = peer_state[self][other] == 1;
    pthread_mutex_unlock(&peer_lock);
    return direct;
}

static int cuda_copy_peer(void *dst, const void *src, int src_device, size_t bytes,
                          cufort_stream stream)
{
    int st = cufort_cuda_bind_thread(), self = cufort_current_device();
    if (st)
        return st;
    if (!peers(self, src_device))
        return CUFORT_NOT_SUPPORTED;
    return cufort_cuda_error(cudaMemcpyPeerAsync(dst, self, src, src_device, bytes,
                                                 (cudaStream_t)stream), "cudaMemcpyPeerAsync");
}

static int cuda_foreign_pointer(const char *routine, const char *name, const void *p, size_t bytes)
{
    struct cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError();
        attr.type = cudaMemoryTypeUnregistered;
    }
    if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged &&
        !(attr.type == cudaMemoryTypeHost && attr.devicePointer == p))
        return cufort_fail(CUFORT_BAD_POINTER,
                           "%s: %s (%p) is not device memory: allocate it with cufort_alloc or "
                           "cublas_alloc and fill it with cufort_set_matrix/cublas_set_matrix",
                           routine, name, p);
    address_range_fn range = address_range();
    CUdeviceptr base;
    size_t size;
    if (range && range(&base, &size, (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
        (uintptr_t)p + bytes > (uintptr_t)base + size)
        return cufort_fail(CUFORT_BAD_POINTER,
                           "%s: %s spans %zu bytes but only %zu remain in its %zu-byte allocation",
                           routine, name, bytes, (size_t)((uintptr_t)base + size - (uintptr_t)p),
                           size);
    return CUFORT_SUCCESS;
}

/* ---- streams and events ---- */

static int cuda_stream_create(cufort_stream *s)
{
    int st = cufort_cuda_bind_thread();
    return st ? st : cufort_cuda_error(cudaStreamCreate((cudaStream_t *)s), "cudaStreamCreate");
}

static int cuda_stream_destroy(cufort_stream s)
{
    return cufort_cuda_error(cudaStreamDestroy((cudaStream_t)s), "cudaStreamDestroy");
}

static int cuda_stream_synchronize(cufort_stream s)
{
    int st = cufort_cuda_bind_thread();
    return st ? st : cufort_cuda_error(cudaStreamSynchronize((cudaStream_t)s), "cudaStreamSynchronize");
}

static int cuda_event_create(cufort_event *e)
{
    int st = cufort_cuda_bind_thread();
    return st ? st : cufort_cuda_error(cudaEventCreate((cudaEvent_t *)e), "cudaEventCreate");
}

static int cuda_event_destroy(cufort_event e)
{
    return cufort_cuda_error(cudaEventDestroy((cudaEvent_t)e), "cudaEventDestroy");
}

static int cuda_event_record(cufort_event e, cufort_stream s)
{
    return cufort_cuda_error(cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s), "cudaEventRecord");
}

static int cuda_event_synchronize(cufort_event e)
{
    return cufort_cuda_error(cudaEventSynchronize((cudaEvent_t)e), "cudaEventSynchronize");
}

/* cudaErrorNotReady is cleared at once: no later check of this thread's last error may see it */
static int cuda_event_pending(cufort_event e)
{
    if (cudaEventQuery((cudaEvent_t)e) != cudaErrorNotReady)
        return 0;
    cudaGetLastError();
    return 1;
}

static int cuda_stream_wait(cufort_stream s, cufort_event e)
{
    return cufort_cuda_error(cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, 0),
                             "cudaStreamWaitEvent");
}

/* Waits for `stop` first: asking right after recording it is the common case, and CUDA would
 * answer cudaErrorNotReady whenever the GPU has not got there yet. */
static int cuda_event_elapsed_ms(float *ms, cufort_event start, cufort_event stop)
{
    int st = cufort_cuda_error(cudaEventSynchronize((cudaEvent_t)stop), "cudaEventSynchronize");
    return st ? st : cufort_cuda_error(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)stop),
                                       "cudaEventElapsedTime");
}

const cufort_backend_ops cufort_cuda_ops = {
    .name = "cuda",
    .open = cuda_open,
    .close = cuda_close,
    .device_count = cuda_device_count,
    .set_device = cuda_set_device,
    .properties = cuda_properties,
    .synchronize = cuda_synchronize,
    .mem_info = cuda_mem_info,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .host_register = cuda_host_register,
    .host_unregister = cuda_host_unregister,
    .copy2d = cuda_copy2d,
    .copy_peer = cuda_copy_peer,
    .foreign_pointer = cuda_foreign_pointer,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_synchronize = cuda_stream_synchronize,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_synchronize = cuda_event_synchronize,
    .event_pending = cuda_event_pending,
    .stream_wait = cuda_stream_wait,
    .event_elapsed_ms = cuda_event_elapsed_ms,
};
