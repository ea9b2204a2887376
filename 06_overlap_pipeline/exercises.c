/*
 * exercises.c - `--exercise N`: the exercises of README.md, run as they ask, in place of the
 * lesson's parts, on the lesson's own measurements (bench.h):
 *
 *   1. 8 streams and 2 buffers against 8 and 8: efficiencies, the time of 2 buffers over 8's
 *      timed in turns, and from the timeline how long all three engines were busy at once
 *   2. issue() without its wait for a free buffer (shape.skip_buffer_free_wait, pipeline.c), 8
 *      streams and 4 buffers: in how many runs verification catches the race
 *   3. 16, 64 and 512 chunks: efficiencies beside fill and drain's prediction
 *   4. part 5's staged run on every CPU and on one thread fewer: times, efficiencies, and from
 *      the timeline how soon the copies in are issued after their chunks are prepared
 *   5. part 5's staged run with 2 staging buffers against 8: efficiencies, and the time of 2 over
 *      8's timed in turns
 *
 * Each ends with its answer figures beside the shipped reference's (common/exercise.c). The
 * lesson's tables print as they do in the lesson; under --exercise the CSV takes only the answers
 * (exercise_begin()).
 */
#include "bench.h"

#include <stdio.h>
#include <string.h>

enum {
    EXERCISE_STREAMS = 8,    /* exercises 1 and 2 ask for 8 streams */
    EXERCISE_BUFFERS = 8,    /* exercise 1's ring of 8 buffers ... */
    FEW_BUFFERS = 2,         /* ... against 2 */
    RACE_BUFFERS = 4,        /* exercise 2's: chunks k and k + 4 share a buffer */
    FEWEST_CHUNKS = 16,      /* exercise 3's fewest chunks size the ring's buffers */
    RACE_RUNS = 10,          /* exercise 2's runs per case, where --reps does not say */
    TRACED_PER_COUNT = 3,    /* exercise 4's traced staged runs per thread count */
    FEW_STAGING_BUFFERS = 2, /* exercise 5's */
};

/* Each exercise's data set where --size does not give one: the lesson's 1 GiB where the runs are
 * quick, so that they compare with parts 1 and 3; less where every run is checked on the host
 * (2) or part 5's slow ways come along (4 and 5), to stay within seconds. */
static const size_t default_size[EXERCISES] = {
    (size_t)1 << 30, (size_t)256 << 20, (size_t)1 << 30, (size_t)512 << 20, (size_t)512 << 20};

/* Exercise 5's staging ring: 2 slots, and part 5's. */
static size_t staging_slots(const struct settings *s)
{
    return (size_t)s->staged_buffers > FEW_STAGING_BUFFERS ? (size_t)s->staged_buffers
                                                            : FEW_STAGING_BUFFERS;
}

/* 8 buffers and 8 streams at least, each buffer a chunk of exercise 3's fewest chunks. */
void exercise_size_rig(struct settings *s)
{
    size_t fewest = (size_t)s->chunks < FEWEST_CHUNKS ? (size_t)s->chunks : FEWEST_CHUNKS;
    size_rig(s, EXERCISE_STREAMS > EXERCISE_BUFFERS ? EXERCISE_STREAMS : EXERCISE_BUFFERS, s->n,
             fewest);
}

/* On the GPU, the ring (exercise_size_rig()), each buffer a chunk of the fewest chunks. On the
 * host, the pinned data set and results; exercises 4 and 5 add part 5's pageable data set and
 * results and its staging ring, a chunk per slot each way. */
struct sized exercise_sized(int n, struct settings *s, size_t *size)
{
    bool given = cli_given("--size");
    if (!given)
        *size = default_size[n - 1];
    int fewest = s->chunks < FEWEST_CHUNKS ? s->chunks : FEWEST_CHUNKS;
    double host = n < 4 ? 2 : 4 + 2.0 * (double)staging_slots(s) / s->chunks;
    return (struct sized){"--size", size, given, (double)s->ring_buffers / fewest, host};
}

/* ------------------------------------------------------------------------------------------ *
 * What the exercises share.
 * ------------------------------------------------------------------------------------------ */

