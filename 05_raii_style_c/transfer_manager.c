/*
 * transfer_manager.c - the lecture's AsyncTransferManager (section 5.3) in C, with its bug fixed.
 *
 * The lecture's manager records one shared event after every copy, whatever the stream. But an
 * event marks one point in one stream, and recording it again moves it: after a copy in stream A
 * and then one in stream B, the event marks only B's copy, and waitForAllTransfers() can return
 * while A's copy is still running. This manager keeps one event per stream it has seen, records
 * it again after each copy in that stream (a stream runs in order, so its latest copy finishing
 * means all its earlier ones have), and waits for every one of them.
 *
 * ONE_SHARED_EVENT builds the lecture's manager instead, bug included, for exercise 1 of the
 * README: every stream's copies record the same event.
 */
#include "transfer_manager.h"

#include "common.h"
#include "fault.h"

cudaError_t transfer_manager_create(struct transfer_manager *tm, int max_streams,
                                    enum transfer_events events)
{
    *tm = (struct transfer_manager){0};
    if (max_streams < 1 || max_streams > TRANSFER_MANAGER_MAX_STREAMS)
        return CUDA_REPORT(cudaErrorInvalidValue);
    int count = events == ONE_SHARED_EVENT ? 1 : max_streams;
    for (int i = 0; i < count; i++) {
        /* Only for waiting, never for timing: no timestamps needed (lesson 03). */
        cudaError_t err = ACQUIRE("transfer event", cudaEventCreateWithFlags(
                                                        &tm->last_copy[i], cudaEventDisableTiming));
        if (err != cudaSuccess) {
            tm->last_copy[i] = NULL;
            transfer_manager_destroy(tm); /* releases events 0 .. i-1 */
            return err;
        }
        tm->capacity = i + 1;
        resource_acquired();
    }
    tm->events = events;
    return cudaSuccess;
}

void transfer_manager_destroy(struct transfer_manager *tm)
{
    if (!tm)
        return;
    for (int i = 0; i < tm->capacity; i++) {
        CUDA_REPORT(cudaEventDestroy(tm->last_copy[i]));
        resource_released();
    }
    *tm = (struct transfer_manager){0};
}

/* The slot that tracks `stream`, taking a free one the first time; -1 when none is left. */
static int slot_of(struct transfer_manager *tm, cudaStream_t stream)
{
    if (tm->events == ONE_SHARED_EVENT) {
        tm->tracked = 1;
        return 0;
    }
    for (int i = 0; i < tm->tracked; i++)
        if (tm->streams[i] == stream)
            return i;
    if (tm->tracked == tm->capacity)
        return -1;
    tm->streams[tm->tracked] = stream;
    return tm->tracked++;
}

static cudaError_t enqueue(struct transfer_manager *tm, void *dst, const void *src, size_t bytes,
                           enum cudaMemcpyKind kind, cudaStream_t stream)
{
    int slot = slot_of(tm, stream);
    if (slot < 0)
        return CUDA_REPORT(cudaErrorInvalidValue);
    CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, kind, stream));
    CUDA_TRY(cudaEventRecord(tm->last_copy[slot], stream));
    return cudaSuccess;
}

cudaError_t transfer_h2d(struct transfer_manager *tm, void *dst, const struct pinned_buffer *src,
                         const struct cuda_stream *stream)
{
    return enqueue(tm, dst, src->data, src->bytes, cudaMemcpyHostToDevice, stream->handle);
}

cudaError_t transfer_d2h(struct transfer_manager *tm, struct pinned_buffer *dst, const void *src,
                         const struct cuda_stream *stream)
{
    return enqueue(tm, dst->data, src, dst->bytes, cudaMemcpyDeviceToHost, stream->handle);
}

cudaError_t transfer_wait_all(const struct transfer_manager *tm)
{
    for (int i = 0; i < tm->tracked; i++)
        CUDA_TRY(cudaEventSynchronize(tm->last_copy[i]));
    return cudaSuccess;
}

cudaError_t transfer_stream_wait_all(const struct transfer_manager *tm,
                                     const struct cuda_stream *stream)
{
    for (int i = 0; i < tm->tracked; i++)
        CUDA_TRY(cudaStreamWaitEvent(stream->handle, tm->last_copy[i], 0));
    return cudaSuccess;
}
