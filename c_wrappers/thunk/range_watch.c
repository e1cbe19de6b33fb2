/* range_watch.c — userfaultfd events for the pin cache (range_watch.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "range_watch.h"

static int fd = -1;
static pthread_mutex_t *held;
static void (*on_lost)(uintptr_t start, uintptr_t end);

static void handle(const struct uffd_msg *m)
{
    switch (m->event) {
    case UFFD_EVENT_UNMAP:
    case UFFD_EVENT_REMOVE:
        on_lost((uintptr_t)m->arg.remove.start, (uintptr_t)m->arg.remove.end);
        break;
    case UFFD_EVENT_REMAP:   /* the pages moved: the old addresses are lost, the new ones unwatched */
        on_lost((uintptr_t)m->arg.remap.from, (uintptr_t)(m->arg.remap.from + m->arg.remap.len));
        cufort_unwatch((uintptr_t)m->arg.remap.to, (size_t)m->arg.remap.len);
        break;
    default:   /* no page faults: nothing is write-protected */
        break;
    }
}

static void *watcher(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            return NULL;
        }
        /* the lock is taken before the read: the unmapping thread runs on once its event is read,
         * and whoever takes the lock after that must find the range already lost */
        pthread_mutex_lock(held);
        struct uffd_msg m[16];
        ssize_t got;
        while ((got = read(fd, m, sizeof m)) > 0)
            for (size_t i = 0; i < (size_t)got / sizeof *m; i++)
                handle(&m[i]);
        pthread_mutex_unlock(held);
        if (got < 0 && errno != EAGAIN && errno != EINTR)
            return NULL;
    }
}

static int open_uffd(void)
{
    /* user-mode-only needs no privilege, and costs nothing here: no fault ever comes to us */
    int flags[2] = {O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY, O_CLOEXEC | O_NONBLOCK};
    for (int i = 0; i < 2; i++) {
        int f = (int)syscall(SYS_userfaultfd, flags[i]);
        if (f < 0)
            continue;
        struct uffdio_api api = {.api = UFFD_API,
                                 .features = UFFD_FEATURE_EVENT_UNMAP | UFFD_FEATURE_EVENT_REMOVE |
                                             UFFD_FEATURE_EVENT_REMAP};
        if (ioctl(f, UFFDIO_API, &api) == 0)
            return f;
        close(f);
    }
    return -1;
}

int cufort_watch_open(pthread_mutex_t *lock, void (*lost)(uintptr_t start, uintptr_t end))
{
    if (fd >= 0)
        return 0;
    int f = open_uffd();
    if (f < 0)
        return -1;
    held = lock;
    on_lost = lost;
    fd = f;
    /* the watcher takes no signal meant for the program's threads */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int rc = pthread_create(&t, &attr, watcher, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        close(f);
        fd = -1;
        return -1;
    }
    return 0;
}

int cufort_watch(uintptr_t start, size_t bytes)
{
    struct uffdio_register r = {.range = {start, bytes}, .mode = UFFDIO_REGISTER_MODE_WP};
    return fd < 0 || ioctl(fd, UFFDIO_REGISTER, &r) ? -1 : 0;
}

void cufort_unwatch(uintptr_t start, size_t bytes)
{
    struct uffdio_range r = {start, bytes};
    if (fd >= 0)
        ioctl(fd, UFFDIO_UNREGISTER, &r);   /* fails harmlessly where the range is gone */
}

void cufort_watch_forget(void)
{
    if (fd >= 0)
        close(fd);
    fd = -1;
}
