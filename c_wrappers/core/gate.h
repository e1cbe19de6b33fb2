/* gate.h — what makes cufort_shutdown and cufort_set_device safe while other threads are inside
 * cufort.
 *
 * Every public entry point holds the gate for as long as it runs (CUFORT_HOLD_GATE as its first
 * statement; the hold ends when the function returns, by whatever path).  A teardown closes the
 * gate: calls arriving after that wait at the entrance, the teardown waits for the calls already
 * inside to return, runs with no call in flight, and opens the gate again.  The waiting calls then
 * find cufort shut down (device-pointer calls fail with CUFORT_NOT_INITIALIZED, host-array calls
 * initialise it again) instead of finding its state half gone.
 *
 * A thread already inside a call passes the gate freely (public calls made by cufort itself, and
 * the helper threads that work for a call, which never outlive it). */
#ifndef CUFORT_GATE_H
#define CUFORT_GATE_H

int cufort_gate_enter(void);           /* 1 if this was the thread's outermost entry */
void cufort_gate_leave(int *entered);  /* the cleanup of CUFORT_HOLD_GATE */

#define CUFORT_HOLD_GATE                                                                          \
    int cufort_gate_held_ __attribute__((cleanup(cufort_gate_leave), unused)) = cufort_gate_enter()

/* Closes the gate and waits until no other thread is inside.  Refused (CUFORT_INVALID_VALUE, nothing
 * closed) when the caller itself is inside a call: it would wait for itself, or pull the state from
 * under its own caller.  While closed, the closing thread counts as inside (its teardown may make
 * public calls). */
int cufort_gate_close(const char *routine);
void cufort_gate_open(void);
/* 1 when the calling thread is inside a cufort call (then cufort_gate_close would refuse) */
int cufort_gate_inside(void);
/* 1 when the device pointers the calling thread's call checks are the program's: its call is
 * the outermost one, not made by cufort of itself (nested, or on a helper thread), and takes
 * device pointers, not host arrays (whose device buffers are cufort's own) */
int cufort_gate_program_call(void);
/* the calling thread's outermost call takes host arrays (cufort_ensure_init, until it returns) */
void cufort_gate_host_call(void);

/* A helper thread that only ever runs work for a call in flight: it passes the gate for good. */
void cufort_gate_serve_calls(void);

#endif
