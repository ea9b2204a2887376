/*
 * 05_raii_style_c - RAII's guarantees in C, proven by fault injection.
 *
 * Lecture sections 5 and 6. The lecture wraps streams, pinned memory and transfers in C++ classes
 * whose destructors release them, then runs a demo: c = a + b synchronously, then asynchronously
 * while the CPU works (two sleeps of 50 and 70 ms). This lesson does the same in C:
 *
 *   resources.c          a stream, a pinned buffer and a device buffer: create, destroy, move
 *   transfer_manager.c   the lecture's AsyncTransferManager, tracking each stream's copies
 *   demo_scoped.c        the synchronous half, with __attribute__((cleanup)) scoped handles
 *   demo_goto.c          the asynchronous half, with the portable goto ladder
 *   common/fault.c       --fail-at N: make the Nth acquisition fail, and count live resources
 *   sticky_error.c       --sticky-error 1: lecture 7.3, what a fault in a kernel does to every
 *                        CUDA call after it (the program then ends with 1, as it must)
 *   exercises.c          --exercise N: the README's exercises, run in place of the demo
 *
 * Nothing here ends the program early: every function returns its error and releases what it
 * holds, and main() prints how many resources are still alive at the end. It must be 0 on every
 * path.
 */
#include "common.h"
#include "demo.h"
#include "exercises.h"
#include "fault.h"
#include "sticky_error.h"

static const char summary[] =
    "The lecture's section-6 demo in C with RAII-style resource handling: c = a + b\n"
    "synchronously, then asynchronously while the CPU works (50 + 70 ms). --fail-at N makes\n"
    "the Nth resource acquisition fail, to prove that every error path releases everything.";

static int report(const struct demo_config *cfg, struct demo_samples *s, struct csv *csv)
{
    const size_t bytes = 3 * cfg->n * sizeof(float);
    const size_t reps = (size_t)cfg->reps;
    /* The GPU work the CPU did not wait for: what the synchronous version took, plus the CPU
     * work, minus what the asynchronous version took. */
    struct stats sync = stats_summarize(s->sync_total, reps);
    double *overlapped = samples_alloc(reps);
    if (!overlapped)
        return EXIT_ERROR;
    for (size_t i = 0; i < reps; i++)
        overlapped[i] = sync.median + s->cpu_work[i] - s->async_total[i];
    struct stats async = stats_summarize(s->async_total, reps);
    struct stats cpu = stats_summarize(s->cpu_work, reps);
    struct stats wait = stats_summarize(s->waiting, reps);
    struct stats hidden = stats_summarize(overlapped, reps);
    free(overlapped);

    char size_text[32];
    printf("\nc = a + b, %s per vector, host clock, median of %d\n",
           format_bytes(cfg->n * sizeof(float), size_text, sizeof size_text), cfg->reps);
    printf("  synchronous (the CPU waits throughout)          %9.3f ms\n", sync.median);
    printf("  asynchronous, CPU work included                 %9.3f ms\n", async.median);
    printf("    of which the CPU worked                       %9.3f ms\n", cpu.median);
    printf("    and waited at the end (transfer_wait_all)     %9.3f ms\n", wait.median);
    printf("  GPU work done while the CPU worked              %9.3f ms of %.3f\n", hidden.median,
           sync.median);
    /* The overlap is a difference of measurements, not one, and can come out below zero for
     * small sizes: it is printed, not written as a time. */
    const struct { const char *variant; struct stats ms; } rows[] = {
        {"sync_total", sync}, {"async_total", async}, {"cpu_work", cpu}, {"final_wait", wait},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct csv_row row = {.experiment = "demo", .variant = rows[i].variant, .bytes = bytes,
                              .reps = cfg->reps, .ms = rows[i].ms,
                              .params = "clock=host;cpu_work_ms=50+70"};
        if (csv_write(csv, &row))
            return EXIT_ERROR;
    }
    return EXIT_VERIFIED;
}

static int run(const struct demo_config *cfg, struct csv *csv)
{
    const size_t reps = (size_t)cfg->reps;
    double *storage = samples_alloc(4 * reps);
    if (!storage)
        return EXIT_ERROR;
    struct demo_samples samples = {.sync_total = storage, .async_total = storage + reps,
                                   .cpu_work = storage + 2 * reps, .waiting = storage + 3 * reps};
    int rc = run_sync_baseline(cfg, &samples);
    if (rc == EXIT_VERIFIED)
        rc = run_async_demo(cfg, &samples);
    if (rc == EXIT_VERIFIED)
        rc = report(cfg, &samples, csv);
    free(storage);
    return rc;
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 256u << 20, .size_help = "bytes per vector",
                               .size_multiple = sizeof(float), .reps = 5};
    int fail_at = 0, sticky = 0, exercise = 0;
    const struct opt extra[] = {
        FAIL_AT_OPTION(&fail_at),
        EXERCISE_OPTION(&exercise, EXERCISE_COUNT),
        {"--sticky-error", OPT_INT, &sticky, 0, 1, "0|1",
         "after the demo, make a kernel fault and show the return codes that follow (lecture "
         "7.3); exits 1", 0},
    };
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc != CLI_CONTINUE)
        return rc;
    if (exercise && !exercise_flags_usable(exercise))
        return EXIT_USAGE;
    fault_inject_at((unsigned long)fail_at);

    struct gpu_info gpu;
    struct csv csv;
    /* Each half holds three vectors on the GPU and three pinned on the host, one after the
     * other; so do exercises 1 and 3 (1: 64 KiB more on each side; 2 holds a few KiB). */
    struct sized size = {"--size", &args.size, cli_given("--size"), 3, 3};
    if ((rc = lesson_open("05_raii_style_c", &args, &size, 1, &gpu, &csv)) != EXIT_VERIFIED)
        return rc;

    /* The lecture's demo: 50 ms of CPU work while a and b go up, 70 while c comes down. */
    const struct demo_config cfg = {args.size / sizeof(float), args.reps, {50, 70}, false};
    rc = exercise ? run_exercise(exercise, &cfg, &csv) : run(&cfg, &csv);
    if (rc == EXIT_VERIFIED && sticky)
        rc = sticky_error_demo();
    if (lesson_close(&csv) && rc == EXIT_VERIFIED)
        rc = EXIT_ERROR;
    rc = resources_report(rc);
    if (rc == EXIT_VERIFIED && !exercise)
        printf("verified: c = a + b in every run, synchronous and asynchronous\n");
    return rc;
}
