/*
 * exercises.c - `--exercise N`: the exercises of README.md, run as they ask, in place of the
 * lesson's parts, on the lesson's own measurements (bench.h):
 *
 *   1. 8 streams and 2 buffers against 8 and 8: efficiencies, and from the timeline how long all
 *      three engines were busy at once
 *   2. issue() without its wait for a free buffer (shape.skip_buffer_free_wait, pipeline.c), 8
 *      streams and 4 buffers: in how many runs verification catches the race
 *   3. 16, 64 and 512 chunks: efficiencies beside fill and drain's prediction
 *   4. part 5's staged run on every CPU and on one thread fewer: times, efficiencies, and from
 *      the timeline how soon the copies in start after their chunks are prepared
 *   5. part 5's staged run with 2 staging buffers against 8: efficiencies
 *
 * Each ends with its answer figures beside the shipped reference's (common/exercise.c). The
 * lesson's tables print as they do in the lesson, but only the answers are written to --csv.
 */
#include "bench.h"

#include "common.h"
#include "pipeline.h"
#include "staged.h"
#include "timeline.h"

#include <stdio.h>
#include <string.h>

enum {
    EXERCISE_STREAMS = 8,    /* exercises 1 and 2 ask for 8 streams */
    EXERCISE_BUFFERS = 8,    /* exercise 1's ring of 8 buffers */
    FEWEST_CHUNKS = 16,      /* exercise 3's fewest chunks size the ring's buffers */
    RACE_RUNS = 10,          /* exercise 2's runs per case, where --reps does not say */
    TRACED_PER_COUNT = 3,    /* exercise 4's traced staged runs per thread count */
    FEW_STAGING_BUFFERS = 2, /* exercise 5's */
};

/* Each exercise's data set where --size does not give one: the lesson's 1 GiB where the runs are
 * quick, so that they compare with parts 1 and 3; less where every run is checked on the host
 * (2) or part 5's slow ways come along (4 and 5), to stay within seconds. */
static const size_t default_size[EXERCISES + 1] = {
    0, (size_t)1 << 30, (size_t)256 << 20, (size_t)1 << 30, (size_t)512 << 20, (size_t)512 << 20};

void exercise_size_rig(struct settings *s)
{
    size_t fewest = (size_t)s->chunks < FEWEST_CHUNKS ? (size_t)s->chunks : FEWEST_CHUNKS;
    size_t ring = (size_t)s->buffers > EXERCISE_BUFFERS ? (size_t)s->buffers : EXERCISE_BUFFERS;
    s->ring_buffers = (size_t)s->staged_buffers > ring ? (size_t)s->staged_buffers : ring;
    s->buffer_elems = chunk_plan_make(s->n, fewest, 1).max_chunk;
    s->streams_made = (size_t)s->streams > EXERCISE_STREAMS ? (size_t)s->streams
                                                              : EXERCISE_STREAMS;
}

/* On the GPU, the ring, each buffer a chunk of the fewest chunks; on the host, the pinned data
 * set and results, part 5's pageable data set and results, and its staging ring. */
struct sized exercise_sized(int n, struct settings *s, size_t *size)
{
    bool given = cli_given("--size");
    if (!given)
        *size = default_size[n];
    exercise_size_rig(s);
    int fewest = s->chunks < FEWEST_CHUNKS ? s->chunks : FEWEST_CHUNKS;
    return (struct sized){"--size", size, given, (double)s->ring_buffers / fewest,
                          4 + 2.0 * s->staged_buffers / s->chunks};
}

/* ------------------------------------------------------------------------------------------ *
 * What the exercises share.
 * ------------------------------------------------------------------------------------------ */

/* The lesson's main shape (part 1's), at the balanced regime's iterations: --kernel-iters, or
 * measured as part 1 measures them. */
static int balanced_shape(struct bench *b, const struct settings *s, struct shape *p)
{
    *p = (struct shape){.n = s->n, .chunks = (size_t)s->chunks, .buffers = (size_t)s->buffers,
                        .streams = (size_t)s->streams, .iters = (unsigned)s->iters};
    return p->iters ? 0 : balanced_iters(b, p, &p->iters);
}

/* One answer figure; `ms` and `reps` are the statistics of the measurement it comes from. */
static int answer(struct csv *csv, int n, const char *key, const char *what, double value,
                  const char *unit, struct stats ms, int reps, size_t bytes)
{
    return exercise_answer(csv, n, key, what, value, unit,
                           (struct csv_row){.reps = reps, .ms = ms, .bytes = bytes});
}

