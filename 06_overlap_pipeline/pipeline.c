/* pipeline.c - the engine; see pipeline.h. main.c holds the lesson's own loop, and the rig. */
#include "pipeline.h"

#include "common.h"
#include "timeline.h"

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

enum stage { COPY_IN, COMPUTE, COPY_OUT, N_STAGES }; /* a chunk's, in order */

static bool issued(enum left_out left_out, enum stage stage)
{
    if (stage == COMPUTE)
        return left_out != KERNELS_LEFT_OUT;
    return left_out != COPIES_LEFT_OUT;
}

/* The first and the last stage a chunk issues: the first waits for its buffer, the last marks
 * the buffer free. */
static enum stage first_stage(enum left_out left_out)
{
    return left_out == COPIES_LEFT_OUT ? COMPUTE : COPY_IN;
}

static enum stage last_stage(enum left_out left_out)
{
    return left_out == COPIES_LEFT_OUT ? COMPUTE : COPY_OUT;
}

/* The stream a stage of chunk k runs in: the chunk's own, or, by role, the stage's. */
static cudaStream_t stream_of(const struct rig *r, const struct shape *p, enum stage stage,
                              size_t k)
{
    if (!p->by_role)
        return r->stream[k % p->streams];
    if (stage == COPY_IN)
        return r->stream[0];
    return stage == COMPUTE ? r->stream[1] : r->stream[2];
}

/* Issues stage `stage` of chunk k, unless it is left out. The chunk's first stage waits until
 * its buffer is free: the GPU waits, the host goes on issuing (exercise 2 leaves that one wait
 * out). Its last stage marks the buffer free. By role, the chunk's stages
 * are in different streams, so each later stage waits for the one before it: one more event
 * recorded and waited for per stage. */
static cudaError_t issue(const struct rig *r, const struct shape *p, const struct chunk_plan *plan,
                         enum left_out left_out, enum stage stage, size_t k)
{
    if (!issued(left_out, stage))
        return cudaSuccess;
    bool opens_chunk = stage == first_stage(left_out);
    bool closes_chunk = stage == last_stage(left_out);
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
cudaError_t pipeline_enqueue(const struct rig *r, const struct shape *p, enum left_out left_out)
{
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, p->buffers);
    size_t width = p->breadth_first ? plan.buffers : 1;
    cudaError_t err = fan_out(r, p->streams);
    for (size_t wave = 0; !err && wave < plan.chunks; wave += width) {
        size_t end = wave + width < plan.chunks ? wave + width : plan.chunks;
        for (enum stage stage = COPY_IN; !err && stage < N_STAGES; stage++)
            for (size_t k = wave; !err && k < end; k++)
                err = issue(r, p, &plan, left_out, stage, k);
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

cudaError_t pipeline_time(const struct rig *r, const struct shape *p, enum left_out left_out,
                          double *ms)
{
    CUDA_TRY(cudaEventRecord(r->start, r->stream[0]));
    cudaError_t err = pipeline_enqueue(r, p, left_out);
    return err ? err : clock_stop(r, ms);
}

cudaError_t loop_time(const struct rig *r, const struct shape *p, chunk_loop *loop, double *ms)
{
    CUDA_TRY(cudaEventRecord(r->start, r->stream[0]));
    CUDA_TRY(fan_out(r, p->streams));
    CUDA_TRY(loop(r, p));
    CUDA_TRY(fan_in(r, p->streams));
    return clock_stop(r, ms);
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