/* a[rep] / b[rep], rep by rep, summarized in `scratch`. */
static struct stats ratio_by_rep(const double *a, const double *b, int reps, double *scratch)
{
    for (int rep = 0; rep < reps; rep++)
        scratch[rep] = a[rep] / b[rep];
    return stats_summarize(scratch, (size_t)reps);
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

/* The two pipelines alone, in turns: the first's time over the second's, rep by rep. */
static int time_in_turns(struct bench *b, const struct shape shapes[2], char names[2][64],
                         struct stats *ratio, struct stats ms[2])
{
    const struct turn turns[2] = {{&shapes[0], ALL_STAGES, names[0]},
                                  {&shapes[1], ALL_STAGES, names[1]}};
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

/* With 2 buffers, chunk k+2 waits until chunk k is copied out: two chunks at most are on the
 * GPU, so at most two of the three engines can work at once, where eight buffers keep all three
 * busy. */
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
        if (evaluate(b, &shapes[i], false, &o[i]))
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
    if (record_runs(b, runs, 2, s->trace, busy, NULL, &operations, &recorded))
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

/* Counts, over `runs` runs: clock=none, the runs' times on the GPU as the measurement's. */
static int exercise_2_answers(struct csv *csv, const struct race race[RACE_CASES], int runs,
                              size_t n)
{
    for (int c = 0; c < RACE_CASES; c++) {
        char key[64], unit[32], what[128];
        struct csv_row measured = {.reps = runs, .ms = race[c].ms,
                                   .bytes = 2 * n * sizeof(unsigned), .params = "clock=none"};
        snprintf(key, sizeof key, "caught_%s", race_cases[c].key);
        snprintf(unit, sizeof unit, "of %d runs", runs);
        snprintf(what, sizeof what, "runs caught by verification, %s", race_cases[c].what);
        if (exercise_answer(csv, 2, key, what, race[c].caught, unit, measured))
            return -1;
        snprintf(key, sizeof key, "wrong_share_%s", race_cases[c].key);
        snprintf(what, sizeof what, "wrong elements in the first caught run, %s",
                 race_cases[c].what);
        if (race[c].caught && exercise_answer(csv, 2, key, what, 100.0 * (double)race[c].wrong /
                                              (double)n, "%", measured))
            return -1;
    }
    return 0;
}

/* Chunks k and k+4 share a buffer. Without the wait, chunk k+4's copy in follows only chunk k-4,
 * the chunk before it in its stream, and nothing orders it after chunk k's kernel and copy out:
 * whether it lands on the buffer while they still use it depends on how the GPU schedules eight
 * streams' work, which the program does not control. With kernels four times as long as the
 * copies (part 1's compute-bound regime), the copies in run several chunks ahead of the kernels,
 * and chunk k+4's lands before chunk k's kernel has read its input: in every run, we expect, on
 * a GPU with two or more copy engines, whose copies in have an engine of their own. */
static int exercise_2(struct bench *b, const struct settings *s)
{
    struct shape p;
    if (main_shape(b, s, &p))
        return -1;
    p.streams = EXERCISE_STREAMS;
    p.buffers = RACE_BUFFERS;
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
    if (exercise_2_answers(b->csv, race, runs, p.n))
        return -1;
    printf("verified: every run with the wait; the runs without it were checked element by "
           "element, and their\n  wrong results counted: under --exercise 2 they are the "
           "answer, not a failure\n");
    return 0;
}

/* ------------------------------------------------------------------------------------------ *
 * 3. Fill and drain.
 * ------------------------------------------------------------------------------------------ */

/* Fill and drain, on a GPU with two or more copy engines, where each stage has an engine of its
 * own. Copies of t each way and kernels of k per chunk: the pipeline takes 2t + k + (K - 1)
 * max(t, k), as the first chunk's copy in and the last one's copy out overlap nothing. Its bound
 * is the slower of the pipeline without kernels, whose copies in and out overlap each other but
 * for the first copy in and the last copy out, (K + 1) t, and without copies, K k. With equal
 * stages (k = t), the efficiency is (K + 1) / (K + 2); with t and k read off the row's own
 * copies and kernels columns, the prediction takes in each half's per-chunk costs (lesson 04's
 * per-copy cost, each kernel's launch), which grow with K. What is left below that is what the
 * halves alone do not show: copies and kernels slowing each other down when they run at once.
 * With one copy engine, copies in and out take turns and the argument does not hold. */
static double fill_and_drain(const struct outcome *o, size_t chunks)
{
    double k = (double)chunks, t = o->copies.median / (k + 1), kernel = o->kernels.median / k;
    return o->bound / (2 * t + kernel + (k - 1) * (t > kernel ? t : kernel));
}

static int exercise_3(struct bench *b, const struct settings *s)
{
    static const size_t chunk_counts[] = {FEWEST_CHUNKS, 64, 512};
    static const char *const keys[] = {"efficiency_16_chunks", "efficiency_64_chunks",
                                       "efficiency_512_chunks"};
    enum { COUNTS = sizeof chunk_counts / sizeof chunk_counts[0] };
    struct shape base;
    if (main_shape(b, s, &base))
        return -1;
    char size_text[32];
    printf("\n%s, %zu buffers, %zu streams, %u iterations (the balanced regime); ms on the GPU, "
           "median of\n%d paired repetitions; fill and drain's prediction, for a GPU with 2 or "
           "more copy engines\n(this one has %d%s): with equal stages, (K + 1) / (K + 2); from "
           "the row's kernels and copies\ncolumns, bound / (2 t + k + (K - 1) max(t, k)), "
           "t = copies / (K + 1), k = kernels / K\n",
           format_bytes(s->n * sizeof(unsigned), size_text, sizeof size_text), base.buffers,
           base.streams, base.iters, b->reps, b->copy_engines,
           b->copy_engines < 2 ? ", so its copies in and out take turns: no prediction" : "");
    printf("  %-22s %9s %9s %9s %9s   %-20s  %s\n", "chunks (size)", "serial", "pipeline",
           "kernels", "copies", "efficiency (range)", "equal stages  from columns");
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
        printf("  %-22s %9.2f %9.2f %9.2f %9.2f   %.3f (%.3f-%.3f)   ", label, o[c].serial.median,
               o[c].pipeline.median, o[c].kernels.median, o[c].copies.median,
               o[c].efficiency.median, o[c].efficiency.min, o[c].efficiency.max);
        if (b->copy_engines >= 2)
            printf("%12.3f %12.3f\n", (double)(p.chunks + 1) / (double)(p.chunks + 2),
                   fill_and_drain(&o[c], p.chunks));
        else
            printf("%12s %12s\n", "-", "-");
        flag_beaten_bound(label, o[c].efficiency);
    }
    printf("  between the two predictions: each half's per-chunk costs (per copy, per launch); "
           "below both:\n  what the halves alone do not show, copies and kernels slowing each "
           "other down\n\n");
    for (size_t c = 0; c < COUNTS; c++) {
        char what[64];
        snprintf(what, sizeof what, "efficiency at %zu chunks", chunk_counts[c]);
        if (exercise_answer(b->csv, 3, keys[c], what, o[c].efficiency.median, "of its bound",
                            (struct csv_row){.reps = b->reps, .ms = o[c].pipeline,
                                             .bytes = 2 * s->n * sizeof(unsigned),
                                             .params = "clock=gpu_event"}))
            return -1;
    }
    printf("verified: the last repetition of every pipelined and serial run\n");
    return 0;
}

/* ------------------------------------------------------------------------------------------ *
 * 4 and 5. Part 5's staged runs.
 * ------------------------------------------------------------------------------------------ */

/* The staged shape: the main shape's, its buffers the staging ring's slots. */
static int staged_shape(struct bench *b, const struct settings *s, struct shape *p)
{
    if (main_shape(b, s, p))
        return -1;
    p->buffers = (size_t)s->staged_buffers;
    return 0;
}

static int staging_open(struct bench *b, const struct shape *p, size_t slots, struct staging *st)
{
    return staging_create(st, slots, chunk_plan_make(p->n, p->chunks, slots).max_chunk,
                          b->rig.h_in, p->n);
}

/* Exercise 4's thread counts: one fewer than part 5's, and part 5's. */
static const char *const thread_suffix[2] = {"one_fewer", "default_threads"};

/* The median over exercise 4's recorded runs of thread count c (every other run, from c) of a
 * wait in ms, in us. */
static double traced_wait_us(const struct issue_wait *waits, int c, bool first_chunks)
{
    double us[TRACED_PER_COUNT];
    for (int k = 0; k < TRACED_PER_COUNT; k++) {
        const struct issue_wait *run = &waits[c + 2 * k];
        us[k] = 1e3 * (first_chunks ? run->first_ms : run->all_ms);
    }
    return stats_summarize(us, TRACED_PER_COUNT).median;
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
           "from the end\nof its chunk's preparation (its last piece copied) to the issuing "
           "thread's call that issues it\n", TRACED_PER_COUNT);
    struct busy_time busy[TIMELINE_MAX_RUNS];
    struct issue_wait waits[TIMELINE_MAX_RUNS];
    unsigned long operations;
    if (record_runs(b, runs, 2 * TRACED_PER_COUNT, s->trace, busy, waits, &operations, recorded))
        return -1;
    if (!*recorded)
        return 0;
    if (s->trace)
        printf("  %lu copies and kernels written to %s.json and %s.csv\n", operations, s->trace,
               s->trace);
    for (int i = 0; i < 2 * TRACED_PER_COUNT; i++)
        printf("  %-34s %7.2f ms; median wait of the first %u copies in %7.1f us, of all %7.1f "
               "us\n", names[i], busy[i].span_ms, waits[i].first_chunks,
               1e3 * waits[i].first_ms, 1e3 * waits[i].all_ms);
    for (int c = 0; c < 2; c++) {
        double spans[TRACED_PER_COUNT];
        for (int k = 0; k < TRACED_PER_COUNT; k++)
            spans[k] = busy[c + 2 * k].span_ms;
        span[c] = stats_summarize(spans, TRACED_PER_COUNT);
        wait_us[c][0] = traced_wait_us(waits, c, true);
        wait_us[c][1] = traced_wait_us(waits, c, false);
    }
    return 0;
}

