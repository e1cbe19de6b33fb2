/* gemm_engine.c — tiled GEMM on host arrays on one device (see gemm_engine.h; the entry point,
 * gemm_spread.c, hands a large call to several devices, each running this engine).
 *
 * C is cut into tiles of mb x nb; op(A) into row panels and op(B) into column panels, each also cut
 * along k into chunks of kb when the device budget demands it.  Three streams: uploads (h2d),
 * GEMMs (comp), downloads (d2h), ordered by events, so the PCIe engines and the SMs work at once.
 *
 *   resident     A and B fit the budget whole (kb = k): each panel of A is uploaded once, when the
 *                first tile needing it comes, into a slot of its own, and so are B's (spread over
 *                devices, B's panels cycle through a few slots, each serving one column of tiles);
 *                C tiles cycle through C_SLOTS slots.  Every byte crosses PCIe once.
 *   out of core  two slots each for A blocks, B blocks and C tiles, with kb, mb, nb halved until
 *                they fit: blocks are uploaded again for every tile that needs them.
 * (The plan, its tile sizes and its device memory: gemm_plan.c.)
 *
 * Spread over several devices, each device runs this plan on its own engine and takes C's column
 * panels one at a time from a shared counter (gemm_internal.h); resident devices upload a share of
 * A's panels each and copy the rest from one another (gemm_share.c).
 *
 * Pinned host arrays (cufort_host_alloc / cufort_host_register, or held by the pin cache for the
 * call: held_array.h) are copied by the DMA engines directly and the loop only queues work.
 * Pageable arrays go through staging.c, whose host threads pack each block into pinned memory;
 * the loop downloads tile t-2 after queuing tile t, so the host's copies (the bottleneck on
 * pageable memory) run back to back.
 *
 * A pageable C, or a large one, is never uploaded: the GPU computes alpha op(A) op(B) alone and
 * the download adds beta C on the host as it unpacks (host_beta).  The host reads and writes C
 * once either way, but a third of a square GEMM's uploads, and their staging, are gone. */
#include <complex.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "beta_add.h"
#include "blas_backends.h"
#include "gemm_internal.h"
#include "stage_trace.h"
#include "staging.h"
#include "thread_state.h"
#include "scratch.h"
#include "thunk.h"
#include "worker.h"

enum { MAX_PANELS = CUFORT_GEMM_MAX_PANELS, C_SLOTS = CUFORT_GEMM_C_SLOTS };

/* A block slot's events: its upload is done; the last GEMM reading it is done.  A C slot's: its
 * upload is done, its GEMMs are done, its download is done. */
enum { READY, USED, BLOCK_EVENTS };
enum { COMPUTED = USED, DONE, C_EVENTS };

typedef struct {
    char *dev;
    int64_t row, col;            /* the block it holds: (panel, k chunk) for A, (k chunk, panel) for B */
    cufort_event ev[BLOCK_EVENTS];
    int used_recorded;
} slot;

typedef struct {
    char *dev;
    int64_t i, j;                /* the tile it holds */
    cufort_event ev[C_EVENTS];
    int done_recorded;
    int in_pieces;               /* the tile was computed in the engine's pieces (last_tile()) */
    cufort_gemm_job *owner;      /* the call whose download the worker thread runs */
} c_slot;

/* A call's last tile, computed in column pieces whose widths halve (a half, a quarter, ...; the
 * last two alike), each piece's end an event that the download's DMAs wait for: the tile then
 * comes back, beta C added on the host, while its last pieces are still being computed, and what
 * remains after the call's last GEMM is the last piece's download.  A piece is at least
 * PIECE_COLS columns and PIECE_BYTES of C. */
enum { MAX_PIECES = 5, PIECE_COLS = 32, PIECE_BYTES = 1 << 19 };
typedef struct {
    int count;
    int64_t end[MAX_PIECES];     /* the column after each piece */
    size_t col_bytes;            /* one column of the tile's device image */
    cufort_event ev[MAX_PIECES];
} pieces;

