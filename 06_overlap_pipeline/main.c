/*
 * 06_overlap_pipeline - copy in, compute and copy out at the same time: the multi-buffer pipeline.
 *
 * Lecture section 7.1 and table 2. A data set in pinned host memory, larger than what the GPU
 * holds of it, goes through in K chunks and a ring of B device buffers, spread over S streams:
 * while chunk k is copied back, chunk k+1 is computed and chunk k+2 copied in. An event per
 * buffer says when its last copy back is done, so no buffer is overwritten too early.
 *
 *   1. three regimes (copy-bound, balanced, compute-bound), each against the synchronous
 *      baseline, the serial pinned version and the bound: the slower of the kernel alone and the
 *      copies alone, both directions at once. Efficiency = bound / pipeline time.
 *   2. a timeline of a serial and a pipelined run, recorded by CUPTI, for Perfetto and the plots.
 *   3. sweeps: chunks x streams, and the kernel's arithmetic intensity.
 *   4. variants: the pipeline captured in a CUDA graph and replayed (many small chunks), and
 *      managed memory with prefetching (lecture 7.6).
 *
 * Times are events around the GPU work (a fork-join of the streams, lesson 03), except the
 * synchronous baseline's, which blocks the host anyway: host clock. Runs compared with each other
 * are timed in turns, so that all of them see the same link. Every output element of every
 * pipelined, serial and synchronous run is checked.
 */
#include "common.h"
#include "timeline.h"
#include "work.h"

#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <string.h>

static const char summary[] =
    "The multi-buffer pipeline of lecture 7.1: a data set in K chunks through a ring of B device\n"
    "buffers over S streams, against the synchronous and serial versions and the hardware's\n"
    "bound, in three regimes; a CUPTI timeline; sweeps; CUDA-graph and managed-memory variants.";

enum { MAX_STREAMS = 16, MAX_BUFFERS = 16 };
enum { STREAMS_CREATED = 2 * MAX_STREAMS }; /* the copies alone use twice the pipeline's */
static const struct affine map = {1664525u, 1013904223u};

/* Everything the runs share, allocated once, outside every timed region. */
struct rig {
    unsigned *h_in, *h_out;           /* pinned: the data set, and where results land */
    unsigned *d_ring[MAX_BUFFERS];    /* device buffers, each the largest chunk */
    size_t ring_buffers;
    cudaStream_t streams[STREAMS_CREATED];
    cudaEvent_t buffer_free[MAX_BUFFERS]; /* recorded when a buffer's copy back is done */
    cudaEvent_t joined[STREAMS_CREATED], start, stop;
    double *samples;
    int reps;
    struct csv *csv;
};

struct shape {
    size_t n;                  /* elements to process, from the start of the data set */
    size_t chunks, buffers, streams;
    unsigned iters;            /* the kernel's work per element */
    bool breadth_first;        /* issue order: all copies in, all kernels, all copies out */
};

enum work_kind { PIPELINE, KERNEL_ALONE, COPIES_ALONE };

/* ------------------------------------------------------------------------------------------ *
 * The pipeline itself.
 * ------------------------------------------------------------------------------------------ */

static void copy_in(const struct rig *r, const struct shape *p, const struct chunk_plan *plan,
                    size_t k)
{
    size_t first, count, b = k % plan->buffers;
    cudaStream_t s = r->streams[k % p->streams];
    chunk_bounds(p->n, plan->chunks, k, &first, &count);
    /* The buffer's previous chunk must be back on the host first. The wait is on the GPU: the
     * host goes on issuing. */
    if (k >= plan->buffers)
        CUDA_CHECK(cudaStreamWaitEvent(s, r->buffer_free[b], 0));
    CUDA_CHECK(cudaMemcpyAsync(r->d_ring[b], r->h_in + first, count * sizeof(unsigned),
                               cudaMemcpyHostToDevice, s));
}

static void compute(const struct rig *r, const struct shape *p, const struct chunk_plan *plan,
                    size_t k)
{
    size_t first, count;
    chunk_bounds(p->n, plan->chunks, k, &first, &count);
    CUDA_CHECK(launch_work(r->d_ring[k % plan->buffers], count, p->iters, map,
                           r->streams[k % p->streams]));
}