/* With one CPU per thread, the issuing thread shares the CPUs with the workers, and a chunk
 * whose preparation is done may wait for it to be scheduled before its copy in is issued. One
 * worker fewer leaves it a CPU of its own. */
static int exercise_4_answers(struct bench *b, const struct staged_plan *plan,
                              const int threads[2])
{
    const double *fewer = plan->ms + FIRST_STAGED * b->reps;
    const double *most = plan->ms + (FIRST_STAGED + 2) * b->reps;
    struct stats r = ratio_by_rep(fewer, most, b->reps, b->samples + b->reps);
    size_t bytes = 2 * plan->p->n * sizeof(unsigned);
    for (int c = 1; c >= 0; c--) {
        struct stats ms = way_stats(b, plan, FIRST_STAGED + 2 * c);
        struct stats e = staged_efficiency(b, plan, c);
        struct csv_row measured = {.reps = b->reps, .ms = ms, .bytes = bytes,
                                   .params = "clock=host"};
        char key[64], what[96];
        snprintf(key, sizeof key, "staged_ms_%s", thread_suffix[c]);
        snprintf(what, sizeof what, "the staged run on %d CPU threads", threads[c]);
        if (exercise_answer(b->csv, 4, key, what, ms.median, "ms", measured))
            return -1;
        snprintf(key, sizeof key, "staged_efficiency_%s", thread_suffix[c]);
        snprintf(what, sizeof what, "its efficiency on %d CPU threads", threads[c]);
        if (exercise_answer(b->csv, 4, key, what, e.median, "of its bound", measured))
            return -1;
    }
    char what[96];
    snprintf(what, sizeof what, "time on %d threads against %d, rep by rep (range %.3f-%.3f)",
             threads[0], threads[1], r.min, r.max);
    return exercise_answer(b->csv, 4, "time_one_fewer_vs_default", what, r.median, "x",
                           (struct csv_row){.reps = b->reps,
                                            .ms = way_stats(b, plan, FIRST_STAGED),
                                            .bytes = bytes, .params = "clock=host"});
}

