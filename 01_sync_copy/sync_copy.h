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

/* Part 1's three vectors on each side. Pageable host memory: what malloc gives, and what most
 * programs have. */
struct vectors {
    float *h_a, *h_b, *h_c, *d_a, *d_b, *d_c;
    size_t n;
};
struct vectors vectors_alloc(size_t n);
void vectors_free(struct vectors *v);

/* One repetition of part 1 on v, its phases marked by the events `mark`, c verified (the end of
 * the program when it is wrong). wait_for_kernel: the cudaDeviceSynchronize after the launch
 * (exercise 2 leaves it out). */
struct phase_times one_repetition(const struct vectors *v, cudaEvent_t mark[N_PHASES],
                                  bool wait_for_kernel);

/* Part 1 at `bytes` per vector: its table and the kernel alone, printed and recorded. Returns the
 * `reps` repetitions' times (the caller frees them). */
struct phase_times *vector_add_sync(size_t bytes, int reps, const struct gpu_info *gpu,
                                    struct csv *csv);

/* One blocking copy, as part 2 times it: host clock, from an idle GPU until the copy is done. */
double time_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);

/* Runs exercise n (1 to EXERCISES) in place of the lesson, from choosing the GPU to closing the
 * CSV; returns main's exit code. */
int run_exercise(int n, struct common_args *args, size_t sweep_max);

#endif /* SYNC_COPY_H */