static void copy_out(const struct rig *r, const struct shape *p, const struct chunk_plan *plan,
                     size_t k)
{
    size_t first, count, b = k % plan->buffers;
    cudaStream_t s = r->streams[k % p->streams];
    chunk_bounds(p->n, plan->chunks, k, &first, &count);
    CUDA_CHECK(cudaMemcpyAsync(r->h_out + first, r->d_ring[b], count * sizeof(unsigned),
                               cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaEventRecord(r->buffer_free[b], s));
}

typedef void stage_fn(const struct rig *r, const struct shape *p, const struct chunk_plan *plan,
                      size_t k);
static stage_fn *const stages[] = {copy_in, compute, copy_out};

/* Issues the whole pipeline. Depth-first: chunk by chunk, copy in, compute, copy out. Breadth-
 * first: a wave of B chunks at a time, all copies in, then all kernels, then all copies out.
 * The same loops do both: depth-first's waves are one chunk wide. */
static void enqueue_pipeline(const struct rig *r, const struct shape *p, bool traced)
{
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, p->buffers);
    size_t width = p->breadth_first ? plan.buffers : 1;
    for (size_t wave = 0; wave < plan.chunks; wave += width) {
        size_t end = wave + width < plan.chunks ? wave + width : plan.chunks;
        for (size_t stage = 0; stage < sizeof stages / sizeof stages[0]; stage++) {
            for (size_t k = wave; k < end; k++) {
                if (traced && timeline_chunk((unsigned)k))
                    exit(EXIT_ERROR);
                stages[stage](r, p, &plan, k);
            }
        }
    }
}

/* The pieces of the bound: every kernel with no copies, and every copy with no kernels: copies in
 * over the pipeline's S streams and copies out over S more, all at the same time. */
static void enqueue_part(const struct rig *r, const struct shape *p, enum work_kind kind)
{
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, p->buffers);
    for (size_t k = 0; k < plan.chunks; k++) {
        size_t first, count;
        chunk_bounds(p->n, plan.chunks, k, &first, &count);
        unsigned *buffer = r->d_ring[k % plan.buffers];
        if (kind == KERNEL_ALONE) {
            CUDA_CHECK(launch_work(buffer, count, p->iters, map, r->streams[0]));
        } else {
            CUDA_CHECK(cudaMemcpyAsync(buffer, r->h_in + first, count * sizeof(unsigned),
                                       cudaMemcpyHostToDevice, r->streams[k % p->streams]));
            CUDA_CHECK(cudaMemcpyAsync(r->h_out + first, buffer, count * sizeof(unsigned),
                                       cudaMemcpyDeviceToHost,
                                       r->streams[p->streams + k % p->streams]));
        }
    }
}

/* Fork: streams 1..S-1 wait for an event in stream 0. Join: stream 0 waits for all of them. The
 * events bracketing a region in stream 0 then time the work of every stream (lesson 03). */
static void fan_out(const struct rig *r, size_t streams, cudaEvent_t fork)
{
    CUDA_CHECK(cudaEventRecord(fork, r->streams[0]));
    for (size_t s = 1; s < streams; s++)
        CUDA_CHECK(cudaStreamWaitEvent(r->streams[s], fork, 0));
}

static void fan_in(const struct rig *r, size_t streams)
{
    for (size_t s = 1; s < streams; s++) {
        CUDA_CHECK(cudaEventRecord(r->joined[s], r->streams[s]));
        CUDA_CHECK(cudaStreamWaitEvent(r->streams[0], r->joined[s], 0));
    }
}

/* Ends a timed region begun by recording r->start in stream 0: milliseconds between the two. */
static double stop_clock(const struct rig *r)
{
    CUDA_CHECK(cudaEventRecord(r->stop, r->streams[0]));
    CUDA_CHECK(cudaEventSynchronize(r->stop));
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, r->start, r->stop));
    return ms;
}

static double run_once(const struct rig *r, const struct shape *p, enum work_kind kind,
                       bool traced)
{
    size_t streams = kind == PIPELINE ? p->streams : kind == COPIES_ALONE ? 2 * p->streams : 1;
    fan_out(r, streams, r->start);
    if (kind == PIPELINE)
        enqueue_pipeline(r, p, traced);
    else
        enqueue_part(r, p, kind);
    fan_in(r, streams);
    return stop_clock(r);
}

