/*
 * 06_overlap_pipeline - copy in, compute and copy out at the same time: the multi-buffer pipeline.
 *
 * Lecture section 7.1 and table 2. A data set in pinned host memory, larger than what the GPU
 * holds of it at once, goes through in K chunks and a ring of B device buffers, spread over S
 * streams. pipeline() below is the whole idea, one loop; the rest of this file creates what the
 * loop runs on and runs the lesson:
 *
 *   the balance point: the kernel's iterations at which the loop's kernels take as long as its
 *      copies (regimes.c);
 *   1. three regimes, copy-bound, balanced and compute-bound, each timing pipeline() against
 *      lesson 01's synchronous way, the same loop on one stream and one buffer, and the bound
 *      (regimes.c);
 *   2. with --trace PREFIX, a timeline of a serial and a pipelined run, recorded by CUPTI
 *      (trace.c).
 *
 * --deep PARTS runs the parts of DEEP.md after them (parts.c); --exercise N runs exercise N of
 * README.md instead (exercises.c).
 *
 * From lesson 05 on, code that owns resources returns its error and releases everything on one
 * path: rig_create() releases what it made when a later step fails, rig_destroy() accepts a
 * half-built rig, and every acquisition goes through ACQUIRE() so that --fail-at N can fail it.
 */
#include "bench.h"
#include "exercises.h"
#include "fault.h"
#include "parts.h"
#include "setup.h"

#include <string.h>

/* Lecture table 2, one chunk per turn of the loop. Chunk k goes to stream k mod S and device
 * buffer k mod B. While chunk k is copied back, chunk k+1 is computed and chunk k+2 copied in,
 * each in its own stream, so the copy engines and the SMs work at once. Buffer b is reused by
 * chunk k+B: before that chunk's copy in, its stream waits (on the GPU; the host goes on
 * issuing) for the event recorded after chunk k's copy out. Where S divides B, as in the default
 * 8 and 8, chunk k ran in the same stream, whose order already holds chunk k+B back: the wait is
 * then implied, and it matters on every other shape (--streams 8 --buffers 12, or exercise 2's
 * --streams 8 --buffers 4, where two streams take turns with each buffer). */
static cudaError_t pipeline(const struct rig *r, const struct shape *p)
{
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, p->buffers);
    for (size_t k = 0; k < plan.chunks; k++) {
        cudaStream_t stream = r->stream[k % p->streams];
        size_t b = k % plan.buffers, first, count;
        chunk_bounds(p->n, plan.chunks, k, &first, &count);
        unsigned *d = r->d_ring[b];
        size_t bytes = count * sizeof(unsigned);
        if (k >= plan.buffers) /* wait until the buffer is free */
            CUDA_TRY(cudaStreamWaitEvent(stream, r->buffer_free[b], 0));
        CUDA_TRY(cudaMemcpyAsync(d, r->h_in + first, bytes, cudaMemcpyHostToDevice, stream));
        CUDA_TRY(launch_work(d, count, p->iters, r->map, stream));
        CUDA_TRY(cudaMemcpyAsync(r->h_out + first, d, bytes, cudaMemcpyDeviceToHost, stream));
        CUDA_TRY(cudaEventRecord(r->buffer_free[b], stream)); /* the buffer is free again */
    }
    return cudaSuccess;
}

/* Counts an acquisition that succeeded; clears the handle of one that failed, so that
 * rig_destroy() sees nothing there to release. */
static cudaError_t acquired(cudaError_t err, void *handle, size_t handle_size)
{
    if (err == cudaSuccess)
        resource_acquired();
    else
        memset(handle, 0, handle_size);
    return err;
}
#define GET(what, handle, call) acquired(ACQUIRE(what, call), (handle), sizeof *(handle))
#define PUT(call) (CUDA_REPORT(call), resource_released())

static void rig_destroy(struct rig *r);

/* What the loop runs on, made once, outside every timed region: the data set and its results
 * in pinned memory (only pinned memory lets cudaMemcpyAsync return before the copy is done,
 * lesson 04), the ring of device buffers with an event each, and non-blocking streams, which
 * the legacy default stream does not serialise (lesson 02). */
