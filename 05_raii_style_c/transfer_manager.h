/*
 * transfer_manager.h - the lecture's AsyncTransferManager (section 5.3) in C, with its bug fixed:
 * transfer_manager.c says what the bug is and how this manager avoids it.
 */
#ifndef TRANSFER_MANAGER_H
#define TRANSFER_MANAGER_H

#include "resources.h"

enum { TRANSFER_MANAGER_MAX_STREAMS = 8 };

enum transfer_events {
    EVENT_PER_STREAM, /* this lesson's manager */
    ONE_SHARED_EVENT, /* the lecture's: it marks only the latest copy of all (exercise 1) */
};

struct transfer_manager {
    enum transfer_events events;
    int capacity;                                     /* events created */
    int tracked;                                      /* streams seen so far (shared: 1) */
    cudaStream_t streams[TRANSFER_MANAGER_MAX_STREAMS];
    cudaEvent_t last_copy[TRANSFER_MANAGER_MAX_STREAMS]; /* per stream: its latest copy's end */
};

/* Creates the events for up to max_streams streams (1 to TRANSFER_MANAGER_MAX_STREAMS), or the
 * one event that ONE_SHARED_EVENT shares among any number. On failure, what was created is
 * released and *tm is left zeroed. */
cudaError_t transfer_manager_create(struct transfer_manager *tm, int max_streams,
                                    enum transfer_events events);
void transfer_manager_destroy(struct transfer_manager *tm);

/* Enqueue a copy of the whole buffer in `stream`, and note it as that stream's latest. A stream
 * beyond the manager's capacity is refused with cudaErrorInvalidValue. */
cudaError_t transfer_h2d(struct transfer_manager *tm, void *dst, const struct pinned_buffer *src,
                         const struct cuda_stream *stream);
cudaError_t transfer_d2h(struct transfer_manager *tm, struct pinned_buffer *dst, const void *src,
                         const struct cuda_stream *stream);

/* The host waits until every copy enqueued so far, in every stream, has finished. */
cudaError_t transfer_wait_all(const struct transfer_manager *tm);

/* `stream` waits (the host does not) until every copy enqueued so far has finished. */
cudaError_t transfer_stream_wait_all(const struct transfer_manager *tm,
                                     const struct cuda_stream *stream);

#endif /* TRANSFER_MANAGER_H */