/* Fails unless out[i] is in[i] after the work, for i < n. */
static void verify(const unsigned *in, const unsigned *out, size_t n, unsigned iters,
                   const char *what)
{
    struct affine total = work_compose(map, iters);
    for (size_t i = 0; i < n; i++) {
        unsigned want = total.a * in[i] + total.c;
        if (out[i] != want) {
            fprintf(stderr, "%s: %s: element %zu is %u, want %u\n", program_name, what, i,
                    out[i], want);
            exit(EXIT_ERROR);
        }
    }
}

/* Runs that are compared with each other, timed in turns: a warm-up of each, then rep 1 of
 * each, rep 2 of each, and so on. Copy speed wanders by a few percent from one second to the next
 * (lesson 04); timed one after the other, a pipeline and its bound could meet different speeds,
 * and their ratio would wander with them. Each pipelined run's last rep starts from a poisoned
 * output and is checked at once, before the next run overwrites it. */
enum { MAX_TURNS = 5 }; /* depth-first, breadth-first, serial, kernel alone, copies alone */

struct turn {
    const struct shape *shape;
    enum work_kind kind;
    const char *what;
};

static void measure_in_turns(const struct rig *r, const struct turn *turns, size_t n,
                             struct stats *results)
{
    for (size_t t = 0; t < n; t++)
        run_once(r, turns[t].shape, turns[t].kind, false);
    for (int rep = 0; rep < r->reps; rep++) {
        for (size_t t = 0; t < n; t++) {
            const struct shape *p = turns[t].shape;
            bool checked = turns[t].kind == PIPELINE && rep == r->reps - 1;
            if (checked)
                memset(r->h_out, 0xff, p->n * sizeof(unsigned));
            nvtxRangePushA(turns[t].what);
            r->samples[t * (size_t)r->reps + (size_t)rep] = run_once(r, p, turns[t].kind, false);
            nvtxRangePop();
            if (checked)
                verify(r->h_in, r->h_out, p->n, p->iters, turns[t].what);
        }
    }
    for (size_t t = 0; t < n; t++)
        results[t] = stats_summarize(r->samples + t * (size_t)r->reps, (size_t)r->reps);
}

/* Lesson 01's way, for comparison: pageable memory, blocking copies, one buffer. Host clock. */
static struct stats measure_synchronous(const struct rig *r, const struct shape *p,
                                        const unsigned *in, unsigned *out)
{
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, 1);
    for (int rep = -1; rep < r->reps; rep++) {
        if (rep == r->reps - 1)
            memset(out, 0xff, p->n * sizeof(unsigned));
        double t0 = host_ms();
        for (size_t k = 0; k < plan.chunks; k++) {
            size_t first, count;
            chunk_bounds(p->n, plan.chunks, k, &first, &count);
            CUDA_CHECK(cudaMemcpy(r->d_ring[0], in + first, count * sizeof(unsigned),
                                  cudaMemcpyHostToDevice));
            CUDA_CHECK(launch_work(r->d_ring[0], count, p->iters, map, 0));
            CUDA_CHECK(cudaMemcpy(out + first, r->d_ring[0], count * sizeof(unsigned),
                                  cudaMemcpyDeviceToHost));
        }
        if (rep >= 0)
            r->samples[rep] = host_ms() - t0;
    }
    verify(in, out, p->n, p->iters, "synchronous baseline");
    return stats_summarize(r->samples, (size_t)r->reps);
}

/* ------------------------------------------------------------------------------------------ *
 * 1. Three regimes.
 * ------------------------------------------------------------------------------------------ */

struct outcome {
    struct stats pipeline, breadth, serial, kernel, copies;
    double bound, efficiency;
};

static void record(const struct rig *r, const char *experiment, const char *variant,
                   const char *direction, size_t bytes, struct stats ms, const char *params)
{
    struct csv_row row = {experiment, variant, direction, bytes, r->reps, ms, NAN, params};
    if (csv_write(r->csv, &row))
        exit(EXIT_ERROR);
}

