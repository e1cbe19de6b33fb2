/* range_watch.h — the kernel tells cufort when addresses it watches lose their pages.
 * A range stays backed by the same pages until the program unmaps, moves (mremap) or discards
 * (madvise DONTNEED/FREE/REMOVE) part of it; userfaultfd reports each of these as an event, and
 * the thread that caused it waits until the event has been read.  The watcher thread reads events
 * holding the caller's lock and calls `lost` for each, so once munmap or madvise has returned, every
 * thread that takes that lock sees the range as lost.  Ranges are page-aligned and watched in
 * write-protect mode with nothing write-protected: no page fault ever comes to the watcher, so the
 * program's own accesses never wait for it.  Watch and unwatch with the lock held. */
#ifndef CUFORT_RANGE_WATCH_H
#define CUFORT_RANGE_WATCH_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* once per process: 0 when watching works here (the watcher thread is running) */
int cufort_watch_open(pthread_mutex_t *lock, void (*lost)(uintptr_t start, uintptr_t end));
int cufort_watch(uintptr_t start, size_t bytes);   /* 0: watched; anonymous memory only */
void cufort_unwatch(uintptr_t start, size_t bytes);
void cufort_watch_forget(void);   /* in a fork's child, which has no watcher thread */

#endif