typedef struct cufort_gemm_engine {
    cufort_thread_state link;
    cufort_stream h2d, comp, d2h, peer;   /* peer: A's panels copied from another device */
    slot a[MAX_PANELS], b[MAX_PANELS];
    c_slot c[C_SLOTS];
    pieces last_tile;
    cufort_worker *downloads;    /* started by the first call with pageable C and more tiles than
                                    it keeps in flight */
    cufort_gemm_plan_info last;
} engine;

static void release_engine(cufort_thread_state *s)
{
    engine *e = (engine *)s;
    cufort_worker_stop(e->downloads);
    for (int i = 0; i < MAX_PANELS; i++) {
        cufort_thunk_events_release(e->a[i].ev, BLOCK_EVENTS);
        cufort_thunk_events_release(e->b[i].ev, BLOCK_EVENTS);
    }
    for (int i = 0; i < C_SLOTS; i++)
        cufort_thunk_events_release(e->c[i].ev, C_EVENTS);
    cufort_thunk_events_release(e->last_tile.ev, MAX_PIECES);
    cufort_thunk_streams_release((cufort_stream *const[]){&e->h2d, &e->comp, &e->d2h, &e->peer}, 4);
}

static cufort_thread_states engines = CUFORT_THREAD_STATES(engine, release_engine);
static _Thread_local engine *mine;

static int my_engine(engine **out)
{
    engine *e = cufort_thread_state_get(&engines, (void **)&mine);
    if (!e)
        return CUFORT_ALLOC_FAILED;
    int st = cufort_thunk_streams((cufort_stream *const[]){&e->h2d, &e->comp, &e->d2h, &e->peer}, 4);
    if (st)
        return st;
    *out = e;
    return CUFORT_SUCCESS;
}

/* ---- one call ---- */

typedef cufort_gemm_job job;

/* the scalar 0 or 1 in the job's kind */
static const void *constant(char prec, int one)
{
    static const float s[2] = {0, 1};
    static const double d[2] = {0, 1};
    static const cufort_cfloat c[2] = {0, 1};
    static const cufort_cdouble z[2] = {0, 1};
    switch (prec) {
    case 's': return &s[one];
    case 'd': return &d[one];
    case 'c': return &c[one];
    default: return &z[one];
    }
}

/* staging's combine for host_beta: a piece of the tile (alpha op(A) op(B)) lands on beta C */
static void add_to_beta_c(char *dst, const char *src, size_t bytes, const void *ctx)
{
    const job *j = ctx;
    double complex beta;
    switch (j->prec) {
    case 's': beta = *(const float *)j->beta; break;
    case 'd': beta = *(const double *)j->beta; break;
    case 'c': beta = *(const cufort_cfloat *)j->beta; break;
    default: beta = *(const cufort_cdouble *)j->beta;
    }
    cufort_beta_add(j->prec, beta, dst, src, bytes);
}

/* the backend's GEMM itself: the engine's operands are its own device buffers, already checked */
static int device_gemm(const job *j, int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                       const void *B, int64_t ldb, const void *beta, void *C)
{
    char ta = k ? j->ta : 'N', tb = k ? j->tb : 'N';
    int host = cufort_on_host();
    switch (j->prec) {
    case 's': {
        float a = *(const float *)j->alpha, b = *(const float *)beta;
        return host ? cufort_host_sgemm(ta, tb, m, n, k, a, A, lda, B, ldb, b, C, m)
                    : cufort_cuda_sgemm(ta, tb, m, n, k, a, A, lda, B, ldb, b, C, m);
    }
    case 'd': {
        double a = *(const double *)j->alpha, b = *(const double *)beta;
        return host ? cufort_host_dgemm(ta, tb, m, n, k, a, A, lda, B, ldb, b, C, m)
                    : cufort_cuda_dgemm(ta, tb, m, n, k, a, A, lda, B, ldb, b, C, m);
    }
    case 'c': {
        cufort_cfloat a = *(const cufort_cfloat *)j->alpha, b = *(const cufort_cfloat *)beta;
        return host ? cufort_host_cgemm(ta, tb, m, n, k, a, A, lda, B, ldb, b, C, m)
                    : cufort_cuda_cgemm(ta, tb, m, n, k, a, A, lda, B, ldb, b, C, m);
    }
    default: {
        cufort_cdouble a = *(const cufort_cdouble *)j->alpha, b = *(const cufort_cdouble *)beta;
        return host ? cufort_host_zgemm(ta, tb, m, n, k, a, A, lda, B, ldb, b, C, m)
                    : cufort_cuda_zgemm(ta, tb, m, n, k, a, A, lda, B, ldb, b, C, m);
    }
    }
}

