/*
 * exercises.c - `--exercise N`: the exercises of README.md, run as they ask, in place of the
 * lesson's parts, on the lesson's own measurements (bench.h). This file: the sizes, the
 * dispatch and exercise 1; exercises_ring.c: 2 and 3; exercises_staged.c: 4 and 5.
 *
 *   1. 8 streams and 2 buffers against 8 and 8: efficiencies, the time of 2 buffers over 8's
 *      timed in turns, and from the timeline how long all three engines were busy at once
 *   2. the pipeline without its wait for a free buffer (the engine's
 *      shape.skip_buffer_free_wait, pipeline.c), 8 streams and 4 buffers: in how many runs
 *      verification finds wrong results
 *   3. 16, 64 and 512 chunks in turns, each with its copies alone and its kernels alone: each
 *      one's time over 64 chunks', rep by rep
 *   4. the staged part on one thread fewer than its default and on the default: the time of the
 *      first over the second's, rep by rep, and on each the CPU's copies alone over the GPU's
 *      work alone
 *   5. the staged run, its GPU work alone and its CPU copies alone, with 2 staging buffers and
 *      with 8, in turns: each one's time with 2 over its time with 8, rep by rep
 *
 * Each ends with its answer figures beside the shipped reference's (common/exercise.c). The
 * lesson's tables print as they do in the lesson; under --exercise the CSV takes only the answers
 * (exercise_begin()).
 */
#include "exercises.h"
#include "setup.h"
#include "trace.h"

#include <stdio.h>
#include <string.h>

enum {
    EXERCISE_BUFFERS = 8,    /* exercise 1's ring of 8 buffers ... */
    FEW_BUFFERS = 2,         /* ... against 2 */
};

/* Each exercise's data set where --size does not give one: the lesson's 1 GiB where the runs are
 * quick, so that they compare with parts 1 and 3; less where every run is checked on the host
 * (2) or part 5's slow ways come along (4 and 5), to stay within seconds. */
static const size_t default_size[EXERCISES] = {
    (size_t)1 << 30, (size_t)256 << 20, (size_t)1 << 30, (size_t)512 << 20, (size_t)512 << 20};

/* 8 buffers and 8 streams at least, each buffer a chunk of exercise 3's fewest chunks. */
void exercise_size_rig(struct settings *s)
{
    size_t fewest = (size_t)s->chunks < FEWEST_CHUNKS ? (size_t)s->chunks : FEWEST_CHUNKS;
    size_t most = EXERCISE_BUFFERS; /* as many as EXERCISE_STREAMS */
    size_rig(s, most, s->n, fewest);
}

/* On the GPU, the ring (exercise_size_rig()), each buffer a chunk of the fewest chunks. On the
 * host, the pinned data set and results; exercises 4 and 5 add the staged part's pageable data
 * set and results and its staging ring, a chunk per slot each way. */
struct sized exercise_sized(int n, struct settings *s, size_t *size)
{
    bool given = cli_given("--size");
    if (!given)
        *size = default_size[n - 1];
    int fewest = s->chunks < FEWEST_CHUNKS ? s->chunks : FEWEST_CHUNKS;
    double host = n < 4 ? 2 : 4 + 2.0 * (double)exercise_staging_slots(s) / s->chunks;
    return (struct sized){"--size", size, given, (double)s->ring_buffers / fewest, host};
}

/* ------------------------------------------------------------------------------------------ *
 * What the exercises share.
 * ------------------------------------------------------------------------------------------ */

/* A shape's line of evaluate()'s figures, ms on the GPU. */
void print_outcome(const char *label, const struct outcome *o)
{
    printf("  %-22s %9.2f %9.2f %9.2f %9.2f   %.3f (%.3f-%.3f)\n", label, o->serial.median,
           o->pipeline.median, o->kernels.median, o->copies.median, o->efficiency.median,
           o->efficiency.min, o->efficiency.max);
    flag_beaten_bound(label, o->efficiency);
}