static struct stats one_sample(double ms)
{
    return (struct stats){ms, ms, ms};
}

/* One recorded run: a pipeline, or, with `staging`, a staged run on `threads` CPU threads. */
struct traced {
    const char *name;
    const struct shape *p;
    const struct staging *staging;
    int threads;
};

/* Records the runs with CUPTI as part 2 does (a warm-up recorded and dropped first, as the first
 * launch under CUPTI pays for its setup), fills busy[] for each, and writes the timeline to
 * --trace's PREFIX.json and PREFIX.csv where given. *recorded stays false where there is no
 * CUPTI here; timeline_start() said so. */
static int trace_runs(struct bench *b, const struct traced *runs, int count, const char *prefix,
                      struct busy_time *busy, bool *recorded)
{
    *recorded = false;
    if (timeline_start())
        return 0;
    double ms;
    struct staged_time staged;
    b->rig.tracing = true;
    int rc = timeline_run("warm-up") || pipeline_time(&b->rig, runs[0].p, ALL_STAGES, &ms) ||
             timeline_discard();
    for (int i = 0; rc == 0 && i < count; i++) {
        rc = timeline_run(runs[i].name);
        if (rc == 0 && runs[i].staging)
            rc = staged_run(&b->rig, runs[i].staging, runs[i].p, runs[i].threads, ALL_WORK,
                            &staged);
        else if (rc == 0)
            rc = pipeline_time(&b->rig, runs[i].p, ALL_STAGES, &ms) ? -1 : 0;
    }
    b->rig.tracing = false;
    unsigned long operations;
    if (rc) {
        timeline_stop();
        return -1;
    }
    if (timeline_write(prefix, &operations, busy))
        return -1;
    if (prefix)
        printf("  %lu copies and kernels written to %s.json and %s.csv\n", operations, prefix,
               prefix);
    *recorded = true;
    return 0;
}

/* A shape's line of evaluate()'s figures, ms on the GPU. */
static void print_outcome(const char *label, const struct outcome *o)
{
    printf("  %-22s %9.2f %9.2f %9.2f %9.2f   %.3f (%.3f-%.3f)\n", label, o->serial.median,
           o->pipeline.median, o->kernels.median, o->copies.median, o->efficiency.median,
           o->efficiency.min, o->efficiency.max);
    flag_beaten_bound(label, o->efficiency);
}

static void print_outcome_header(const char *first)
{
    printf("  %-22s %9s %9s %9s %9s   %s\n", first, "serial", "pipeline", "kernels", "copies",
           "efficiency (range)");
}

/* ------------------------------------------------------------------------------------------ *
 * 1. Two buffers for eight streams.
 * ------------------------------------------------------------------------------------------ */

/* With 2 buffers, chunk k+2 waits until chunk k is copied out: two chunks at most are on the
 * GPU, so at most two of the three engines can work at once, where eight buffers keep all three
 * busy. */
static int exercise_1(struct bench *b, const struct settings *s, struct csv *answers)
{
    struct shape base, shapes[2];
    if (balanced_shape(b, s, &base))
        return -1;
    const size_t buffers[2] = {2, EXERCISE_BUFFERS};
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
        if (evaluate(b, &shapes[i], false, &o[i]))
            return -1;
        print_outcome(names[i], &o[i]);
        runs[i] = (struct traced){names[i], &shapes[i], NULL, 0};
    }
    printf("\ntimeline (CUPTI) of one run of each\n");
    struct busy_time busy[TIMELINE_MAX_RUNS];
    bool recorded;
    if (trace_runs(b, runs, 2, s->trace, busy, &recorded))
        return -1;
    for (int i = 0; recorded && i < 2; i++)
        if (report_busy(b, "exercise", names[i], &busy[i]))
            return -1;
    printf("\n");
    size_t bytes = 2 * s->n * sizeof(unsigned);
    const char *const keys[2][2] = {{"efficiency_2_buffers", "all_three_busy_2_buffers"},
                                    {"efficiency_8_buffers", "all_three_busy_8_buffers"}};
    for (int i = 0; i < 2; i++) {
        char what[96];
        snprintf(what, sizeof what, "efficiency with %zu buffers", buffers[i]);
        if (answer(answers, 1, keys[i][0], what, o[i].efficiency.median, "of its bound",
                   o[i].pipeline, b->reps, bytes))
            return -1;
        snprintf(what, sizeof what, "all three engines busy at once, %zu buffers", buffers[i]);
        if (recorded && answer(answers, 1, keys[i][1], what,
                               100 * busy[i].all_three_ms / busy[i].span_ms, "% of the run",
                               one_sample(busy[i].span_ms), 1, bytes))
            return -1;
    }
    if (!recorded)
        printf("(no timeline here, so no share of time with all three engines busy)\n");
    printf("verified: the last repetition of every pipelined and serial run\n");
    return 0;
}