static char *empty_slot(slot *s, char *dev)
{
    s->dev = dev;
    s->row = s->col = -1;
    s->used_recorded = 0;
    return dev;
}

/* Slots over the call's device memory; the events stay from earlier calls (all of which ended). */
static void carve(job *j, char *buf)
{
    engine *e = j->e;
    for (int i = 0; i < j->na; i++)
        buf = empty_slot(&e->a[i], buf) + cufort_gemm_slot_bytes(j, 'a');
    for (int i = 0; i < j->nbs; i++)
        buf = empty_slot(&e->b[i], buf) + cufort_gemm_slot_bytes(j, 'b');
    for (int i = 0; i < j->nc; i++, buf += cufort_gemm_slot_bytes(j, 'c')) {
        e->c[i].dev = buf;
        e->c[i].i = e->c[i].j = -1;
        e->c[i].done_recorded = 0;
        e->c[i].in_pieces = 0;
    }
    e->last_tile.count = 0;
}

/* ---- copies ---- */

static int upload(job *j, const cufort_held_array *o, char *dev, const char *host, int64_t rows,
                  int64_t cols)
{
    size_t w = (size_t)rows * j->es, pitch = (size_t)o->ld * j->es;
    j->bytes_in += w * (size_t)cols;
    if (cufort_held_dma(o))
        return cufort_held_copy(o, (char *)host, pitch, dev, w, w, cols, CUFORT_H2D, j->e->h2d);
    return cufort_stage_to_device_unoffered(j->e->h2d, dev, host, pitch, w, (size_t)cols);
}

static int64_t rows_of(const job *j, int64_t i) { return min64(j->mb, j->m - i * j->mb); }
/* column panel jj's first column and width: nb wide, or as the spread call cuts them */
static void panel_columns(const job *j, int64_t jj, int64_t *first, int64_t *cols)
{
    if (j->share) {
        cufort_gemm_panel_columns(j->share, jj, first, cols);
    } else {
        *first = jj * j->nb;
        *cols = min64(j->nb, j->n - *first);
    }
}
static int64_t cols_of(const job *j, int64_t jj)
{
    int64_t first, cols;
    panel_columns(j, jj, &first, &cols);
    return cols;
}
static int64_t depth_of(const job *j, int64_t kc) { return min64(j->kb, j->k - kc * j->kb); }
static char *c_tile(const job *j, int64_t i, int64_t jj)
{
    int64_t first, cols;
    panel_columns(j, jj, &first, &cols);
    return j->C + (size_t)(i * j->mb + first * j->ldc) * j->es;
}

/* staging's gate for a tile computed in pieces: its image's bytes [0, end) are written once the
 * piece holding their last column is */
static int piece_gate(cufort_stream s, size_t end, const void *ctx)
{
    const job *j = ctx;
    const pieces *p = &j->e->last_tile;
    int64_t cols = (int64_t)((end + p->col_bytes - 1) / p->col_bytes);
    int k = 0;
    while (k < p->count - 1 && p->end[k] < cols)
        k++;
    return j->ops->stream_wait(s, p->ev[k]);
}

