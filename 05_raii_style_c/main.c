/*
 * 05_raii_style_c - RAII's guarantees in C, proven by fault injection.
 *
 * Lecture sections 5 and 6. The lecture wraps streams, pinned memory and transfers in C++ classes
 * whose destructors release them, then runs a demo: c = a + b synchronously, then asynchronously
 * while the CPU works (two sleeps of 50 and 70 ms). C has no destructors; this lesson keeps their
 * promises by hand. Read it in this order:
 *
 *   main.c               this file: the demo's two halves, and the count of what is still live
 *   resources.c          a stream, a pinned buffer, a device buffer, an event: create, destroy,
 *                        move, each acquisition through ACQUIRE() so that --fail-at N can fail it
 *   transfer_manager.c   the lecture's AsyncTransferManager, with one event per stream
 *   demo_goto.c          the asynchronous half: a goto ladder whose labels name what they undo
 *
 * The deep layer (DEEP.md): demo_scoped.c, the synchronous half with __attribute__((cleanup));
 * scoped_faults.c (--deep scoped), which makes each of its acquisitions fail in turn;
 * sticky_error.c (--sticky-error 1), lecture 7.3's fault in a kernel, which the process cannot
 * survive. exercises*.c: --exercise N.
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

static const char *const deep_parts[] = {"scoped"};
enum { DEEP_PARTS = sizeof deep_parts / sizeof deep_parts[0] };

/* The demo: each half acquires what it needs, runs, verifies c and releases everything, on the
 * way out of its function whatever happened inside. Nothing here ends the program early. */
static int run(const struct demo_config *cfg, struct csv *csv)
{
    const size_t reps = (size_t)cfg->reps;
    double *storage = samples_alloc(4 * reps);
    if (!storage)
        return EXIT_ERROR;
    struct demo_samples samples = {.sync_total = storage, .async_total = storage + reps,
                                   .cpu_work = storage + 2 * reps, .waiting = storage + 3 * reps};
    int rc = run_sync_baseline(cfg, &samples); /* demo_scoped.c: cudaMemcpy, the CPU waits */
    if (rc == EXIT_VERIFIED)
        rc = run_async_demo(cfg, &samples); /* demo_goto.c: cudaMemcpyAsync, the CPU works */
    if (rc == EXIT_VERIFIED)
        rc = demo_report(cfg, &samples, csv);
    free(storage);
    return rc;
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 256u << 20, .size_help = "bytes per vector",
                               .size_multiple = sizeof(float), .reps = 5};
    int fail_at = 0, sticky = 0, exercise = 0;
    const char *deep = NULL;
    const struct opt extra[] = {
        FAIL_AT_OPTION(&fail_at),
        EXERCISE_OPTION(&exercise, EXERCISE_COUNT),
        DEEP_OPTION(&deep, "scoped"),
        {"--sticky-error", OPT_INT, &sticky, 0, 1, "0|1",
         "after the demo, make a kernel fault and show the return codes that follow (lecture "
         "7.3); exits 1", 0},
    };
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc != CLI_CONTINUE)
        return rc;
    if ((rc = deep_check(deep, deep_parts, DEEP_PARTS)) != CLI_CONTINUE)
        return rc;
    if (exercise && !exercise_flags_usable(exercise))
        return EXIT_USAGE;
    fault_inject_at((unsigned long)fail_at);

    struct gpu_info gpu;
    struct csv csv;
    /* Each half holds three vectors on the GPU and three pinned on the host, one after the
     * other; so does exercise 1, with 64 KiB more on each side (2 and 3 hold a few MiB at most). */
    struct sized size = {"--size", &args.size, cli_given("--size"), 3, 3};
    if ((rc = lesson_open("05_raii_style_c", &args, &size, 1, &gpu, &csv)) != EXIT_VERIFIED)
        return rc;

    /* The lecture's demo: 50 ms of CPU work while a and b go up, 70 while c comes down. */
    const struct demo_config cfg = {args.size / sizeof(float), args.reps, {50, 70}};
    rc = exercise ? run_exercise(exercise, &cfg, &csv) : run(&cfg, &csv);
    if (rc == EXIT_VERIFIED && !exercise && deep_wants(deep, "scoped"))
        rc = scoped_faults(&csv, (unsigned long)fail_at);
    if (rc == EXIT_VERIFIED && sticky)
        rc = sticky_error_demo();
    if (lesson_close(&csv) && rc == EXIT_VERIFIED)
        rc = EXIT_ERROR;
    /* Every path above released what it acquired: 0 still live, or the program fails. */
    rc = resources_report(rc);
    if (rc == EXIT_VERIFIED && !exercise)
        printf("verified: c = a + b in every run, synchronous and asynchronous\n");
    return rc;
}
