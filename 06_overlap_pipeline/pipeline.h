/*
 * pipeline.h - the rig the lesson's pipeline runs on, and the engine: the same pipeline as
 * main.c's plain loop, issued in the other ways the measurements need.
 *
 * main.c's loop is the lesson: chunk k in stream k mod S and device buffer k mod B, copy in,
 * compute, copy out, the buffer's event between a chunk and the next one in its buffer. The
 * engine (pipeline.c) issues the same chunks with one kind of work left out (the two halves of
 * the bound), breadth-first, one stream per role (lecture 7.1's layout), or without the wait
 * for a free buffer (exercise 2); `--deep orders` shows that, issued as the loop does, it takes
 * the loop's time.
 *
 * Every function here returns the first CUDA error, reported, and changes nothing else on failure.
 */
#ifndef PIPELINE_H
#define PIPELINE_H

#include "work.h"

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime.h>

enum { MAX_STREAMS = 16, MAX_BUFFERS = 16 };

/* How n elements go through a ring of buffers in chunks: the asked-for counts clamped to what
 * makes sense (no empty chunk, no buffer that no chunk uses), and the largest chunk, which sizes
 * each buffer. */
struct chunk_plan {
    size_t chunks, buffers, max_chunk;
};

static inline struct chunk_plan chunk_plan_make(size_t n, size_t chunks, size_t buffers)
{
    struct chunk_plan plan = {.chunks = chunks < n ? chunks : n};
    if (plan.chunks == 0) /* n == 0: nothing to move */
        return plan;
    plan.buffers = buffers < plan.chunks ? buffers : plan.chunks;
    plan.max_chunk = n / plan.chunks + (n % plan.chunks ? 1 : 0);
    return plan;
}

/* One way to run the pipeline. */
struct shape {
    size_t n;                  /* elements to process, from the start of the data set */
    size_t chunks, buffers, streams;
    unsigned iters;            /* the kernel's work per element */
    bool breadth_first;        /* issue order: all copies in of a wave of B chunks, then all
                                  kernels, then all copies out; else chunk by chunk */
    bool by_role;              /* lecture table 2's layout: stream 0 copies in, stream 1
                                  computes, stream 2 copies out, events between a chunk's stages;
                                  else chunk k in stream k mod S. Needs streams = 3. */
    bool skip_buffer_free_wait; /* exercise 2: leave out the wait for a free buffer, which
                                   orders a buffer's next copy in after its last chunk's copy
                                   out when the two are in different streams */
};

/* What the engine issues of each chunk: everything, or the pipeline with one kind of work left
 * out, to time the two halves of its bound. */
enum left_out { NOTHING_LEFT_OUT, COPIES_LEFT_OUT, KERNELS_LEFT_OUT };

/* Everything the runs share, created once, outside every timed region (main.c's rig_create()). */
struct rig {
    unsigned *h_in, *h_out;               /* pinned: the data set, and where results land */
    unsigned *d_ring[MAX_BUFFERS];        /* device buffers, each `buffer_elems` long */
    size_t buffers, buffer_elems, streams;
    cudaStream_t stream[MAX_STREAMS];     /* non-blocking */
    cudaEvent_t buffer_free[MAX_BUFFERS]; /* recorded when a buffer's chunk is done with it */
    cudaEvent_t stage_done[MAX_BUFFERS];  /* by role: a buffer's chunk is through a stage */
    cudaEvent_t joined[MAX_STREAMS];      /* fork and join of the streams */
    cudaEvent_t start, stop;              /* bracket a timed run in stream 0 */
    struct affine map;                    /* what the kernel does to each element */
    size_t n;                             /* elements of h_in and h_out */
    bool tracing;                         /* note each copy's and kernel's chunk for the timeline */
};

/* A loop over chunks that issues a whole pipeline of shape p into the rig's streams: main.c's. */
typedef cudaError_t chunk_loop(const struct rig *r, const struct shape *p);

/* Fork: streams 1..count-1 wait for an event in stream 0. Join: stream 0 waits for all of them.
 * Events that bracket work in stream 0 then time the work of every stream (lesson 03). */
cudaError_t fan_out(const struct rig *r, size_t count);
cudaError_t fan_in(const struct rig *r, size_t count);

/* Ends a region begun by recording r->start in stream 0; *ms gets the time between the two. */
cudaError_t clock_stop(const struct rig *r, double *ms);

/* The engine: issues every chunk, less what `left_out` says, forked from and joined into
 * stream 0. */
cudaError_t pipeline_enqueue(const struct rig *r, const struct shape *p, enum left_out left_out);

/* Lesson 01's way: chunk by chunk through device buffer 0 with blocking copies from `in` to
 * `out` (pageable memory), everything in the legacy default stream. */
cudaError_t pipeline_sync(const struct rig *r, const struct shape *p, const unsigned *in,
                          unsigned *out);

/* One run of the engine, timed with events on the GPU: *ms from the first operation to the last. */
cudaError_t pipeline_time(const struct rig *r, const struct shape *p, enum left_out left_out,
                          double *ms);
/* One run of `loop`, forked from and joined into stream 0 and timed as pipeline_time() times. */
cudaError_t loop_time(const struct rig *r, const struct shape *p, chunk_loop *loop, double *ms);

/* How many of out[0..n) are not in[i] after `iters` passes of the kernel; *first gets the first
 * wrong one's index when there is one. */
size_t work_errors(const struct rig *r, const unsigned *in, const unsigned *out, size_t n,
                   unsigned iters, size_t *first);

/* True when out[i] is in[i] after `iters` passes of the kernel, for i < n; otherwise prints the
 * first wrong element, prefixed by `what`. */
bool work_verified(const struct rig *r, const unsigned *in, const unsigned *out, size_t n,
                   unsigned iters, const char *what);

#endif /* PIPELINE_H */