static int download(job *j, c_slot *c)
{
    const cufort_backend_ops *ops = j->ops;
    int64_t rows = rows_of(j, c->i), cols = cols_of(j, c->j);
    size_t w = (size_t)rows * j->es, pitch = (size_t)j->ldc * j->es;
    char *host = c_tile(j, c->i, c->j);
    TRACE_HOST('w', c->i, c->j);
    cufort_stage_gate_fn gate = c->in_pieces ? piece_gate : NULL;
    int st = gate ? CUFORT_SUCCESS : ops->stream_wait(j->e->d2h, c->ev[COMPUTED]);
    if (!st) {
        j->bytes_out += w * (size_t)cols;
        if (j->host_beta || gate)
            st = cufort_stage_to_host_combined(j->e->d2h, host, pitch, c->dev, w, (size_t)cols,
                                               j->host_beta ? add_to_beta_c : NULL, gate, j);
        else if (cufort_held_dma(&j->c))
            st = cufort_held_copy(&j->c, host, pitch, c->dev, w, w, cols, CUFORT_D2H, j->e->d2h);
        else
            st = cufort_stage_to_host_unoffered(j->e->d2h, host, pitch, c->dev, w, (size_t)cols);
    }
    if (!st && !(st = ops->event_record(c->ev[DONE], j->e->d2h)))
        c->done_recorded = 1;
    return st;
}

/* A's block (row panel `row`, k from k0, depth deep), from the host */
static int upload_a(job *j, slot *s, int64_t row, int64_t k0, int64_t depth)
{
    int64_t r0 = row * j->mb, rows = rows_of(j, row), ld = j->lda;
    const char *at = j->A + (size_t)(NOTR(j->ta) ? r0 + k0 * ld : k0 + r0 * ld) * j->es;
    return NOTR(j->ta) ? upload(j, &j->a, s->dev, at, rows, depth)
                       : upload(j, &j->a, s->dev, at, depth, rows);
}

/* B's block (column panel `col`, k from k0, depth deep), from the host */
static int upload_b(job *j, slot *s, int64_t col, int64_t k0, int64_t depth)
{
    int64_t c0, cols, ld = j->ldb;
    panel_columns(j, col, &c0, &cols);
    const char *at = j->B + (size_t)(NOTR(j->tb) ? k0 + c0 * ld : c0 + k0 * ld) * j->es;
    return NOTR(j->tb) ? upload(j, &j->b, s->dev, at, depth, cols)
                       : upload(j, &j->b, s->dev, at, cols, depth);
}

/* A's whole row panel `row` (a resident plan) copied from the device that offered it, on a stream
 * of its own: waiting there for the other device's upload holds none of this device's uploads
 * back.  The backend's CUFORT_NOT_SUPPORTED when the two devices do not reach each other directly. */
static int copy_a(job *j, slot *s, int64_t row, const cufort_gemm_a_panel *from)
{
    size_t bytes = (size_t)(rows_of(j, row) * j->k) * j->es;
    int st = s->used_recorded ? j->ops->stream_wait(j->e->peer, s->ev[USED]) : CUFORT_SUCCESS;
    if (!st)
        st = j->ops->stream_wait(j->e->peer, from->ready);
    if (!st && !(st = j->ops->copy_peer(s->dev, from->dev, from->device, bytes, j->e->peer)))
        j->bytes_peer += bytes;
    return st;
}

/* The slot holding block (row, col) of A (which = 0) or B (which = 1), uploading it if needed
 * (on a spread call, A's panels from another device when one has them: gemm_share.c). */