static cudaError_t rig_create(struct rig *r, size_t n, size_t buffers, size_t buffer_elems,
                              size_t streams)
{
    const size_t bytes = n * sizeof(unsigned), buffer_bytes = buffer_elems * sizeof(unsigned);
    *r = (struct rig){.buffers = buffers, .buffer_elems = buffer_elems, .streams = streams,
                      .map = {1664525u, 1013904223u}, .n = n};
    cudaError_t err = GET("pinned data set", &r->h_in, cudaMallocHost((void **)&r->h_in, bytes));
    if (!err)
        err = GET("pinned results", &r->h_out, cudaMallocHost((void **)&r->h_out, bytes));
    for (size_t b = 0; !err && b < buffers; b++) {
        err = GET("ring buffer", &r->d_ring[b], cudaMalloc((void **)&r->d_ring[b], buffer_bytes));
        if (!err)
            err = GET("buffer event", &r->buffer_free[b],
                      cudaEventCreateWithFlags(&r->buffer_free[b], cudaEventDisableTiming));
        if (!err) /* the engine's by-role layout: a chunk is through a stage */
            err = GET("stage event", &r->stage_done[b],
                      cudaEventCreateWithFlags(&r->stage_done[b], cudaEventDisableTiming));
        if (!err) /* any bits will do, as long as they are not left over from another program */
            err = CUDA_REPORT(cudaMemset(r->d_ring[b], 0, buffer_bytes));
    }
    for (size_t s = 0; !err && s < streams; s++) {
        err = GET("stream", &r->stream[s],
                  cudaStreamCreateWithFlags(&r->stream[s], cudaStreamNonBlocking));
        if (!err) /* the fork and join that let events in stream 0 time every stream */
            err = GET("join event", &r->joined[s],
                      cudaEventCreateWithFlags(&r->joined[s], cudaEventDisableTiming));
    }
    if (!err)
        err = GET("start event", &r->start, cudaEventCreate(&r->start));
    if (!err)
        err = GET("stop event", &r->stop, cudaEventCreate(&r->stop));
    if (!err) /* the streams are non-blocking: they would not wait for those memsets */
        err = CUDA_REPORT(cudaDeviceSynchronize());
    if (err)
        rig_destroy(r);
    return err;
}

/* Releases everything; accepts a zeroed or half-built rig, and zeroes it. */
static void rig_destroy(struct rig *r)
{
    CUDA_REPORT(cudaDeviceSynchronize()); /* after an error, work may still be in flight */
    for (size_t b = 0; b < MAX_BUFFERS; b++) {
        if (r->d_ring[b])
            PUT(cudaFree(r->d_ring[b]));
        if (r->buffer_free[b])
            PUT(cudaEventDestroy(r->buffer_free[b]));
        if (r->stage_done[b])
            PUT(cudaEventDestroy(r->stage_done[b]));
    }
    for (size_t s = 0; s < MAX_STREAMS; s++) {
        if (r->stream[s]) /* cudaStreamDestroy(NULL) is an error, not a no-op */
            PUT(cudaStreamDestroy(r->stream[s]));
        if (r->joined[s])
            PUT(cudaEventDestroy(r->joined[s]));
    }
    if (r->start)
        PUT(cudaEventDestroy(r->start));
    if (r->stop)
        PUT(cudaEventDestroy(r->stop));
    if (r->h_in)
        PUT(cudaFreeHost(r->h_in));
    if (r->h_out)
        PUT(cudaFreeHost(r->h_out));
    *r = (struct rig){0};
}

/* The lesson's parts, or exercise `exercise`, on one rig. */
static int run(const struct settings *s, const struct gpu_info *gpu, int reps, struct csv *csv,
               int exercise)
{
    struct bench b = {.plain = pipeline, .samples = samples_alloc((size_t)reps * (MAX_TURNS + 1)),
                      .reps = reps, .copy_engines = gpu->copy_engines, .csv = csv};
    if (!b.samples ||
        rig_create(&b.rig, s->n, s->ring_buffers, s->buffer_elems, s->streams_made)) {
        free(b.samples);
        return -1;
    }
    for (size_t i = 0; i < s->n; i++) /* any bits will do, as long as they differ */
        b.rig.h_in[i] = (unsigned)i * 2654435761u + 12345u;
    struct shape base;
    int rc = exercise ? run_exercise(&b, s, exercise)
             : main_shape(&b, s, &base) || regimes(&b, &base) || later_parts(&b, s, &base)
                 ? -1
                 : 0;
    rig_destroy(&b.rig);
    free(b.samples);
    return rc;
}

int main(int argc, char **argv)
{
    struct common_args args;
    struct settings s;
    int exercise;
    int rc = settings_parse(argc, argv, &args, &s, &exercise);
    if (rc != CLI_CONTINUE)
        return rc;
    struct sized sizes[2];
    size_t n_sizes = settings_sized(&s, &args, exercise, sizes);
    struct gpu_info gpu;
    struct csv csv;
    rc = lesson_open("06_overlap_pipeline", &args, sizes, n_sizes, &gpu, &csv);
    if (rc != EXIT_VERIFIED)
        return rc;
    settings_fit(&s, &args, exercise); /* the sizes lesson_open() chose */
    rc = run(&s, &gpu, args.reps, &csv, exercise) ? EXIT_ERROR : EXIT_VERIFIED;
    if (lesson_close(&csv))
        rc = EXIT_ERROR;
    rc = resources_report(rc);
    if (rc == EXIT_VERIFIED && !exercise) /* an exercise says what it verified */
        print_verified(&s);
    return rc;
}
