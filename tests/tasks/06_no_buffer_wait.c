/*
 * 06_no_buffer_wait.c - a typical wrong answer to lesson 06's task (06_overlap_pipeline/task.c):
 * the loop without the wait for a free buffer. With 4 buffers over 8 streams, chunk k + 4's copy
 * in shares chunk k's buffer but not its stream, and lands while chunk k still uses it. The
 * checker must fail it, naming the missing wait.
 */
#include "../../06_overlap_pipeline/task.h"

cudaError_t task_pipeline(const struct rig *r, const struct shape *p)
{
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, p->buffers);
    for (size_t k = 0; k < plan.chunks; k++) {
        cudaStream_t stream = r->stream[k % p->streams];
        size_t b = k % plan.buffers, first, count;
        chunk_bounds(p->n, plan.chunks, k, &first, &count);
        unsigned *d = r->d_ring[b];
        size_t bytes = count * sizeof(unsigned);
        CUDA_TRY(cudaMemcpyAsync(d, r->h_in + first, bytes, cudaMemcpyHostToDevice, stream));
        CUDA_TRY(launch_work(d, count, p->iters, r->map, stream));
        CUDA_TRY(cudaMemcpyAsync(r->h_out + first, d, bytes, cudaMemcpyDeviceToHost, stream));
        CUDA_TRY(cudaEventRecord(r->buffer_free[b], stream)); /* recorded, never waited for */
    }
    return cudaSuccess;
}