static int block(job *j, int which, int64_t row, int64_t col, slot **out)
{
    slot *slots = which ? j->e->b : j->e->a;
    int count = which ? j->nbs : j->na;
    slot *s = NULL;
    if (j->resident && !(which && j->share)) {
        s = &slots[which ? col : row];
    } else {
        for (int i = 0; i < count && !s; i++)
            if (slots[i].row == row && slots[i].col == col)
                s = &slots[i];
        if (!s) {
            int *next = which ? &j->next_b : &j->next_a;
            s = &slots[(*next)++ % count];
        }
    }
    *out = s;
    if (s->row == row && s->col == col)
        return CUFORT_SUCCESS;
    int st = cufort_thunk_events(s->ev, BLOCK_EVENTS);
    if (!st && s->used_recorded)
        st = j->ops->stream_wait(j->e->h2d, s->ev[USED]);
    if (st)
        return st;
    s->row = s->col = -1;
    int64_t k0 = (which ? row : col) * j->kb, depth = depth_of(j, which ? row : col);
    cufort_gemm_a_panel from;
    int how = which == 0 && j->share && j->resident
                  ? cufort_gemm_take_a(j->share, row, j->mb, j->share_index, &j->borrowed, &from)
                  : CUFORT_GEMM_A_UPLOAD;
    if (how == CUFORT_GEMM_A_COPY && (st = copy_a(j, s, row, &from)) == CUFORT_NOT_SUPPORTED)
        how = CUFORT_GEMM_A_UPLOAD;
    if (how != CUFORT_GEMM_A_COPY)
        st = which ? upload_b(j, s, col, k0, depth) : upload_a(j, s, row, k0, depth);
    cufort_stream on = how == CUFORT_GEMM_A_COPY ? j->e->peer : j->e->h2d;
    if (!st && !(st = j->ops->event_record(s->ev[READY], on))) {
        s->row = row;
        s->col = col;
    }
    TRACE_GPU(on, which ? 'b' : how == CUFORT_GEMM_A_COPY ? 'p' : 'a', row, col);
    if (how == CUFORT_GEMM_A_UPLOAD_OFFER)
        cufort_gemm_offer_a(j->share, row, st ? NULL : s->dev, s->ev[READY]);
    return st;
}

/* Whether tile (i, jj) is computed in pieces (the pieces type above), and their columns: the call's
 * last tile on one device, whose C comes back through staging (a pinned C that goes back by DMA
 * whole comes back at the DMA engine's pace anyway), in one k chunk (out of core, its GEMMs run
 * chunk by chunk over the whole tile), and wide enough for two pieces. */
static int last_tile(job *j, int64_t i, int64_t jj, int64_t rows, int64_t cols)
{
    pieces *p = &j->e->last_tile;
    p->count = 0;
    if (j->share || (!j->host_beta && cufort_held_dma(&j->c)) || j->kt != 1 || i != j->mt - 1 ||
        jj != j->nt - 1)
        return 0;
    p->col_bytes = (size_t)rows * j->es;
    int64_t least = IMAX(PIECE_COLS, cdiv(PIECE_BYTES, (int64_t)p->col_bytes));
    for (int64_t first = 0, rest = cols; rest > 0;) {
        int64_t w = p->count < MAX_PIECES - 1 && rest / 2 >= least ? rest / 2 : rest;
        p->end[p->count++] = first += w;
        rest -= w;
    }
    if (p->count < 2 || cufort_thunk_events(p->ev, MAX_PIECES))
        p->count = 0;
    return p->count;
}

