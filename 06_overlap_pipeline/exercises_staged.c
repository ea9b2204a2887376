/*
 * exercises_staged.c - exercises 4 and 5 (exercises.h): the staged part's run on one CPU thread
 * fewer, and on 2 staging buffers.
 */
#include "exercises.h"
#include "staged.h"

#include <stdio.h>
#include <string.h>

enum { FEW_STAGING_BUFFERS = 2 }; /* exercise 5's */

/* Exercise 5's staging ring: 2 slots, and part 5's. */
size_t exercise_staging_slots(const struct settings *s)
{
    return (size_t)s->staged_buffers > FEW_STAGING_BUFFERS ? (size_t)s->staged_buffers
                                                            : FEW_STAGING_BUFFERS;
}

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
                          b->rig.h_in, p->n, false);
}

/* ------------------------------------------------------------------------------------------ *
 * 4. One CPU thread fewer.
 * ------------------------------------------------------------------------------------------ */

/* Exercise 4's thread counts: one fewer than part 5's, and part 5's. */
static const char *const thread_suffix[2] = {"one_fewer", "default_threads"};

/* How many of the reps ran slower on the first thread count than on the second. */
static int reps_slower(const double *first, const double *second, int reps)
{
    int slower = 0;
    for (int rep = 0; rep < reps; rep++)
        slower += first[rep] > second[rep];
    return slower;
}

/* Each thread count's staged time; the first count's time over the second's, and its CPU copies
 * alone over the second's, rep by rep; and, on each count, the CPU copies alone over the GPU's
 * work alone, the two sides of the run, rep by rep. */
static int exercise_4_answers(struct bench *b, const struct staged_plan *plan,
                              const int threads[2])
{
    const double *staged[2], *cpu[2], *gpu = plan->ms + GPU_ALONE * b->reps;
    double *scratch = b->samples + b->reps;
    for (int c = 0; c < 2; c++) {
        staged[c] = plan->ms + staged_way_index(plan, c, 0, STAGED_RUN) * b->reps;
        cpu[c] = plan->ms + staged_way_index(plan, c, 0, CPU_ALONE) * b->reps;
    }
    struct stats time = ratio_by_rep(staged[0], staged[1], b->reps, scratch);
    struct stats copies = ratio_by_rep(cpu[0], cpu[1], b->reps, scratch);
    int slower = reps_slower(staged[0], staged[1], b->reps);
    size_t bytes = 2 * plan->p->n * sizeof(unsigned);
    struct csv_row measured = {.reps = b->reps, .bytes = bytes, .params = "clock=host"};
    char key[64], what[160], unit[32];
    for (int c = 1; c >= 0; c--) {
        measured.ms = way_stats(b, plan, staged_way_index(plan, c, 0, STAGED_RUN));
        snprintf(key, sizeof key, "staged_ms_%s", thread_suffix[c]);
        snprintf(what, sizeof what, "the staged run on %d CPU threads", threads[c]);
        if (exercise_answer(b->csv, 4, key, what, measured.ms.median, "ms", measured))
            return -1;
    }
    measured.ms = way_stats(b, plan, staged_way_index(plan, 0, 0, STAGED_RUN));
    snprintf(what, sizeof what, "time on %d threads over %d's, in turns, rep by rep (range "
             "%.3f-%.3f)", threads[0], threads[1], time.min, time.max);
    snprintf(unit, sizeof unit, "of %d repetitions", b->reps);
    if (exercise_answer(b->csv, 4, "time_one_fewer_vs_default", what, time.median, "x",
                        measured) ||
        exercise_answer(b->csv, 4, "reps_slower_one_fewer", "repetitions slower on one thread "
                        "fewer", slower, unit, measured))
        return -1;
    measured.ms = way_stats(b, plan, staged_way_index(plan, 0, 0, CPU_ALONE));
    snprintf(what, sizeof what, "the CPU's copies alone on %d threads over %d's, rep by rep "
             "(range %.3f-%.3f)", threads[0], threads[1], copies.min, copies.max);
    if (exercise_answer(b->csv, 4, "cpu_alone_one_fewer_vs_default", what, copies.median, "x",
                        measured))
        return -1;
    for (int c = 1; c >= 0; c--) {
        struct stats pace = ratio_by_rep(cpu[c], gpu, b->reps, scratch);
        measured.ms = way_stats(b, plan, staged_way_index(plan, c, 0, CPU_ALONE));
        snprintf(key, sizeof key, "cpu_vs_gpu_%s", thread_suffix[c]);
        snprintf(what, sizeof what, "on %d threads, the CPU's copies alone over the GPU's work "
                 "alone, rep by rep (range %.3f-%.3f)", threads[c], pace.min, pace.max);
        if (exercise_answer(b->csv, 4, key, what, pace.median, "x", measured))
            return -1;
    }
    return 0;
}

