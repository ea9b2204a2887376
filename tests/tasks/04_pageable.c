/*
 * 04_pageable.c - a typical wrong answer to lesson 04's task (04_pinned_memory/task.c): the
 * buffer comes from malloc, pageable memory, so the driver must stage every copy through a
 * pinned buffer with the CPU, and the "asynchronous" call waits for it. The checker must fail it
 * with "pageable memory". Build it in task.c's place: make task-04 TASK=tests/tasks/04_pageable.c
 */
#include "common.h"

cudaError_t task_host_alloc(void **host, size_t bytes)
{
    *host = malloc(bytes);
    return *host ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t task_copy_async(void *d_dst, const void *host, size_t bytes, cudaStream_t stream)
{
    return cudaMemcpyAsync(d_dst, host, bytes, cudaMemcpyHostToDevice, stream);
}

cudaError_t task_host_free(void *host)
{
    free(host);
    return cudaSuccess;
}
