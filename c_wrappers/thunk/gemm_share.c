/* gemm_share.c — A's row panels passed between the devices of a spread GEMM (gemm_internal.h).
 * A device waits only for a panel another has claimed, and a claimer offers (or refuses) it right
 * after queuing its upload, needing nothing from the other devices in between.  At its end a
 * device returns what it borrowed before it waits for its own borrowers: no cycle of waits. */
#include "gemm_internal.h"

void cufort_gemm_share_init(cufort_gemm_panels *p, int64_t n, int64_t width, int tail_parts,
                            int count)
{
    atomic_init(&p->next, 0);
    p->n = n;
    p->width = width;
    p->tail_parts = tail_parts;
    p->count = count;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->changed, NULL);
    for (int i = 0; i < CUFORT_GEMM_MAX_PANELS; i++)
        p->a[i] = (cufort_gemm_a_panel){.state = A_FREE};
    for (int i = 0; i < CUFORT_MAX_DEVICES; i++)
        p->borrowers[i] = 0;
}

void cufort_gemm_share_end(cufort_gemm_panels *p)
{
    pthread_cond_destroy(&p->changed);
    pthread_mutex_destroy(&p->lock);
}

int cufort_gemm_take_a(cufort_gemm_panels *p, int64_t row, int64_t mb, int place,
                       unsigned *borrowed, cufort_gemm_a_panel *from)
{
    if (row < 0 || row >= CUFORT_GEMM_MAX_PANELS || place < 0 || place >= CUFORT_MAX_DEVICES)
        return CUFORT_GEMM_A_UPLOAD;
    cufort_gemm_a_panel *a = &p->a[row];
    int how = CUFORT_GEMM_A_UPLOAD;
    pthread_mutex_lock(&p->lock);
    if (a->state == A_FREE) {
        *a = (cufort_gemm_a_panel){.state = A_CLAIMED, .mb = mb, .owner = place,
                                   .device = cufort_current_device()};
        how = CUFORT_GEMM_A_UPLOAD_OFFER;
    } else {
        while (a->state == A_CLAIMED)
            pthread_cond_wait(&p->changed, &p->lock);
        if (a->state == A_OFFERED && a->mb == mb) {
            *from = *a;
            how = CUFORT_GEMM_A_COPY;
            if (!(*borrowed >> a->owner & 1)) {
                *borrowed |= 1u << a->owner;
                p->borrowers[a->owner]++;
            }
        }
    }
    pthread_mutex_unlock(&p->lock);
    return how;
}

void cufort_gemm_offer_a(cufort_gemm_panels *p, int64_t row, const char *dev, cufort_event ready)
{
    cufort_gemm_a_panel *a = &p->a[row];
    pthread_mutex_lock(&p->lock);
    a->state = dev ? A_OFFERED : A_REFUSED;
    a->dev = dev;
    a->ready = ready;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

void cufort_gemm_share_leave(cufort_gemm_panels *p, int place, unsigned borrowed)
{
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < CUFORT_MAX_DEVICES; i++)
        if (borrowed >> i & 1)
            p->borrowers[i]--;
    pthread_cond_broadcast(&p->changed);
    while (place >= 0 && place < CUFORT_MAX_DEVICES && p->borrowers[place] > 0)
        pthread_cond_wait(&p->changed, &p->lock);
    for (int i = 0; i < CUFORT_GEMM_MAX_PANELS; i++)   /* later takers upload from the host */
        if (p->a[i].state == A_OFFERED && p->a[i].owner == place)
            p->a[i].state = A_REFUSED;
    pthread_mutex_unlock(&p->lock);
}
