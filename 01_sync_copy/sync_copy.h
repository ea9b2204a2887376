/*
 * sync_copy.h - what main.c hands to lesson 01's other files: the deep parts (kernel_alone.c,
 * copy_return.c), what part 1 prints (phases.c) and the exercises (exercises.c,
 * exercises_cpu_load.c). None of them calls into main.c.
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

/* Part 1's three vectors on each side; the host's are pageable (malloc). */
struct vectors {
    float *h_a, *h_b, *h_c, *d_a, *d_b, *d_c;
    size_t n;
};

/* phases.c: part 1's table (median of `reps` repetitions on both clocks) and its CSV rows. */
void print_phases(const struct vectors *v, const struct phase_times *times, int reps,
                  struct csv *csv);

/* kernel_alone.c, `--deep kernel-alone`: the kernel timed without its launch, 10 launches
 * queued behind a gate, beside the device memory's peak. */
void kernel_alone(const struct vectors *v, cudaEvent_t mark[N_PHASES], int reps,
                  const struct gpu_info *gpu, struct csv *csv);

/* copy_return.c: one blocking copy timed from an idle GPU until it is done (host clock); and
 * `--deep early-return`: of `reps` more calls, how many returned while the GPU still copied. */
double time_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
int count_early(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, int reps);

/* One sweep's table (copy_return.c): the title, then per size a row, then the best rates; with
 * `early`, the early-return columns and their totals. */
struct sweep_table {
    bool early;
    double best_h2d, best_d2h;
    int early_h2d, early_d2h;
};
void sweep_header(const char *title, int reps, bool early);
void sweep_row(struct sweep_table *t, size_t bytes, int reps, const struct stats ms[2],
               const int early[2], struct csv *csv);
void sweep_footer(const struct sweep_table *t);

/* exercises.c: opens the run of exercise n (its sizes, the GPU, the CSV), and closes it. */
int exercise_open(int n, struct common_args *args, size_t *sweep_max, struct gpu_info *gpu,
                  struct csv *csv);
int exercise_close(int n, struct csv *csv);
/* Exercise 1: the three sizes of part 1 it runs and their repetitions; its table and answers. */
enum { SHARE_SIZES = 3 };
void share_sizes(const struct common_args *args, size_t bytes[SHARE_SIZES],
                 int reps[SHARE_SIZES]);
void copy_shares(const size_t bytes[SHARE_SIZES], const int reps[SHARE_SIZES],
                 struct phase_times *times[SHARE_SIZES], struct csv *csv);
/* Exercise 2: part 1 with the synchronize after the launch and without it, in turns. */
enum { WITH_SYNC, WITHOUT_SYNC, N_WAYS };
void no_wait_for_kernel(size_t bytes, int reps, struct phase_times *times[N_WAYS],
                        struct csv *csv);
/* exercises_cpu_load.c, exercise 3: passes of the sweep's copies, on idle CPUs and with every
 * CPU busy, in turns. */
void copies_under_load(int reps, size_t sweep_max, struct csv *csv);

#endif /* SYNC_COPY_H */
