/*
 * task.h - the coding task of lesson 06: the multi-buffer pipeline loop, written by the student
 * in task.c, checked by task_check.c (`make task-06`) against main.c's pipeline().
 *
 * The rig (pipeline.h) is made for it: h_in and h_out in pinned memory, r->buffers device
 * buffers d_ring[] of the largest chunk each, with an event buffer_free[] each, and non-blocking
 * streams stream[]. The checker forks streams 1..p->streams-1 from stream 0 before calling the
 * loop and joins them into stream 0 after it (fan_out(), fan_in()), so the loop issues work and
 * returns: it neither waits nor times.
 */
#ifndef TASK_H
#define TASK_H

#include "common.h"
#include "pipeline.h"

/* Issues the whole pipeline of shape p into the rig's streams and returns without waiting:
 * h_out[i] = the kernel's result of h_in[i] for i < p->n. The first CUDA error, or cudaSuccess. */
cudaError_t task_pipeline(const struct rig *r, const struct shape *p);

#endif /* TASK_H */
