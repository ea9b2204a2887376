/*
 * 02_kernels_apart.c - a typical wrong answer to lesson 02's task, "the copies and the kernel
 * over two streams" read as the copies in one and the kernels in the other. Nothing orders a
 * kernel after the copies it reads, nor the copy of c back after the kernel that writes it: the
 * kernels read a and b before they arrive. The checker's FAIL line says where c went wrong and
 * why ("same stream as its copies").
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
    cudaStream_t copies = streams[0], kernels = streams[1]; /* the mistake */
    for (size_t half = 0; half < 2; half++) {
        size_t first, count;
        chunk_bounds(n, 2, half, &first, &count);
        size_t bytes = count * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(device->a + first, host->a + first, bytes,
                                   cudaMemcpyHostToDevice, copies));
        CUDA_CHECK(cudaMemcpyAsync(device->b + first, host->b + first, bytes,
                                   cudaMemcpyHostToDevice, copies));
        CUDA_CHECK(launch_vector_add(device->a + first, device->b + first, device->c + first,
                                     count, kernels));
        CUDA_CHECK(cudaMemcpyAsync(host->c + first, device->c + first, bytes,
                                   cudaMemcpyDeviceToHost, copies));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}
