/*
 * bench.h - what the lesson's parts measure with: the rig and its samples, runs timed in turns,
 * a pipeline against its serial version and its bound (evaluate), the CSV rows of an outcome.
 * main.c hands in its loop (bench.plain), which every full round-robin run here uses.
 *
 * Every function returns 0, or -1 after saying why.
 */
#ifndef BENCH_H
#define BENCH_H

#include "common.h"
#include "pipeline.h"

/* The rig, and what the measurements around it need. */
struct bench {
    struct rig rig;
    chunk_loop *plain; /* main.c's loop over chunks */
    double *samples;   /* MAX_TURNS x reps, and reps more for ratios */
    int reps;
    int copy_engines;  /* asyncEngineCount */
    struct csv *csv;
};

/* The command line's settings, and the rig they call for (setup.c). */
struct settings {
    size_t n, sweep_n, sweep_size;
    int chunks, streams, buffers, iters, sweeps, device;
    int staged_threads, staged_buffers; /* --deep staged: the most CPU threads, the staging slots */
    const char *trace, *deep;
    size_t ring_buffers, buffer_elems, streams_made; /* what the rig holds */
};

/* How a turn runs its shape: main.c's loop, or the engine with everything or with one kind of
 * work left out. */
enum run_kind { PLAIN_LOOP, ENGINE, WITHOUT_COPIES, WITHOUT_KERNELS };

enum { MAX_TURNS = 9 }; /* exercise 3's: three chunk counts, each with its two halves */

/* Runs compared with each other: a warm-up of each, then rep 1 of each, rep 2 of each, and so on,
 * each rep starting one turn later, into b->samples[turn * reps + rep]; each full run's last rep
 * verified. */
struct turn {
    const struct shape *shape;
    enum run_kind kind;
    const char *what;
};
int measure_in_turns(struct bench *b, const struct turn *turns, size_t n);
/* Turn t's times. */
struct stats turn_stats(struct bench *b, size_t t);
/* max(turn kernels, turn copies) / turn pipeline, rep by rep; before turn_stats() sorts them. */
struct stats paired_efficiency(struct bench *b, size_t pipeline, size_t kernels, size_t copies);
/* a[rep] / b[rep], rep by rep, summarized in `scratch`. */
struct stats ratio_by_rep(const double *a, const double *b, int reps, double *scratch);

/* Medians over paired repetitions. The bound is the slower of the same pipeline without its
 * copies (`kernels`) and without its kernels (`copies`): same streams, buffers, events, waits and
 * issue order, one kind of work left out. A reference for this shape only, and a heuristic: with
 * kernels between them, the copies can share the link differently, so a pipeline that beats it is
 * flagged (flag_beaten_bound), not assumed impossible. */
struct outcome {
    struct stats pipeline, serial, kernels, copies;
    struct stats efficiency; /* bound / pipeline, rep by rep */
    double bound;            /* the slower median of the two */
};

/* Runs the pipeline (main.c's loop where the shape is its round robin, else the engine), the
 * serial version (the loop on one stream and one buffer) and the two halves of the bound, in
 * turns; the last repetition of each full run verified. */
int evaluate(struct bench *b, const struct shape *p, struct outcome *o);

/* Says so when a measured pipeline beat its bound by more than the bound's own spread allows. */
void flag_beaten_bound(const char *what, struct stats efficiency);
/* Prints a time, and a '~' after it when it is unsteady. */
void print_ms(struct stats s);

int record(struct bench *b, const char *experiment, const char *variant, const char *direction,
           size_t bytes, struct stats ms, const char *params);
/* A pipeline's row: its time, its efficiency and its speed-up over serial in params. */
int record_pipeline(struct bench *b, const char *experiment, const char *variant,
                    const struct shape *p, struct stats ms, struct stats efficiency,
                    const char *extra, double speedup_serial);
/* An outcome's four rows: depth_first, serial_pinned, kernels_only, copies_only. */
int record_outcome(struct bench *b, const char *experiment, const struct shape *p,
                   const struct outcome *o, const char *extra);

/* regimes.c: the main shape (--chunks, --buffers, --streams) at the balanced regime's
 * iterations: --kernel-iters, or measured, where the pipeline's kernels take as long as its
 * copies; and part 1, the three regimes. */
int main_shape(struct bench *b, const struct settings *s, struct shape *p);
int regimes(struct bench *b, const struct shape *base);
/* The regimes' iterations: copy-bound 1, balanced, compute-bound 4x balanced. */
enum { REGIMES = 3 };
struct regime {
    const char *name;
    unsigned iters;
};
void regimes_of(unsigned balanced, struct regime regime[REGIMES]);

#endif /* BENCH_H */