/* Runs the pipeline, the serial version and the two halves of the bound for one shape. */
static struct outcome evaluate(const struct rig *r, const struct shape *p, bool both_orders)
{
    struct outcome o = {.bound = 0};
    struct shape serial = *p;
    serial.streams = serial.buffers = 1;
    serial.breadth_first = false;
    struct shape breadth = *p;
    breadth.breadth_first = true;
    const struct turn turns[MAX_TURNS] = {
        {p, PIPELINE, "pipeline, depth-first"},
        {&serial, PIPELINE, "serial: one stream, one buffer"},
        {p, KERNEL_ALONE, "kernel alone"},
        {p, COPIES_ALONE, "copies alone, both directions at once"},
        {&breadth, PIPELINE, "pipeline, breadth-first"},
    };
    struct stats results[MAX_TURNS];
    measure_in_turns(r, turns, both_orders ? 5 : 4, results);
    o.pipeline = results[0];
    o.serial = results[1];
    o.kernel = results[2];
    o.copies = results[3];
    if (both_orders)
        o.breadth = results[4];
    o.bound = fmax(o.kernel.median, o.copies.median);
    o.efficiency = o.bound / o.pipeline.median;
    return o;
}

static void record_outcome(const struct rig *r, const char *experiment, const struct shape *p,
                           const struct outcome *o, const char *extra, bool both_orders)
{
    char params[256];
    size_t bytes = p->n * sizeof(unsigned);
    snprintf(params, sizeof params, "%schunks=%zu;streams=%zu;buffers=%zu;iters=%u;"
             "efficiency=%.4f;speedup_serial=%.3f", extra, p->chunks, p->streams, p->buffers,
             p->iters, o->efficiency, o->serial.median / o->pipeline.median);
    record(r, experiment, "depth_first", "both", 2 * bytes, o->pipeline, params);
    if (both_orders) {
        snprintf(params, sizeof params, "%schunks=%zu;streams=%zu;buffers=%zu;iters=%u;"
                 "efficiency=%.4f", extra, p->chunks, p->streams, p->buffers, p->iters,
                 o->bound / o->breadth.median);
        record(r, experiment, "breadth_first", "both", 2 * bytes, o->breadth, params);
    }
    snprintf(params, sizeof params, "%schunks=%zu;iters=%u", extra, p->chunks, p->iters);
    record(r, experiment, "serial_pinned", "both", 2 * bytes, o->serial, params);
    record(r, experiment, "kernel_alone", "none", bytes, o->kernel, params);
    record(r, experiment, "copies_alone", "both", 2 * bytes, o->copies, params);
}

/* The kernel's iterations for which it takes as long as the copies: measured, not assumed. */
static unsigned balanced_iters(const struct rig *r, const struct shape *p)
{
    struct shape probe = *p;
    probe.iters = 256;
    const struct turn turns[] = {{&probe, KERNEL_ALONE, "calibration: kernel alone"},
                                 {&probe, COPIES_ALONE, "calibration: copies alone"}};
    struct stats results[2];
    measure_in_turns(r, turns, 2, results);
    double kernel_ms = results[0].median, copies_ms = results[1].median;
    double iters = probe.iters * copies_ms / kernel_ms;
    return iters < 1 ? 1 : iters > 1e6 ? 1000000u : (unsigned)iters;
}

