/* gemm_internal.h — what the GEMM engine (gemm_engine.c: one device) shares with its entry point
 * (gemm_spread.c), which checks a call and hands it to one device or spreads it over several. */
#ifndef CUFORT_GEMM_INTERNAL_H
#define CUFORT_GEMM_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "gemm_engine.h"
#include "held_array.h"

/* Row and column panels of one call on one device, at most; C tiles in flight when resident, at
 * most (gemm_plan.c's c_slots()) */
enum { CUFORT_GEMM_MAX_PANELS = 64, CUFORT_GEMM_C_SLOTS = 16 };

/* One of A's row panels on a call spread over devices: the first resident device to need it
 * uploads it from the host and offers it; the others copy it from that device's memory (NVLink or
 * PCIe peer to peer) instead of reading A through the host again. */
typedef struct {
    enum { A_FREE, A_CLAIMED, A_OFFERED, A_REFUSED } state;
    int64_t mb;                  /* the claimer's panel height: only a plan alike may copy it */
    int owner, device;           /* the claimer's place among the call's devices; its device */
    const char *dev;
    cufort_event ready;          /* on `device`: the upload is done */
} cufort_gemm_a_panel;

/* A call spread over several devices: each device runs the whole call's plan on its own engine,
 * taking C's column panels (fixed before the devices start, so they agree on them:
 * cufort_gemm_panel_columns) one at a time from `next`, so a device that finishes early takes more.
 * A's panels pass between devices (a[] and borrowers[], under lock; `changed` signals each offer,
 * refusal and return). */
typedef struct {
    atomic_llong next;
    int64_t n, width;            /* C's columns; a panel's */
    int tail_parts;              /* the last round's panels (one per device): parts of each */
    int count;                   /* devices taking part */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    cufort_gemm_a_panel a[CUFORT_GEMM_MAX_PANELS];
    int borrowers[CUFORT_MAX_DEVICES];   /* by place: the devices still copying its panels */
} cufort_gemm_panels;

typedef struct {
    char prec, ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    const void *alpha, *beta;
    const char *A, *B;
    char *C;
    size_t es;
    int c_in;                    /* beta != 0: C is read */
    int host_beta;               /* beta != 0, A op(B) not empty, C pageable or large: beta C
                                    added on the host */
    int pinned;                  /* A, B and C all reached by DMA as they lie */
    cufort_held_array a, b, c;   /* A, B, C: pinned, or held by the pin cache for the call */
    /* the plan (gemm_engine.c) */
    int64_t mb, nb, kb, mt, nt, kt;
    int na, nbs, nc, resident, next_a, next_b;
    struct cufort_gemm_engine *e;
    const cufort_backend_ops *ops;
    size_t bytes_in, bytes_out, device_bytes;
    cufort_gemm_panels *share;   /* NULL: this device does every panel */
    int share_index;             /* this device's place among share->count */
    unsigned borrowed;           /* bit i: it copied a panel of the device at place i */
    int64_t panels;              /* column panels this device did */
    size_t bytes_peer;           /* copied from another device */
} cufort_gemm_job;

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t cdiv(int64_t a, int64_t b) { return b ? (a + b - 1) / b : 0; }
/* the job's real flops: a multiply-add counted as two, a complex one as eight */
static inline double cufort_gemm_flops(const cufort_gemm_job *j)
{
    double k = (double)(j->kt ? j->k : 0);
    return (j->prec == 'c' || j->prec == 'z' ? 8 : 2) * (double)j->m * (double)j->n * k;
}

/* A call spread over devices whose A or B goes through host staging (not both in DMA reach) */
static inline int cufort_gemm_staged_spread(const cufort_gemm_job *j)
{
    return j->share && !(cufort_held_dma(&j->a) && cufort_held_dma(&j->b));
}

/* Whether such a call, in `rows` row panels, starts with two column panels together
 * (gemm_engine.c's paired start): each device's block of A holds more than one row panel, and two
 * panels' tiles fit the C slots.  The plan keeps a third B slot for it (gemm_plan.c). */
static inline int cufort_gemm_paired_start(const cufort_gemm_job *j, int64_t rows)
{
    return cufort_gemm_staged_spread(j) && rows > j->share->count &&
           2 * rows <= CUFORT_GEMM_C_SLOTS;
}

