/* gemm_spread.c — GEMM on host arrays, the entry point of gemm_engine.h: the call checked, then
 * run by the engine (gemm_engine.c) on this thread's device, or spread over several devices, each
 * running the engine on a helper thread and taking C's column panels from a shared counter. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "devices_run.h"
#include "gemm_internal.h"
#include "stage_trace.h"

typedef cufort_gemm_job job;


static int is_zero(char prec, const void *x)
{
    switch (prec) {
    case 's': return *(const float *)x == 0;
    case 'd': return *(const double *)x == 0;
    case 'c': return *(const cufort_cfloat *)x == 0;
    default: return *(const cufort_cdouble *)x == 0;
    }
}

enum { PANELS_EACH = 4 };   /* 3 and 5 measured slower (docs/performance.md) */

/* A staged call's last round of column panels goes in quarters: after the last B is up, a device
 * has a quarter panel left to compute instead of a whole one, while the host, whose copies bound
 * such a call, has only C's downloads left (docs/performance.md).  A call in DMA reach keeps whole
 * panels, its uploads being queued ahead of its tiles. */
enum { STAGED_TAIL_PARTS = 4 };

/* How many devices the call takes (*n; devs: which), and the width of the column panels they
 * share: the one-device tile width, narrowed so that each device has PANELS_EACH panels to take.
 * Narrower panels shorten a device's start (its first panel of B) and its end (its last panel's
 * GEMMs, which nothing overlaps but their own downloads); A, resident, crosses once either way. */
static int spread(const job *j, int *devs, int *n, int64_t *width)
{
    double m = (double)j->m, n_ = (double)j->n, k = (double)(j->kt ? j->k : 0);
    int st = cufort_spread_devices(cufort_gemm_flops(j), (m * k + k * n_ + m * n_) * (double)j->es,
                                   j->pinned, j->n, devs, n);
    if (st || *n < 2)
        return st;
    *width = IMAX(1, min64(cufort_gemm_panel_width(j), cdiv(j->n, PANELS_EACH * (int64_t)*n)));
    *n = (int)min64(*n, cdiv(j->n, *width));
    return CUFORT_SUCCESS;
}

typedef struct {
    const job *whole;
    const int *devs;
    cufort_gemm_panels panels;
    cufort_gemm_plan_info dev[CUFORT_MAX_DEVICES];
    pthread_mutex_t lock;        /* the two below */
    int setup_status;            /* a device's failure to set up, which the others made up for */
    char setup_message[256];
} spread_call;

static int device_share(void *ctx, int index)
{
    spread_call *c = ctx;
    job j = *c->whole;
    j.share = &c->panels;
    j.share_index = index;
    int st = cufort_gemm_run_here(&j, &c->dev[index]);
    cufort_gemm_share_leave(&c->panels, index, j.borrowed);
    c->dev[index].device_panels[0] = j.panels;
    if (!st || j.panels > 0)
        return st;
    /* Failed before taking a panel: it wrote nothing of C, and the others take its panels.  Unless
     * it only lacked memory (the plan shrinks to what is free), it sits out later calls. */
    if (st != CUFORT_ALLOC_FAILED)
        cufort_device_set_aside(c->devs[index]);
    pthread_mutex_lock(&c->lock);
    if (!c->setup_status) {
        c->setup_status = st;
        snprintf(c->setup_message, sizeof c->setup_message, "%s", cufort_last_error());
    }
    pthread_mutex_unlock(&c->lock);
    cufort_clear_error();
    return CUFORT_SUCCESS;
}

/* Spread calls run one at a time: a device that offered A's panels waits at its end for the
 * devices copying them (gemm_share.c), which another spread call's shares queued before theirs on
 * the same helpers would keep waiting in turn.  Each call has every device meanwhile. */
static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;

/* The call over several devices; this thread keeps the summary as its last plan (the tiles of the
 * first device that took part, every device's bytes and panels). */
