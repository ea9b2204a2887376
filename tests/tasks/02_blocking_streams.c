/*
 * 02_blocking_streams.c - a typical wrong answer to lesson 02's task: the two streams made with
 * cudaStreamCreate, blocking streams, which wait for the legacy default stream and make it wait
 * for them. The split itself is right, and as fast here, where nothing else uses stream 0; the
 * checker's FAIL line names it ("is a blocking stream").
 */
#include "common.h"
#include "kernels.h"
#include "../../02_streams/task.h"

void task_streams_create(cudaStream_t streams[2])
{
    for (int s = 0; s < 2; s++)
        CUDA_CHECK(cudaStreamCreate(&streams[s])); /* the mistake: no cudaStreamNonBlocking */
}

void task_split(const struct task_vectors *host, const struct task_vectors *device, size_t n,
                cudaStream_t streams[2])
{
    for (size_t half = 0; half < 2; half++) {
        size_t first, count;
        chunk_bounds(n, 2, half, &first, &count);
        size_t bytes = count * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(device->a + first, host->a + first, bytes,
                                   cudaMemcpyHostToDevice, streams[half]));
        CUDA_CHECK(cudaMemcpyAsync(device->b + first, host->b + first, bytes,
                                   cudaMemcpyHostToDevice, streams[half]));
        CUDA_CHECK(launch_vector_add(device->a + first, device->b + first, device->c + first,
                                     count, streams[half]));
        CUDA_CHECK(cudaMemcpyAsync(host->c + first, device->c + first, bytes,
                                   cudaMemcpyDeviceToHost, streams[half]));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}