/* Tile (i, jj) into C slot c: its old tile's download done, C in (if read), every k chunk's GEMM. */
static int tile(job *j, c_slot *c, int64_t i, int64_t jj)
{
    const cufort_backend_ops *ops = j->ops;
    engine *e = j->e;
    int64_t rows = rows_of(j, i), cols = cols_of(j, jj);
    int st = cufort_thunk_events(c->ev, C_EVENTS);
    if (!st && c->done_recorded) {
        st = ops->stream_wait(e->h2d, c->ev[DONE]);
        if (!st)
            st = ops->stream_wait(e->comp, c->ev[DONE]);
    }
    c->i = i;
    c->j = jj;
    if (!st && j->c_in && !j->host_beta) {
        st = upload(j, &j->c, c->dev, c_tile(j, i, jj), rows, cols);
        if (!st)
            st = ops->event_record(c->ev[READY], e->h2d);
        if (!st)
            st = ops->stream_wait(e->comp, c->ev[READY]);
    }
    if (!st && j->kt == 0)
        st = device_gemm(j, rows, cols, 0, c->dev, rows, c->dev, 1, j->beta, c->dev);
    c->in_pieces = !st && last_tile(j, i, jj, rows, cols);
    for (int64_t kc = 0; kc < j->kt && !st; kc++) {
        slot *a, *b;
        int64_t depth = depth_of(j, kc);
        if ((st = block(j, 0, i, kc, &a)) || (st = block(j, 1, kc, jj, &b)) ||
            (st = ops->stream_wait(e->comp, a->ev[READY])) ||
            (st = ops->stream_wait(e->comp, b->ev[READY])))
            break;
        const void *beta = kc             ? constant(j->prec, 1)
                           : j->host_beta ? constant(j->prec, 0)
                                          : j->beta;
        const pieces *p = &e->last_tile;
        int64_t first = 0;
        for (int k = 0; k < (c->in_pieces ? p->count : 1) && !st; k++) {
            /* B's columns: depth deep and packed, or (transposed) rows of a cols-wide image */
            int64_t w = c->in_pieces ? p->end[k] - first : cols;
            size_t b_at = (size_t)first * (NOTR(j->tb) ? (size_t)depth : 1) * j->es;
            st = device_gemm(j, rows, w, depth, a->dev, NOTR(j->ta) ? rows : depth, b->dev + b_at,
                             NOTR(j->tb) ? depth : cols, beta,
                             c->dev + (size_t)first * (size_t)rows * j->es);
            if (!st && c->in_pieces)
                st = ops->event_record(p->ev[k], e->comp);
            first += w;
        }
        if (!st && !(st = ops->event_record(a->ev[USED], e->comp)) &&
            !(st = ops->event_record(b->ev[USED], e->comp)))
            a->used_recorded = b->used_recorded = 1;
    }
    if (!st)
        st = ops->event_record(c->ev[COMPUTED], e->comp);
    TRACE_GPU(e->comp, 'k', i, jj);
    return st;
}

/* The devices of a call spread over several GPUs that stages A and B, told to staging
 * (cufort_staging_spread): each device's copies then go round four of the six staging slots, which
 * measured faster on two and four GPUs, and take more threads than usual only where every
 * device's copies could (docs/performance.md).  0 for a single GPU, whose copies keep all six:
 * with four, its small thunked calls measured slower. */
static int spread_devices(const job *j)
{
    return cufort_gemm_staged_spread(j) ? j->share->count : 0;
}

static int download_task(void *slot)
{
    c_slot *c = slot;
    cufort_staging_spread(spread_devices(c->owner));
    int st = download(c->owner, c);
    cufort_staging_spread(0);
    return st;
}

/* Tile t is queued before tile t - lag comes back.  With two tiles in flight (lag 2, when there are
 * C slots for it) the host, whose staged copies bound pageable GEMMs, goes on packing the next
 * tile while the GPU finishes the one it would otherwise wait for.  A slot is reused nc tiles
 * later, so lag <= nc - 1 keeps its download queued before its next upload.  Pageable C tiles
 * come back through the engine's worker thread: their unpacking then runs while this thread packs
 * uploads (the slot's download is waited for before the slot is used again). */
/* Tile `back` comes back: on the worker thread (its ticket noted per slot), else here. */
static int give_back(job *j, cufort_worker *w, int64_t back, int64_t ticket[], int64_t *last)
{
    c_slot *c = &j->e->c[back % j->nc];
    if (!w)
        return download(j, c);
    c->owner = j;
    *last = ticket[back % j->nc] = cufort_worker_post(w, download_task, c);
    return CUFORT_SUCCESS;
}

