/*
 * 06_default_stream.c - a typical wrong answer to lesson 06's task (06_overlap_pipeline/task.c):
 * everything in the default stream, 0. The rig's streams are non-blocking, so the legacy default
 * stream does not wait for them, nor they for it: the events in stream 0 time none of this work
 * and the join does not wait for it. The checker must fail it, naming the default stream.
 */
#include "../../06_overlap_pipeline/task.h"

cudaError_t task_pipeline(const struct rig *r, const struct shape *p)
{
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, p->buffers);
    for (size_t k = 0; k < plan.chunks; k++) {
        size_t b = k % plan.buffers, first, count;
        chunk_bounds(p->n, plan.chunks, k, &first, &count);
        unsigned *d = r->d_ring[b];
        size_t bytes = count * sizeof(unsigned);
        if (k >= plan.buffers)
            CUDA_TRY(cudaStreamWaitEvent(0, r->buffer_free[b], 0));
        CUDA_TRY(cudaMemcpyAsync(d, r->h_in + first, bytes, cudaMemcpyHostToDevice, 0));
        CUDA_TRY(launch_work(d, count, p->iters, r->map, 0));
        CUDA_TRY(cudaMemcpyAsync(r->h_out + first, d, bytes, cudaMemcpyDeviceToHost, 0));
        CUDA_TRY(cudaEventRecord(r->buffer_free[b], 0));
    }
    return cudaSuccess;
}
