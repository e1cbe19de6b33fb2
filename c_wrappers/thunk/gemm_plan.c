/* gemm_plan.c — the GEMM engine's plan for one call on one device (gemm_internal.h): tile sizes,
 * resident or out of core, and the device memory it holds, shrunk until the allocation succeeds. */
#include <math.h>

#include "env.h"
#include "gemm_internal.h"
#include "scratch.h"

typedef cufort_gemm_job job;

/* Tiles: 2048 when the arrays are pinned (the DMA engines keep up, so a short start matters most;
 * but see tall_pinned(), and quarters of a call that one such tile would hold: tile_size()), else
 * 4096 (fewer, larger copies; measured on the H100 host, docs/performance.md), and then whole
 * columns when C is at most two tiles tall (plan(); halves of a call that one would hold:
 * tile_width()). */
enum { MAX_PANELS = CUFORT_GEMM_MAX_PANELS, OOC_SLOTS = 2, C_SLOTS = 4, PINNED_TILE = 2048,
       PAGEABLE_TILE = 4096, ALIGN = 256, HALF_ALIGN = 64 };
#define HALVED_BYTES (16.0 * 1024 * 1024)
#define HALVED_FLOPS 1e10
#define QUARTERED_BYTES (4.0 * 1024 * 1024)
#define MAX_TILE ((int64_t)1 << 40)   /* CUFORT_GEMM_TILE past any dimension: one tile, and 2 t fits */

/* The default leaves a sixteenth of the memory (at least 256 MiB) to cuBLAS's workspace and to
 * whatever else runs on the device, and gives MPI ranks sharing the card a share each. */
size_t cufort_thunk_device_budget(void)
{
    size_t cap = SIZE_MAX;
    cufort_env_bytes("CUFORT_DEVICE_MEMORY_CAP", &cap);
    if (cufort_on_host())
        return cap;
    int64_t free_b = 0, total_b = 0;
    int device = 0, devices = 0;
    if (cufort_ops()->mem_info(&free_b, &total_b))
        return cap;
    if (cufort_ops()->device_count(&devices))
        devices = 0;
    device = cufort_current_device();
    size_t dflt = cufort_rank_budget((size_t)free_b, (size_t)total_b, cufort_thunk_scratch_held(),
                                     cufort_ranks_on_device(device, devices));
    return cap < dflt ? cap : dflt;
}

/* Pinned DGEMM with C taller than two small tiles: those tiles' columns are 16 KiB pieces, which
 * the DMA engines move at 32 GB/s beside running kernels, and the pageable plan's whole columns
 * run faster (n = 8192 34.6 ms against 45.8; n = 16384 202 against 222).  The other precisions
 * keep the small tiles that measured best for them on pinned arrays. */
static int tall_pinned(const job *j)
{
    return j->prec == 'd' && j->m > 2 * PINNED_TILE;
}

static double c_bytes(const job *j) { return (double)j->m * (double)j->n * (double)j->es; }

static int64_t tile_from_env(void)
{
    int64_t t = 0;
    cufort_env_int("CUFORT_GEMM_TILE", 1, MAX_TILE, &t);
    return t;
}

/* A pinned call that one tile of 2048 would hold, C 4 MiB or more, goes in quarters instead, so
 * that its copies and GEMMs overlap (H100: n = 1024-2048 14-28% faster, docs/performance.md). */
static int64_t tile_size(const job *j)
{
    int64_t t = tile_from_env();
    if (t)
        return t;
    if (!j->pinned || tall_pinned(j))
        return PAGEABLE_TILE;
    int64_t edge = j->m > j->n ? j->m : j->n;
    if (edge <= PINNED_TILE && c_bytes(j) >= QUARTERED_BYTES)
        return cdiv(cdiv(edge, 2), HALF_ALIGN) * HALF_ALIGN;
    return PINNED_TILE;
}

size_t cufort_gemm_slot_bytes(const job *j, char which)
{
    int64_t elems = which == 'a' ? j->mb * j->kb : which == 'b' ? j->kb * j->nb : j->mb * j->nb;
    return ((size_t)elems * j->es + ALIGN - 1) / ALIGN * ALIGN;
}

static size_t need(const job *j)
{
    return j->na * cufort_gemm_slot_bytes(j, 'a') + j->nbs * cufort_gemm_slot_bytes(j, 'b') +
           j->nc * cufort_gemm_slot_bytes(j, 'c');
}

