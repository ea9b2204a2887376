/*
 * exercises_staged.c - exercises 4 and 5 (exercises.h): the staged part's run on one CPU thread
 * fewer, and on 2 staging buffers.
 */
#include "exercises.h"
#include "staged.h"
#include "trace.h"

#include <stdio.h>
#include <string.h>

enum {
    TRACED_PER_COUNT = 3,    /* exercise 4's traced staged runs per thread count */
    FEW_STAGING_BUFFERS = 2, /* exercise 5's */
};

/* Exercise 5's staging ring: 2 slots, and part 5's. */
size_t exercise_staging_slots(const struct settings *s)
{
    return (size_t)s->staged_buffers > FEW_STAGING_BUFFERS ? (size_t)s->staged_buffers
                                                            : FEW_STAGING_BUFFERS;
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

int exercise_4(struct bench *b, const struct settings *s)
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
int exercise_5(struct bench *b, const struct settings *s)
{
    struct shape p;
    struct staging ring;
    if (staged_shape(b, s, &p) || staging_open(b, &p, exercise_staging_slots(s), &ring))
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

