/*
 * events.h - what the files of 03_events share. main.c is the lesson; these are its work (work.c),
 * its deep parts (resolution.c, waits.c, event_cost.c, run by --deep) and its exercises
 * (exercises*.c, run by --exercise).
 */
#ifndef EVENTS_H
#define EVENTS_H

#include "common.h"

/* --------------------------------------------------------------------- work.c */

/* The work the GPU does: lesson 01's c = a + b, asynchronously, in one stream. */
struct work {
    float *h_a, *h_b, *h_c; /* pinned */
    float *d_a, *d_b, *d_c;
    size_t n;
    cudaStream_t stream;
};

/* Copy a and b in, add, copy c out, all in w->stream; returns at once. */
void enqueue_work(const struct work *w);
/* Poisons c on both sides, so that verification proves the work just done wrote it. */
void poison_output(const struct work *w);
/* Checks every element of c; ends the program on a wrong one. */
void verify_work(const struct work *w);

/* One unit of CPU work: `passes` sums of squares over the same 16 Ki floats (some microseconds a
 * pass). The lesson's unit is one pass; exercise 1 makes it ten. */
double cpu_work_unit(int passes);

/* Experiment 3's streams: a producer writes x, a consumer reads it and writes y. */
struct cross {
    cudaStream_t producer, consumer;
    cudaEvent_t x_ready;
    float *d_x, *d_y;
};
void cross_create(struct cross *c, const struct work *w);
void cross_destroy(struct cross *c);
/* Poisons x, y and the host's copy of y, and waits for the GPU to be idle. */
void cross_reset(const struct work *w, const struct cross *c);
/* After a run: the elements of y (copied back into w->h_c) that are not (a + b) + a. */
size_t cross_wrong(const struct work *w);

/* -------------------------------------------------------------------- waits.c */

/* How the CPU waits for the GPU: the rows of the table of waits, and exercise 2's fourth,
 * cudaStreamSynchronize, which the device's scheduling flags govern. */
enum wait_style { POLL_QUERY, SYNC_SPIN, SYNC_BLOCKING, SYNC_STREAM };
enum { N_WAIT_STYLES = SYNC_BLOCKING + 1 };

/* One wait for copy in, add, copy out, verified: host clock, thread CPU clock, work units done. */
struct wait_result {
    double wall_ms, cpu_ms, units;
};
struct wait_result wait_for_gpu(const struct work *w, cudaEvent_t done, enum wait_style style,
                                int unit_passes, double *sink);

/* A wait's statistics over its repetitions, and its two CSV rows (wall time, CPU time). */
struct wait_stats {
    struct stats wall, cpu, units;
};
struct wait_stats wait_stats_of(double *wall, double *cpu, double *units, int reps);
void wait_record(struct csv *csv, const struct work *w, int reps, enum wait_style style,
                 const struct wait_stats *s);

/* The table of the three waits, each measured, printed and written; exercises 1 and 2 run it. */
struct overlap_table {
    struct stats wall[N_WAIT_STYLES], cpu[N_WAIT_STYLES], units[N_WAIT_STYLES];
};
struct overlap_table cpu_gpu_overlap(const struct work *w, int reps, int unit_passes,
                                     struct csv *csv);

/* ------------------------------------------------------------- the deep parts */

#define DEEP_PARTS "resolution, waits, event-cost"
/* resolution.c: an event pair around nothing, and a 5 us kernel alone and back to back. */
void deep_resolution(const struct work *w, struct csv *csv);
/* waits.c: the lesson's polling (`poll`, measured by main.c) beside cudaEventSynchronize on an
 * ordinary event and on a cudaEventBlockingSync event. */
void deep_waits(const struct work *w, int reps, const struct wait_stats *poll, struct csv *csv);
/* event_cost.c: two streams passing work back and forth through events, with and without
 * timestamps. */
void deep_event_cost(int reps, struct csv *csv);

/* ------------------------------------------------------------ exercises*.c */

/* Exercise n (1 to EXERCISES) of README.md, in place of the lesson; ends the program on an error,
 * as the lesson does. Returns what it verified, for the program's last line. */
enum { EXERCISES = 3 };
const char *run_exercise(int n, const struct work *w, int reps, struct csv *csv);
/* Their pieces, one file each: exercises_polling.c, exercises_flags.c, exercises.c. */
void exercise_longer_unit(const struct work *w, int reps, struct csv *csv);
void exercise_blocking_sync_device(const struct work *w, int reps, struct csv *csv);
/* The statistics behind a figure of an answer, for its CSV row, and the clock that took them. */
struct csv_row exercise_measured(size_t bytes, int reps, struct stats ms, const char *clock);

#endif /* EVENTS_H */