/* C's tiles hold whole columns: pageable arrays (or tall_pinned()) and C at most two tiles tall */
static int whole_columns(const job *j, int64_t t)
{
    return (!j->pinned || tall_pinned(j)) && j->m <= 2 * t;
}

/* A pageable call that the default tile leaves in one piece goes in two halves of columns when
 * that piece is 16 MiB or more and the GEMM does 10^10 flops or more: the second half's upload and
 * GEMM then overlap the first half's download, which pays once each half's GEMM and download
 * outlast the second tile's start (docs/performance.md, mid-size GEMM: ZGEMM n = 1024, 16 MiB and
 * 8.6e9 flops, is faster in one piece; DGEMM n = 1800 and ZGEMM 1200 are faster in halves). */
static int halved(const job *j)
{
    return !j->pinned && !tile_from_env() && c_bytes(j) >= HALVED_BYTES &&
           cufort_gemm_flops(j) >= HALVED_FLOPS && j->n >= 2 * HALF_ALIGN;
}

/* dim cut in tiles of at most width: as many as width gives, of even width (a multiple of
 * HALF_ALIGN), so that no sliver ends it */
static int64_t even_width(int64_t dim, int64_t width)
{
    return min64(width, cdiv(cdiv(dim, cdiv(dim, width)), HALF_ALIGN) * HALF_ALIGN);
}

/* Tiles of width, unless the last would be under a quarter of it: then even_width().  A sliver
 * puts nearly the whole call in the first tiles, whose copies nothing overlaps (pinned SGEMM
 * n = 2100 in 2048 + 52); a last tile of a quarter or more is a short end to the pipeline, and
 * cut even it measured slower (pinned SGEMM n = 3000: docs/performance.md). */
static int64_t no_sliver(int64_t dim, int64_t width)
{
    int64_t last = dim - (cdiv(dim, width) - 1) * width;
    return last * 4 < width ? even_width(dim, width) : width;
}

/* C's tile width: t, or with whole_columns() the columns holding the bytes of t x t floats, cut
 * into tiles of even width; or halves of C when one such tile would hold it all (halved()).
 * Rounded down to 256 columns alone, the width left a narrow last tile where C needs several
 * (DGEMM n = 3500 in 2304 + 1196 columns), and kept a call that one tile holds, but for a few
 * columns, from its halves (SGEMM n = 4000 in 3840 + 160: docs/performance.md).  A call one tile
 * holds and too small for halves keeps that cut, which measured faster than one tile (DGEMM
 * n = 1500 in 1280 + 220). */
static int64_t tile_width(const job *j, int64_t t)
{
    int64_t nb = min64(j->n, IMAX(t, cdiv(j->n, MAX_PANELS)));
    if (!whole_columns(j, t))
        return tile_from_env() ? nb : no_sliver(j->n, nb);
    double bytes = (double)t * (double)t * 4;   /* t comes from the environment: no overflow */
    int64_t cols = (int64_t)fmin(bytes / ((double)j->m * (double)j->es), (double)j->n);
    nb = min64(j->n, IMAX(cols >= 512 ? cols / 256 * 256 : IMAX(cols, 1), cdiv(j->n, MAX_PANELS)));
    if (cols >= j->n && halved(j))
        return cdiv(cdiv(j->n, 2), HALF_ALIGN) * HALF_ALIGN;
    return cols < j->n ? even_width(j->n, nb) : nb;
}

/* C slots of a resident plan: C_SLOTS; on a staged call spread over devices, two column panels'
 * tiles (at most CUFORT_GEMM_C_SLOTS).  A tile's slot is reused nc tiles later, after its
 * download: with four, the host thread, whose copies bound such a call, waited at each new panel
 * for the first tile of the one before to come back before it packed the new panel's B; with two
 * panels' worth it packs that B while the GPU still computes the panel before
 * (docs/performance.md). */
static int c_slots(const job *j)
{
    if (!j->share || j->pinned)
        return C_SLOTS;
    int64_t two_panels = 2 * cdiv(j->m, j->mb);
    return (int)(two_panels < C_SLOTS ? C_SLOTS : min64(two_panels, CUFORT_GEMM_C_SLOTS));
}

/* B slots of a resident plan spread over devices (panel height mb): three where the call starts
 * with two column panels together (cufort_gemm_paired_start), so that the third panel's B need
 * not wait for the first panel's end; else two */
