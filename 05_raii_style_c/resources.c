/*
 * resources.c - RAII's guarantees in C, for a stream, a pinned host buffer, a device buffer and
 * an event.
 *
 * The lecture wraps each CUDA resource in a C++ class (section 5.1 CudaStream, 5.2
 * PinnedHostMemory): the constructor acquires, the destructor releases, copying is forbidden and
 * moving transfers ownership. C has no destructors, so each resource here is a small struct
 * with functions that keep the same promises:
 *
 *   - a handle starts zeroed ({0}), and a zeroed handle owns nothing;
 *   - *_create() acquires, returns a cudaError_t, and leaves the handle zeroed when it fails;
 *   - *_destroy() releases, accepts a NULL pointer or a zeroed handle, zeroes the handle (so a
 *     second call does nothing), reports a failure on stderr and never aborts;
 *   - pinned_buffer_move() is the C counterpart of std::move: it returns the handle and zeroes
 *     the source, so exactly one owner is left (the other handles move the same way, when a
 *     program needs it). Copying a handle struct with `=` makes two owners and a double
 *     release: move instead.
 *
 * Who calls *_destroy() is up to the caller: a goto ladder (demo_goto.c) or a cleanup attribute
 * (demo_scoped.c).
 */
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