void print_outcome_header(const char *first)
{
    printf("  %-22s %9s %9s %9s %9s   %s\n", first, "serial", "pipeline", "kernels", "copies",
           "efficiency (range)");
}

/* ------------------------------------------------------------------------------------------ *
 * 1. Two buffers for eight streams.
 * ------------------------------------------------------------------------------------------ */

/* The two pipelines alone, in turns: the first's time over the second's, rep by rep. */
static int time_in_turns(struct bench *b, const struct shape shapes[2], char names[2][64],
                         struct stats *ratio, struct stats ms[2])
{
    const struct turn turns[2] = {{&shapes[0], PLAIN_LOOP, names[0]},
                                  {&shapes[1], PLAIN_LOOP, names[1]}};
    if (measure_in_turns(b, turns, 2))
        return -1;
    *ratio = ratio_by_rep(b->samples, b->samples + b->reps, b->reps, b->samples + 2 * b->reps);
    for (int i = 0; i < 2; i++)
        ms[i] = stats_summarize(b->samples + i * b->reps, (size_t)b->reps);
    return 0;
}

static int exercise_1_answers(struct bench *b, size_t bytes, const struct outcome o[2],
                              const struct busy_time *busy, struct stats ratio,
                              struct stats ms_few)
{
    const size_t buffers[2] = {FEW_BUFFERS, EXERCISE_BUFFERS};
    const char *const keys[2][2] = {{"efficiency_2_buffers", "all_three_busy_2_buffers"},
                                    {"efficiency_8_buffers", "all_three_busy_8_buffers"}};
    for (int i = 0; i < 2; i++) {
        char what[96];
        snprintf(what, sizeof what, "efficiency with %zu buffers", buffers[i]);
        if (exercise_answer(b->csv, 1, keys[i][0], what, o[i].efficiency.median, "of its bound",
                            (struct csv_row){.reps = b->reps, .ms = o[i].pipeline,
                                             .bytes = bytes, .params = "clock=gpu_event"}))
            return -1;
        if (!busy)
            continue;
        double span = busy[i].span_ms;
        snprintf(what, sizeof what, "all three engines busy at once, %zu buffers", buffers[i]);
        if (exercise_answer(b->csv, 1, keys[i][1], what, 100 * busy[i].all_three_ms / span,
                            "% of the run",
                            (struct csv_row){.reps = 1, .ms = {span, span, span},
                                             .bytes = bytes, .params = "clock=gpu_cupti"}))
            return -1;
    }
    char what[96];
    snprintf(what, sizeof what, "time with %d buffers over %d's, in turns, rep by rep (range "
             "%.3f-%.3f)", FEW_BUFFERS, EXERCISE_BUFFERS, ratio.min, ratio.max);
    return exercise_answer(b->csv, 1, "time_2_vs_8_buffers", what, ratio.median, "x",
                           (struct csv_row){.reps = b->reps, .ms = ms_few, .bytes = bytes,
                                            .params = "clock=gpu_event"});
}

/* Each shape against its own bound first (evaluate()), then the two alone in turns for their
 * times, then one run of each on the timeline, which shows what each engine did. */
