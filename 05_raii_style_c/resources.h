/*
 * resources.h - a stream, a pinned host buffer, a device buffer and an event, each a small struct
 * with create and destroy functions: resources.c says what every one of them promises.
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

/* An event with the same promises: exercise 3 records one after a copy (the transfer manager
 * keeps its own events in its struct). */
cudaError_t cuda_event_create(struct cuda_event *event, unsigned flags);
void cuda_event_destroy(struct cuda_event *event);

#endif /* RESOURCES_H */
