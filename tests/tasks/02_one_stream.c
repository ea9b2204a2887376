/*
 * 02_one_stream.c - a typical wrong answer to lesson 02's task: both halves issued into one
 * stream. c verifies, but the halves run one after the other, as in one stream: no faster than
 * one stream, which the checker's FAIL line says ("no faster than one stream").
 */
#include "common.h"
#include "kernels.h"
#include "../../02_streams/task.h"

void task_streams_create(cudaStream_t streams[2])
{
    for (int s = 0; s < 2; s++)
        CUDA_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
}

void task_split(const struct task_vectors *host, const struct task_vectors *device, size_t n,
                cudaStream_t streams[2])
{
    for (size_t half = 0; half < 2; half++) {
        size_t first, count;
        chunk_bounds(n, 2, half, &first, &count);
        size_t bytes = count * sizeof(float);
        cudaStream_t stream = streams[0]; /* the mistake: streams[half] */
        CUDA_CHECK(cudaMemcpyAsync(device->a + first, host->a + first, bytes,
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaMemcpyAsync(device->b + first, host->b + first, bytes,
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(launch_vector_add(device->a + first, device->b + first, device->c + first,
                                     count, stream));
        CUDA_CHECK(cudaMemcpyAsync(host->c + first, device->c + first, bytes,
                                   cudaMemcpyDeviceToHost, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(streams[0]));
}