static int exercise_4_waits(struct csv *csv, const int threads[2], double wait_us[2][2],
                            const struct stats span[2], size_t bytes)
{
    for (int c = 1; c >= 0; c--) {
        for (int all = 0; all < 2; all++) {
            char key[64], what[160];
            snprintf(key, sizeof key, "%sissue_wait_%s", all ? "" : "first_", thread_suffix[c]);
            snprintf(what, sizeof what, "median time from a chunk prepared to its copy in issued, "
                     "%s, %d threads", all ? "all chunks" : "the first chunks", threads[c]);
            if (exercise_answer(csv, 4, key, what, wait_us[c][all], "us",
                                (struct csv_row){.reps = TRACED_PER_COUNT, .ms = span[c],
                                                 .bytes = bytes, .params = "clock=cupti"}))
                return -1;
        }
    }
    return 0;
}

static int exercise_4(struct bench *b, const struct settings *s)
{
    struct shape p;
    struct staging st;
    if (staged_shape(b, s, &p) || staging_open(b, &p, p.buffers, &st))
        return -1;
    int most = s->staged_threads;
    const int threads[2] = {most > 1 ? most - 1 : 1, most};
    if (most == 1)
        printf("\n(one CPU thread here: there is no thread fewer, so both runs use one)\n");
    struct staged_plan plan = {.staging = &st, .p = &p, .threads = {threads[0], threads[1]},
                               .counts = 2};
    double wait_us[2][2];
    struct stats span[2];
    bool recorded = false;
    int rc = staged_part(b, &plan) ||
             exercise_4_trace(b, s, &p, &st, threads, wait_us, span, &recorded)
                 ? -1
                 : 0;
    printf("\n");
    if (rc == 0)
        rc = exercise_4_answers(b, &plan, threads);
    if (rc == 0 && recorded)
        rc = exercise_4_waits(b->csv, threads, wait_us, span, 2 * p.n * sizeof(unsigned));
    else if (rc == 0)
        printf("(no timeline here, so no waits of the copies in)\n");
    staged_plan_free(&plan);
    staging_destroy(&st);
    if (rc == 0)
        printf("verified: every repetition of every staged run, and the last repetition of the "
               "other ways\n");
    return rc;
}

