/*
 * exercises_ring.c - exercises 2 and 3 (exercises.h): the race without the wait for a free
 * buffer, and fill and drain by chunk count.
 */
#include "exercises.h"

#include <stdio.h>
#include <string.h>

enum {
    RACE_BUFFERS = 4, /* exercise 2's: chunks k and k + 4 share a buffer */
    RACE_RUNS = 10,   /* exercise 2's runs per case, where --reps does not say */
};

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
    int rc = pipeline_time(&b->rig, p, NOTHING_LEFT_OUT, &warm_up) ? -1 : 0;
    for (int i = 0; rc == 0 && i < runs; i++) {
        memset(b->rig.h_out, 0xff, p->n * sizeof(unsigned));
        if (pipeline_time(&b->rig, p, NOTHING_LEFT_OUT, &ms[i])) {
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
int exercise_2(struct bench *b, const struct settings *s)
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

int exercise_3(struct bench *b, const struct settings *s)
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
        if (evaluate(b, &p, &o[c]))
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

