/*
 * exercises.c - README.md's exercises 1 and 2 of lesson 01, and what every exercise's run opens
 * and closes. main.c runs part 1 as each asks (exercise 1 at three sizes, exercise 2 with and
 * without the cudaDeviceSynchronize after the launch, in turns); the functions here print the
 * figures each answer quotes, each beside the shipped reference's (exercise_record(),
 * common/exercise.c). Exercise 3 is exercises_cpu_load.c.
 *
 *   1  part 1 at --size / 16, --size and --size x 16: the copies' share of the time
 *   2  part 1 with and without the cudaDeviceSynchronize after the launch, in turns
 *   3  the sweep's copies, pageable and pinned, in passes on idle CPUs and with every CPU busy,
 *      in turns
 */
#include "common.h"
#include "sync_copy.h"

enum { SIZE_FACTOR = 16 }; /* exercise 1: --size divided and multiplied by it */
/* Exercise 3's sweep where --sweep-max is not given: its largest copies take milliseconds, and
 * its pairs of passes, every copy checked, a few seconds. */
#define EXERCISE_SWEEP_MAX ((size_t)64 << 20)

/* The median, min and max over the repetitions of one figure of each. */
static struct stats over_reps(const struct phase_times *times, int reps,
                              double (*figure)(const struct phase_times *))
{
    double *samples = samples_or_exit((size_t)reps);
    for (int rep = 0; rep < reps; rep++)
        samples[rep] = figure(&times[rep]);
    struct stats each = stats_summarize(samples, (size_t)reps);
    free(samples);
    return each;
}

/* ------------------------------------------------------------------------------------------ *
 * Exercise 1: does the copies' share of the time change with the size?
 * ------------------------------------------------------------------------------------------ */

static double gpu_total(const struct phase_times *t) { return t->gpu_ms[PHASE_TOTAL]; }
static double host_total(const struct phase_times *t) { return t->host_ms[PHASE_TOTAL]; }

static double gpu_copy_share(const struct phase_times *t)
{
    return 100 * (t->gpu_ms[PHASE_H2D] + t->gpu_ms[PHASE_D2H]) / t->gpu_ms[PHASE_TOTAL];
}

static double host_copy_share(const struct phase_times *t)
{
    return 100 * (t->host_ms[PHASE_H2D] + t->host_ms[PHASE_D2H]) / t->host_ms[PHASE_TOTAL];
}

void share_sizes(const struct common_args *args, size_t bytes[SHARE_SIZES],
                 int reps[SHARE_SIZES])
{
    enum { LEAST_REPS = 3 };
    size_t smallest = args->size / SIZE_FACTOR / sizeof(float) * sizeof(float);
    bytes[0] = smallest ? smallest : sizeof(float);
    bytes[1] = args->size;
    bytes[2] = args->size * SIZE_FACTOR;
    /* A repetition of the largest size copies SIZE_FACTOR times --size's bytes, and its copies
     * last long enough (hundreds of ms at 1 GiB) to average the link's wander out within each:
     * --reps / SIZE_FACTOR repetitions there copy as many bytes as --reps do at --size, and at
     * least LEAST_REPS (where --reps allows) still give a median and a spread. */
    int large_reps = (args->reps + SIZE_FACTOR - 1) / SIZE_FACTOR;
    if (large_reps < LEAST_REPS)
        large_reps = args->reps < LEAST_REPS ? args->reps : LEAST_REPS;
    reps[0] = reps[1] = args->reps;
    reps[2] = large_reps;
}

void copy_shares(const size_t bytes[SHARE_SIZES], const int reps[SHARE_SIZES],
                 struct phase_times *times[SHARE_SIZES], struct csv *csv)
{
    enum { SIZES = SHARE_SIZES };
    static const char *const names[SIZES] = {"small", "medium", "large"};
    struct stats share[SIZES][2], total[SIZES][2];
    for (int i = 0; i < SIZES; i++) {
        share[i][0] = over_reps(times[i], reps[i], gpu_copy_share);
        share[i][1] = over_reps(times[i], reps[i], host_copy_share);
        total[i][0] = over_reps(times[i], reps[i], gpu_total);
        total[i][1] = over_reps(times[i], reps[i], host_total);
        free(times[i]);
    }