static int run_spread(const job *j, const int *devs, int n, int64_t width)
{
    spread_call c = {.whole = j, .devs = devs, .lock = PTHREAD_MUTEX_INITIALIZER};
    cufort_gemm_share_init(&c.panels, j->n, width, j->pinned ? 1 : STAGED_TAIL_PARTS, n);
    pthread_mutex_lock(&one_at_a_time);
    int st = cufort_on_devices(n, devs, device_share, &c);
    pthread_mutex_unlock(&one_at_a_time);
    cufort_gemm_share_end(&c.panels);
    int64_t done = 0;
    for (int i = 0; i < n; i++)
        done += c.dev[i].device_panels[0];
    if (!st && done < cufort_gemm_panel_count(&c.panels))   /* every device failed to set up */
        st = cufort_fail(c.setup_status ? c.setup_status : CUFORT_INTERNAL_ERROR, "%s",
                         c.setup_message);
    int first = 0;
    while (first < n - 1 && c.dev[first].device_panels[0] == 0)
        first++;
    cufort_gemm_plan_info sum = c.dev[first];
    sum.resident = 1;
    sum.device_bytes = sum.bytes_in = sum.bytes_out = sum.bytes_peer = 0;
    for (int i = 0; i < n; i++) {
        if (c.dev[i].device_panels[0] > 0)
            sum.resident &= c.dev[i].resident;
        sum.device_bytes += c.dev[i].device_bytes;
        sum.bytes_in += c.dev[i].bytes_in;
        sum.bytes_out += c.dev[i].bytes_out;
        sum.bytes_peer += c.dev[i].bytes_peer;
        sum.device_panels[i] = c.dev[i].device_panels[0];
    }
    sum.devices = n;
    cufort_gemm_keep_plan(&sum);
    return st;
}

#define PINNED_ONTO_BETA (64.0 * 1024 * 1024)

int cufort_thunk_gemm(const char *routine, char prec, char transa, char transb, int64_t m,
                      int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                      const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc)
{
    TRACE_HOST('T', 0, 0);
    int st = cufort_ensure_init(routine);
    if (st)
        return st;
    int es = (int)cufort_prec_size(prec);
    int64_t ar = NOTR(transa) ? m : k, ac = NOTR(transa) ? k : m;
    int64_t br = NOTR(transb) ? k : n, bc = NOTR(transb) ? n : k;
    /* arrays no memory can hold are refused, as the device form refuses them, before the tiling's
     * arithmetic overflows on their sizes */
    if ((st = cufort_check_host_array(routine, "C", cufort_extent_mat(m, n, ldc), (size_t)es)) ||
        (st = cufort_check_host_array(routine, "A", cufort_extent_mat(ar, ac, lda), (size_t)es)) ||
        (st = cufort_check_host_array(routine, "B", cufort_extent_mat(br, bc, ldb), (size_t)es)))
        return st;
    if (m <= 0 || n <= 0)
        return CUFORT_SUCCESS;
    lda = cufort_ld_used(ar, ac, lda);
    ldb = cufort_ld_used(br, bc, ldb);
    ldc = cufort_ld_used(m, n, ldc);
    job j = {.prec = prec, .ta = transa, .tb = transb, .m = m, .n = n, .k = k, .lda = lda,
             .ldb = ldb, .ldc = ldc, .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C,
             .es = es, .c_in = !is_zero(prec, beta), .kt = k > 0 && !is_zero(prec, alpha),
             .ops = cufort_ops()};
    if (!C || (j.kt && (!A || !B)))
        return cufort_null_arg(routine, "a host array");
    /* A, B and C offered whole to the pin cache (held_array.h) */
    if (j.kt) {
        cufort_held_offer(&j.a, A, ar, ac, lda, (size_t)es);
        cufort_held_offer(&j.b, B, br, bc, ldb, (size_t)es);
    }
    /* beta C added on the host (gemm_engine.c) for a C that DMA does not reach, and for one of
     * PINNED_ONTO_BETA bytes or more: its upload would share the way up with A and B, which bounds
     * the call, while the way down has room.  A smaller pinned C goes up: the host's adding would
     * lengthen the last download, which then bounds the call (docs/performance.md).
     * CUFORT_GEMM_HOST_BETA=0: C goes up and the GPU adds beta C; =1: any C stays.  A C that
     * stays whatever its pinning (its size, or =1) is not offered: no DMA would reach it. */
    const char *hb = getenv("CUFORT_GEMM_HOST_BETA");
    int keep = (hb && *hb == '1') || (double)m * (double)n * (double)es >= PINNED_ONTO_BETA;
    j.host_beta = cufort_held_offer_c(&j.c, C, m, n, ldc, (size_t)es,
                                      j.c_in && j.kt && !(hb && *hb == '0'), keep);
    j.pinned = (j.host_beta || cufort_held_dma(&j.c)) &&
               (!j.kt || (cufort_held_dma(&j.a) && cufort_held_dma(&j.b)));
    int devs[CUFORT_MAX_DEVICES], n_dev = 1;
    int64_t width = 0;
    cufort_gemm_plan_info info;
    if (!(st = spread(&j, devs, &n_dev, &width)))
        st = n_dev > 1 ? run_spread(&j, devs, n_dev, width) : cufort_gemm_run_here(&j, &info);
    cufort_held_release(&j.a);   /* every device's streams are synchronised by now */
    cufort_held_release(&j.b);
    cufort_held_release(&j.c);
    TRACE_HOST('Z', 0, 0);
    return cufort_in(routine, st);
}
