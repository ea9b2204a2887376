/*
 * exercises.c - the exercises of README.md, each run by `--exercise N` in place of the lesson:
 *
 *   1  exercises_stale_read.c  the lecture's transfer manager, one event shared by every stream
 *   2  exercises_one_label.c   one cleanup label in place of the ladder, every acquisition made
 *                              to fail in turn, with and without destroy functions that check
 *                              for a zeroed handle
 *   3  this file               the demo with its asynchronous half timed by events (cuda_event,
 *                              resources.c), and the acquisitions --fail-at now walks through
 */
#include "exercises.h"

#include "fault.h"

/* demo_goto.c's acquisitions, in its order, undoing nothing on failure: what was acquired stays
 * in *r (zeroed at first) for release_all(), which takes a half-built set as it takes a whole
 * one. Returns whether everything was acquired. */
bool acquire_all(struct async_resources *r, size_t bytes, enum transfer_events events)
{
    return !pinned_buffer_create(&r->h_a, bytes) && !pinned_buffer_create(&r->h_b, bytes) &&
           !pinned_buffer_create(&r->h_c, bytes) && !device_buffer_create(&r->d_a, bytes) &&
           !device_buffer_create(&r->d_b, bytes) && !device_buffer_create(&r->d_c, bytes) &&
           !cuda_stream_create(&r->s1, cudaStreamNonBlocking) &&
           !cuda_stream_create(&r->s2, cudaStreamNonBlocking) &&
           !transfer_manager_create(&r->tm, 2, events);
}

/* The one cleanup label's work: every destroy function accepts a zeroed handle, so this can
 * destroy everything, whatever was acquired. */
void release_all(struct async_resources *r)
{
    /* After an error, copies may still be in flight: let them finish before their buffers go. */
    CUDA_REPORT(cudaDeviceSynchronize());
    transfer_manager_destroy(&r->tm);
    cuda_stream_destroy(&r->s2);
    cuda_stream_destroy(&r->s1);
    device_buffer_destroy(&r->d_c);
    device_buffer_destroy(&r->d_b);
    device_buffer_destroy(&r->d_a);
    pinned_buffer_destroy(&r->h_c);
    pinned_buffer_destroy(&r->h_b);
    pinned_buffer_destroy(&r->h_a);
}



static int exercise_3(const struct demo_config *lesson, struct csv *csv)
{
    struct demo_config cfg = *lesson;
    cfg.time_with_events = true;
    const size_t reps = (size_t)cfg.reps;
    double *storage = samples_alloc(5 * reps);
    if (!storage)
        return EXIT_ERROR;
    struct demo_samples s = {.sync_total = storage, .async_total = storage + reps,
                             .cpu_work = storage + 2 * reps, .waiting = storage + 3 * reps,
                             .gpu_span = storage + 4 * reps};
    int rc = run_sync_baseline(&cfg, &s);
    if (rc == EXIT_VERIFIED)
        rc = run_async_demo(&cfg, &s);
    if (rc != EXIT_VERIFIED) {
        free(storage);
        return rc;
    }
    struct stats sync = stats_summarize(s.sync_total, reps);
    struct stats total = stats_summarize(s.async_total, reps);
    struct stats span = stats_summarize(s.gpu_span, reps);
    free(storage);

    char size_text[32];
    printf("c = a + b, %s per vector, median of %d\n",
           format_bytes(cfg.n * sizeof(float), size_text, sizeof size_text), cfg.reps);
    printf("  %-58s %9.3f ms\n", "synchronous, host clock", sync.median);
    printf("  %-58s %9.3f ms\n", "asynchronous, host clock, CPU work included", total.median);
    printf("  %-58s %9.3f ms\n", "asynchronous, GPU clock (events), first copy to c's arrival",
           span.median);
    printf("    (the host issues the kernel after its first %.0f ms of CPU work)\n",
           cfg.cpu_work_ms[0]);
    printf("  %-58s %9d\n", "acquisitions of the asynchronous half, its 2 events included",
           s.async_held);
    printf("  %-58s %9lu\n\n", "acquisitions of the whole run, which --fail-at walks",
           fault_acquisitions());

    struct csv_row timed = {.direction = "both", .bytes = 3 * cfg.n * sizeof(float),
                            .reps = cfg.reps, .ms = span, .params = "clock=gpu_event"};
    struct csv_row counted = timed;
    counted.params = "clock=none";
    if (exercise_answer(csv, 3, "async_event_ms", "the asynchronous half on the GPU's clock "
                        "(events), first copy to c's arrival", span.median, "ms", timed) ||
        exercise_answer(csv, 3, "acquisitions", "acquisitions of the whole run, which "
                        "--fail-at walks", (double)fault_acquisitions(), "acquisitions", counted))
        return EXIT_ERROR;
    printf("verified: c = a + b in every run, synchronous and asynchronous\n");
    return EXIT_VERIFIED;
}

bool exercise_flags_usable(int n)
{
    if (n == 2 && cli_given("--fail-at")) {
        fprintf(stderr, "%s: --exercise 2 makes every acquisition fail in turn itself: leave "
                "--fail-at out\n", program_name);
        return false;
    }
    return true;
}

int run_exercise(int n, const struct demo_config *cfg, struct csv *csv)
{
    static const char *const asks[EXERCISE_COUNT] = {
        "give the transfer manager one shared event, as the lecture does; copy c down in s1, "
        "then something up in s2; transfer_wait_all, read c: does verification catch it? every "
        "time?",
        "one label, out_release_all, in place of the goto ladder, every acquisition made to fail "
        "in turn; what if a destroy function did not accept a zeroed handle?",
        "a cuda_event module, timing the asynchronous half with events: how many acquisitions "
        "does --fail-at walk through now?",
    };
    static int (*const exercises[EXERCISE_COUNT])(const struct demo_config *, struct csv *) = {
        exercise_1, exercise_2, exercise_3,
    };
    exercise_begin(csv, n, EXERCISE_COUNT, asks[n - 1]);
    return exercises[n - 1](cfg, csv);
}