    printf("\nThe copies' share of part 1, (H2D + D2H) / total, repetition by repetition: "
           "median [min-max]\n  %10s %5s %28s %28s\n", "per vector", "reps",
           "of the GPU time (events)", "of the CPU blocked time");
    char size_text[SIZES][32];
    for (int i = 0; i < SIZES; i++) {
        format_bytes(bytes[i], size_text[i], sizeof size_text[i]);
        printf("  %10s %5d %9.2f%% [%6.2f-%6.2f%%] %9.2f%% [%6.2f-%6.2f%%]\n", size_text[i],
               reps[i], share[i][0].median, share[i][0].min, share[i][0].max, share[i][1].median,
               share[i][1].min, share[i][1].max);
    }
    printf("\n");
    static const char *const clocks[2][3] = {
        {"gpu", "GPU time (events)", "clock=gpu_event"},
        {"cpu", "CPU blocked time (host clock)", "clock=host"},
    };
    for (int clock = 0; clock < 2; clock++)
        for (int i = 0; i < SIZES; i++) {
            char key[64], what[128];
            snprintf(key, sizeof key, "copy_share_%s_%s", clocks[clock][0], names[i]);
            snprintf(what, sizeof what, "the copies' share of the %s at %s per vector",
                     clocks[clock][1], size_text[i]);
            exercise_record(csv, 1, key, what, share[i][clock].median, "%",
                            (struct csv_row){.bytes = 3 * bytes[i], .reps = reps[i],
                                             .ms = total[i][clock], .params = clocks[clock][2]});
        }
}

/* ------------------------------------------------------------------------------------------ *
 * Exercise 2: no cudaDeviceSynchronize after the launch.
 * ------------------------------------------------------------------------------------------ */

/* One phase's CPU blocked time each way, and taken repetition by repetition, without less with. */
struct phase_change {
    struct stats way[N_WAYS], change;
};

static struct phase_change phase_change(struct phase_times *times[N_WAYS], int reps, int phase)
{
    struct phase_change c;
    double *samples = samples_or_exit((size_t)reps);
    for (int w = 0; w < N_WAYS; w++) {
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = times[w][rep].host_ms[phase];
        c.way[w] = stats_summarize(samples, (size_t)reps);
    }
    for (int rep = 0; rep < reps; rep++)
        samples[rep] = times[WITHOUT_SYNC][rep].host_ms[phase] -
                       times[WITH_SYNC][rep].host_ms[phase];
    c.change = stats_summarize(samples, (size_t)reps);
    free(samples);
    return c;
}

/* Without the synchronize, the event that ends the kernel phase is recorded just before the D2H
 * call, so the GPU's D2H interval runs from the kernel's end to the copy's, and the call's
 * interval on the host from the call to its return: the call held the CPU this much longer, the
 * time it waited for the kernel. (With the synchronize, that event is stamped before the
 * synchronize returns, before the call: there the two intervals do not start together.) */
static double d2h_wait_for_kernel(const struct phase_times *t)
{
    return t->host_ms[PHASE_D2H] - t->gpu_ms[PHASE_D2H];
}

static double kernel_on_gpu(const struct phase_times *t) { return t->gpu_ms[PHASE_KERNEL]; }

void no_wait_for_kernel(size_t bytes, int reps, struct phase_times *times[N_WAYS],
                        struct csv *csv)
{
    const struct phase_change kernel = phase_change(times, reps, PHASE_KERNEL),
                              d2h = phase_change(times, reps, PHASE_D2H),
                              total = phase_change(times, reps, PHASE_TOTAL);
    struct stats wait = over_reps(times[WITHOUT_SYNC], reps, d2h_wait_for_kernel),
                 kernel_gpu = over_reps(times[WITHOUT_SYNC], reps, kernel_on_gpu);