/* Part 5's ways in turns on two thread counts, the default and one fewer: the staged run, its
 * CPU copies alone, and the GPU's work alone, which the thread count does not change. */
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
                               .counts = 2, .copies = {&plain_copies}, .copy_ways = 1};
    int rc = staged_part(b, &plan);
    printf("\n");
    if (rc == 0)
        rc = exercise_4_answers(b, &plan, threads);
    staged_plan_free(&plan);
    staging_destroy(&st);
    if (rc == 0)
        printf("verified: every repetition of every staged run, and the last repetition of the "
               "other ways\n");
    return rc;
}

/* ------------------------------------------------------------------------------------------ *
 * 5. Two staging buffers.
 * ------------------------------------------------------------------------------------------ */

/* Exercise 5's runs on each ring: the staged run and its two sides alone, as part 5 times them. */
static const struct side {
    enum staged_work work;
    const char *label, *key, *what;
} sides[] = {
    {ALL_WORK, "the staged run", "time", "time"},
    {GPU_WORK, "its GPU work alone (no CPU copies)", "gpu_alone", "the GPU's work alone"},
    {CPU_WORK, "its CPU copies alone (no GPU work)", "cpu_alone", "the CPU's copies alone"},
};
enum { SIDES = sizeof sides / sizeof sides[0], RINGS = 2, RUNS_5 = SIDES * RINGS };
_Static_assert((int)RUNS_5 <= (int)MAX_TURNS, "exercise 5's runs fit in the samples");

/* Run i is side i % SIDES on ring i / SIDES. A warm-up round, then rep by rep, each rep starting
 * one run later; every staged run starts from poisoned results and is verified. Samples in
 * b->samples[i * reps + rep]. */
static int rings_in_turns(struct bench *b, const struct shape q[RINGS],
                             const struct staging st[RINGS], int threads)
{
    for (int rep = -1; rep < b->reps; rep++) {
        for (int k = 0; k < RUNS_5; k++) {
            int i = (k + rep + 1) % RUNS_5, ring = i / SIDES;
            enum staged_work work = sides[i % SIDES].work;
            struct staged_time time;
            if (work == ALL_WORK)
                memset(st[ring].results, 0xff, q[ring].n * sizeof(unsigned));
            if (staged_run(&b->rig, &st[ring], &q[ring], work == GPU_WORK ? 1 : threads,
                           &plain_copies, work, &time) ||
                (work == ALL_WORK && !work_verified(&b->rig, st[ring].data, st[ring].results,
                                                    q[ring].n, q[ring].iters, "staged run")))
                return -1;
            if (rep >= 0)
                b->samples[i * b->reps + rep] = time.ms;
        }
    }
    return 0;
}

/* Each side's time with 2 slots over its time with part 5's, rep by rep; then the medians. */
static void exercise_5_figures(struct bench *b, struct stats ms[RUNS_5], struct stats over[SIDES])
{
    double *scratch = b->samples + MAX_TURNS * b->reps;
    for (int side = 0; side < SIDES; side++)
        over[side] = ratio_by_rep(b->samples + side * b->reps,
                                  b->samples + (SIDES + side) * b->reps, b->reps, scratch);
    for (int i = 0; i < RUNS_5; i++)
        ms[i] = stats_summarize(b->samples + i * b->reps, (size_t)b->reps);
}

