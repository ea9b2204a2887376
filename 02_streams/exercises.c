/*
 * exercises.c - `--exercise N`: the exercises of README.md, each run in place of the lesson with
 * the lesson's own functions, the change it asks for passed as a parameter. main.c runs the
 * first with its run_split(); this file plans it and answers:
 *
 *   1. experiment 1 over 1, 2, 4, ... 32 streams, and the same runs without their kernels: the
 *      copies alone, whose time no split over streams can beat
 *   2. experiment 2's first case with a cudaMemsetAsync in stream 0 in place of the tiny kernel
 *   3. the priorities part (--deep priorities) with filler blocks of 1 ms in place of 0.1 ms
 *
 * Each ends with its answer figures, each beside the shipped reference's (exercise_record()).
 */
#include "common.h"
#include "streams.h"

#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------------------------ *
 * 1. Experiment 1 over 1 to 32 streams, against what the copies alone need.
 * ------------------------------------------------------------------------------------------ */

/* 1, 2, 4, ... below top, then top itself: the README's 2, 4, 16 and 32 where top is
 * SWEEP_TOP. */
static int stream_counts(int top, int *counts)
{
    int n = 0;
    for (int s = 1; s < top; s *= 2)
        counts[n++] = s;
    counts[n++] = top;
    return n;
}

/* The reps samples of one turn at one stream count, in the sweep's ms. */
static double *runs(double *ms, int turn, int count, int n_counts, int reps)
{
    return ms + ((size_t)turn * (size_t)n_counts + (size_t)count) * (size_t)reps;
}

/* num[i] / den[i], repetition by repetition, summarised in `ratio` (room for reps). */
static struct stats paired_ratio(const double *num, const double *den, int reps, double *ratio)
{
    for (int i = 0; i < reps; i++)
        ratio[i] = num[i] / den[i];
    return stats_summarize(ratio, (size_t)reps);
}

/* One stream count's figures: the three runs' times, and the ratios taken rep by rep. */
struct sweep_row {
    struct stats ms[TURNS];
    struct stats pageable_x, pinned_x; /* speed-up over 1 stream of the same memory */
    struct stats bound_x;              /* 1 pinned stream's time over this count's copies alone */
    struct stats share;                /* the copies alone over the pinned run: 1 at the bound */
};

/* The bound of every stream count at once: in each repetition the fastest copies alone of any
 * count, and 1 pinned stream's time over it, the most any split can gain. Taken before
 * sweep_rows(), which sorts the samples. */
struct sweep_bound {
    struct stats copies_ms, x;
};

static void sweep_bound(double *ms, int n_counts, int reps, struct sweep_bound *bound)
{
    double *fastest = samples_or_exit((size_t)reps), *ratio = samples_or_exit((size_t)reps);
    for (int rep = 0; rep < reps; rep++) {
        fastest[rep] = runs(ms, COPIES, 0, n_counts, reps)[rep];
        for (int c = 1; c < n_counts; c++) {
            const double t = runs(ms, COPIES, c, n_counts, reps)[rep];
            fastest[rep] = t < fastest[rep] ? t : fastest[rep];
        }
    }
    bound->x = paired_ratio(runs(ms, PINNED, 0, n_counts, reps), fastest, reps, ratio);
    bound->copies_ms = stats_summarize(fastest, (size_t)reps);
    free(fastest);
    free(ratio);
}

static void sweep_rows(double *ms, int n_counts, int reps, struct sweep_row *rows)
{
    double *ratio = samples_or_exit((size_t)reps);
    const double *pageable_1 = runs(ms, PAGEABLE, 0, n_counts, reps);
    const double *pinned_1 = runs(ms, PINNED, 0, n_counts, reps);
    for (int c = 0; c < n_counts; c++) {
        const double *pageable = runs(ms, PAGEABLE, c, n_counts, reps);
        const double *pinned = runs(ms, PINNED, c, n_counts, reps);
        const double *copies = runs(ms, COPIES, c, n_counts, reps);
        rows[c].pageable_x = paired_ratio(pageable_1, pageable, reps, ratio);
        rows[c].pinned_x = paired_ratio(pinned_1, pinned, reps, ratio);
        rows[c].bound_x = paired_ratio(pinned_1, copies, reps, ratio);
        rows[c].share = paired_ratio(copies, pinned, reps, ratio);
    }
    /* Only now: stats_summarize() sorts the samples, which breaks the pairs. */
    for (int c = 0; c < n_counts; c++)
        for (int t = 0; t < TURNS; t++)
            rows[c].ms[t] = stats_summarize(runs(ms, t, c, n_counts, reps), (size_t)reps);
    free(ratio);
}

