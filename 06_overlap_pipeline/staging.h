/*
 * staging.h - lecture table 2 in full: data in ordinary (pageable) memory streamed through the GPU
 * by a ring of pinned staging buffers, with the CPU copying into and out of them on T threads
 * while the GPU works: the "CPU Work" column (Prepare B, Process A Result).
 *
 * Chunk k uses staging slot k mod B (an input and an output buffer in pinned memory, and device
 * buffer b of the rig) and stream k mod S. Its life:
 *
 *   prepare    T threads copy the chunk from the data set into the slot's input buffer,
 *              once the slot's previous chunk has been copied in (its H2D event);
 *   GPU        H2D, kernel, D2H into the slot's output buffer, issued once the chunk is
 *              prepared and the slot's previous result has been processed;
 *   process    T threads copy the result from the output buffer to the results, once its
 *              D2H event has completed.
 *
 * One thread, the caller's, issues the GPU work and hands out the CPU work; it polls events and
 * never calls CUDA from a worker or a callback. Every function returns 0, or -1 after saying why.
 */
#ifndef STAGING_H
#define STAGING_H

#include "copies.h"
#include "pipeline.h"

/* What a staged run does: both kinds of work, or one, to time its bound. */
enum staged_work { ALL_WORK, CPU_WORK, GPU_WORK }; /* both, or the CPU's or the GPU's alone */

/* The pinned staging ring, its events, and the data set in pageable memory. */
struct staging {
    unsigned *in[MAX_BUFFERS], *out[MAX_BUFFERS]; /* pinned, slot_elems each */
    unsigned *in_write_combined[MAX_BUFFERS];     /* the same, write-combined, where asked for */
    cudaEvent_t copied_in[MAX_BUFFERS], copied_out[MAX_BUFFERS];
    size_t slots, slot_elems;
    unsigned *data, *results; /* pageable (malloc), every page touched */
};

/* Acquires the ring (through ACQUIRE, for --fail-at), with write-combined input buffers too where
 * `write_combined` says so, and the pageable data set of n elements, a copy of `in`. On failure,
 * releases what it acquired and zeroes *s. */
int staging_create(struct staging *s, size_t slots, size_t slot_elems, const unsigned *in,
                   size_t n, bool write_combined);
void staging_destroy(struct staging *s);

/* How the CPU copies into the ring and out of it. Write-combined memory takes the CPU's writes
 * around its cache, for the GPU to read, and is slow for the CPU to read back (lesson 04): it can
 * serve the copies in, not the copies out. */
struct cpu_copies {
    enum copy_method in, out;
    bool write_combined_in; /* the copies in go to the write-combined input buffers */
    const char *name;       /* "memcpy", "streaming", ... for the tables and the CSV */
};
extern const struct cpu_copies plain_copies; /* memcpy both ways, into cached pinned buffers */

/* What a staged run took, on the host clock: from the first copy to the last result stored
 * (ms), and the CPU's copying inside that time, summed over its threads and divided by their
 * number (copying_ms, 0 without CPU work): never more than ms. */
struct staged_time {
    double ms, copying_ms;
};

/* One staged run of shape p (its chunks, streams and iterations; p->buffers is ignored: the
 * ring's slots are the buffers) with `threads` CPU threads copying the `copies` way. */
int staged_run(const struct rig *r, const struct staging *s, const struct shape *p,
               int threads, const struct cpu_copies *copies, enum staged_work work,
               struct staged_time *time);

/* sides.c: the staged run's two sides at once, neither waiting for the other: the CPU's copies on
 * `threads` threads of their own and the GPU's work from the caller's thread, started together,
 * on the same ring. The data it moves is not meaningful (nothing waits for it to be ready), so it
 * is not verified. Each side's own time, and from the start until both are done. */
struct sides_time {
    double ms, cpu_ms, gpu_ms;
};
int staged_sides_at_once(const struct rig *r, const struct staging *s, const struct shape *p,
                         int threads, const struct cpu_copies *copies, struct sides_time *time);

#endif /* STAGING_H */
