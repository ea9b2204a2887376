/*
 * task.c - your task for lesson 04: allocate pinned memory and copy from it asynchronously.
 *
 * Write the three functions below, then run `make task-04`: it gives your buffer data, times
 * your copy and the lesson's own pinned copy of the same size in turns, on the GPU's events,
 * checks every byte your copy delivers, and says PASS when your copy runs at 0.9 of the lesson's
 * bandwidth or more. Each function returns cudaSuccess, or the error of the CUDA call that
 * failed (return it; the checker reports it).
 */
#include "common.h"

/* Sets *host to a host buffer of `bytes` that the GPU's copy engines can read by DMA on their
 * own, with no copy by the CPU first. */
cudaError_t task_host_alloc(void **host, size_t bytes)
{
    /* 1. Get `bytes` of host memory that the operating system may neither move nor swap out
     *    (page-locked), from the CUDA runtime, into *host. */

    /* 2. Return the call's error. (The three lines below make the checker say "not written
     *    yet": delete them.) */
    (void)host;
    (void)bytes;
    return cudaErrorNotYetImplemented;
}

/* Copies `bytes` from `host` (a buffer of task_host_alloc()) to d_dst on the GPU, in `stream`,
 * and returns before the copy has run. The checker holds `stream` while it calls this, as the
 * lesson's timing does (timing.c), and times the copy with events in that stream. */
cudaError_t task_copy_async(void *d_dst, const void *host, size_t bytes, cudaStream_t stream)
{
    /* 1. Queue the host-to-device copy in `stream`: the copy engines run it when the stream
     *    gets to it, while the CPU goes on. */

    /* 2. Return the call's error at once: do not wait for the copy. */
    (void)d_dst;
    (void)host;
    (void)bytes;
    (void)stream;
    return cudaErrorNotYetImplemented;
}

/* Gives back a buffer of task_host_alloc(). */
cudaError_t task_host_free(void *host)
{
    /* 1. Release it the way it was allocated: to the CUDA runtime, which unlocks its pages. */

    /* 2. Return the call's error. */
    (void)host;
    return cudaErrorNotYetImplemented;
}