static void regimes(const struct rig *r, const struct shape *base, unsigned balanced)
{
    size_t bytes = base->n * sizeof(unsigned);
    unsigned *in = malloc(bytes), *out = malloc(bytes);
    if (!in || !out) {
        fprintf(stderr, "%s: malloc of 2 x %zu bytes failed\n", program_name, bytes);
        exit(EXIT_ERROR);
    }
    memcpy(in, r->h_in, bytes); /* the synchronous baseline's pageable copy of the data */

    char size_text[32];
    printf("\n1. %s in %zu chunks, %zu buffers, %zu streams; events (synchronous: host "
           "clock), median of %d\n", format_bytes(bytes, size_text, sizeof size_text),
           base->chunks, base->buffers, base->streams, r->reps);
    printf("  %-14s %6s %9s %9s %9s %9s %9s %9s %7s %8s %8s\n", "regime", "iters", "sync",
           "serial", "pipeline", "breadth", "kernel", "copies", "effic.", "vs sync",
           "vs serial");
    const struct { const char *name; unsigned iters; } cases[] = {
        {"copy-bound", 1}, {"balanced", balanced}, {"compute-bound", 4 * balanced}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct shape p = *base;
        p.iters = cases[c].iters;
        struct stats sync = measure_synchronous(r, &p, in, out);
        struct outcome o = evaluate(r, &p, true);
        printf("  %-14s %6u %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %7.3f %7.2fx %7.2fx\n",
               cases[c].name, p.iters, sync.median, o.serial.median, o.pipeline.median,
               o.breadth.median, o.kernel.median, o.copies.median, o.efficiency,
               sync.median / o.pipeline.median, o.serial.median / o.pipeline.median);
        char extra[64];
        snprintf(extra, sizeof extra, "regime=%s;", cases[c].name);
        record_outcome(r, "regimes", &p, &o, extra, true);
        snprintf(extra, sizeof extra, "regime=%s;chunks=%zu;iters=%u", cases[c].name, p.chunks,
                 p.iters);
        record(r, "regimes", "sync_pageable", "both", 2 * bytes, sync, extra);
    }
    printf("  times in ms; efficiency = max(kernel, copies) / pipeline; every result verified\n");
    free(in);
    free(out);
}

/* ------------------------------------------------------------------------------------------ *
 * 2. The timeline of a serial and a pipelined run.
 * ------------------------------------------------------------------------------------------ */

static void timeline(const struct rig *r, const struct shape *p, const char *prefix)
{
    struct shape serial = *p;
    serial.streams = serial.buffers = 1;
    char serial_name[64], pipelined_name[64];
    snprintf(serial_name, sizeof serial_name, "serial: 1 stream, 1 buffer");
    snprintf(pipelined_name, sizeof pipelined_name, "pipelined: %zu streams, %zu buffers",
             p->streams, p->buffers);
    unsigned long operations = 0;
    printf("\n2. timeline (CUPTI) of one serial and one pipelined run, balanced regime\n");
    if (timeline_start() || timeline_run("warm-up"))
        return;
    run_once(r, &serial, PIPELINE, true);
    if (timeline_discard() || timeline_run(serial_name))
        exit(EXIT_ERROR);
    run_once(r, &serial, PIPELINE, true);
    if (timeline_run(pipelined_name))
        return;
    run_once(r, p, PIPELINE, true);
    if (timeline_write(prefix, &operations))
        exit(EXIT_ERROR);
    printf("  %lu copies and kernels written to %s.json (open it in https://ui.perfetto.dev or\n"
           "  chrome://tracing) and %s.csv\n", operations, prefix, prefix);
}

/* ------------------------------------------------------------------------------------------ *
 * 3. Sweeps.
 * ------------------------------------------------------------------------------------------ */

static void sweep_shapes(const struct rig *r, const struct shape *base)
{
    static const size_t chunk_counts[] = {4, 8, 16, 32, 64, 128, 256};
    static const size_t stream_counts[] = {1, 2, 3, 4, 8};
    enum { N_CHUNKS = sizeof chunk_counts / sizeof chunk_counts[0],
           N_STREAMS = sizeof stream_counts / sizeof stream_counts[0] };
    char size_text[32];
    printf("\n3a. efficiency by chunks and streams (buffers = streams), %s, %u iterations\n",
           format_bytes(base->n * sizeof(unsigned), size_text, sizeof size_text), base->iters);
    printf("  %8s", "chunks");
    for (size_t s = 0; s < N_STREAMS; s++)
        printf("  %2zu stream%s", stream_counts[s], stream_counts[s] == 1 ? " " : "s");
    printf("\n");
    double best = 0;
    struct shape best_shape = *base;
    for (size_t c = 0; c < N_CHUNKS; c++) {
        printf("  %8zu", chunk_counts[c]);
        for (size_t s = 0; s < N_STREAMS; s++) {
            struct shape p = *base;
            p.chunks = chunk_counts[c];
            p.streams = p.buffers = stream_counts[s];
            struct outcome o = evaluate(r, &p, false);
            printf("  %10.3f", o.efficiency);
            record_outcome(r, "sweep_shape", &p, &o, "", false);
            if (o.efficiency > best) {
                best = o.efficiency;
                best_shape = p;
            }
        }
        printf("\n");
    }
    printf("  best: %zu chunks over %zu streams, efficiency %.3f\n", best_shape.chunks,
           best_shape.streams, best);
}

