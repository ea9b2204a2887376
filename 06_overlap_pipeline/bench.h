/*
 * bench.h - what main.c measures with, shared with the exercises (exercises.c), which run the
 * lesson's own measurements on other shapes: the rig and its samples, a pipeline against its
 * serial version and its bound (evaluate), the balanced regime's iterations, part 2's report of
 * a recorded run, and part 5's staged runs timed in turns.
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

/* The iterations at which the pipeline's kernels take as long as its copies, measured. */
int balanced_iters(struct bench *b, const struct shape *p, unsigned *iters);

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
 * byte of it; exercise_size_rig() sizes the rig for the exercises, once s->n is known. */
enum { EXERCISES = 5 };
struct sized exercise_sized(int n, struct settings *s, size_t *size);
void exercise_size_rig(struct settings *s);
int run_exercise(struct bench *b, const struct settings *s, int n);

#endif /* BENCH_H */
