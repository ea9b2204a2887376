/*
 * task.c - your task: the multi-buffer pipeline loop of lecture 7.1 and table 2.
 *
 * Write task_pipeline() below, then run `make task-06`: it checks your loop on the GPU against
 * the lesson's own, in turns, and ends with PASS or FAIL and why. PASS: every chunk of every run
 * comes back right, and your loop runs at 0.9 of the lesson's speed or more, on the same shape
 * (64 chunks, 4 buffers, 8 streams: chunks k and k + 4 share a buffer but not a stream).
 *
 * What you have (task.h, pipeline.h): r->h_in and r->h_out, p->n elements each, in pinned
 * memory; r->d_ring[b], a device buffer of the largest chunk, and r->buffer_free[b], an event,
 * for b < r->buffers; r->stream[s], non-blocking streams, of which the shape uses p->streams;
 * launch_work(buffer, count, p->iters, r->map, stream) runs the kernel on a buffer in place;
 * chunk_plan_make() and chunk_bounds() cut the data set. Return the first CUDA error
 * (CUDA_TRY does that), or cudaSuccess. Do not wait and do not time: the checker does both.
 */
#include "task.h"

cudaError_t task_pipeline(const struct rig *r, const struct shape *p)
{
    /* 1. Plan the chunks: how many there are and how many buffers they go round, from the
     *    shape (p->n, p->chunks, p->buffers). */

    /* 2. For each chunk k, in order:
     *    a. pick its stream and its device buffer: the chunks go round both;
     *    b. find which elements of the data set it holds;
     *    c. if an earlier chunk used this buffer, make the chunk's stream wait, on the GPU and
     *       not on the host, until that chunk is done with it;
     *    d. copy the chunk in, run the kernel on it, and copy it back to its place in h_out,
     *       all three in the chunk's stream, none of them blocking the host;
     *    e. mark the buffer free again, for the next chunk that uses it. */

    /* 3. Return without waiting for the GPU: the checker joins the streams and times them. */
    (void)r;
    (void)p;
    return cudaErrorNotYetImplemented; /* delete this line once the loop above is written */
}