/* ------------------------------------------------------------------------------------------ *
 * 2. The race without the wait for a free buffer.
 * ------------------------------------------------------------------------------------------ */

struct race {
    int caught;               /* runs in which verification found wrong elements */
    size_t wrong, first;      /* in the first such run: how many, and the first one's index */
    struct stats ms;          /* the runs' times, on the GPU */
};

/* The chunk that element i of shape p belongs to. */
static size_t chunk_of(const struct shape *p, size_t i)
{
    size_t chunks = chunk_plan_make(p->n, p->chunks, 1).chunks, k = 0, first, count;
    for (; k + 1 < chunks; k++) {
        chunk_bounds(p->n, chunks, k, &first, &count);
        if (i < first + count)
            break;
    }
    return k;
}

/* `runs` runs of shape p after a warm-up, each from poisoned results and checked element by
 * element: wrong elements are counted here, not an error. */
static int count_caught(struct bench *b, const struct shape *p, int runs, struct race *race)
{
    double *ms = samples_alloc((size_t)runs), warm_up;
    if (!ms)
        return -1;
    *race = (struct race){0};
    int rc = pipeline_time(&b->rig, p, ALL_STAGES, &warm_up) ? -1 : 0;
    for (int i = 0; rc == 0 && i < runs; i++) {
        memset(b->rig.h_out, 0xff, p->n * sizeof(unsigned));
        if (pipeline_time(&b->rig, p, ALL_STAGES, &ms[i])) {
            rc = -1;
            break;
        }
        size_t first = 0;
        size_t wrong = work_errors(&b->rig, b->rig.h_in, b->rig.h_out, p->n, p->iters, &first);
        if (wrong && race->caught++ == 0) {
            race->wrong = wrong;
            race->first = first;
        }
    }
    if (rc == 0)
        race->ms = stats_summarize(ms, (size_t)runs);
    free(ms);
    return rc;
}

/* The three cases of exercise 2: the README's run, the same with a longer kernel, and the
 * lesson's code with that kernel, which must verify. */
static const struct race_case {
    const char *key, *what;
    unsigned times_balanced; /* the kernel's iterations, in balanced regimes */
    bool skip_wait;
} race_cases[] = {
    {"balanced", "balanced kernel, no wait (the README's run)", 1, true},
    {"compute_bound", "kernel 4x as long, no wait", 4, true},
    {"with_wait", "kernel 4x as long, with the wait (the lesson)", 4, false},
};
enum { RACE_CASES = sizeof race_cases / sizeof race_cases[0] };

static int exercise_2_answers(struct csv *answers, const struct race race[RACE_CASES], int runs,
                              size_t n)
{
    for (int c = 0; c < RACE_CASES; c++) {
        char key[64], unit[32], what[128];
        snprintf(key, sizeof key, "caught_%s", race_cases[c].key);
        snprintf(unit, sizeof unit, "of %d runs", runs);
        snprintf(what, sizeof what, "runs caught by verification, %s", race_cases[c].what);
        if (answer(answers, 2, key, what, race[c].caught, unit, race[c].ms, runs,
                   2 * n * sizeof(unsigned)))
            return -1;
        snprintf(key, sizeof key, "wrong_share_%s", race_cases[c].key);
        snprintf(what, sizeof what, "wrong elements in the first caught run, %s",
                 race_cases[c].what);
        if (race[c].caught && answer(answers, 2, key, what, 100.0 * (double)race[c].wrong /
                                     (double)n, "%", race[c].ms, runs, 2 * n * sizeof(unsigned)))
            return -1;
    }
    return 0;
}

