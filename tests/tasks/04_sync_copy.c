/*
 * 04_sync_copy.c - a typical wrong answer to lesson 04's task (04_pinned_memory/task.c): the
 * buffer is pinned, but the copy is cudaMemcpy, which ignores the stream: it goes to the legacy
 * default stream, runs at once and returns when it is done, so the CPU waits for every copy.
 * The checker must fail it with "not queued in the stream". Build it in task.c's place:
 * make task-04 TASK=tests/tasks/04_sync_copy.c
 */
#include "common.h"

cudaError_t task_host_alloc(void **host, size_t bytes)
{
    return cudaMallocHost(host, bytes);
}

cudaError_t task_copy_async(void *d_dst, const void *host, size_t bytes, cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpy(d_dst, host, bytes, cudaMemcpyHostToDevice);
}

cudaError_t task_host_free(void *host)
{
    return cudaFreeHost(host);
}
