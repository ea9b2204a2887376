/*
 * streams.h - the parts of main.c's experiments that the exercises (exercises.c) run again, each
 * with the one change its exercise asks for as a parameter.
 */
#ifndef STREAMS_H
#define STREAMS_H

#include "common.h"

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime.h>

enum { MAX_STREAMS = 64, EXERCISE_COUNT = 3 };

/* How long experiments 2-5 spin their kernels (main.c). */
extern const unsigned long long spin_ns;   /* one small kernel */
extern const unsigned long long urgent_ns; /* experiment 4's urgent kernel */

/* ------------------------------------------------------- 1. lesson 01's work over N streams */

struct vectors {
    float *a, *b, *c;
};

/* Experiment 1's data: a and b random, in pageable and in pinned host memory, and a, b and c on
 * the GPU; n elements each. */
struct split_data {
    size_t n;
    struct vectors pageable, pinned, device;
};
void split_data_create(size_t bytes, struct split_data *data);
void split_data_destroy(struct split_data *data);

/* Issues c = a + b from host vectors h over n_streams streams, each copying in, adding and copying
 * out its own chunk, and waits for it. Without `compute` the kernels are left out: the copies
 * alone, in the same streams and order (exercise 1), the copies-alone half of lesson 06's bound;
 * its kernels-alone half is left out, the adds taking ~0.1 ms of an H200's ~3 ms. c then holds no
 * sum to check. Host clock: how long the issuing held the CPU up, and the whole run. */
void run_split(const struct vectors *h, const struct vectors *d, size_t n, cudaStream_t *streams,
               int n_streams, bool compute, double *enqueue_ms, double *total_ms);

/* ------------------------------------------------------- 3. the legacy default stream */

/* Kernel A in s1, a tiny operation in `between`, kernel B in s2, on an idle GPU: host-clock ms
 * from the first launch until the device is idle again. The tiny operation is a 1 us kernel, or,
 * with memset_between (exercise 2), a cudaMemsetAsync to 0 of an 8-byte word set to all ones
 * before, checked to be 0 after, so that the memset is seen to have run. */
double a_then_tiny_then_b(cudaStream_t s1, cudaStream_t between, cudaStream_t s2,
                          bool memset_between, unsigned long long *d_elapsed);

/* ------------------------------------------------------- 4. priorities */

/* The low-priority kernel that fills every SM: blocks of `threads` threads that each spin `ns`. */
struct filler {
    unsigned threads, blocks_per_sm, blocks, waves;
    unsigned long long ns;
};

/* Experiment 4's streams, filler and events, made once and shared by its cases. */
struct priority_rig {
    int lowest, highest;                 /* the device's priority range */
    cudaStream_t background, same, high; /* the filler's; the urgent kernel's at the filler's
                                            priority and at the highest */
    struct filler filler;
    cudaEvent_t start, stop; /* recorded in the urgent stream */
    unsigned long long *d_elapsed;
};
/* block_ns: how long each filler block runs (the lesson's 0.1 ms; exercise 3's 1 ms). */
void priority_rig_create(const struct gpu_info *gpu, unsigned long long block_ns,
                         struct priority_rig *rig);
void priority_rig_destroy(const struct priority_rig *rig);

/* The filler in rig->background, then the urgent kernel in `urgent` once the filler holds every
 * SM: ms from the urgent stream's start event to its end, on the GPU's clock. */
double urgent_latency(const struct priority_rig *rig, cudaStream_t urgent);

/* ------------------------------------------------------- exercises.c */

/* Exercise 1's top stream count where --streams gives none: the README's largest. */
enum { SWEEP_TOP = 32 };

/* Runs exercise n (1 to EXERCISE_COUNT) of README.md in place of the lesson, and prints its
 * answer figures beside the shipped reference's. Ends the program on an error, as the lesson does.
 * n_streams: --streams, the top of exercise 1's sweep where it was given (else SWEEP_TOP). */
void run_exercise(int n, const struct gpu_info *gpu, const struct common_args *args,
                  int n_streams, struct csv *csv);

#endif /* STREAMS_H */