/* C's column panels on a spread call: of p->width columns, the last `count` of them (one per
 * device) each cut into tail_parts parts (fewer when narrower), so that little is left to compute
 * after the last panel's B is up.  The first panel of that round (*whole: C's panels of p->width);
 * how many panels in all; and panel `panel`'s first column and width. */
static inline int64_t cufort_gemm_tail_round(const cufort_gemm_panels *p, int64_t *whole)
{
    *whole = cdiv(p->n, p->width);
    return *whole - min64(p->tail_parts > 1 ? p->count : 0, *whole);
}

static inline int64_t cufort_gemm_panel_count(const cufort_gemm_panels *p)
{
    int64_t whole, q0 = cufort_gemm_tail_round(p, &whole), count = q0;
    for (int64_t q = q0; q < whole; q++)
        count += min64(p->tail_parts, min64(p->width, p->n - q * p->width));
    return count;
}

static inline void cufort_gemm_panel_columns(const cufort_gemm_panels *p, int64_t panel,
                                             int64_t *first, int64_t *cols)
{
    int64_t whole, q0 = cufort_gemm_tail_round(p, &whole), part = panel - q0;
    *first = panel * p->width;
    *cols = min64(p->width, p->n - *first);
    for (int64_t q = q0; part >= 0 && q < whole; q++) {
        int64_t w = min64(p->width, p->n - q * p->width), parts = min64(p->tail_parts, w);
        if (part < parts) {   /* balanced cuts: every part has a column */
            *first = q * p->width + part * w / parts;
            *cols = (part + 1) * w / parts - part * w / parts;
            return;
        }
        part -= parts;
    }
}

/* A spread call's shared state, before the devices start and after they all end: C's n columns
 * in panels of `width`, the last round in tail_parts parts each (1: whole) */
void cufort_gemm_share_init(cufort_gemm_panels *p, int64_t n, int64_t width, int tail_parts,
                            int count);
void cufort_gemm_share_end(cufort_gemm_panels *p);

/* How a device gets A's row panel `row` (plan: panel height mb, resident) on a spread call:
 * uploaded from the host, and then offered to the others (it came first); uploaded from the host
 * (no copy of it lies on another device); or copied from *from (it may wait for the upload that
 * another device has queued). */
enum { CUFORT_GEMM_A_UPLOAD_OFFER, CUFORT_GEMM_A_UPLOAD, CUFORT_GEMM_A_COPY };
int cufort_gemm_take_a(cufort_gemm_panels *p, int64_t row, int64_t mb, int place,
                       unsigned *borrowed, cufort_gemm_a_panel *from);
/* after CUFORT_GEMM_A_UPLOAD_OFFER: the panel lies at dev, whole once `ready` happens on this
 * thread's device; dev NULL: its upload failed, the others upload it themselves */
void cufort_gemm_offer_a(cufort_gemm_panels *p, int64_t row, const char *dev, cufort_event ready);
/* The device at `place` is done with the call, its streams synchronised: it stops borrowing (the
 * places in `borrowed`), then waits until no device still copies its own panels, and withdraws
 * them.  A helper thread may run another call's work, in the same memory, right after. */
void cufort_gemm_share_leave(cufort_gemm_panels *p, int place, unsigned borrowed);

/* gemm_plan.c: the plan (tiles, resident or out of core) within this device's budget, and its
 * device memory from this thread's scratch, the plan shrunk while the allocation fails */
int cufort_gemm_allocate(cufort_gemm_job *j, char **buf);
/* bytes of one slot of A ('a'), B ('b') or C ('c') under the plan, aligned */
size_t cufort_gemm_slot_bytes(const cufort_gemm_job *j, char which);

/* The job on this thread's device (its engine, its share of the device memory, its streams);
 * *info: what it planned and moved, also kept as this thread's last plan. */
int cufort_gemm_run_here(cufort_gemm_job *j, cufort_gemm_plan_info *info);
/* C's column-panel width on one device: the tile width of the job's plan */
int64_t cufort_gemm_panel_width(const cufort_gemm_job *j);
/* keeps *info as this thread's last plan (cufort_thunk_gemm_last_plan) */
void cufort_gemm_keep_plan(const cufort_gemm_plan_info *info);

#endif
