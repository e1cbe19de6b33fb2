/* core_link.c — libcufort, opened when a call first needs it (route.h, CORE).  A drop-in sends
 * small calls to the CPU library and never touches the GPU for them, and many programs never make
 * a large one (most ranks of a CPU-sized MPI job, say).  Linked in, libcufort would bring cuBLAS
 * along, whose loading costs every process about 0.1 s (16 processes at once on the H100 host):
 * on a one-second run, 10% for nothing.  So the drop-ins open it themselves, the first time
 * something needs it: from their own directory, else wherever the dynamic loader finds it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "route.h"

static void *core;
static int is_open;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[512];

static void open_core(void)
{
    Dl_info info;
    const char *slash;
    if (dladdr((void *)open_core, &info) && info.dli_fname &&
        (slash = strrchr(info.dli_fname, '/'))) {
        char path[4096];
        snprintf(path, sizeof path, "%.*s/libcufort.so.1", (int)(slash - info.dli_fname),
                 info.dli_fname);
        core = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    }
    if (!core)
        core = dlopen("libcufort.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!core)
        snprintf(why, sizeof why, "%s", dlerror());
    __atomic_store_n(&is_open, 1, __ATOMIC_RELEASE);
}

int route_core_open(void) { return __atomic_load_n(&is_open, __ATOMIC_ACQUIRE) && core; }

void *route_core_symbol(const char *name, void **slot)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    pthread_once(&once, open_core);
    if (core && !(f = dlsym(core, name)))
        snprintf(why, sizeof why, "%s", dlerror());
    if (!f) {   /* a library installed without the other: nothing sensible to do but say so */
        fprintf(stderr, "%s: cannot use libcufort (%s): %s\n", dropin_this.title, name, why);
        exit(1);
    }
    __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    return f;
}
