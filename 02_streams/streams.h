/*
 * streams.h - what main.c, the deep parts (`--deep PARTS`, DEEP.md) and the exercises share.
 */
#ifndef STREAMS_H
#define STREAMS_H

#include "common.h"

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime.h>

enum { MAX_STREAMS = 64, EXERCISE_COUNT = 3 };

/* ------------------------------------------------------- spins.c: the timed kernels */

/* The GPU work of every part but the split is launch_spin: blocks that hold an SM for a set
 * time on the GPU's clock, each writing how long it ran. */
extern const unsigned long long spin_ns; /* one small kernel: 0.5 ms */

/* Checks that every block of a spin launch ran for at least `ns` (elapsed was zeroed before);
 * ends the program, naming `what`, where one did not. */
void verify_spins(const unsigned long long *d_elapsed, unsigned blocks, unsigned long long ns,
                  const char *what);

/* ------------------------------------------------------- default_stream.c: experiment 2 */

/* Kernel A in s1, a tiny operation in `between`, kernel B in s2, on an idle GPU: host-clock ms
 * from A's launch until the device is idle. The tiny operation is a 1 us kernel, or, with
 * memset_between (exercise 2), a cudaMemsetAsync to 0 of an 8-byte word set to all ones before,
 * checked to be 0 after, so that the memset is seen to have run. */
double a_then_tiny_then_b(cudaStream_t s1, cudaStream_t between, cudaStream_t s2,
                          bool memset_between, unsigned long long *d_elapsed);

/* Experiment 2: does B wait for A, with blocking and non-blocking streams, and the legacy and
 * the per-thread default stream between? */
void default_stream_barrier(int reps, double *samples, unsigned long long *d_elapsed,
                            struct csv *csv);

/* ------------------------------------------------------- the deep parts, one file each */

/* which_calls_wait.c: 4 KiB up to one stream's chunk (`bytes`) copied in and out with
 * cudaMemcpyAsync, each copy queued behind a 2 ms kernel in `stream`, from pageable and from
 * pinned memory: when does the call return? */
void which_calls_wait(size_t bytes, cudaStream_t stream, int reps, unsigned long long *d_elapsed,
                      struct csv *csv);

/* concurrency.c: n_streams one-block kernels in one stream, then one in each of n_streams. */
void kernel_concurrency(int n_streams, int reps, cudaStream_t *streams, double *samples,
                        unsigned long long *d_elapsed, struct csv *csv);

/* priorities.c: a short kernel's latency while a low-priority kernel fills every SM. */
void stream_priorities(const struct gpu_info *gpu, int reps, double *samples, struct csv *csv);

/* synchronisation.c: cudaStreamSynchronize against cudaDeviceSynchronize, and destroying a busy
 * stream. */
void synchronisation(int reps, cudaStream_t short_stream, cudaStream_t long_stream,
                     double *samples, unsigned long long *d_elapsed, struct csv *csv);

/* ------------------------------------------------------- priorities.c, for exercise 3 too */

extern const unsigned long long urgent_ns; /* the urgent kernel: 0.01 ms */

/* The low-priority kernel that fills every SM: blocks of `threads` threads that each spin `ns`. */
struct filler {
    unsigned threads, blocks_per_sm, blocks, waves;
    unsigned long long ns;
};

/* The priorities part's streams, filler and events, made once and shared by its cases. */
struct priority_rig {
    int lowest, highest;                 /* the device's priority range */
    cudaStream_t background, same, high; /* the filler's; the urgent kernel's at the filler's
                                            priority and at the highest */
    struct filler filler;
    cudaEvent_t start, stop; /* recorded in the urgent stream */
    unsigned long long *d_elapsed;
};
/* block_ns: how long each filler block runs (the part's 0.1 ms; exercise 3's 1 ms). */
void priority_rig_create(const struct gpu_info *gpu, unsigned long long block_ns,
                         struct priority_rig *rig);
void priority_rig_destroy(const struct priority_rig *rig);

/* The filler in rig->background, then the urgent kernel in `urgent` once the filler holds every
 * SM: ms from the urgent stream's start event to its end, on the GPU's clock. */
double urgent_latency(const struct priority_rig *rig, cudaStream_t urgent);

/* ------------------------------------------------------- exercises.c */

/* Exercise 1's top stream count where --streams gives none: the README's largest. */
enum { SWEEP_TOP = 32 };

/* Exercise 1: main.c runs the split over each count of the sweep, from pageable and from pinned
 * memory and the pinned run without its kernels (the copies alone), in turns; exercises.c plans
 * the sweep, holds its samples, and prints and records the answer. */
enum turn { PAGEABLE, PINNED, COPIES, TURNS };
enum { MAX_COUNTS = 8 }; /* 1, 2, 4, ..., 64 */
struct sweep {
    int counts[MAX_COUNTS], n_counts, reps;
    size_t bytes;
    double *ms; /* every run's total time: sweep_sample() */
};
void sweep_begin(struct sweep *sweep, size_t bytes, int top, int reps, struct csv *csv);
double *sweep_sample(const struct sweep *sweep, int turn, int count, int rep);
void sweep_end(struct sweep *sweep, struct csv *csv);

/* Exercise 2: experiment 2's first case with a memset in stream 0 in turns with the tiny kernel,
 * run and answered. */
void exercise_memset_barrier(int reps, struct csv *csv);

/* Exercise 3: the priorities part with filler blocks of 1 ms, run and answered. */
void exercise_long_filler(const struct gpu_info *gpu, int reps, struct csv *csv);

#endif /* STREAMS_H */