/* Chunks k and k+4 share a buffer. Without the wait, chunk k+4's copy in follows only chunk k-4,
 * the chunk before it in its stream, and nothing orders it after chunk k's kernel and copy out:
 * whether it lands on the buffer while they still use it depends on how the GPU schedules eight
 * streams' work, which the program does not control. With kernels four times as long as the
 * copies (part 1's compute-bound regime), the copies in run several chunks ahead of the kernels,
 * and chunk k+4's lands before chunk k's kernel has read its input: on any GPU, in every run. */
static int exercise_2(struct bench *b, const struct settings *s, struct csv *answers)
{
    struct shape p;
    if (balanced_shape(b, s, &p))
        return -1;
    p.streams = EXERCISE_STREAMS;
    p.buffers = 4;
    int runs = cli_given("--reps") ? b->reps : RACE_RUNS;
    char size_text[32];
    printf("\n%s in %zu chunks, %zu buffers, %zu streams; %d runs per case after a warm-up, each "
           "checked\nelement by element; ms on the GPU, median\n  %-46s %6s %9s  %s\n",
           format_bytes(p.n * sizeof(unsigned), size_text, sizeof size_text), p.chunks,
           p.buffers, p.streams, runs, "case", "iters", "ms", "caught");
    struct race race[RACE_CASES];
    for (int c = 0; c < RACE_CASES; c++) {
        struct shape q = p;
        q.iters = race_cases[c].times_balanced * p.iters;
        q.skip_buffer_free_wait = race_cases[c].skip_wait;
        if (count_caught(b, &q, runs, &race[c]))
            return -1;
        printf("  %-46s %6u %9.2f  %d of %d runs\n", race_cases[c].what, q.iters,
               race[c].ms.median, race[c].caught, runs);
        if (race[c].caught)
            printf("    the first caught: %zu of %zu elements wrong, from element %zu (chunk "
                   "%zu)\n", race[c].wrong, q.n, race[c].first, chunk_of(&q, race[c].first));
        if (!race_cases[c].skip_wait && race[c].caught) {
            fprintf(stderr, "%s: the pipeline with its wait gave wrong results\n", program_name);
            return -1;
        }
    }
    printf("\n");
    if (exercise_2_answers(answers, race, runs, p.n))
        return -1;
    printf("verified: every run with the wait; the runs without it were checked element by "
           "element, and their\n  wrong results counted: under --exercise 2 they are the "
           "answer, not a failure\n");
    return 0;
}

/* ------------------------------------------------------------------------------------------ *
 * 3. Fill and drain.
 * ------------------------------------------------------------------------------------------ */

/* Three stages of equal length t: K chunks take K + 2 stage times, since the first chunk's copy
 * in and the last one's copy out overlap nothing, while the bound takes K. */
static int exercise_3(struct bench *b, const struct settings *s, struct csv *answers)
{
    static const size_t chunk_counts[] = {FEWEST_CHUNKS, 64, 512};
    static const char *const keys[] = {"efficiency_16_chunks", "efficiency_64_chunks",
                                       "efficiency_512_chunks"};
    enum { COUNTS = sizeof chunk_counts / sizeof chunk_counts[0] };
    struct shape base;
    if (balanced_shape(b, s, &base))
        return -1;
    char size_text[32];
    printf("\n%s, %zu buffers, %zu streams, %u iterations (the balanced regime); ms on the GPU, "
           "median of\n%d paired repetitions; fill and drain predicts K / (K + 2)\n",
           format_bytes(s->n * sizeof(unsigned), size_text, sizeof size_text), base.buffers,
           base.streams, base.iters, b->reps);
    printf("  %-22s %9s %9s %9s %9s   %-20s  %s\n", "chunks (size)", "serial", "pipeline",
           "kernels", "copies", "efficiency (range)", "K / (K + 2)");
    struct outcome o[COUNTS];
    for (size_t c = 0; c < COUNTS; c++) {
        struct shape p = base;
        p.chunks = chunk_counts[c];
        if (evaluate(b, &p, false, &o[c]))
            return -1;
        char label[48];
        snprintf(label, sizeof label, "%zu (%s)", p.chunks,
                 format_bytes(chunk_plan_make(p.n, p.chunks, 1).max_chunk * sizeof(unsigned),
                              size_text, sizeof size_text));
        printf("  %-22s %9.2f %9.2f %9.2f %9.2f   %.3f (%.3f-%.3f)   %.3f\n", label,
               o[c].serial.median, o[c].pipeline.median, o[c].kernels.median, o[c].copies.median,
               o[c].efficiency.median, o[c].efficiency.min, o[c].efficiency.max,
               (double)p.chunks / (double)(p.chunks + 2));
        flag_beaten_bound(label, o[c].efficiency);
    }
    printf("\n");
    for (size_t c = 0; c < COUNTS; c++) {
        char what[64];
        snprintf(what, sizeof what, "efficiency at %zu chunks", chunk_counts[c]);
        if (answer(answers, 3, keys[c], what, o[c].efficiency.median, "of its bound",
                   o[c].pipeline, b->reps, 2 * s->n * sizeof(unsigned)))
            return -1;
    }
    printf("verified: the last repetition of every pipelined and serial run\n");
    return 0;
}

