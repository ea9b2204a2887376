/*
 * exercises.c - `--exercise N`: the exercises of README.md, each the lesson's own experiment with
 * the one change it asks for, ending with the figures of its answer.
 *
 *   1. experiment 2 with a CPU work unit ten times longer (exercises_polling.c)
 *   2. experiment 2's waits, and one in cudaStreamSynchronize, in turns under the default flags
 *      and cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) (exercises_flags.c)
 *   3. experiment 3 fixed on the host, cudaStreamSynchronize(producer), against the lesson's
 *      cudaStreamWaitEvent: whether y is right with each, and the host's enqueue time (here)
 */
#include "events.h"
#include "kernels.h"

struct csv_row exercise_measured(size_t bytes, int reps, struct stats ms, const char *clock)
{
    return (struct csv_row){.bytes = bytes, .reps = reps, .ms = ms, .params = clock};
}

/* Experiment 3's run as main.c issues it, with the change the exercise asks for: the consumer
 * ordered after the producer by the host, cudaStreamSynchronize(producer), when `host_waits`, or
 * by the GPU, cudaStreamWaitEvent, as in the lesson. Returns the wrong elements of y. */
static size_t produce_consume(const struct work *w, const struct cross *c, bool host_waits,
                              double *issue_ms)
{
    cross_reset(w, c);
    double t0 = host_ms();
    CUDA_CHECK(launch_spin(2000 * 1000, 1, 32, NULL, c->producer));
    CUDA_CHECK(launch_vector_add(w->d_a, w->d_b, c->d_x, w->n, c->producer));
    CUDA_CHECK(cudaEventRecord(c->x_ready, c->producer));
    if (host_waits) /* the exercise's fix: the host waits for the producer's stream */
        CUDA_CHECK(cudaStreamSynchronize(c->producer));
    else
        CUDA_CHECK(cudaStreamWaitEvent(c->consumer, c->x_ready, 0));
    CUDA_CHECK(launch_vector_add(c->d_x, w->d_a, c->d_y, w->n, c->consumer));
    CUDA_CHECK(cudaMemcpyAsync(w->h_c, c->d_y, w->n * sizeof(float), cudaMemcpyDeviceToHost,
                               c->consumer));
    *issue_ms = host_ms() - t0;
    CUDA_CHECK(cudaDeviceSynchronize());
    return cross_wrong(w);
}

static void print_fixes(struct stats gpu, struct stats host, struct stats times, int reps)
{
    printf("producer stream: 2 ms of work, then x = a + b; consumer stream: y = x + a\n"
           "  %-36s %12s\n", "how the consumer waits for x", "enqueue ms");
    printf("  %-36s %12.3f\n", "cudaStreamWaitEvent (the GPU waits)", gpu.median);
    printf("  %-36s %12.3f\n", "cudaStreamSynchronize(producer)", host.median);
    printf("  (host clock, median of %d; the ratio run by run: %.0f (%.0f to %.0f))\n", reps,
           times.median, times.min, times.max);
    /* A wrong y ends the program before this, so reaching here is the verdict, not a figure. */
    printf("both fixes: y right in %d of %d runs each\n\n", reps, reps);
}

static void host_sync_fix(const struct work *w, int reps, struct csv *csv)
{
    exercise_begin(csv, 3, EXERCISES, "experiment 3 fixed with cudaStreamSynchronize(producer) on "
                   "the host instead of cudaStreamWaitEvent");
    struct cross c;
    cross_create(&c, w);
    double *on_gpu = samples_or_exit((size_t)reps), *on_host = samples_or_exit((size_t)reps);
    double *ratio = samples_or_exit((size_t)reps);
    /* The two fixes in turns, run by run, after one untimed run of each. */
    for (int rep = -1; rep < reps; rep++) {
        double event_ms, sync_ms;
        size_t wrong_gpu = produce_consume(w, &c, false, &event_ms);
        size_t wrong_host = produce_consume(w, &c, true, &sync_ms);
        if (wrong_gpu || wrong_host) {
            fprintf(stderr, "%s: %zu of %zu elements of y are wrong with %s\n", program_name,
                    wrong_gpu ? wrong_gpu : wrong_host, w->n,
                    wrong_gpu ? "cudaStreamWaitEvent" : "cudaStreamSynchronize(producer)");
            exit(EXIT_ERROR);
        }
        if (rep >= 0) {
            on_gpu[rep] = event_ms;
            on_host[rep] = sync_ms;
            ratio[rep] = sync_ms / event_ms;
        }
    }
    struct stats gpu = stats_summarize(on_gpu, (size_t)reps);
    struct stats host = stats_summarize(on_host, (size_t)reps);
    struct stats times = stats_summarize(ratio, (size_t)reps);
    print_fixes(gpu, host, times, reps);
    size_t bytes = 3 * w->n * sizeof(float);
    exercise_record(csv, 3, "enqueue_ms_host_sync", "host's enqueue time, cudaStreamSynchronize",
                    host.median, "ms", exercise_measured(bytes, reps, host, "clock=host"));
    exercise_record(csv, 3, "enqueue_ms_wait_event", "host's enqueue time, cudaStreamWaitEvent",
                    gpu.median, "ms", exercise_measured(bytes, reps, gpu, "clock=host"));
    exercise_record(csv, 3, "enqueue_ratio", "the host sync's enqueue time over the event "
                    "wait's, run by run", times.median, "times",
                    exercise_measured(bytes, reps, host, "clock=host"));
    free(on_gpu);
    free(on_host);
    free(ratio);
    cross_destroy(&c);
}

const char *run_exercise(int n, const struct work *w, int reps, struct csv *csv)
{
    switch (n) {
    case 1:
        exercise_longer_unit(w, reps, csv);
        return "every result of every timed run of experiment 2, both unit sizes";
    case 2:
        exercise_blocking_sync_device(w, reps, csv);
        return "every result of every timed run of experiment 2, under both flags";
    default:
        host_sync_fix(w, reps, csv);
        return "every result of both fixes, in every run";
    }
}
