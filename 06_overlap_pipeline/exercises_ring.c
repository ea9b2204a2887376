/*
 * exercises_ring.c - exercises 2 and 3 (exercises.h): the pipeline without the wait for a free
 * buffer, and the pipeline's time by chunk count.
 */
#include "exercises.h"

#include <stdio.h>
#include <string.h>

enum {
    SHARED_BUFFERS = 4, /* exercise 2's: chunks k and k + 4 share a buffer */
    CHECKED_RUNS = 10,  /* exercise 2's runs per case, where --reps does not say */
};

/* ------------------------------------------------------------------------------------------ *
 * 2. Without the wait for a free buffer.
 * ------------------------------------------------------------------------------------------ */

struct checked {
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
static int count_caught(struct bench *b, const struct shape *p, int runs, struct checked *found)
{
    double *ms = samples_alloc((size_t)runs), warm_up;
    if (!ms)
        return -1;
    *found = (struct checked){0};
    int rc = pipeline_time(&b->rig, p, NOTHING_LEFT_OUT, &warm_up) ? -1 : 0;
    for (int i = 0; rc == 0 && i < runs; i++) {
        memset(b->rig.h_out, 0xff, p->n * sizeof(unsigned));
        if (pipeline_time(&b->rig, p, NOTHING_LEFT_OUT, &ms[i])) {
            rc = -1;
            break;
        }
        size_t first = 0;
        size_t wrong = work_errors(&b->rig, b->rig.h_in, b->rig.h_out, p->n, p->iters, &first);
        if (wrong && found->caught++ == 0) {
            found->wrong = wrong;
            found->first = first;
        }
    }
    if (rc == 0)
        found->ms = stats_summarize(ms, (size_t)runs);
    free(ms);
    return rc;
}

/* The three cases of exercise 2: the README's run, the same with a longer kernel, and the
 * lesson's code with that kernel, which must verify. */
static const struct wait_case {
    const char *key, *what;
    unsigned times_balanced; /* the kernel's iterations, in balanced regimes */
    bool skip_wait;
} wait_cases[] = {
    {"balanced", "balanced kernel, no wait (the README's run)", 1, true},
    {"compute_bound", "kernel 4x as long, no wait", 4, true},
    {"with_wait", "kernel 4x as long, with the wait (the lesson)", 4, false},
};
enum { WAIT_CASES = sizeof wait_cases / sizeof wait_cases[0] };

/* Counts, over `runs` runs: clock=none, the runs' times on the GPU as the measurement's. */
static int exercise_2_answers(struct csv *csv, const struct checked found[WAIT_CASES],
                              int runs, size_t n)
{
    for (int c = 0; c < WAIT_CASES; c++) {
        char key[64], unit[32], what[128];
        struct csv_row measured = {.reps = runs, .ms = found[c].ms,
                                   .bytes = 2 * n * sizeof(unsigned), .params = "clock=none"};
        snprintf(key, sizeof key, "caught_%s", wait_cases[c].key);
        snprintf(unit, sizeof unit, "of %d runs", runs);
        snprintf(what, sizeof what, "runs caught by verification, %s", wait_cases[c].what);
        if (exercise_answer(csv, 2, key, what, found[c].caught, unit, measured))
            return -1;
        snprintf(key, sizeof key, "wrong_share_%s", wait_cases[c].key);
        snprintf(what, sizeof what, "wrong elements in the first caught run, %s",
                 wait_cases[c].what);
        double share = 100.0 * (double)found[c].wrong / (double)n;
        if (found[c].caught && exercise_answer(csv, 2, key, what, share, "%", measured))
            return -1;
    }
    return 0;
}

/* Chunks k and k+4 share a buffer but not a stream: only the wait orders chunk k+4's copy in
 * after chunk k's copy out. The longer kernel (part 1's compute-bound regime) changes how the
 * stages line up in time; the lesson's own code with it is the control, which must verify. */
int exercise_2(struct bench *b, const struct settings *s)
{
    struct shape p;
    if (main_shape(b, s, &p))
        return -1;
    p.streams = EXERCISE_STREAMS;
    p.buffers = SHARED_BUFFERS;
    int runs = cli_given("--reps") ? b->reps : CHECKED_RUNS;
    char size_text[32];
    printf("\n%s in %zu chunks, %zu buffers, %zu streams; %d runs per case after a warm-up, each "
           "checked\nelement by element; ms on the GPU, median\n  %-46s %6s %9s  %s\n",
           format_bytes(p.n * sizeof(unsigned), size_text, sizeof size_text), p.chunks,
           p.buffers, p.streams, runs, "case", "iters", "ms", "caught");
    struct checked found[WAIT_CASES];
    for (int c = 0; c < WAIT_CASES; c++) {
        struct shape q = p;
        q.iters = wait_cases[c].times_balanced * p.iters;
        q.skip_buffer_free_wait = wait_cases[c].skip_wait;
        if (count_caught(b, &q, runs, &found[c]))
            return -1;
        printf("  %-46s %6u %9.2f  %d of %d runs\n", wait_cases[c].what, q.iters,
               found[c].ms.median, found[c].caught, runs);
        if (found[c].caught)
            printf("    the first caught: %zu of %zu elements wrong, from element %zu (chunk "
                   "%zu)\n", found[c].wrong, q.n, found[c].first,
                   chunk_of(&q, found[c].first));
        if (!wait_cases[c].skip_wait && found[c].caught) {
            fprintf(stderr, "%s: the pipeline with its wait gave wrong results\n", program_name);
            return -1;
        }
    }
    printf("\n");
    if (exercise_2_answers(b->csv, found, runs, p.n))
        return -1;
    printf("verified: every run with the wait; the runs without it were checked element by "
           "element, and their\n  wrong results counted: under --exercise 2 they are the "
           "answer, not a failure\n");
    return 0;
}

/* ------------------------------------------------------------------------------------------ *
 * 3. How many chunks.
 * ------------------------------------------------------------------------------------------ */

static const size_t chunk_counts[] = {FEWEST_CHUNKS, 64, 512};
enum {
    COUNTS = sizeof chunk_counts / sizeof chunk_counts[0],
    AGAINST = 1, /* each count's times are set against 64 chunks' */
};
/* Each count's three turns: the pipeline (main.c's loop), and the bound's two halves. */
enum { PIPE, COPIES_ALONE, KERNELS_ALONE, PER_COUNT };
static const char *const run_key[PER_COUNT] = {"time", "copies", "kernels"};
static const char *const run_what[PER_COUNT] = {"time", "copies alone", "kernels alone"};

struct by_count {
    struct stats ms[PER_COUNT];   /* the turn's times */
    struct stats over[PER_COUNT]; /* over 64 chunks' same turn, rep by rep */
};

/* The turns' figures. Ratios and efficiencies first, as turn_stats() sorts each turn's samples;
 * the efficiency is computed only to flag a bound that a run beat. */
static void chunk_count_figures(struct bench *b, struct by_count f[COUNTS])
{
    size_t reps = (size_t)b->reps;
    double *scratch = b->samples + MAX_TURNS * reps;
    for (size_t c = 0; c < COUNTS; c++) {
        for (size_t h = 0; h < PER_COUNT; h++) {
            const double *mine = b->samples + (c * PER_COUNT + h) * reps;
            const double *against = b->samples + (AGAINST * PER_COUNT + h) * reps;
            f[c].over[h] = c == AGAINST ? (struct stats){1, 1, 1}
                                        : ratio_by_rep(mine, against, b->reps, scratch);
        }
        char label[48];
        snprintf(label, sizeof label, "%zu chunks", chunk_counts[c]);
        flag_beaten_bound(label, paired_efficiency(b, c * PER_COUNT + PIPE,
                                                   c * PER_COUNT + KERNELS_ALONE,
                                                   c * PER_COUNT + COPIES_ALONE));
    }
    for (size_t c = 0; c < COUNTS; c++)
        for (size_t h = 0; h < PER_COUNT; h++)
            f[c].ms[h] = turn_stats(b, c * PER_COUNT + h);
}

static size_t fastest_count(const struct by_count f[COUNTS])
{
    size_t best = 0;
    for (size_t c = 1; c < COUNTS; c++)
        if (f[c].ms[PIPE].median < f[best].ms[PIPE].median)
            best = c;
    return best;
}

static void print_chunk_counts(const struct shape *base, const struct by_count f[COUNTS])
{
    char size_text[32];
    printf("  %-16s %10s  %-19s %13s  %-19s %13s  %s\n", "chunks (size)", "pipeline",
           "over 64's (range)", "copies alone", "over 64's (range)", "kernels alone",
           "over 64's (range)");
    for (size_t c = 0; c < COUNTS; c++) {
        char label[48];
        snprintf(label, sizeof label, "%zu (%s)", chunk_counts[c],
                 format_bytes(chunk_plan_make(base->n, chunk_counts[c], 1).max_chunk *
                              sizeof(unsigned), size_text, sizeof size_text));
        printf("  %-16s", label);
        for (size_t h = 0; h < PER_COUNT; h++) {
            struct stats ms = f[c].ms[h], r = f[c].over[h];
            char over[48] = "-";
            if (c != AGAINST)
                snprintf(over, sizeof over, "%.3f (%.3f-%.3f)", r.median, r.min, r.max);
            printf(" %*.2f%c  %-19s", h == PIPE ? 9 : 12, ms.median,
                   stats_unsteady(ms) ? '~' : ' ', over);
        }
        printf("\n");
    }
    size_t order[COUNTS] = {0, 1, 2};
    for (size_t i = 0; i < COUNTS; i++) /* by median time: three entries, insertion sort */
        for (size_t j = i; j > 0 && f[order[j]].ms[PIPE].median <
                                        f[order[j - 1]].ms[PIPE].median; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    printf("  ranked by the pipeline's median time:");
    for (size_t i = 0; i < COUNTS; i++)
        printf("%s %zu chunks (%.2f ms)", i ? "," : "", chunk_counts[order[i]],
               f[order[i]].ms[PIPE].median);
    printf("\n\n");
}

/* The fastest count, and each count's times over 64 chunks', rep by rep. */
static int exercise_3_answers(struct bench *b, size_t bytes, const struct by_count f[COUNTS])
{
    size_t best = fastest_count(f);
    if (exercise_answer(b->csv, 3, "fastest_chunks", "chunks of the fastest pipeline (median "
                        "time)", (double)chunk_counts[best], "chunks",
                        (struct csv_row){.reps = b->reps, .ms = f[best].ms[PIPE], .bytes = bytes,
                                         .params = "clock=gpu_event"}))
        return -1;
    for (size_t h = 0; h < PER_COUNT; h++) {
        for (size_t c = 0; c < COUNTS; c++) {
            if (c == AGAINST)
                continue;
            struct stats r = f[c].over[h];
            char key[64], what[160];
            snprintf(key, sizeof key, "%s_%zu_vs_%zu_chunks", run_key[h], chunk_counts[c],
                     chunk_counts[AGAINST]);
            snprintf(what, sizeof what, "%s with %zu chunks over %zu's, in turns, rep by rep "
                     "(range %.3f-%.3f)", run_what[h], chunk_counts[c], chunk_counts[AGAINST],
                     r.min, r.max);
            if (exercise_answer(b->csv, 3, key, what, r.median, "x",
                                (struct csv_row){.reps = b->reps, .ms = f[c].ms[h],
                                                 .bytes = bytes, .params = "clock=gpu_event"}))
                return -1;
        }
    }
    return 0;
}

_Static_assert((int)(COUNTS * PER_COUNT) <= (int)MAX_TURNS, "exercise 3 overflows the samples");

int exercise_3(struct bench *b, const struct settings *s)
{
    static const enum run_kind kind[PER_COUNT] = {PLAIN_LOOP, WITHOUT_KERNELS, WITHOUT_COPIES};
    struct shape base, shapes[COUNTS];
    if (main_shape(b, s, &base))
        return -1;
    struct turn turns[COUNTS * PER_COUNT];
    char names[COUNTS * PER_COUNT][64];
    for (size_t c = 0; c < COUNTS; c++) {
        shapes[c] = base;
        shapes[c].chunks = chunk_counts[c];
        for (size_t h = 0; h < PER_COUNT; h++) {
            size_t t = c * PER_COUNT + h;
            snprintf(names[t], sizeof names[t], "%zu chunks: %s", chunk_counts[c],
                     h == PIPE ? "pipeline" : run_what[h]);
            turns[t] = (struct turn){&shapes[c], kind[h], names[t]};
        }
    }
    char size_text[32];
    printf("\n%s, %zu buffers, %zu streams, %u iterations (the balanced regime at %zu chunks); "
           "ms on the GPU\n(events), median of %d repetitions, the %d runs in turns; copies "
           "alone: the pipeline without\nits kernels; kernels alone: without its copies; over "
           "%zu's: over the same run's time at %zu\nchunks in the same repetition, median "
           "(range)\n", format_bytes(s->n * sizeof(unsigned), size_text, sizeof size_text),
           base.buffers, base.streams, base.iters, base.chunks, b->reps, COUNTS * PER_COUNT,
           chunk_counts[AGAINST], chunk_counts[AGAINST]);
    if (measure_in_turns(b, turns, COUNTS * PER_COUNT))
        return -1;
    struct by_count f[COUNTS];
    chunk_count_figures(b, f);
    print_chunk_counts(&base, f);
    if (exercise_3_answers(b, 2 * s->n * sizeof(unsigned), f))
        return -1;
    printf("verified: the last repetition of each chunk count's pipeline\n");
    return 0;
}
