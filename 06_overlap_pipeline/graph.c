/*
 * graph.c - `--deep graph`: many small chunks, issued call by call, or captured once into a CUDA
 * graph and replayed with one call.
 */
#include "parts.h"

#include "fault.h"

#include <string.h>

/* Replays `exec` b->reps times after a warm-up, and checks the last replay's output. */
static int time_replays(struct bench *b, const struct shape *p, cudaGraphExec_t exec,
                        struct stats *replay)
{
    const struct rig *r = &b->rig;
    for (int rep = -1; rep < b->reps; rep++) {
        if (rep == b->reps - 1)
            memset(r->h_out, 0xff, p->n * sizeof(unsigned));
        double ms;
        if (CUDA_REPORT(cudaEventRecord(r->start, r->stream[0])) ||
            CUDA_REPORT(cudaGraphLaunch(exec, r->stream[0])) || clock_stop(r, &ms))
            return -1;
        if (rep >= 0)
            b->samples[rep] = ms;
    }
    if (!work_verified(r, r->h_in, r->h_out, p->n, p->iters, "graph replay"))
        return -1;
    *replay = stats_summarize(b->samples, (size_t)b->reps);
    return 0;
}

/* Many small chunks cost one call each, microseconds of CPU apiece. Captured once into a graph,
 * the whole pipeline is then launched with one call. Its efficiency is against the bound issued
 * call by call, which pays those calls: unlike the others, it could exceed 1 without a wrong
 * bound. */
static int graph_replay(struct bench *b, const struct shape *p, struct stats *replay)
{
    const struct rig *r = &b->rig;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    int rc = -1;
    if (CUDA_REPORT(cudaStreamBeginCapture(r->stream[0], cudaStreamCaptureModeThreadLocal)))
        return -1;
    cudaError_t captured = pipeline_enqueue(r, p, NOTHING_LEFT_OUT);
    /* The capture must end, failed or not, or stream 0 stays in capture mode. */
    if (CUDA_REPORT(cudaStreamEndCapture(r->stream[0], &graph)))
        return -1;
    resource_acquired(); /* the graph */
    if (!captured && !ACQUIRE("graph instance", cudaGraphInstantiate(&exec, graph, 0))) {
        resource_acquired();
        rc = time_replays(b, p, exec, replay);
        CUDA_REPORT(cudaGraphExecDestroy(exec));
        resource_released();
    }
    CUDA_REPORT(cudaGraphDestroy(graph));
    resource_released();
    return rc;
}

int graph_part(struct bench *b, const struct shape *p)
{
    struct outcome o;
    struct stats replay;
    if (evaluate(b, p, &o) || graph_replay(b, p, &replay))
        return -1;
    char size_text[32];
    printf("\ngraph: %zu chunks of %s over %zu streams, %u iterations: issued call by call, or "
           "replayed as one CUDA graph\n", p->chunks,
           format_bytes(p->n / p->chunks * sizeof(unsigned), size_text, sizeof size_text),
           p->streams, p->iters);
    printf("  bound %.3f ms; streams %.3f ms (efficiency %.3f); graph %.3f ms (efficiency "
           "%.3f)\n", o.bound, o.pipeline.median, o.efficiency.median, replay.median,
           o.bound / replay.median);
    char params[160];
    snprintf(params, sizeof params, "chunks=%zu;streams=%zu;buffers=%zu;iters=%u;efficiency=%.4f;"
             "clock=gpu_event", p->chunks, p->streams, p->buffers, p->iters,
             o.bound / replay.median);
    return record_outcome(b, "graph", p, &o, "") ||
           record(b, "graph", "graph_replay", "both", 2 * p->n * sizeof(unsigned), replay,
                  params);
}