/* the column panel after jj: the next in order, or the next nobody has taken */
static int64_t next_panel(job *j, int64_t jj)
{
    int64_t next = j->share ? atomic_fetch_add(&j->share->next, 1) : jj + 1;
    j->panels += next < j->nt;
    return next;
}

/* The order of C's rows on this device.  Spread and resident, the devices each upload one block
 * of A's row panels and offer them (gemm_share.c), and each starts at its own block.  The rows
 * then come in the order the panels reach some device: the first row of every block, then the
 * second of every block, ...  Staged, a device's second own row panel is still being packed when
 * its first tile is done, and the other devices' first rows are already up to copy.  0: every row
 * in order. */
static int row_order(const job *j, int64_t order[MAX_PANELS])
{
    int64_t devices = j->share && j->resident ? j->share->count : 1, n = 0;
    if (devices < 2 || j->mt > MAX_PANELS)
        return 0;
    for (int64_t k = 0; n < j->mt; k++)
        for (int64_t d = 0; d < devices; d++) {
            int64_t blk = (j->share_index + d) % devices, row = blk * j->mt / devices + k;
            if (row < (blk + 1) * j->mt / devices)
                order[n++] = row;
        }
    return 1;
}

/* Spread and resident with A and B in DMA reach, a device queues its uploads ahead of its tiles:
 * after its first tile, the rest of its own block of A's row panels; as it starts a column panel,
 * the next one's B, which it claims then.  Queued just in time instead, by a host thread that C's
 * downloads hold a tile or two ahead of the GPU, they kept the GPU waiting at every new panel. */
static int uploads_ahead(const job *j)
{
    return j->share && j->resident && j->kt == 1 && j->nbs > 1 && !cufort_gemm_staged_spread(j);
}

static int own_rows_ahead(job *j)
{
    int64_t devices = j->share->count, blk = j->share_index;
    int st = CUFORT_SUCCESS;
    for (int64_t row = blk * j->mt / devices; row < (blk + 1) * j->mt / devices && !st; row++) {
        slot *a;
        st = block(j, 0, row, 0, &a);
    }
    return st;
}

/* The tiles queued and given back so far, with the worker's tickets (give_back()). */
typedef struct {
    int64_t t, back, ticket[C_SLOTS], last;
    cufort_worker *w;
} flow;

/* Tile (i, jj) into the next C slot (once that slot's download is done), then tiles given back
 * until at most `lag` are in flight. */
static int next_tile(job *j, flow *f, int64_t i, int64_t jj, int64_t lag)
{
    int s = (int)(f->t % j->nc);
    int st = f->w && f->ticket[s] ? cufort_worker_wait(f->w, f->ticket[s]) : CUFORT_SUCCESS;
    if (!st)
        st = tile(j, &j->e->c[s], i, jj);
    for (f->t++; !st && f->t - f->back > lag; f->back++)
        st = give_back(j, f->w, f->back, f->ticket, &f->last);
    return st;
}

/* Staged and spread, with more than one row panel in each device's block of A
 * (cufort_gemm_paired_start, and the C slots the plan got): the device starts with its first two
 * column panels together, a round of rows at a time (the first row of every block for both
 * panels, then the second, ...), and C's downloads wait until the first round is queued.  Its
 * next own row panel is then packed while the GPU has four tiles to compute instead of two, and
 * while no download takes the host's memory bandwidth from that packing (docs/performance.md).
 * Returns that start's lag (tiles queued before the first comes back), 0 where the start is not
 * paired. */
static int64_t paired_start(const job *j, int ordered)
{
    if (!ordered || !cufort_gemm_paired_start(j, j->mt) || j->nc < 2 * j->mt)
        return 0;
    return min64(2 * j->share->count, j->nc - 1);
}

