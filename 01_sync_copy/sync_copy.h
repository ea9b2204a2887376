/*
 * sync_copy.h - what the exercises (exercises.c) reuse of lesson 01's parts (main.c).
 */
#ifndef SYNC_COPY_H
#define SYNC_COPY_H

#include "common.h"

#define LESSON "01_sync_copy"
enum { EXERCISES = 3 }; /* README.md's "## Exercises" */

enum { PHASE_H2D, PHASE_KERNEL, PHASE_D2H, PHASE_TOTAL, N_PHASES };

/* One repetition's times, phase by phase, on both clocks. */
struct phase_times {
    double gpu_ms[N_PHASES];  /* CUDA events: what the GPU spent */
    double host_ms[N_PHASES]; /* host clock: how long the CPU was held up */
    double launch_ms;         /* host clock: how long the kernel launch itself took to return */
};

/* Part 1 at `bytes` per vector: its table and the kernel alone, printed and recorded. Returns the
 * `reps` repetitions' times (the caller frees them). wait_for_kernel: the cudaDeviceSynchronize
 * after the launch (exercise 2 leaves it out). */
struct phase_times *vector_add_sync(size_t bytes, int reps, bool wait_for_kernel,
                                    const struct gpu_info *gpu, struct csv *csv);

/* One size of part 2's sweep in one direction: its median's rate, and the statistics behind it. */
struct sweep_point {
    size_t bytes;
    struct stats ms;
    double gbps;
};
/* Part 2 at sizes up to max_bytes, printed and recorded. Returns, in each direction ([0] H2D,
 * [1] D2H), its fastest size and its largest. */
struct sweep_summary {
    struct sweep_point fastest[2], largest[2];
};
struct sweep_summary pageable_sweep(size_t max_bytes, int reps, struct csv *csv);

/* Runs exercise n (1 to EXERCISES) in place of the lesson, from choosing the GPU to closing the
 * CSV; returns main's exit code. */
int run_exercise(int n, struct common_args *args, size_t sweep_max);

#endif /* SYNC_COPY_H */