/* Staged runs on two views of one ring, in turns after a warm-up of each, each from poisoned
 * results and verified: the first's time over the second's, rep by rep. */
static int staged_in_pairs(struct bench *b, const struct shape q[2], const struct staging st[2],
                           int threads, struct stats *ratio, struct stats ms[2])
{
    for (int rep = -1; rep < b->reps; rep++) {
        for (int i = 0; i < 2; i++) {
            struct staged_time time;
            memset(st[i].results, 0xff, q[i].n * sizeof(unsigned));
            if (staged_run(&b->rig, &st[i], &q[i], threads, ALL_WORK, &time) ||
                !work_verified(&b->rig, st[i].data, st[i].results, q[i].n, q[i].iters,
                               "staged run in turns"))
                return -1;
            if (rep >= 0)
                b->samples[i * b->reps + rep] = time.ms;
        }
    }
    *ratio = ratio_by_rep(b->samples, b->samples + b->reps, b->reps, b->samples + 2 * b->reps);
    for (int i = 0; i < 2; i++)
        ms[i] = stats_summarize(b->samples + i * b->reps, (size_t)b->reps);
    return 0;
}

static int exercise_5_answers(struct bench *b, const struct settings *s, const size_t slots[2],
                              const struct stats ms[2], const struct stats e[2],
                              struct stats ratio, struct stats pair_ms)
{
    size_t bytes = 2 * s->n * sizeof(unsigned);
    const char *const suffix[2] = {"2_buffers", "default_buffers"};
    for (int i = 0; i < 2; i++) {
        struct csv_row measured = {.reps = b->reps, .ms = ms[i], .bytes = bytes,
                                   .params = "clock=host"};
        char key[64], what[128];
        snprintf(key, sizeof key, "staged_efficiency_%s", suffix[i]);
        snprintf(what, sizeof what, "efficiency of the staged run on %d threads, %zu staging "
                 "buffers", s->staged_threads, slots[i]);
        if (exercise_answer(b->csv, 5, key, what, e[i].median, "of its bound", measured))
            return -1;
        snprintf(key, sizeof key, "staged_ms_%s", suffix[i]);
        snprintf(what, sizeof what, "its time, %zu staging buffers", slots[i]);
        if (exercise_answer(b->csv, 5, key, what, ms[i].median, "ms", measured))
            return -1;
    }
    char what[128];
    snprintf(what, sizeof what, "time with %zu staging buffers over %zu's, in turns, rep by rep "
             "(range %.3f-%.3f)", slots[0], slots[1], ratio.min, ratio.max);
    return exercise_answer(b->csv, 5, "time_2_vs_default_buffers", what, ratio.median, "x",
                           (struct csv_row){.reps = b->reps, .ms = pair_ms, .bytes = bytes,
                                            .params = "clock=host"});
}

