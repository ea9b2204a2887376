/*
 * task.h - what your task.c and its checker, task_check.c, share: lesson 02's task.
 */
#ifndef TASK_02_H
#define TASK_02_H

#include <stddef.h>

#include <cuda_runtime.h>

/* Three vectors of n floats each: a and b hold the inputs, c receives c = a + b. */
struct task_vectors {
    float *a, *b, *c;
};

/* Makes the two streams that task_split() issues its work into; the checker makes them once, before
 * its runs, and destroys them after the last. */
void task_streams_create(cudaStream_t streams[2]);

/* c = a + b for n elements, split over the two streams: host holds a and b (pinned memory) and
 * receives c; device is room for a, b and c on the GPU. Returns when c is on the host. */
void task_split(const struct task_vectors *host, const struct task_vectors *device, size_t n,
                cudaStream_t streams[2]);

#endif /* TASK_02_H */