/* A figure's mark in the tables: `~` where its repetitions spread too far to read it closely. */
static char mark(struct stats s)
{
    return stats_unsteady(s) ? '~' : ' ';
}

static void print_sweep(const int *counts, int n_counts, const struct sweep_row *rows)
{
    printf("  %7s %12s %9s %12s %22s %16s %7s %6s\n", "streams", "pageable ms", "speed-up",
           "pinned ms", "speed-up (range)", "copies alone ms", "bound", "share");
    for (int c = 0; c < n_counts; c++) {
        const struct sweep_row *w = &rows[c];
        printf("  %7d %11.3f%c %8.2fx %11.3f%c %8.2fx%c (%.2f-%.2f) %15.3f%c %6.2fx %6.3f\n",
               counts[c], w->ms[PAGEABLE].median, mark(w->ms[PAGEABLE]), w->pageable_x.median,
               w->ms[PINNED].median, mark(w->ms[PINNED]), w->pinned_x.median, mark(w->pinned_x),
               w->pinned_x.min, w->pinned_x.max, w->ms[COPIES].median, mark(w->ms[COPIES]),
               w->bound_x.median, w->share.median);
    }
}

/* The answer: each speed-up, the bound of every count at once, and whether any count beat its
 * own bound. */
static void answer_sweep(const int *counts, int n_counts, const struct sweep_row *rows,
                         const struct sweep_bound *bound, size_t bytes, int reps, struct csv *csv)
{
    char key[48], what[128], unit[32];
    int best = 0, beaten = 0;
    for (int c = 0; c < n_counts; c++) {
        best = rows[c].pinned_x.median > rows[best].pinned_x.median ? c : best;
        /* lesson 06's rule for a beaten bound: above 1 by more than the spread */
        beaten += rows[c].share.median > 1 + (rows[c].share.max - rows[c].share.min);
    }
    printf("the best pinned speed-up, %.2fx, with %d streams, whose own copies alone bound it at "
           "%.2fx;\nthe fastest copies alone of any count, rep by rep: %.3f ms, a bound of %.2fx "
           "(%.2f-%.2f)\n\n", rows[best].pinned_x.median, counts[best],
           rows[best].bound_x.median, bound->copies_ms.median, bound->x.median, bound->x.min,
           bound->x.max);

    const int top = n_counts - 1;
    const struct csv_row run = {.reps = reps, .bytes = 3 * bytes, .params = "clock=host"};
    struct csv_row pinned = run, copies = run, pageable = run;
    for (int c = 1; c < n_counts; c++) {
        snprintf(key, sizeof key, "pinned_speedup_%d", counts[c]);
        snprintf(what, sizeof what, "pinned speed-up with %d streams", counts[c]);
        pinned.ms = rows[c].ms[PINNED];
        exercise_record(csv, 1, key, what, rows[c].pinned_x.median, "x", pinned);
    }
    copies.ms = bound->copies_ms;
    exercise_record(csv, 1, "copies_alone_fastest_ms", "the copies alone, the fastest stream "
                    "count's in each repetition", copies.ms.median, "ms", copies);
    exercise_record(csv, 1, "copies_bound", "the most any stream count can gain, 1 pinned "
                    "stream's time over those copies alone", bound->x.median, "x", copies);
    snprintf(unit, sizeof unit, "of %d", n_counts);
    pinned.ms = rows[top].ms[PINNED];
    exercise_record(csv, 1, "bound_beaten", "stream counts whose run beat its copies alone by "
                    "more than the spread", beaten, unit, pinned);
    snprintf(key, sizeof key, "pageable_speedup_%d", counts[top]);
    snprintf(what, sizeof what, "pageable speed-up with %d streams", counts[top]);
    pageable.ms = rows[top].ms[PAGEABLE];
    exercise_record(csv, 1, key, what, rows[top].pageable_x.median, "x", pageable);
}