/* ------------------------------------------------------------------------------------------ *
 * 4 and 5. Part 5's staged runs.
 * ------------------------------------------------------------------------------------------ */

/* Part 5 on thread counts `threads` with a staging ring of `slots`: every way in turns, its table,
 * and each staged run's efficiency and time; *plan keeps the samples for the caller, who frees
 * plan->ms and plan->copying. */
static int staged_table(struct bench *b, const struct shape *p, const struct staging *st,
                        const int *threads, int counts, struct staged_plan *plan)
{
    *plan = (struct staged_plan){.staging = st, .p = p, .counts = counts};
    memcpy(plan->threads, threads, (size_t)counts * sizeof *threads);
    plan->ms = samples_alloc((size_t)staged_ways(plan) * (size_t)b->reps);
    plan->copying = samples_alloc((size_t)counts * (size_t)b->reps);
    char size_text[32];
    printf("\npart 5: %s from pageable memory to pageable results, %zu chunks, %zu staging "
           "buffers\neach way, %zu streams, %u iterations; host clock, the ways in turns, median "
           "of %d\n", format_bytes(p->n * sizeof(unsigned), size_text, sizeof size_text),
           p->chunks, st->slots, p->streams, p->iters, b->reps);
    if (!plan->ms || !plan->copying)
        return -1;
    return staged_in_turns(b, plan) || staged_report(b, plan) ? -1 : 0;
}

/* The staged shape: the main shape's, its buffers the staging ring's slots. */
static int staged_shape(struct bench *b, const struct settings *s, struct shape *p)
{
    if (balanced_shape(b, s, p))
        return -1;
    p->buffers = (size_t)s->staged_buffers;
    return 0;
}

static int staging_open(struct bench *b, const struct shape *p, size_t slots, struct staging *st)
{
    return staging_create(st, slots, chunk_plan_make(p->n, p->chunks, slots).max_chunk,
                          b->rig.h_in, p->n);
}

/* The median over `count` recorded runs, every `step`-th from `first`, of a wait in ms, in us. */
static double traced_wait_us(const struct busy_time *busy, int first, int step, int count,
                             bool first_chunks)
{
    double waits[TIMELINE_MAX_RUNS];
    for (int i = 0; i < count; i++) {
        const struct busy_time *run = &busy[first + i * step];
        waits[i] = 1e3 * (first_chunks ? run->first_h2d_wait_ms : run->h2d_wait_ms);
    }
    return stats_summarize(waits, (size_t)count).median;
}

/* Exercise 4's timeline: TRACED_PER_COUNT staged runs per thread count, in turns. */
static int exercise_4_trace(struct bench *b, const struct settings *s, const struct shape *p,
                            const struct staging *st, const int threads[2], double wait_us[2][2],
                            struct stats span[2], bool *recorded)
{
    struct traced runs[2 * TRACED_PER_COUNT];
    char names[2 * TRACED_PER_COUNT][64];
    for (int i = 0; i < 2 * TRACED_PER_COUNT; i++) {
        snprintf(names[i], sizeof names[i], "staged: %d CPU threads, run %d", threads[i % 2],
                 i / 2 + 1);
        runs[i] = (struct traced){names[i], p, st, threads[i % 2]};
    }
    printf("\ntimeline (CUPTI) of %d staged runs on each thread count, in turns; a copy in's wait: "
           "from the end\nof its chunk's preparation to its start\n", TRACED_PER_COUNT);
    struct busy_time busy[TIMELINE_MAX_RUNS];
    if (trace_runs(b, runs, 2 * TRACED_PER_COUNT, s->trace, busy, recorded))
        return -1;
    if (!*recorded)
        return 0;
    for (int i = 0; i < 2 * TRACED_PER_COUNT; i++)
        printf("  %-34s %7.2f ms; median wait of the first %u copies in %7.1f us, of all %7.1f "
               "us\n", names[i], busy[i].span_ms, busy[i].first_chunks,
               1e3 * busy[i].first_h2d_wait_ms, 1e3 * busy[i].h2d_wait_ms);
    for (int c = 0; c < 2; c++) {
        double spans[TRACED_PER_COUNT];
        for (int k = 0; k < TRACED_PER_COUNT; k++)
            spans[k] = busy[c + 2 * k].span_ms;
        span[c] = stats_summarize(spans, TRACED_PER_COUNT);
        wait_us[c][0] = traced_wait_us(busy, c, 2, TRACED_PER_COUNT, true);
        wait_us[c][1] = traced_wait_us(busy, c, 2, TRACED_PER_COUNT, false);
    }
    return 0;
}

