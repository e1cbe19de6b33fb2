/* unmap_only.h — which host memory can lose its pages only through an unmap, for the pin cache.
 * A pin is safe only while its addresses keep their pages.  The watcher (range_watch.h) hears
 * munmap, mremap and madvise; it cannot hear free() handing a heap block to the next malloc, or a
 * stack frame's memory going to the next frame.  A pin left behind there is stale, and a later copy
 * by anyone (the program's own CUDA calls too) that starts inside it and runs past its end fails in
 * the driver.  Memory that only an unmap takes away never leaves such a pin. */
#ifndef CUFORT_UNMAP_ONLY_H
#define CUFORT_UNMAP_ONLY_H

#include <stddef.h>
#include <stdint.h>

/* 1 when [start, end) lies in private anonymous mappings (/proc/self/maps): shared and file
 * mappings can lose their pages without an event (another process truncates the file) */
int cufort_anonymous_private(uintptr_t start, uintptr_t end);

/* 1 when [p, p + bytes) is static data of a loaded object (COMMON blocks, SAVEd and module arrays:
 * freed only when the object is unloaded, which unmaps it), or lies in a block that glibc's malloc
 * mapped on its own (free unmaps it, realloc moves it with mremap), p being the block's start */
int cufort_unmap_only(const void *p, size_t bytes);

#endif
