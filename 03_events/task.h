/*
 * task.h - the task of 03_events (`make task-03`): the function your task.c writes, and that
 * task_check.c checks against main.c's own experiment 3 (produce_consume()), run by run in turns.
 */
#ifndef EVENTS_TASK_H
#define EVENTS_TASK_H

#include "events.h"

/* Experiment 3, issued by you. The producer stream does 2 ms of work, then writes x = a + b into
 * c->d_x; the consumer stream computes y = x + a into c->d_y and copies y into w->h_c. The
 * consumer must wait for x on the GPU, through the event c->x_ready, and the host must not wait
 * at all: issue everything and return at once. `start` and `stop` (timing events the checker
 * creates for each run) must bracket the work of both streams, so that cudaEventElapsedTime(start,
 * stop) times the whole run. On entry x, y and w->h_c are poisoned, and a and b are on the GPU
 * already (w->d_a, w->d_b). Returns cudaSuccess, or the error of a call that failed. */
cudaError_t task_produce_consume(const struct work *w, const struct cross *c, cudaEvent_t start,
                                 cudaEvent_t stop);

#endif /* EVENTS_TASK_H */
