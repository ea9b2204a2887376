/*
 * events.h - the parts of 03_events (main.c) that its exercises (exercises.c) run again, each with
 * the one change an exercise asks for as a parameter:
 *   cpu_gpu_overlap()   experiment 2, with a CPU work unit of `unit_passes` passes (exercise 1)
 *   wait_for_gpu()      one of its waits, taken in turns with another (exercises 1 and 2), or one
 *                       with cudaStreamSynchronize (exercise 2)
 *   produce_consume()   experiment 3, with the consumer ordered after the producer one of three
 *                       ways (exercise 3)
 */
#ifndef EVENTS_H
#define EVENTS_H

#include "common.h"

/* The work the GPU does in experiments 1 and 2: lesson 01's c = a + b, asynchronously. */
struct work {
    float *h_a, *h_b, *h_c; /* pinned */
    float *d_a, *d_b, *d_c;
    size_t n;
    cudaStream_t stream;
};

/* Experiment 2. One unit of CPU work is `passes` sums of squares over the same 16 Ki floats. */
double cpu_work_unit(int passes);

/* How the CPU waits for the GPU: experiment 2's three ways, the rows of its table, and exercise
 * 2's fourth, cudaStreamSynchronize, which the device's scheduling flags govern. */
enum wait_style { POLL_QUERY, SYNC_SPIN, SYNC_BLOCKING, SYNC_STREAM };
enum { N_WAIT_STYLES = SYNC_BLOCKING + 1 };

/* One wait for copy in, add, copy out, verified: host clock, thread CPU clock, work units done. */
struct wait_result {
    double wall_ms, cpu_ms, units;
};
struct wait_result wait_for_gpu(const struct work *w, cudaEvent_t done, enum wait_style style,
                                int unit_passes, double *sink);

/* Experiment 2's table, one row per wait style: host clock, thread CPU clock, work units done. */
struct overlap_table {
    struct stats wall[N_WAIT_STYLES], cpu[N_WAIT_STYLES], units[N_WAIT_STYLES];
};
struct overlap_table cpu_gpu_overlap(const struct work *w, int reps, int unit_passes,
                                     struct csv *csv);

/* Experiment 3: how the consumer stream's y = x + a is ordered after the producer's x = a + b. */
enum consumer_wait {
    CONSUMER_WAITS_FOR_EVENT, /* cudaStreamWaitEvent: the GPU orders it, the host never waits */
    CONSUMER_DOES_NOT_WAIT,   /* nothing orders it: the race */
    HOST_WAITS_FOR_PRODUCER,  /* cudaStreamSynchronize(producer) before the consumer's calls */
};

struct cross {
    cudaStream_t producer, consumer;
    cudaEvent_t x_ready;
    float *d_x, *d_y;
};
void cross_create(struct cross *c, const struct work *w);
void cross_destroy(struct cross *c);
/* One run; returns the wrong elements of y, and how long the host took to issue it. */
size_t produce_consume(const struct work *w, const struct cross *c, enum consumer_wait how,
                       double *enqueue_ms);

/* Exercise n (1 to EXERCISES) of README.md, in place of the lesson; ends the program on an error,
 * as the lesson does. Returns what it verified, for the program's last line. */
enum { EXERCISES = 3 };
const char *run_exercise(int n, const struct work *w, int reps, struct csv *csv);

#endif /* EVENTS_H */