void sweep_begin(struct sweep *sweep, size_t bytes, int top, int reps, struct csv *csv)
{
    char asks[160], size_text[32];
    printf("\n");
    snprintf(asks, sizeof asks, "experiment 1 with 1 to %d streams: where does the pinned "
             "speed-up stop growing, and why can it never pass what the copies alone need?", top);
    exercise_begin(csv, 1, EXERCISE_COUNT, asks);
    sweep->n_counts = stream_counts(top, sweep->counts);
    sweep->reps = reps;
    sweep->bytes = bytes;
    sweep->ms = samples_or_exit((size_t)TURNS * (size_t)sweep->n_counts * (size_t)reps);
    printf("c = a + b (%s per vector) split over N streams with cudaMemcpyAsync, host clock, all "
           "runs in\nturns, median of %d. Speed-up: 1 stream's time over N streams', rep by rep. "
           "Copies alone: the\npinned run without its kernels, same streams and order. Bound: 1 "
           "pinned stream's time over\nthat count's copies alone. Share: the copies alone over "
           "the pinned run (1 = at the bound).\n~: unsteady, the repetitions spread over %.0f%% "
           "of the median\n", format_bytes(bytes, size_text, sizeof size_text), reps,
           100 * UNSTEADY_MARK);
}

double *sweep_sample(const struct sweep *sweep, int turn, int count, int rep)
{
    return runs(sweep->ms, turn, count, sweep->n_counts, sweep->reps) + rep;
}

void sweep_end(struct sweep *sweep, struct csv *csv)
{
    struct sweep_row rows[MAX_COUNTS];
    struct sweep_bound bound;
    sweep_bound(sweep->ms, sweep->n_counts, sweep->reps, &bound);
    sweep_rows(sweep->ms, sweep->n_counts, sweep->reps, rows);
    print_sweep(sweep->counts, sweep->n_counts, rows);
    printf("\n");
    answer_sweep(sweep->counts, sweep->n_counts, rows, &bound, sweep->bytes, sweep->reps, csv);
    printf("\nverified: every element of c = a + b in every run with its kernels (the copies "
           "alone compute\nnothing to check)\n");
    free(sweep->ms);
}

/* ------------------------------------------------------------------------------------------ *
 * 2. Experiment 2 with a memset in stream 0 in place of the tiny kernel.
 * ------------------------------------------------------------------------------------------ */

/* What exercises 2 and 3 print first: they hold no vectors, so main.c gave lesson_open() no size
 * for them to fit. */
static void no_vectors(int n)
{
    printf("exercise %d holds no vectors, only its kernels' timers: --size does not apply\n\n", n);
}

