/* resources.c - see resources.h for the promises every function here keeps. */
#include "resources.h"

#include "common.h"
#include "fault.h"

cudaError_t cuda_stream_create(struct cuda_stream *stream, unsigned flags)
{
    *stream = (struct cuda_stream){NULL};
    cudaError_t err = ACQUIRE("stream", cudaStreamCreateWithFlags(&stream->handle, flags));
    if (err != cudaSuccess) {
        stream->handle = NULL;
        return err;
    }
    resource_acquired();
    return cudaSuccess;
}

void cuda_stream_destroy(struct cuda_stream *stream)
{
    /* cudaStreamDestroy(NULL) is an error, not a no-op: the guard is needed. */
    if (!stream || !stream->handle)
        return;
    CUDA_REPORT(cudaStreamDestroy(stream->handle));
    stream->handle = NULL;
    resource_released();
}

cudaError_t pinned_buffer_create(struct pinned_buffer *buffer, size_t bytes)
{
    *buffer = (struct pinned_buffer){NULL, 0};
    cudaError_t err = ACQUIRE("pinned host buffer", cudaMallocHost(&buffer->data, bytes));
    if (err != cudaSuccess) {
        buffer->data = NULL;
        return err;
    }
    buffer->bytes = bytes;
    resource_acquired();
    return cudaSuccess;
}

void pinned_buffer_destroy(struct pinned_buffer *buffer)
{
    if (!buffer || !buffer->data)
        return;
    CUDA_REPORT(cudaFreeHost(buffer->data));
    *buffer = (struct pinned_buffer){NULL, 0};
    resource_released();
}

struct pinned_buffer pinned_buffer_move(struct pinned_buffer *from)
{
    struct pinned_buffer to = *from;
    *from = (struct pinned_buffer){NULL, 0};
    return to;
}

cudaError_t device_buffer_create(struct device_buffer *buffer, size_t bytes)
{
    *buffer = (struct device_buffer){NULL, 0};
    cudaError_t err = ACQUIRE("device buffer", cudaMalloc(&buffer->data, bytes));
    if (err != cudaSuccess) {
        buffer->data = NULL;
        return err;
    }
    buffer->bytes = bytes;
    resource_acquired();
    return cudaSuccess;
}

void device_buffer_destroy(struct device_buffer *buffer)
{
    if (!buffer || !buffer->data)
        return;
    CUDA_REPORT(cudaFree(buffer->data));
    *buffer = (struct device_buffer){NULL, 0};
    resource_released();
}

cudaError_t cuda_event_create(struct cuda_event *event, unsigned flags)
{
    *event = (struct cuda_event){NULL};
    cudaError_t err = ACQUIRE("event", cudaEventCreateWithFlags(&event->handle, flags));
    if (err != cudaSuccess) {
        event->handle = NULL;
        return err;
    }
    resource_acquired();
    return cudaSuccess;
}

void cuda_event_destroy(struct cuda_event *event)
{
    /* cudaEventDestroy(NULL) is an error too. */
    if (!event || !event->handle)
        return;
    CUDA_REPORT(cudaEventDestroy(event->handle));
    event->handle = NULL;
    resource_released();
}