/* With 2 slots, a slot's next chunk is prepared once its previous one was copied in, and copied
 * in once its previous result was processed: the CPU can prepare or process one chunk while the
 * GPU works on the other, no more. Both rings are views of one: its first 2 slots, and part 5's
 * slots. */
static int exercise_5(struct bench *b, const struct settings *s)
{
    struct shape p;
    struct staging ring;
    if (staged_shape(b, s, &p) || staging_open(b, &p, staging_slots(s), &ring))
        return -1;
    const size_t slots[2] = {FEW_STAGING_BUFFERS, (size_t)s->staged_buffers};
    struct shape q[2] = {p, p};
    struct staging st[2] = {ring, ring};
    struct stats ms[2], e[2], ratio, pair_ms[2];
    int rc = 0;
    for (int i = 0; rc == 0 && i < 2; i++) {
        q[i].buffers = st[i].slots = slots[i];
        struct staged_plan plan = {.staging = &st[i], .p = &q[i],
                                   .threads = {s->staged_threads}, .counts = 1};
        rc = staged_part(b, &plan);
        if (rc == 0) {
            ms[i] = way_stats(b, &plan, FIRST_STAGED);
            e[i] = staged_efficiency(b, &plan, 0);
        }
        staged_plan_free(&plan);
    }
    if (rc == 0)
        rc = staged_in_pairs(b, q, st, s->staged_threads, &ratio, pair_ms);
    if (rc == 0) {
        printf("\nthe two staged runs alone, in turns, every run verified: %.2f ms and %.2f ms, "
               "%zu slots\nover %zu's %.3f (%.3f-%.3f) rep by rep\n\n",
               pair_ms[0].median, pair_ms[1].median, slots[0], slots[1], ratio.median,
               ratio.min, ratio.max);
        rc = exercise_5_answers(b, s, slots, ms, e, ratio, pair_ms[0]);
    }
    staging_destroy(&ring);
    if (rc == 0)
        printf("verified: every repetition of every staged run, and the last repetition of the "
               "other ways\n");
    return rc;
}

/* ------------------------------------------------------------------------------------------ */

/* What exercise n asks, with this machine's thread counts where it names them. */
static void exercise_asks(int n, const struct settings *s, char *text, size_t len)
{
    static const char *const asks[3] = {
        "run --streams 8 --buffers 2: which efficiency do you expect, and what does the "
        "timeline show?",
        "delete the cudaStreamWaitEvent in issue() (pipeline.c) and run --streams 8 --buffers "
        "4: does verification catch the overwritten buffers? Every time?",
        "predict the efficiency of --chunks 16 and --chunks 512 from fill and drain and lesson "
        "04's per-copy costs, then measure",
    };
    int most = s->staged_threads, fewer = most > 1 ? most - 1 : 1;
    if (n == 4)
        snprintf(text, len, "run --trace t --staged-threads %d (one thread fewer than the %d "
                 "CPUs part 5 uses): do the staged run's first copies in start sooner after their "
                 "chunks are prepared? Is it slower or faster than on %d?", fewer, most, most);
    else if (n == 5)
        snprintf(text, len, "run --staged-buffers 2: how much of the CPU's and the GPU's work can "
                 "still overlap? Predict the efficiency at %d threads (the default), then "
                 "measure", most);
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