static int exercise_1(struct bench *b, const struct settings *s)
{
    struct shape base, shapes[2];
    if (main_shape(b, s, &base))
        return -1;
    const size_t buffers[2] = {FEW_BUFFERS, EXERCISE_BUFFERS};
    char size_text[32], names[2][64];
    printf("\n%s in %zu chunks over %d streams, %u iterations (the balanced regime); ms on the "
           "GPU, median of %d\npaired repetitions; efficiency = max(kernels, copies) / pipeline, "
           "rep by rep\n", format_bytes(s->n * sizeof(unsigned), size_text, sizeof size_text),
           base.chunks, EXERCISE_STREAMS, base.iters, b->reps);
    print_outcome_header("shape");
    struct outcome o[2];
    struct traced runs[2];
    for (int i = 0; i < 2; i++) {
        shapes[i] = base;
        shapes[i].streams = EXERCISE_STREAMS;
        shapes[i].buffers = buffers[i];
        snprintf(names[i], sizeof names[i], "%d streams, %zu buffers", EXERCISE_STREAMS,
                 buffers[i]);
        if (evaluate(b, &shapes[i], &o[i]))
            return -1;
        print_outcome(names[i], &o[i]);
        runs[i] = (struct traced){names[i], &shapes[i], NULL, 0};
    }
    struct stats ratio, ms[2];
    if (time_in_turns(b, shapes, names, &ratio, ms))
        return -1;
    printf("\nthe two pipelines alone, in turns: %.2f ms and %.2f ms, %d buffers over %d's %.3f "
           "(%.3f-%.3f) rep by rep\n", ms[0].median, ms[1].median, FEW_BUFFERS, EXERCISE_BUFFERS,
           ratio.median, ratio.min, ratio.max);
    printf("\ntimeline (CUPTI) of one run of each\n");
    struct busy_time busy[TIMELINE_MAX_RUNS];
    unsigned long operations;
    bool recorded;
    if (record_runs(b, runs, 2, s->trace, busy, &operations, &recorded))
        return -1;
    if (recorded && s->trace)
        printf("  %lu copies and kernels written to %s.json and %s.csv\n", operations, s->trace,
               s->trace);
    for (int i = 0; recorded && i < 2; i++)
        if (report_busy(b, "exercise", names[i], &busy[i]))
            return -1;
    printf("\n");
    if (exercise_1_answers(b, 2 * s->n * sizeof(unsigned), o, recorded ? busy : NULL, ratio,
                           ms[0]))
        return -1;
    if (!recorded)
        printf("(no timeline here, so no share of time with all three engines busy)\n");
    printf("verified: the last repetition of every pipelined and serial run\n");
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

/* What exercise n asks, with this machine's thread and buffer counts where it names them. */
static void exercise_asks(int n, const struct settings *s, char *text, size_t len)
{
    static const char *const asks[3] = {
        "run --streams 8 --buffers 2: which efficiency do you expect, and what does the "
        "timeline show?",
        "delete the cudaStreamWaitEvent in main.c's loop and run --streams 8 --buffers 4: what "
        "goes wrong, if anything, and does verification catch it? Every time?",
        "which of --chunks 16, 64 and 512 runs the data set fastest? Rank the three by time, "
        "predicted from fill and drain and from lesson 04's per-copy cost",
    };
    int most = s->staged_threads, fewer = most > 1 ? most - 1 : 1;
    char whose[128];
    if (most == host_cpus())
        snprintf(whose, sizeof whose, "one thread fewer than the %d CPUs, which leaves the "
                 "issuing thread a CPU of its own", most);
    else
        snprintf(whose, sizeof whose, "one thread fewer than --staged-threads %d", most);
    if (n == 4)
        snprintf(text, len, "run the staged part on --staged-threads %d (%s): is the staged run "
                 "faster or slower than on %d, and which side, the CPU's copies or the GPU's "
                 "work, sets its pace?", fewer, whose, most);
    else if (n == 5)
        snprintf(text, len, "run --staged-buffers 2 (2 staging buffers each way, not %d): from "
                 "exercise 1's 2 device buffers and exercise 4's staged table, is the staged run "
                 "faster or slower than with %d, and why?", s->staged_buffers,
                 s->staged_buffers);
    else
        snprintf(text, len, "%s", asks[n - 1]);
}

int run_exercise(struct bench *b, const struct settings *s, int n)
{
    static int (*const exercise[EXERCISES])(struct bench *, const struct settings *) = {
        exercise_1, exercise_2, exercise_3, exercise_4, exercise_5};
    char asks[512];
    exercise_asks(n, s, asks, sizeof asks);
    exercise_begin(b->csv, n, EXERCISES, asks);
    return exercise[n - 1](b, s);
}