    char size_text[32];
    printf("\nPart 1 (%s per vector) with the cudaDeviceSynchronize() after the launch and without "
           "it,\nin turns, %d repetitions of each. CPU blocked (host clock), ms: median; and "
           "without less\nwith, repetition by repetition: median [min-max]\n",
           format_bytes(bytes, size_text, sizeof size_text), reps);
    printf("  %-30s %9s %9s %s\n", "phase", "with it", "without", "without - with");
    const struct {
        const char *label;
        const struct phase_change *c;
    } rows[] = {{"kernel (the launch, any wait)", &kernel}, {"d2h (the cudaMemcpy)", &d2h},
                {"total", &total}};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        printf("  %-30s %9.4f %9.4f %9.4f [%8.4f to %8.4f]\n", rows[r].label,
               rows[r].c->way[WITH_SYNC].median, rows[r].c->way[WITHOUT_SYNC].median,
               rows[r].c->change.median, rows[r].c->change.min, rows[r].c->change.max);
    printf("Without it: the kernel phase on the GPU (events) %.4f ms [%.4f-%.4f]; the D2H call's "
           "wait\nfor the kernel, its CPU blocked time less its GPU time from the kernel's end: "
           "%.4f ms [%.4f to %.4f]\n\n", kernel_gpu.median, kernel_gpu.min, kernel_gpu.max,
           wait.median, wait.min, wait.max);

    const struct csv_row kernel_run = {.bytes = 3 * bytes, .reps = reps,
                                       .ms = kernel.way[WITHOUT_SYNC], .params = "clock=host"};
    const struct csv_row d2h_run = {.direction = "D2H", .bytes = bytes, .reps = reps,
                                    .ms = d2h.way[WITHOUT_SYNC], .params = "clock=host"};
    exercise_record(csv, 2, "kernel_blocked_change_ms", "the kernel phase's CPU blocked time, "
                    "without the synchronize less with it", kernel.change.median, "ms",
                    kernel_run);
    exercise_record(csv, 2, "d2h_blocked_change_ms", "the D2H phase's CPU blocked time, without "
                    "the synchronize less with it", d2h.change.median, "ms", d2h_run);
    struct csv_row wait_run = d2h_run;
    wait_run.params = "clock=host;minus=gpu_event";
    exercise_record(csv, 2, "d2h_wait_for_kernel_ms", "without the synchronize, the D2H call's "
                    "wait for the kernel", wait.median, "ms", wait_run);
    exercise_record(csv, 2, "kernel_gpu_ms", "without the synchronize, the kernel phase on the GPU "
                    "(events)", kernel_gpu.median, "ms",
                    (struct csv_row){.bytes = 3 * bytes, .reps = reps, .ms = kernel_gpu,
                                     .params = "clock=gpu_event"});
    free(times[WITH_SYNC]);
    free(times[WITHOUT_SYNC]);
}

/* ------------------------------------------------------------------------------------------ */

static const char *const asks[EXERCISES] = {
    "part 1 at --size / 16, --size and --size x 16: does the copies' share of the time change?",
    "part 1 without the cudaDeviceSynchronize() after the launch: which phase waits instead?",
    "the sweep's copies, pageable and pinned, on idle CPUs and while every CPU is busy: which "
    "slow down?",
};

int exercise_open(int n, struct common_args *args, size_t *sweep_max, struct gpu_info *gpu,
                  struct csv *csv)
{
    /* What each holds at once: three vectors a side (exercise 1: of its largest size), or the
     * device buffer, and a source and a destination on the host, pageable and pinned. */
    struct sized part1 = {"--size", &args->size, cli_given("--size"), 3, 3};
    if (n == 1)
        part1.on_gpu = part1.on_host = 3 * SIZE_FACTOR;
    if (n == 3 && !cli_given("--sweep-max"))
        *sweep_max = EXERCISE_SWEEP_MAX;
    struct sized sweep = {"--sweep-max", sweep_max, cli_given("--sweep-max"), 1, 4};
    int rc = lesson_open(LESSON, args, n == 3 ? &sweep : &part1, 1, gpu, csv);
    if (rc == 0)
        exercise_begin(csv, n, EXERCISES, asks[n - 1]);
    return rc;
}

int exercise_close(int n, struct csv *csv)
{
    static const char *const verified[EXERCISES] = {
        "every element of c = a + b in every repetition, at each of the three sizes",
        "every element of c = a + b in every repetition, with the synchronize and without it",
        "every size's round trip, from pageable and from pinned memory, in every pass",
    };
    if (lesson_close(csv))
        return EXIT_ERROR;
    printf("\nverified: %s\n", verified[n - 1]);
    return EXIT_VERIFIED;
}
