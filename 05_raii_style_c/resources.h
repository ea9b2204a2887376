/*
 * resources.h - RAII's guarantees in C, for a stream, a pinned host buffer, a device buffer and
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
#ifndef RESOURCES_H
#define RESOURCES_H

#include <stddef.h>

#include <cuda_runtime.h>

struct cuda_stream {
    cudaStream_t handle;
};

struct pinned_buffer {
    void *data;
    size_t bytes;
};

struct device_buffer {
    void *data;
    size_t bytes;
};

struct cuda_event {
    cudaEvent_t handle;
};

cudaError_t cuda_stream_create(struct cuda_stream *stream, unsigned flags);
void cuda_stream_destroy(struct cuda_stream *stream);

cudaError_t pinned_buffer_create(struct pinned_buffer *buffer, size_t bytes);
void pinned_buffer_destroy(struct pinned_buffer *buffer);
struct pinned_buffer pinned_buffer_move(struct pinned_buffer *from);

cudaError_t device_buffer_create(struct device_buffer *buffer, size_t bytes);
void device_buffer_destroy(struct device_buffer *buffer);

/* Exercise 3 of the README: the events that time the asynchronous half. */
cudaError_t cuda_event_create(struct cuda_event *event, unsigned flags);
void cuda_event_destroy(struct cuda_event *event);

#endif /* RESOURCES_H */
