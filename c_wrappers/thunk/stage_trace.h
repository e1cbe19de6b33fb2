/* stage_trace.h — a timeline of the staged copies, for finding where a thunked call's time
 * goes.  Built only with -DCUFORT_STAGE_TRACE (`make trace-build`, into $(BUILD)/trace); in every
 * other build the macros are empty.  Host events carry the thread and the wall clock; GPU events
 * are CUDA events recorded on the copy's stream, placed on the same clock at the dump.  The
 * timeline goes to the file named by CUFORT_STAGE_TRACE at exit, one event per line: "t_us thread
 * code a b" (thread -1-d: GPU d).  Codes: thunk.c's (and gemm_spread.c's, for a GEMM) T call
 * begun, F results asked for, Z call done, K (GPU) the stream past the call's work; staging.c's S
 * and E a staged copy begun and done (a = bytes, b = 0 up, 1 down), C a piece claimed (a =
 * offset, b = bytes), W its slot free, P it packed or unpacked (b = group), q and Q a group's DMA
 * being queued and queued (a = group), G (GPU) that DMA done, X a wait for a slot's last DMA over
 * (a = slot), D and d (GPU) a direct copy queued and done, A a large upload's tail chosen (a =
 * its first group, b = 1 streamed); M a caller's marker (bench/probes/trace_calls.c);
 * l3_transfer.c's L a Level-3 pipeline begun (a = steps, b = width), and on the GPU l its first
 * upload queued, u, c and o step a's upload, compute and download done; gemm_engine.c's w a C
 * tile's download begun (a, b = the tile) and on the GPU k a tile's GEMMs done, a and b a block
 * of A or B up (a, b = its row and column of blocks), p A's panel copied from another GPU.  Each
 * GPU event costs a cudaEventCreate and a record on the copy's path: CUFORT_STAGE_TRACE_GPU=0
 * leaves them out. */
#ifndef CUFORT_STAGE_TRACE_H
#define CUFORT_STAGE_TRACE_H

#ifdef CUFORT_STAGE_TRACE
void cufort_trace_host(char code, long long a, long long b);
void cufort_trace_gpu(void *stream, char code, long long a, long long b);
void cufort_trace_dump(void);   /* also at exit; call it before cufort_shutdown */
#define TRACE_HOST(code, a, b) cufort_trace_host((code), (long long)(a), (long long)(b))
#define TRACE_GPU(s, code, a, b) cufort_trace_gpu((void *)(s), (code), (long long)(a), (long long)(b))
#else
#define TRACE_HOST(code, a, b) ((void)0)
#define TRACE_GPU(s, code, a, b) ((void)0)
#endif

#endif
