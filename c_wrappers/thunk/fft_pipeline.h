/* fft_pipeline.h — batched FFTs on pinned host arrays, in parts: part k+1 is uploaded while part k
 * is transformed and part k-1 comes back (on a worker thread), so a thunked batched transform costs
 * about one direction's copies instead of both in turn (4096 x 4096 C2C on the H100: 3.2 ms against
 * 5.0 ms in one piece and a 4.9 ms floor).  Pageable arrays stay in one piece: there the host's
 * memory system, which packing and unpacking share, is the limit, and parts measured no faster
 * (2 parts 5.75 ms, 4 parts 6.18, 8 parts 8.31, one piece 5.94; docs/performance.md). */
#ifndef CUFORT_FFT_PIPELINE_H
#define CUFORT_FFT_PIPELINE_H

#include "fft_internal.h"

/* For cufort_fft_exec_host: plan's batch in parts when both arrays are pinned and the plan has a
 * basic layout, at least PARTS transforms and 16 MiB (*handled = 1, the status returned), else
 * nothing (*handled = 0).
 * in_dist, out_dist: bytes from one transform to the next; in_bytes, out_bytes: the arrays' spans.
 * In place (in == out) both sides must have the same distance; a plan that may not run in place
 * (its in_place_refusal) is refused whole (*handled = 1). */
int cufort_fft_exec_host_parts(struct cufort_fft_plan_s *plan, const void *in, void *out,
                               int direction, size_t in_dist, size_t in_bytes, size_t out_dist,
                               size_t out_bytes, int *handled);

#endif