void exercise_memset_barrier(int reps, struct csv *csv)
{
    no_vectors(2);
    exercise_begin(csv, 2, EXERCISE_COUNT, "experiment 2 with cudaMemsetAsync(..., 0) in stream 0 "
                   "in place of the tiny kernel: is a memset in the legacy stream a barrier too?");
    /* Experiment 2's first case: A and B in blocking streams, the legacy stream between. */
    cudaStream_t s1, s2;
    CUDA_CHECK(cudaStreamCreate(&s1));
    CUDA_CHECK(cudaStreamCreate(&s2));
    unsigned long long *d_elapsed;
    CUDA_CHECK(cudaMalloc((void **)&d_elapsed, 3 * sizeof *d_elapsed));
    double *ms = samples_or_exit(2 * (size_t)reps); /* the tiny kernel's reps, then the memset's */
    for (int rep = -1; rep < reps; rep++)
        for (int m = 0; m < 2; m++) {
            double t = a_then_tiny_then_b(s1, 0, s2, m == 1, d_elapsed);
            if (rep >= 0)
                ms[m * reps + rep] = t;
        }
    /* Experiment 2's line between A and B side by side and one after the other. */
    const double serialised = 1.5 * spin_ns / 1e6;
    int waited = 0;
    for (int rep = 0; rep < reps; rep++)
        waited += ms[reps + rep] > serialised;
    const struct stats with_kernel = stats_summarize(ms, (size_t)reps);
    const struct stats with_memset = stats_summarize(ms + reps, (size_t)reps);

    printf("kernel A (%.1f ms) in blocking stream s1, then in stream 0 a tiny kernel or a "
           "cudaMemsetAsync\nto 0 of an 8-byte word set to all ones before, then kernel B (%.1f "
           "ms) in blocking stream s2;\nhost clock, in turns, median of %d; over %.2f ms, B "
           "waited for A\n", spin_ns / 1e6, spin_ns / 1e6, reps, serialised);
    const struct { const char *label; struct stats s; } cases[] = {
        {"tiny kernel in stream 0 (experiment 2)", with_kernel},
        {"cudaMemsetAsync in stream 0", with_memset},
    };
    for (int c = 0; c < 2; c++)
        printf("  %-40s %7.3f ms (min %.3f, max %.3f)  %s\n", cases[c].label, cases[c].s.median,
               cases[c].s.min, cases[c].s.max,
               cases[c].s.median > serialised ? "A, then B: serialised" : "A and B together");
    printf("\n");

    char unit[32];
    const struct csv_row kernel_run = {.reps = reps, .ms = with_kernel, .params = "clock=host"};
    const struct csv_row memset_run = {.reps = reps, .ms = with_memset, .params = "clock=host"};
    exercise_record(csv, 2, "memset_total_ms", "A, the memset in stream 0, then B, from A's "
                    "launch to the end", with_memset.median, "ms", memset_run);
    exercise_record(csv, 2, "kernel_total_ms", "the same with experiment 2's tiny kernel in "
                    "stream 0", with_kernel.median, "ms", kernel_run);
    snprintf(unit, sizeof unit, "of %d", reps);
    exercise_record(csv, 2, "memset_waits", "repetitions in which B waited for A behind the "
                    "memset", waited, unit, memset_run);
    printf("\nverified: kernels A and B ran their full time in every run, and every memset "
           "zeroed its word\n");

    free(ms);
    CUDA_CHECK(cudaFree(d_elapsed));
    CUDA_CHECK(cudaStreamDestroy(s1));
    CUDA_CHECK(cudaStreamDestroy(s2));
}

/* ------------------------------------------------------------------------------------------ *
 * 3. The priorities part with filler blocks of 1 ms.
 * ------------------------------------------------------------------------------------------ */

void exercise_long_filler(const struct gpu_info *gpu, int reps, struct csv *csv)
{
    no_vectors(3);
    exercise_begin(csv, 3, EXERCISE_COUNT, "the priorities part with filler blocks of 1 ms "
                   "(filler_ns) in place of 0.1 ms: both latencies");
    const unsigned long long block_ns = 1000 * 1000ull;
    struct priority_rig rig;
    priority_rig_create(gpu, block_ns, &rig);
    const struct filler *f = &rig.filler;
    printf("latency of a %.2f ms kernel while %u blocks of %.1f ms fill the GPU: %u waves of %d "
           "SMs\nx %u blocks of %u threads, %.1f ms of filler in all; events in the urgent "
           "stream, in turns,\nmedian of %d\n", urgent_ns / 1e6, f->blocks, f->ns / 1e6,
           f->waves, gpu->multiprocessors, f->blocks_per_sm, f->threads,
           f->waves * f->ns / 1e6, reps);

    const struct { const char *key, *label, *what; cudaStream_t urgent; } cases[] = {
        {"same_priority_ms", "same priority as the filler",
         "the urgent kernel's latency at the filler's priority", rig.same},
        {"high_priority_ms", "highest priority",
         "the urgent kernel's latency at the highest priority", rig.high},
    };
    double *ms = samples_or_exit(2 * (size_t)reps);
    for (int rep = -1; rep < reps; rep++)
        for (int c = 0; c < 2; c++) {
            double t = urgent_latency(&rig, cases[c].urgent);
            if (rep >= 0)
                ms[c * reps + rep] = t;
        }
    struct stats latency[2];
    for (int c = 0; c < 2; c++) {
        latency[c] = stats_summarize(ms + c * reps, (size_t)reps);
        printf("  %-30s %8.3f ms (min %.3f, max %.3f)\n", cases[c].label, latency[c].median,
               latency[c].min, latency[c].max);
    }
    printf("\n");
    for (int c = 0; c < 2; c++)
        exercise_record(csv, 3, cases[c].key, cases[c].what, latency[c].median, "ms",
                        (struct csv_row){.reps = reps, .ms = latency[c],
                                         .params = "clock=gpu_event"});
    printf("\nverified: every block of the filler and the urgent kernel ran its full time\n");

    free(ms);
    priority_rig_destroy(&rig);
}