static void sweep_intensity(const struct rig *r, const struct shape *base, unsigned balanced)
{
    printf("\n3b. speed-up over serial by kernel intensity, %zu chunks, %zu streams\n",
           base->chunks, base->streams);
    printf("  %8s %10s %10s %10s %10s %8s %8s\n", "iters", "serial ms", "pipe ms", "kernel ms",
           "copies ms", "speedup", "bound x");
    for (unsigned iters = 1; iters <= 8 * balanced; iters *= 4) {
        struct shape p = *base;
        p.iters = iters;
        struct outcome o = evaluate(r, &p, false);
        /* The most a pipeline can gain over the serial version: serial time over the bound. */
        printf("  %8u %10.3f %10.3f %10.3f %10.3f %7.2fx %7.2fx\n", iters, o.serial.median,
               o.pipeline.median, o.kernel.median, o.copies.median,
               o.serial.median / o.pipeline.median, o.serial.median / o.bound);
        record_outcome(r, "sweep_intensity", &p, &o, "", false);
    }
}

/* ------------------------------------------------------------------------------------------ *
 * 4. Variants: a CUDA graph, and managed memory.
 * ------------------------------------------------------------------------------------------ */

/* Many small chunks cost one launch each, several microseconds of CPU apiece. Captured once into
 * a graph, the whole pipeline is then launched with one call. */
static void graph_variant(const struct rig *r, const struct shape *p)
{
    struct outcome o = evaluate(r, p, false);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(r->streams[0], cudaStreamCaptureModeThreadLocal));
    fan_out(r, p->streams, r->joined[0]);
    enqueue_pipeline(r, p, false);
    fan_in(r, p->streams);
    CUDA_CHECK(cudaStreamEndCapture(r->streams[0], &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int rep = -1; rep < r->reps; rep++) {
        if (rep == r->reps - 1)
            memset(r->h_out, 0xff, p->n * sizeof(unsigned));
        CUDA_CHECK(cudaEventRecord(r->start, r->streams[0]));
        CUDA_CHECK(cudaGraphLaunch(exec, r->streams[0]));
        double ms = stop_clock(r);
        if (rep >= 0)
            r->samples[rep] = ms;
    }
    verify(r->h_in, r->h_out, p->n, p->iters, "graph replay");
    struct stats replay = stats_summarize(r->samples, (size_t)r->reps);
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));

    char size_text[32];
    printf("\n4a. %zu chunks of %s over %zu streams, %u iterations: issued call by call, or "
           "replayed as one CUDA graph\n", p->chunks,
           format_bytes(p->n / p->chunks * sizeof(unsigned), size_text, sizeof size_text),
           p->streams, p->iters);
    printf("  bound %.3f ms; streams %.3f ms (efficiency %.3f); graph %.3f ms (efficiency "
           "%.3f)\n", o.bound, o.pipeline.median, o.efficiency, replay.median,
           o.bound / replay.median);
    record_outcome(r, "graph", p, &o, "", false);
    char params[128];
    snprintf(params, sizeof params, "chunks=%zu;streams=%zu;buffers=%zu;iters=%u;efficiency=%.4f",
             p->chunks, p->streams, p->buffers, p->iters, o.bound / replay.median);
    record(r, "graph", "graph_replay", "both", 2 * p->n * sizeof(unsigned), replay, params);
}

static cudaError_t prefetch(const void *p, size_t bytes, int device, cudaStream_t stream)
{
#if CUDART_VERSION >= 13000
    struct cudaMemLocation where = {device >= 0 ? cudaMemLocationTypeDevice
                                                : cudaMemLocationTypeHost, device};
    return cudaMemPrefetchAsync(p, bytes, where, 0, stream);
#else
    return cudaMemPrefetchAsync(p, bytes, device >= 0 ? device : cudaCpuDeviceId, stream);
#endif
}

/* Lecture 7.6: managed memory moves itself. Prefetching each chunk there and back, in the same
 * streams, makes it a pipeline too; how close does it come to the explicit one? */