static int exercise_5_answers(struct bench *b, const struct settings *s, const size_t slots[2],
                              const struct stats ms[RUNS_5], const struct stats over[SIDES])
{
    struct csv_row measured = {.reps = b->reps, .bytes = 2 * s->n * sizeof(unsigned),
                               .params = "clock=host"};
    const char *const suffix[RINGS] = {"2_buffers", "default_buffers"};
    char key[64], what[160];
    for (int ring = 0; ring < RINGS; ring++) {
        measured.ms = ms[ring * SIDES];
        snprintf(key, sizeof key, "staged_ms_%s", suffix[ring]);
        snprintf(what, sizeof what, "the staged run on %d threads, %zu staging buffers",
                 s->staged_threads, slots[ring]);
        if (exercise_answer(b->csv, 5, key, what, measured.ms.median, "ms", measured))
            return -1;
    }
    for (int side = 0; side < SIDES; side++) {
        measured.ms = ms[side];
        snprintf(key, sizeof key, "%s_2_vs_default_buffers", sides[side].key);
        snprintf(what, sizeof what, "%s with %zu staging buffers over %zu's, in turns, rep by "
                 "rep (range %.3f-%.3f)", sides[side].what, slots[0], slots[1], over[side].min,
                 over[side].max);
        if (exercise_answer(b->csv, 5, key, what, over[side].median, "x", measured))
            return -1;
    }
    return 0;
}

static void exercise_5_heading(const struct bench *b, const struct settings *s,
                               const struct shape *p, const size_t slots[RINGS])
{
    char size_text[32], columns[RINGS][32];
    for (int ring = 0; ring < RINGS; ring++)
        snprintf(columns[ring], sizeof columns[ring], "%zu buffers ms", slots[ring]);
    printf("\n%s from pageable memory to pageable results, %zu chunks, %zu streams, %u "
           "iterations, %d CPU\nthreads; host clock, median of %d; the %d runs in turns, every "
           "staged run verified; over %zu's:\nover the same run with %zu staging buffers in the "
           "same repetition, median (range)\n  %-36s %13s %13s   %zu over %zu's (range)\n",
           format_bytes(p->n * sizeof(unsigned), size_text, sizeof size_text), p->chunks,
           p->streams, p->iters, s->staged_threads, b->reps, RUNS_5, slots[1], slots[1], "run",
           columns[0], columns[1], slots[0], slots[1]);
}

/* Two views of one ring, its first 2 slots and part 5's slots: each slot brings its own device
 * buffer, so the views differ in the device buffers too. Host clock, as part 5. */
int exercise_5(struct bench *b, const struct settings *s)
{
    struct shape p;
    struct staging ring;
    if (staged_shape(b, s, &p) || staging_open(b, &p, exercise_staging_slots(s), &ring))
        return -1;
    const size_t slots[RINGS] = {FEW_STAGING_BUFFERS, (size_t)s->staged_buffers};
    struct shape q[RINGS] = {p, p};
    struct staging st[RINGS] = {ring, ring};
    for (int i = 0; i < RINGS; i++)
        q[i].buffers = st[i].slots = slots[i];
    exercise_5_heading(b, s, &p, slots);
    int rc = rings_in_turns(b, q, st, s->staged_threads);
    struct stats ms[RUNS_5], over[SIDES];
    if (rc == 0) {
        exercise_5_figures(b, ms, over);
        for (int side = 0; side < SIDES; side++)
            printf("  %-36s %12.2f%c %12.2f%c   %.3f (%.3f-%.3f)\n", sides[side].label,
                   ms[side].median, stats_unsteady(ms[side]) ? '~' : ' ',
                   ms[SIDES + side].median, stats_unsteady(ms[SIDES + side]) ? '~' : ' ',
                   over[side].median, over[side].min, over[side].max);
        printf("\n");
        rc = exercise_5_answers(b, s, slots, ms, over);
    }
    staging_destroy(&ring);
    if (rc == 0)
        printf("verified: every repetition of every staged run\n");
    return rc;
}
