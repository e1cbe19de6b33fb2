/* worker.h — one persistent host thread that runs posted tasks in order.  The GEMM engine hands it
 * the downloads of pageable C tiles, so that their unpacking (host copies) runs while the calling
 * thread packs the next uploads: the two directions share the host's memory system better than
 * one thread doing both in turn. */
#ifndef CUFORT_WORKER_H
#define CUFORT_WORKER_H

#include <stdint.h>

typedef struct cufort_worker cufort_worker;
typedef int (*cufort_task)(void *arg);   /* returns a cufort status; its error message is kept */

int cufort_worker_start(cufort_worker **w);
/* Queues fn(arg) and returns its ticket (1, 2, ...), waiting while the queue is full. */
int64_t cufort_worker_post(cufort_worker *w, cufort_task fn, void *arg);
/* Waits until every task up to ticket has run.  After a task fails the worker skips the tasks that
 * follow it until a wait collects the failure: that wait returns its status and repeats its
 * message on the calling thread. */
int cufort_worker_wait(cufort_worker *w, int64_t ticket);
/* Finishes what is queued, then ends the thread. */
void cufort_worker_stop(cufort_worker *w);

#endif
