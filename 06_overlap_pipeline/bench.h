/*
 * bench.h - what main.c measures with, shared with the exercises (exercises.c), which run the
 * lesson's own measurements on other shapes: the rig and its samples, runs timed in turns, a
 * pipeline against its serial version and its bound (evaluate), the main shape at the balanced
 * regime's iterations, part 2's recorded runs and its report of one, and part 5's staged runs
 * timed in turns.
 *
 * Every function returns 0, or -1 after saying why.
 */
#ifndef BENCH_H
#define BENCH_H

#include "common.h"
#include "pipeline.h"
#include "staged.h"
#include "timeline.h"

/* The rig, and what the measurements around it need. */
struct bench {
    struct rig rig;
    double *samples; /* MAX_TURNS x reps, and reps more for ratios */
    int reps;
    int copy_engines; /* asyncEngineCount */
    struct csv *csv;
};

/* The command line's settings, and the rig they call for. */
struct settings {
    size_t n, sweep_n;
    int chunks, streams, buffers, iters, sweeps, device;
    int staged_threads, staged_buffers; /* part 5: the most CPU threads, the staging slots */
    const char *trace;
    size_t ring_buffers, buffer_elems, streams_made; /* what the rig holds */
};

/* The rig: at least `most` buffers and streams, as many as the settings ask for (part 4c's three
 * streams too), each buffer as large as the largest chunk of any part: the main shape's, or one
 * of `fewest` chunks of a data set of `other_n` elements. */
void size_rig(struct settings *s, size_t most, size_t other_n, size_t fewest);

/* Runs compared with each other: a warm-up of each, then rep 1 of each, rep 2 of each, and so on,
 * into b->samples[turn * reps + rep]; each full run's last rep verified. */
struct turn {
    const struct shape *shape;
    unsigned stages; /* ALL_STAGES, or the pipeline with one kind of work left out */
    const char *what;
};
int measure_in_turns(struct bench *b, const struct turn *turns, size_t n);

/* Medians over paired repetitions. The bound is the slower of the same pipeline without its
 * copies (`kernels`) and without its kernels (`copies`): same streams, buffers, events, waits and
 * issue order, one kind of work left out. Nothing the pipeline does can take less time. */
struct outcome {
    struct stats pipeline, breadth, serial, kernels, copies;
    struct stats efficiency, breadth_efficiency; /* bound / pipeline, rep by rep */
    double bound;                                /* the slower median of the two */
};

/* Runs the pipeline, the serial version and the two halves of the bound for one shape, in turns,
 * and the breadth-first pipeline too when asked; the last repetition of each full run verified. */
int evaluate(struct bench *b, const struct shape *p, bool both_orders, struct outcome *o);

/* Says so when a measured pipeline beat its bound by more than the bound's own spread allows. */
void flag_beaten_bound(const char *what, struct stats efficiency);

/* The lesson's main shape (--chunks, --buffers, --streams) at the balanced regime's iterations:
 * --kernel-iters, or measured, where the pipeline's kernels take as long as its copies. */
int main_shape(struct bench *b, const struct settings *s, struct shape *p);

/* One run to record on the timeline: a pipeline, or, with `staging`, a staged run on `threads`
 * CPU threads. */
struct traced {
    const char *name;
    const struct shape *p;
    const struct staging *staging;
    int threads;
};

/* Records the runs with CUPTI, after a warm-up run of the first one's shape recorded and dropped
 * (the first launch under CUPTI pays milliseconds for its setup); fills busy[r], and waits[r]
 * where waits is not NULL, counts the operations, and writes PREFIX.json and PREFIX.csv where
 * prefix is not NULL. *recorded stays false where there is no CUPTI here: timeline_start() said
 * so, and the rest goes on. */
int record_runs(struct bench *b, const struct traced *runs, int count, const char *prefix,
                struct busy_time busy[TIMELINE_MAX_RUNS], struct issue_wait *waits,
                unsigned long *operations, bool *recorded);

/* Prints and records how busy each kind of work kept the GPU, and the CPU, in one recorded run. */
int report_busy(struct bench *b, const char *key, const char *name,
                const struct busy_time *busy);

/* Part 5's ways, timed in turns: three of their own, then two per thread count. */
enum { SYNC_WAY, DRIVER_WAY, PINNED_WAY, GPU_ALONE, FIRST_STAGED, MAX_THREAD_COUNTS = 12 };

struct staged_plan {
    const struct staging *staging;
    const struct shape *p;
    int threads[MAX_THREAD_COUNTS], counts; /* T = 1, 2, 4, ... and the most */
    double *ms;      /* way w's rep k at [w * reps + k] */
    double *copying; /* staged run c's CPU copying (staged_time) in rep k at [c * reps + k] */
};

/* Part 5 on the plan's ring and thread counts: its heading, every way in turns, its table. The
 * samples stay in sp->ms and sp->copying for the caller, who frees them with staged_plan_free()
 * whatever the outcome. */
int staged_part(struct bench *b, struct staged_plan *sp);
void staged_plan_free(struct staged_plan *sp);
/* How many ways the plan times: sp->ms holds staged_ways() x reps samples. */
int staged_ways(const struct staged_plan *sp);
/* Every way in turns, a warm-up round first; every staged run verified. */
int staged_in_turns(struct bench *b, const struct staged_plan *sp);
/* Part 5's table: every way's time, the staged runs' efficiencies, the CPU's copies. */
int staged_report(struct bench *b, const struct staged_plan *sp);
/* Staged run c (thread count sp->threads[c]) against its bound, rep by rep. */
struct stats staged_efficiency(struct bench *b, const struct staged_plan *sp, int c);
/* Way w's times (staged run c is way FIRST_STAGED + 2c). */
struct stats way_stats(struct bench *b, const struct staged_plan *sp, int w);

/* exercises.c: `--exercise N`, on the bench in place of the lesson's parts. exercise_sized()
 * sets the exercise's data set where --size left it open, and returns what the run holds per
 * byte of it; exercise_size_rig() sizes the rig for the exercises (size_rig()). */
enum { EXERCISES = 5 };
struct sized exercise_sized(int n, struct settings *s, size_t *size);
void exercise_size_rig(struct settings *s);
int run_exercise(struct bench *b, const struct settings *s, int n);

#endif /* BENCH_H */
