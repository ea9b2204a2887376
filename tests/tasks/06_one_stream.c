/*
 * 06_one_stream.c - a typical wrong answer to lesson 06's task (06_overlap_pipeline/task.c):
 * every chunk in the same stream. Right results, but the stream runs its copies and kernels one
 * after another, as the serial run does. The checker must fail it on speed, saying that nothing
 * overlaps.
 */
#include "../../06_overlap_pipeline/task.h"

cudaError_t task_pipeline(const struct rig *r, const struct shape *p)
{
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, p->buffers);
    cudaStream_t stream = r->stream[0];
    for (size_t k = 0; k < plan.chunks; k++) {
        size_t b = k % plan.buffers, first, count;
        chunk_bounds(p->n, plan.chunks, k, &first, &count);
        unsigned *d = r->d_ring[b];
        size_t bytes = count * sizeof(unsigned);
        if (k >= plan.buffers)
            CUDA_TRY(cudaStreamWaitEvent(stream, r->buffer_free[b], 0));
        CUDA_TRY(cudaMemcpyAsync(d, r->h_in + first, bytes, cudaMemcpyHostToDevice, stream));
        CUDA_TRY(launch_work(d, count, p->iters, r->map, stream));
        CUDA_TRY(cudaMemcpyAsync(r->h_out + first, d, bytes, cudaMemcpyDeviceToHost, stream));
        CUDA_TRY(cudaEventRecord(r->buffer_free[b], stream));
    }
    return cudaSuccess;
}