static int spread_b_slots(const job *j, int64_t mb)
{
    return cufort_gemm_paired_start(j, cdiv(j->m, mb)) ? OOC_SLOTS + 1 : OOC_SLOTS;
}

/* Resident when it fits (with fewer C slots if need be); else out of core, halving kb first (it
 * costs no extra traffic), then the tile.  0 when not even 1 x 1 x 1 blocks fit. */
static int plan(job *j, size_t cap)
{
    int64_t t = tile_size(j), k = j->kt ? j->k : 0;
    j->mb = min64(j->m, IMAX(t, cdiv(j->m, MAX_PANELS)));
    if (!tile_from_env())
        j->mb = no_sliver(j->m, j->mb);
    /* C at most two tiles tall (pageable, or tall_pinned()): tiles of whole columns, so A is one
     * panel and the copies of A, B and C move whole columns.  A tile holds the bytes of t x t
     * floats (64 MiB at t = 4096) in every precision: the last tile's GEMM and download, which
     * nothing overlaps, stay short. */
    if (whole_columns(j, t))
        j->mb = j->m;
    j->nb = j->share ? j->share->width : tile_width(j, t);
    j->kb = k;
    j->resident = 1;
    j->na = k ? (int)cdiv(j->m, j->mb) : 0;
    /* spread over devices, B's panels each serve one column of tiles: a few slots cycle */
    j->nbs = !k          ? 0
             : j->share ? (int)min64(spread_b_slots(j, j->mb), cdiv(j->n, j->nb))
                        : (int)cdiv(j->n, j->nb);
    j->nc = c_slots(j);
    if (need(j) > cap && j->share && j->nbs > OOC_SLOTS)
        j->nbs = OOC_SLOTS;
    if (need(j) > cap && j->nc > C_SLOTS)
        j->nc = C_SLOTS;
    if (need(j) > cap) {
        j->resident = 0;
        j->na = j->nbs = k ? OOC_SLOTS : 0;
        j->nc = OOC_SLOTS;
        while (need(j) > cap) {   /* a shared plan's panel width stays: the devices agree on it */
            int64_t nb = j->share ? 1 : j->nb;
            if (j->kb > 1 && j->kb >= j->mb && j->kb >= nb)
                j->kb = cdiv(j->kb, 2);
            else if (j->mb > 1 && j->mb >= nb)
                j->mb = cdiv(j->mb, 2);
            else if (nb > 1)
                j->nb = cdiv(j->nb, 2);
            else
                return 0;
        }
    }
    j->mt = cdiv(j->m, j->mb);
    j->nt = j->share ? cufort_gemm_panel_count(j->share) : cdiv(j->n, j->nb);
    j->kt = k ? cdiv(k, j->kb) : 0;
    return 1;
}

/* Device memory for the plan, shrinking the plan when the allocation fails (another thread or
 * process may have taken what mem_info reported free). */
int cufort_gemm_allocate(job *j, char **buf)
{
    size_t cap = cufort_thunk_device_budget();
    for (;;) {
        if (!plan(j, cap))
            return cufort_fail(CUFORT_ALLOC_FAILED,
                               "the device memory cap (%zu bytes, CUFORT_DEVICE_MEMORY_CAP) is too "
                               "small for even one element of each matrix", cap);
        j->device_bytes = need(j);
        int st = cufort_thunk_scratch(j->device_bytes, (void **)buf);
        if (st != CUFORT_ALLOC_FAILED || j->device_bytes <= ALIGN * 6)
            return st;
        cufort_clear_error();
        cap = j->device_bytes / 2;
    }
}

int64_t cufort_gemm_panel_width(const job *j) { return tile_width(j, tile_size(j)); }

int cufort_thunk_gemm_plan(char prec, int64_t m, int64_t n, int64_t k, int pinned,
                           cufort_gemm_plan_info *info)
{
    job j = {.prec = prec, .m = m, .n = n, .k = k, .kt = k > 0, .pinned = pinned,
             .es = cufort_prec_size(prec)};
    *info = (cufort_gemm_plan_info){0};
    if (!plan(&j, cufort_thunk_device_budget()))
        return cufort_fail(CUFORT_ALLOC_FAILED, "the device memory cap is too small for this plan");
    *info = (cufort_gemm_plan_info){.mb = j.mb, .nb = j.nb, .kb = j.kb, .resident = j.resident,
                                    .device_bytes = need(&j), .devices = 1};
    return CUFORT_SUCCESS;
}