static void managed_variant(const struct rig *r, const struct shape *p, int device)
{
    int concurrent = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
    if (!concurrent) {
        printf("\n4b. managed memory: this GPU cannot prefetch managed memory; skipped\n");
        return;
    }
    struct outcome explicit_copies = evaluate(r, p, false);
    size_t bytes = p->n * sizeof(unsigned);
    unsigned *data;
    CUDA_CHECK(cudaMallocManaged((void **)&data, bytes, cudaMemAttachGlobal));
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, p->streams);
    for (int rep = -1; rep < r->reps; rep++) {
        memcpy(data, r->h_in, bytes); /* fresh input, on the host */
        fan_out(r, p->streams, r->start);
        for (size_t k = 0; k < plan.chunks; k++) {
            size_t first, count;
            chunk_bounds(p->n, plan.chunks, k, &first, &count);
            cudaStream_t s = r->streams[k % p->streams];
            CUDA_CHECK(prefetch(data + first, count * sizeof(unsigned), device, s));
            CUDA_CHECK(launch_work(data + first, count, p->iters, map, s));
            CUDA_CHECK(prefetch(data + first, count * sizeof(unsigned), -1, s));
        }
        fan_in(r, p->streams);
        double ms = stop_clock(r);
        if (rep >= 0)
            r->samples[rep] = ms;
    }
    verify(r->h_in, data, p->n, p->iters, "managed memory");
    CUDA_CHECK(cudaFree(data));
    struct stats managed = stats_summarize(r->samples, (size_t)r->reps);

    char size_text[32];
    printf("\n4b. managed memory with prefetching, %s in %zu chunks over %zu streams, %u "
           "iterations\n", format_bytes(bytes, size_text, sizeof size_text), p->chunks,
           p->streams, p->iters);
    printf("  explicit copies %.3f ms; managed + prefetch %.3f ms (%.2fx the explicit time)\n",
           explicit_copies.pipeline.median, managed.median,
           managed.median / explicit_copies.pipeline.median);
    record_outcome(r, "managed", p, &explicit_copies, "", false);
    char params[128];
    snprintf(params, sizeof params, "chunks=%zu;streams=%zu;iters=%u", p->chunks, p->streams,
             p->iters);
    record(r, "managed", "managed_prefetch", "both", 2 * bytes, managed, params);
}