/* With one CPU per thread, the issuing thread shares the CPUs with the workers, and a chunk
 * whose preparation is done may wait for it to be scheduled before its copy in is issued. One
 * worker fewer leaves it a CPU of its own. */
static int exercise_4_answers(struct bench *b, const struct staged_plan *plan,
                              struct csv *answers, const int threads[2])
{
    double *ratio = samples_alloc((size_t)b->reps);
    if (!ratio)
        return -1;
    const double *fewer = plan->ms + FIRST_STAGED * b->reps;
    const double *most = plan->ms + (FIRST_STAGED + 2) * b->reps;
    for (int rep = 0; rep < b->reps; rep++)
        ratio[rep] = fewer[rep] / most[rep];
    struct stats r = stats_summarize(ratio, (size_t)b->reps);
    free(ratio);
    size_t bytes = 2 * plan->p->n * sizeof(unsigned);
    const char *const suffix[2] = {"one_fewer", "default_threads"};
    for (int c = 1; c >= 0; c--) {
        struct stats ms = way_stats(b, plan, FIRST_STAGED + 2 * c);
        struct stats e = staged_efficiency(b, plan, c);
        char key[64], what[96];
        snprintf(key, sizeof key, "staged_ms_%s", suffix[c]);
        snprintf(what, sizeof what, "the staged run on %d CPU threads", threads[c]);
        if (answer(answers, 4, key, what, ms.median, "ms", ms, b->reps, bytes))
            return -1;
        snprintf(key, sizeof key, "staged_efficiency_%s", suffix[c]);
        snprintf(what, sizeof what, "its efficiency on %d CPU threads", threads[c]);
        if (answer(answers, 4, key, what, e.median, "of its bound", ms, b->reps, bytes))
            return -1;
    }
    char what[96];
    snprintf(what, sizeof what, "time on %d threads against %d, rep by rep (range %.3f-%.3f)",
             threads[0], threads[1], r.min, r.max);
    return answer(answers, 4, "time_one_fewer_vs_default", what, r.median, "x",
                  way_stats(b, plan, FIRST_STAGED), b->reps, bytes);
}

static int exercise_4_waits(struct csv *answers, const int threads[2], double wait_us[2][2],
                            const struct stats span[2], size_t bytes)
{
    const char *const suffix[2] = {"one_fewer", "default_threads"};
    for (int c = 1; c >= 0; c--) {
        for (int all = 0; all < 2; all++) {
            char key[64], what[128];
            snprintf(key, sizeof key, "%sh2d_wait_%s", all ? "" : "first_", suffix[c]);
            snprintf(what, sizeof what, "median wait of %s copies in after their chunk was "
                     "prepared, %d threads", all ? "all" : "the first", threads[c]);
            if (answer(answers, 4, key, what, wait_us[c][all], "us", span[c], TRACED_PER_COUNT,
                       bytes))
                return -1;
        }
    }
    return 0;
}

