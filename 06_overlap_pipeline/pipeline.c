/* pipeline.c - the pipeline itself; see pipeline.h. The experiments around it are in main.c. */
#include "pipeline.h"

#include "common.h"
#include "fault.h"
#include "timeline.h"

#include <string.h>

/* ------------------------------------------------------------------------------------------ *
 * The rig: created once, released on one path, whatever failed.
 * ------------------------------------------------------------------------------------------ */

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

cudaError_t rig_create(struct rig *r, size_t n, size_t buffers, size_t buffer_elems,
                       size_t streams)
{
    const size_t bytes = n * sizeof(unsigned), buffer_bytes = buffer_elems * sizeof(unsigned);
    *r = (struct rig){.buffers = buffers, .buffer_elems = buffer_elems, .streams = streams,
                      .map = {1664525u, 1013904223u}};
    cudaError_t err = GET("pinned data set", &r->h_in, cudaMallocHost((void **)&r->h_in, bytes));
    if (!err)
        err = GET("pinned results", &r->h_out, cudaMallocHost((void **)&r->h_out, bytes));
    for (size_t b = 0; !err && b < buffers; b++) {
        err = GET("ring buffer", &r->d_ring[b], cudaMalloc((void **)&r->d_ring[b], buffer_bytes));
        if (!err)
            err = GET("buffer event", &r->buffer_free[b],
                      cudaEventCreateWithFlags(&r->buffer_free[b], cudaEventDisableTiming));
        if (!err)
            err = GET("stage event", &r->stage_done[b],
                      cudaEventCreateWithFlags(&r->stage_done[b], cudaEventDisableTiming));
        if (!err) /* any bits will do, as long as they are not left over from another program */
            err = CUDA_REPORT(cudaMemset(r->d_ring[b], 0, buffer_bytes));
    }
    for (size_t s = 0; !err && s < streams; s++) {
        err = GET("stream", &r->stream[s],
                  cudaStreamCreateWithFlags(&r->stream[s], cudaStreamNonBlocking));
        if (!err)
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

void rig_destroy(struct rig *r)
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

/* ------------------------------------------------------------------------------------------ *
 * The three stages of one chunk, in chunk k's stream and buffer.
 * ------------------------------------------------------------------------------------------ */

struct chunk {
    cudaStream_t stream;
    unsigned *buffer;
    size_t first, count; /* its elements of the data set */
};

static cudaError_t copy_in(const struct rig *r, const struct chunk *c)
{
    return CUDA_REPORT(cudaMemcpyAsync(c->buffer, r->h_in + c->first, c->count * sizeof(unsigned),
                                       cudaMemcpyHostToDevice, c->stream));
}

static cudaError_t compute(const struct rig *r, const struct chunk *c, unsigned iters)
{
    return CUDA_REPORT(launch_work(c->buffer, c->count, iters, r->map, c->stream));
}

static cudaError_t copy_out(const struct rig *r, const struct chunk *c)
{
    return CUDA_REPORT(cudaMemcpyAsync(r->h_out + c->first, c->buffer, c->count * sizeof(unsigned),
                                       cudaMemcpyDeviceToHost, c->stream));
}

static const enum stage stages_in_order[] = {COPY_IN, COMPUTE, COPY_OUT};
enum { N_STAGES = sizeof stages_in_order / sizeof stages_in_order[0] };

/* The stream a stage of chunk k runs in: the chunk's own, or, by role, the stage's. */
static cudaStream_t stream_of(const struct rig *r, const struct shape *p, enum stage stage,
                              size_t k)
{
    if (!p->by_role)
        return r->stream[k % p->streams];
    return r->stream[stage == COPY_IN ? 0 : stage == COMPUTE ? 1 : 2];
}

/* Issues stage `stage` of chunk k if `stages` holds it. The chunk's first stage waits until its
 * buffer is free: the GPU waits, the host goes on issuing (exercise 2 skips that one wait, to see
 * what it prevents). Its last stage marks the buffer free.
 * By role, the chunk's stages are in different streams, so each later stage waits for the one
 * before it: one more event recorded and waited for per stage. */
static cudaError_t issue(const struct rig *r, const struct shape *p, const struct chunk_plan *plan,
                         unsigned stages, enum stage stage, size_t k)
{
    if (!(stages & stage))
        return cudaSuccess;
    bool opens_chunk = (stages & (stage - 1u)) == 0;     /* no earlier stage issued */
    bool closes_chunk = (stages & ~(2u * stage - 1)) == 0; /* no later one */
    size_t b = k % plan->buffers;
    struct chunk c = {.stream = stream_of(r, p, stage, k), .buffer = r->d_ring[b]};
    chunk_bounds(p->n, plan->chunks, k, &c.first, &c.count);
    if (opens_chunk && k >= plan->buffers && !p->skip_buffer_free_wait)
        CUDA_TRY(cudaStreamWaitEvent(c.stream, r->buffer_free[b], 0));
    if (!opens_chunk && p->by_role)
        CUDA_TRY(cudaStreamWaitEvent(c.stream, r->stage_done[b], 0));
    if (r->tracing)
        timeline_chunk((unsigned)k);
    cudaError_t err = stage == COPY_IN   ? copy_in(r, &c)
                      : stage == COMPUTE ? compute(r, &c, p->iters)
                                         : copy_out(r, &c);
    if (!err && closes_chunk)
        err = CUDA_REPORT(cudaEventRecord(r->buffer_free[b], c.stream));
    else if (!err && p->by_role)
        err = CUDA_REPORT(cudaEventRecord(r->stage_done[b], c.stream));
    return err;
}

/* ------------------------------------------------------------------------------------------ *
 * One run: fork, every chunk's stages, join.
 * ------------------------------------------------------------------------------------------ */

cudaError_t fan_out(const struct rig *r, size_t count)
{
    cudaEvent_t fork = r->joined[0]; /* stream 0 joins no one: its event is free for the fork */
    CUDA_TRY(cudaEventRecord(fork, r->stream[0]));
    for (size_t s = 1; s < count; s++)
        CUDA_TRY(cudaStreamWaitEvent(r->stream[s], fork, 0));
    return cudaSuccess;
}

cudaError_t fan_in(const struct rig *r, size_t count)
{
    for (size_t s = 1; s < count; s++) {
        CUDA_TRY(cudaEventRecord(r->joined[s], r->stream[s]));
        CUDA_TRY(cudaStreamWaitEvent(r->stream[0], r->joined[s], 0));
    }
    return cudaSuccess;
}

cudaError_t clock_stop(const struct rig *r, double *ms)
{
    float elapsed;
    CUDA_TRY(cudaEventRecord(r->stop, r->stream[0]));
    CUDA_TRY(cudaEventSynchronize(r->stop));
    CUDA_TRY(cudaEventElapsedTime(&elapsed, r->start, r->stop));
    *ms = elapsed;
    return cudaSuccess;
}

/* Depth-first: chunk by chunk, each one's stages. Breadth-first: a wave of B chunks at a time,
 * stage by stage. The same loops do both: depth-first's waves are one chunk wide. */
cudaError_t pipeline_enqueue(const struct rig *r, const struct shape *p, unsigned stages)
{
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, p->buffers);
    size_t width = p->breadth_first ? plan.buffers : 1;
    cudaError_t err = fan_out(r, p->streams);
    for (size_t wave = 0; !err && wave < plan.chunks; wave += width) {
        size_t end = wave + width < plan.chunks ? wave + width : plan.chunks;
        for (size_t i = 0; !err && i < N_STAGES; i++)
            for (size_t k = wave; !err && k < end; k++)
                err = issue(r, p, &plan, stages, stages_in_order[i], k);
    }
    return err ? err : fan_in(r, p->streams);
}

cudaError_t pipeline_sync(const struct rig *r, const struct shape *p, const unsigned *in,
                          unsigned *out)
{
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, 1);
    for (size_t k = 0; k < plan.chunks; k++) {
        size_t first, count;
        chunk_bounds(p->n, plan.chunks, k, &first, &count);
        CUDA_TRY(cudaMemcpy(r->d_ring[0], in + first, count * sizeof(unsigned),
                            cudaMemcpyHostToDevice));
        CUDA_TRY(launch_work(r->d_ring[0], count, p->iters, r->map, 0));
        CUDA_TRY(cudaMemcpy(out + first, r->d_ring[0], count * sizeof(unsigned),
                            cudaMemcpyDeviceToHost));
    }
    return cudaSuccess;
}

cudaError_t pipeline_time(const struct rig *r, const struct shape *p, unsigned stages,
                          double *ms)
{
    CUDA_TRY(cudaEventRecord(r->start, r->stream[0]));
    cudaError_t err = pipeline_enqueue(r, p, stages);
    return err ? err : clock_stop(r, ms);
}

size_t work_errors(const struct rig *r, const unsigned *in, const unsigned *out, size_t n,
                   unsigned iters, size_t *first)
{
    struct affine total = work_compose(r->map, iters);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        if (out[i] != total.a * in[i] + total.c && wrong++ == 0)
            *first = i;
    return wrong;
}

bool work_verified(const struct rig *r, const unsigned *in, const unsigned *out, size_t n,
                   unsigned iters, const char *what)
{
    size_t i = 0;
    if (work_errors(r, in, out, n, iters, &i) == 0)
        return true;
    struct affine total = work_compose(r->map, iters);
    fprintf(stderr, "%s: %s: element %zu is %u, want %u\n", program_name, what, i, out[i],
            total.a * in[i] + total.c);
    return false;
}