/* ------------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    struct common_args args = {.size = 1u << 30, .size_multiple = sizeof(unsigned), .reps = 5};
    int chunks = 64, streams = 8, buffers = 8, iters = 0, sweeps = 1;
    size_t sweep_size = 256u << 20;
    const char *trace = NULL;
    const struct opt extra[] = {
        {"--chunks", OPT_INT, &chunks, 1, 1 << 20, "K", "chunks the data set is cut into", 0},
        {"--streams", OPT_INT, &streams, 1, MAX_STREAMS, "S", "streams the chunks go round", 0},
        {"--buffers", OPT_INT, &buffers, 1, MAX_BUFFERS, "B", "device buffers in the ring", 0},
        {"--kernel-iters", OPT_INT, &iters, 0, 1000000, "N",
         "the balanced regime's work per element (0: measure the balance point)", 0},
        {"--sweep-size", OPT_BYTES, &sweep_size, sizeof(unsigned), (size_t)1 << 40, "BYTES",
         "data set of the sweeps and the graph variant", sizeof(unsigned)},
        {"--trace", OPT_PATH, &trace, 0, 0, "PREFIX",
         "write the timeline to PREFIX.json and PREFIX.csv", 0},
        {"--sweeps", OPT_INT, &sweeps, 0, 1, "0|1", "run part 3's sweeps", 0},
    };
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc != CLI_CONTINUE)
        return rc;

    const size_t n = args.size / sizeof(unsigned);
    const size_t sweep_n = sweep_size < args.size ? sweep_size / sizeof(unsigned) : n;
    const size_t graph_chunks = sweep_n < 256 ? sweep_n : 256;
    /* Ring buffers hold the largest chunk any part uses: the sweep's 4 chunks, or the main one's. */
    struct chunk_plan main_plan = chunk_plan_make(n, (size_t)chunks, (size_t)buffers);
    struct chunk_plan sweep_plan = chunk_plan_make(sweep_n, 4, 8);
    size_t ring_elems = main_plan.max_chunk > sweep_plan.max_chunk ? main_plan.max_chunk
                                                                   : sweep_plan.max_chunk;
    size_t ring_buffers = (size_t)buffers > 8 ? (size_t)buffers : 8;

    struct gpu_info gpu;
    struct csv csv;
    /* The ring on the GPU, the managed copy of the sweep's data set; pinned data set, result, and
     * the synchronous baseline's pageable copies of both on the host. */
    if ((rc = lesson_open("06_overlap_pipeline", &args,
                          ring_buffers * ring_elems * sizeof(unsigned) + sweep_size,
                          4 * args.size + sweep_size, &gpu, &csv)) != EXIT_VERIFIED)
        return rc;

    struct rig r = {.ring_buffers = ring_buffers, .reps = args.reps, .csv = &csv};
    r.samples = malloc((size_t)args.reps * MAX_TURNS * sizeof *r.samples);
    if (!r.samples) {
        fprintf(stderr, "%s: out of host memory for %d samples\n", program_name, args.reps);
        return EXIT_ERROR;
    }
    CUDA_CHECK(cudaMallocHost((void **)&r.h_in, args.size));
    CUDA_CHECK(cudaMallocHost((void **)&r.h_out, args.size));
    for (size_t b = 0; b < ring_buffers; b++) {
        CUDA_CHECK(cudaMalloc((void **)&r.d_ring[b], ring_elems * sizeof(unsigned)));
        CUDA_CHECK(cudaMemset(r.d_ring[b], 0, ring_elems * sizeof(unsigned)));
        CUDA_CHECK(cudaEventCreateWithFlags(&r.buffer_free[b], cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaDeviceSynchronize()); /* the streams below are non-blocking: they would not
                                            wait for those memsets */
    for (size_t s = 0; s < STREAMS_CREATED; s++) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&r.streams[s], cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&r.joined[s], cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaEventCreate(&r.start));
    CUDA_CHECK(cudaEventCreate(&r.stop));
    for (size_t i = 0; i < n; i++) /* any bits will do, as long as they differ */
        r.h_in[i] = (unsigned)i * 2654435761u + 12345u;

    struct shape base = {n, (size_t)chunks, (size_t)buffers, (size_t)streams, 1, false};
    unsigned balanced = iters ? (unsigned)iters : balanced_iters(&r, &base);
    regimes(&r, &base, balanced);

    base.iters = balanced;
    if (trace)
        timeline(&r, &base, trace);

    if (sweeps) {
        struct shape sweep = {sweep_n, 16, 4, 4, balanced, false};
        sweep_shapes(&r, &sweep);
        sweep = (struct shape){sweep_n, (size_t)chunks, (size_t)buffers, (size_t)streams, 1,
                               false};
        sweep_intensity(&r, &sweep, balanced);
    }

    struct shape many_small = {sweep_n, graph_chunks, (size_t)buffers, (size_t)streams, 1, false};
    graph_variant(&r, &many_small);
    struct shape managed = {sweep_n, 16, (size_t)buffers, (size_t)streams, balanced, false};
    managed_variant(&r, &managed, args.device);

    CUDA_CHECK(cudaEventDestroy(r.start));
    CUDA_CHECK(cudaEventDestroy(r.stop));
    for (size_t s = 0; s < STREAMS_CREATED; s++) {
        CUDA_CHECK(cudaStreamDestroy(r.streams[s]));
        CUDA_CHECK(cudaEventDestroy(r.joined[s]));
    }
    for (size_t b = 0; b < ring_buffers; b++) {
        CUDA_CHECK(cudaFree(r.d_ring[b]));
        CUDA_CHECK(cudaEventDestroy(r.buffer_free[b]));
    }
    CUDA_CHECK(cudaFreeHost(r.h_in));
    CUDA_CHECK(cudaFreeHost(r.h_out));
    free(r.samples);
    if (csv_close(&csv))
        return EXIT_ERROR;
    printf("\nverified: every element of every pipelined, serial, synchronous, graph and "
           "managed run\n");
    return EXIT_VERIFIED;
}
