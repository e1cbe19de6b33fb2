/* unmap_only.c — which host memory can lose its pages only through an unmap (unmap_only.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <unistd.h>

#include "unmap_only.h"

int cufort_anonymous_private(uintptr_t start, uintptr_t end)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    char line[512];
    uintptr_t at = start;
    int ok = 1;
    while (ok && at < end && fgets(line, sizeof line, f)) {
        unsigned long lo, hi, inode;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s %*s %*s %lu", &lo, &hi, perms, &inode) != 4 || hi <= at)
            continue;
        ok = lo <= at && perms[3] == 'p' && inode == 0;
        at = hi;
    }
    fclose(f);
    return ok && at >= end;
}

typedef struct {
    uintptr_t start, end;
    int found;
} span;

/* a writable loaded segment (.data and .bss) holding the whole span */
static int in_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    span *s = arg;
    for (int i = 0; i < info->dlpi_phnum && !s->found; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        s->found = ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && lo <= s->start && s->end <= hi;
    }
    return s->found;
}

/* glibc's header just before a block it returns: two words, the block's offset into its mapping
 * (memalign moves a block up inside it) and its size, whose bit 1 alone of the three low bits marks
 * a block with a mapping of its own; a heap block never has that bit.  The header is read through
 * /proc/self/mem: an address that is no block's start (its words may lie in a mapping another
 * thread is taking away) then reads as an error instead of a fault, and a checking allocator's
 * blocks (AddressSanitizer's) are read without its complaint and carry no such header.  The
 * mapping must be whole pages holding the array; the pin itself checks that they are private
 * anonymous memory (one pass over /proc/self/maps, which costs more than all of this). */
static int own_mapping(uintptr_t p, size_t bytes)
{
    const size_t word = sizeof(size_t), pg = (size_t)sysconf(_SC_PAGESIZE);
    if (p % (2 * word) || p < 2 * word)
        return 0;
    size_t head[2];
    int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t got = pread(fd, head, sizeof head, (off_t)(p - 2 * word));
    close(fd);
    if (got != (ssize_t)sizeof head || (head[1] & 7) != 2)
        return 0;
    size_t offset = head[0], size = head[1] & ~(size_t)7;
    uintptr_t block = p - 2 * word;
    return offset <= block && (block - offset) % pg == 0 && (offset + size) % pg == 0 &&
           size >= 2 * word && bytes <= size - 2 * word;
}

int cufort_unmap_only(const void *p, size_t bytes)
{
    span s = {(uintptr_t)p, (uintptr_t)p + bytes, 0};
    dl_iterate_phdr(in_segment, &s);
    return s.found || own_mapping((uintptr_t)p, bytes);
}