static int exercise_4(struct bench *b, const struct settings *s, struct csv *answers)
{
    struct shape p;
    struct staging st;
    if (staged_shape(b, s, &p) || staging_open(b, &p, p.buffers, &st))
        return -1;
    int most = s->staged_threads;
    const int threads[2] = {most > 1 ? most - 1 : 1, most};
    if (most == 1)
        printf("\n(one CPU thread here: there is no thread fewer, so both runs use one)\n");
    struct staged_plan plan;
    double wait_us[2][2];
    struct stats span[2];
    bool recorded = false;
    int rc = staged_table(b, &p, &st, threads, 2, &plan) ||
             exercise_4_trace(b, s, &p, &st, threads, wait_us, span, &recorded)
                 ? -1
                 : 0;
    printf("\n");
    if (rc == 0)
        rc = exercise_4_answers(b, &plan, answers, threads);
    if (rc == 0 && recorded)
        rc = exercise_4_waits(answers, threads, wait_us, span, 2 * p.n * sizeof(unsigned));
    else if (rc == 0)
        printf("(no timeline here, so no waits of the copies in)\n");
    free(plan.copying);
    free(plan.ms);
    staging_destroy(&st);
    if (rc == 0)
        printf("verified: every repetition of every staged run, and the last repetition of the "
               "other ways\n");
    return rc;
}

/* With 2 slots, a slot's next chunk is prepared once its previous one was copied in, and copied
 * in once its previous result was processed: the CPU can prepare or process one chunk while the
 * GPU works on the other, no more. */
static int exercise_5(struct bench *b, const struct settings *s, struct csv *answers)
{
    struct shape p;
    if (staged_shape(b, s, &p))
        return -1;
    const size_t slots[2] = {FEW_STAGING_BUFFERS, (size_t)s->staged_buffers};
    struct stats ms[2], e[2];
    for (int i = 0; i < 2; i++) {
        struct shape q = p;
        q.buffers = slots[i];
        struct staging st;
        if (staging_open(b, &q, slots[i], &st))
            return -1;
        struct staged_plan plan;
        int rc = staged_table(b, &q, &st, &s->staged_threads, 1, &plan);
        if (rc == 0) {
            ms[i] = way_stats(b, &plan, FIRST_STAGED);
            e[i] = staged_efficiency(b, &plan, 0);
        }
        free(plan.copying);
        free(plan.ms);
        staging_destroy(&st);
        if (rc)
            return -1;
    }
    printf("\n");
    const char *const suffix[2] = {"2_buffers", "default_buffers"};
    for (int i = 0; i < 2; i++) {
        char key[64], what[128];
        snprintf(key, sizeof key, "staged_efficiency_%s", suffix[i]);
        snprintf(what, sizeof what, "efficiency of the staged run on %d threads, %zu staging "
                 "buffers", s->staged_threads, slots[i]);
        if (answer(answers, 5, key, what, e[i].median, "of its bound", ms[i], b->reps,
                   2 * p.n * sizeof(unsigned)))
            return -1;
        snprintf(key, sizeof key, "staged_ms_%s", suffix[i]);
        snprintf(what, sizeof what, "its time, %zu staging buffers", slots[i]);
        if (answer(answers, 5, key, what, ms[i].median, "ms", ms[i], b->reps,
                   2 * p.n * sizeof(unsigned)))
            return -1;
    }
    printf("verified: every repetition of every staged run, and the last repetition of the "
           "other ways\n");
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

int run_exercise(struct bench *b, const struct settings *s, int n)
{
    static const char *const asks[EXERCISES + 1] = {
        NULL,
        "run --streams 8 --buffers 2: which efficiency do you expect, and what does the "
        "timeline show?",
        "delete the cudaStreamWaitEvent in issue() (pipeline.c) and run --streams 8 --buffers "
        "4: does verification catch the overwritten buffers? Every time?",
        "predict the efficiency of --chunks 16 and --chunks 512 from fill and drain and lesson "
        "04's per-copy costs, then measure",
        "run --trace t --staged-threads 15 (one thread fewer than the CPUs): do the staged "
        "run's first copies in start sooner after their chunks are prepared? Is it slower or "
        "faster than on 16?",
        "run --staged-buffers 2: how much of the CPU's and the GPU's work can still overlap? "
        "Predict the efficiency at 16 threads, then measure",
    };
    static int (*const exercise[EXERCISES + 1])(struct bench *, const struct settings *,
                                                struct csv *) = {
        NULL, exercise_1, exercise_2, exercise_3, exercise_4, exercise_5};
    exercise_begin(n, EXERCISES, asks[n]);
    /* The lesson's measurements record their rows into a CSV without a file, which keeps none:
     * the exercise's CSV holds its answers alone. */
    struct csv *answers = b->csv;
    struct csv quiet = {.lesson = answers->lesson, .gpu = answers->gpu};
    b->csv = &quiet;
    int rc = exercise[n](b, s, answers);
    b->csv = answers;
    return rc;
}