/* Column panels jj and jj1 (when there is one), round by round of rows in `order` */
static int run_paired(job *j, flow *f, const int64_t *order, int64_t jj, int64_t jj1, int64_t lag)
{
    int64_t round = j->share->count, panels[2] = {jj, jj1};
    int st = CUFORT_SUCCESS;
    for (int64_t r0 = 0; r0 < j->mt && !st; r0 += round)
        for (int p = 0; p < 2 && !st; p++)
            for (int64_t r = r0; r < r0 + round && r < j->mt && !st && panels[p] < j->nt; r++)
                st = next_tile(j, f, order[r], panels[p], lag);
    return st;
}

static int run(job *j)
{
    const int64_t lag = j->nc > 2 ? 2 : 1;
    flow f = {0};
    int st = CUFORT_SUCCESS;
    if (j->mt * j->nt > lag && (j->host_beta || !cufort_held_dma(&j->c))) {
        if (!j->e->downloads)
            st = cufort_worker_start(&j->e->downloads);
        f.w = j->e->downloads;
    }
    int64_t order[MAX_PANELS];
    int ordered = row_order(j, order), ahead = uploads_ahead(j);
    int64_t start_lag = paired_start(j, ordered);
    cufort_staging_spread(spread_devices(j));
    int64_t jj = next_panel(j, -1), next = -1;   /* with uploads ahead: the panel claimed after jj */
    if (start_lag && jj < j->nt && !st) {
        int64_t jj1 = next_panel(j, jj);
        st = run_paired(j, &f, order, jj, jj1, start_lag);
        jj = jj1 < j->nt ? next_panel(j, jj1) : jj1;
    }
    for (; jj < j->nt && !st; jj = ahead ? next : next_panel(j, jj))
        for (int64_t r = 0; r < j->mt && !st; r++) {
            st = next_tile(j, &f, ordered ? order[r] : r, jj, lag);
            if (!st && ahead && r == 0) {
                slot *b;
                if (f.t == 1)
                    st = own_rows_ahead(j);
                if (!st && (next = next_panel(j, jj)) < j->nt)
                    st = block(j, 1, 0, next, &b);
            }
        }
    for (; !st && f.back < f.t; f.back++)
        st = give_back(j, f.w, f.back, f.ticket, &f.last);
    if (f.w && f.last) {   /* the worker must be done with this call's slots and arrays */
        int done = cufort_worker_wait(f.w, f.last);
        st = st ? st : done;
    }
    cufort_staging_spread(0);
    return st;
}

int cufort_gemm_run_here(job *j, cufort_gemm_plan_info *info)
{
    char *buf;
    int st;
    *info = (cufort_gemm_plan_info){.devices = 1};
    if ((st = my_engine(&j->e)) || (st = cufort_gemm_allocate(j, &buf)))
        return st;
    carve(j, buf);
    cufort_stream caller = cufort_swap_thread_stream(j->e->comp);
    st = run(j);
    cufort_stream streams[] = {j->e->h2d, j->e->peer, j->e->comp, j->e->d2h};
    for (int i = 0; i < 4; i++) {   /* nothing may still touch the caller's arrays */
        int sync = j->ops->stream_synchronize(streams[i]);
        st = st ? st : sync;
    }
    cufort_swap_thread_stream(caller);
    *info = (cufort_gemm_plan_info){.mb = j->mb, .nb = j->nb, .kb = j->kb, .resident = j->resident,
                                    .device_bytes = j->device_bytes, .bytes_in = j->bytes_in,
                                    .bytes_out = j->bytes_out, .bytes_peer = j->bytes_peer,
                                    .devices = 1, .device_panels = {j->panels},
                                    .last_tile_pieces = j->e->last_tile.count};
    j->e->last = *info;
    return st;
}

void cufort_gemm_keep_plan(const cufort_gemm_plan_info *info)
{
    engine *e = cufort_thread_state_get(&engines, (void **)&mine);
    if (e)
        e->last = *info;
}

void cufort_thunk_gemm_last_plan(cufort_gemm_plan_info *info)
{
    engine *e = cufort_thread_state_get(&engines, (void **)&mine);
    *info = e ? e->last : (cufort_gemm_plan_info){0};
}
