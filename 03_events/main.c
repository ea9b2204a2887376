/*
 * 03_events - markers in a stream: for timing, for letting the CPU work while the GPU does, and
 * for making one stream wait for another without stopping the CPU.
 *
 * Lecture section 3.3. An event is recorded into a stream and "happens" when the GPU reaches it.
 *
 *   1. timing: the host clock around asynchronous calls measures only how long they took to
 *      issue; events recorded in the stream around them measure the GPU's work.
 *   2. the CPU works while the GPU does: it polls cudaEventQuery and does its own work between
 *      polls, instead of stopping in a wait.
 *   3. one stream waits for another: a consumer stream waits for a producer stream's event with
 *      cudaStreamWaitEvent, and the host never waits. Without the wait, the result is wrong.
 *
 * The work is lesson 01's c = a + b, issued asynchronously in one stream (work.c). Every copy is
 * from pinned memory (cudaMallocHost), because only those are asynchronous (lesson 02 showed it;
 * lesson 04 explains it). Streams are non-blocking.
 *
 * `--deep PARTS` then runs DEEP.md's parts (resolution.c, waits.c, event_cost.c); `--exercise N`
 * runs exercise N of README.md instead (exercises*.c).
 */
#include "common.h"
#include "events.h"
#include "kernels.h"

static const char summary[] =
    "Events, measured: the host clock against events around asynchronous work, the CPU working\n"
    "while it polls cudaEventQuery, and one stream waiting for another's event with\n"
    "cudaStreamWaitEvent (and the race without it). --deep adds the events' resolution, every\n"
    "way to wait, and what passing work between streams through events costs.";

static void record(struct csv *csv, const char *experiment, const char *variant, size_t bytes,
                   int reps, struct stats ms, const char *params)
{
    csv_record(csv, &(struct csv_row){.experiment = experiment, .variant = variant, .bytes = bytes,
                                      .reps = reps, .ms = ms, .params = params});
}

/* 1. The same work seen by the host clock around the calls, by events around it in the stream,
 * and by the host clock around the calls and a wait for the last event. */
static void events_or_host_clock(const struct work *w, int reps, struct csv *csv)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double *issue = samples_or_exit((size_t)reps), *events = samples_or_exit((size_t)reps);
    double *synced = samples_or_exit((size_t)reps);
    for (int rep = -1; rep < reps; rep++) { /* rep -1: an untimed warm-up */
        poison_output(w);
        double t0 = host_ms();
        CUDA_CHECK(cudaEventRecord(start, w->stream));
        enqueue_work(w); /* two copies in, the add, one copy out: all return at once */
        CUDA_CHECK(cudaEventRecord(stop, w->stream));
        double t_issued = host_ms();
        CUDA_CHECK(cudaEventSynchronize(stop)); /* the CPU waits until the GPU passes stop */
        double t_done = host_ms();
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop)); /* the GPU's time, start to stop */
        verify_work(w);
        if (rep >= 0) {
            issue[rep] = t_issued - t0;
            events[rep] = ms;
            synced[rep] = t_done - t0;
        }
    }
    struct stats s[3] = {stats_summarize(issue, (size_t)reps),
                         stats_summarize(events, (size_t)reps),
                         stats_summarize(synced, (size_t)reps)};
    char size[32];
    printf("\n1. copy in, add, copy out (%s per vector) in one stream, median of %d\n"
           "  host clock around the calls          %9.3f ms   (only the enqueue)\n"
           "  events around the work               %9.3f ms   (the GPU's time)\n"
           "  host clock around calls + sync       %9.3f ms   (GPU time + wake-up)\n",
           format_bytes(w->n * sizeof(float), size, sizeof size), reps, s[0].median,
           s[1].median, s[2].median);
    size_t bytes = 3 * w->n * sizeof(float);
    record(csv, "timing", "host_clock_enqueue", bytes, reps, s[0], "clock=host");
    record(csv, "timing", "events", bytes, reps, s[1], "clock=gpu_event");
    record(csv, "timing", "host_clock_synchronized", bytes, reps, s[2], "clock=host");
    free(issue);
    free(events);
    free(synced);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
}

/* 2. The same work again; meanwhile the CPU asks the event whether the GPU is done, and works on
 * its own between the questions. Returns the wait's statistics, for `--deep waits`. */
static struct wait_stats cpu_works_meanwhile(const struct work *w, int reps, struct csv *csv)
{
    cudaEvent_t done; /* it only says "done": no timestamp needed */
    CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    double *wall = samples_or_exit((size_t)reps), *cpu = samples_or_exit((size_t)reps);
    double *units = samples_or_exit((size_t)reps);
    double sink = 0; /* the CPU's results, printed, so that its work is not optimised away */
    for (int rep = -1; rep < reps; rep++) {
        poison_output(w);
        double t0 = host_ms(), cpu0 = thread_cpu_ms(), done_units = 0;
        enqueue_work(w);
        CUDA_CHECK(cudaEventRecord(done, w->stream));
        cudaError_t state;
        /* cudaErrorNotReady is not an error here: it means "not yet". */
        while ((state = cudaEventQuery(done)) == cudaErrorNotReady) {
            sink += cpu_work_unit(1);
            done_units++;
        }
        CUDA_CHECK(state);
        if (rep >= 0) {
            wall[rep] = host_ms() - t0;
            cpu[rep] = thread_cpu_ms() - cpu0;
            units[rep] = done_units;
        }
        verify_work(w);
    }
    struct wait_stats s = wait_stats_of(wall, cpu, units, reps);
    printf("\n2. the same work; meanwhile the CPU polls cudaEventQuery and works between polls,\n"
           "   median of %d\n  the wait took %.3f ms (host clock), and the CPU did %.0f units of "
           "its own work in it\n  (CPU time %.3f ms; a unit: a sum of squares over 16 Ki floats; "
           "checksum %.3g)\n", reps, s.wall.median, s.units.median, s.cpu.median, sink);
    wait_record(csv, w, reps, POLL_QUERY, &s);
    free(wall);
    free(cpu);
    free(units);
    CUDA_CHECK(cudaEventDestroy(done));
    return s;
}

/* 3. One run of the producer and the consumer: the producer stream takes a while (a 2 ms kernel,
 * standing in for real work), then writes x = a + b; the consumer stream computes y = x + a and
 * copies it back. Returns the wrong elements of y, and how long the host took to issue it all. */
static size_t produce_consume(const struct work *w, const struct cross *c, bool wait,
                              double *issue_ms)
{
    cross_reset(w, c);
    double t0 = host_ms();
    CUDA_CHECK(launch_spin(2000 * 1000, 1, 32, NULL, c->producer));
    CUDA_CHECK(launch_vector_add(w->d_a, w->d_b, c->d_x, w->n, c->producer));
    CUDA_CHECK(cudaEventRecord(c->x_ready, c->producer)); /* happens once x is written */
    if (wait) /* the consumer's later work waits for x_ready; the call itself returns at once */
        CUDA_CHECK(cudaStreamWaitEvent(c->consumer, c->x_ready, 0));
    CUDA_CHECK(launch_vector_add(c->d_x, w->d_a, c->d_y, w->n, c->consumer));
    CUDA_CHECK(cudaMemcpyAsync(w->h_c, c->d_y, w->n * sizeof(float), cudaMemcpyDeviceToHost,
                               c->consumer));
    *issue_ms = host_ms() - t0;
    CUDA_CHECK(cudaDeviceSynchronize());
    return cross_wrong(w);
}

/* 3. With the wait, in every run; without it, the race, run by run in turns with it. */
static void one_stream_waits_for_another(const struct work *w, int reps, struct csv *csv)
{
    struct cross c;
    cross_create(&c, w);
    double *issue = samples_or_exit((size_t)reps), *racy_issue = samples_or_exit((size_t)reps);
    int racy_runs = 0;
    size_t worst = 0;
    for (int rep = 0; rep < reps; rep++) {
        size_t wrong = produce_consume(w, &c, true, &issue[rep]);
        if (wrong) {
            fprintf(stderr, "%s: with cudaStreamWaitEvent, %zu of %zu elements of y are wrong\n",
                    program_name, wrong, w->n);
            exit(EXIT_ERROR);
        }
        wrong = produce_consume(w, &c, false, &racy_issue[rep]);
        racy_runs += wrong > 0;
        worst = wrong > worst ? wrong : worst;
    }
    struct stats s = stats_summarize(issue, (size_t)reps);
    printf("\n3. producer stream: 2 ms of work, then x = a + b; consumer stream: y = x + a\n");
    printf("  with cudaStreamWaitEvent:    y right in %d of %d runs; the host spent %.3f ms "
           "enqueueing and never waited\n", reps, reps, s.median);
    printf("  without it (the race):       y wrong in %d of %d runs (up to %zu of %zu "
           "elements)\n", racy_runs, reps, worst, w->n);
    if (racy_runs == 0)
        printf("  the race went unnoticed this time, which is what makes races dangerous\n");
    size_t bytes = 3 * w->n * sizeof(float);
    record(csv, "cross_stream", "wait_event", bytes, reps, s,
           "clock=host;measure=enqueue;wrong_runs=0");
    char params[64];
    snprintf(params, sizeof params, "clock=host;measure=enqueue;wrong_runs=%d", racy_runs);
    record(csv, "cross_stream", "no_wait", bytes, reps,
           stats_summarize(racy_issue, (size_t)reps), params);
    free(issue);
    free(racy_issue);
    cross_destroy(&c);
}

static const char *const deep_parts[] = {"resolution", "waits", "event-cost"};

int main(int argc, char **argv)
{
    struct common_args args = {.size = 64u << 20, .size_help = "bytes per vector",
                               .size_multiple = sizeof(float), .reps = 20};
    struct gpu_info gpu;
    struct csv csv;
    int exercise = 0;
    const char *deep = NULL;
    const struct opt extra[] = {EXERCISE_OPTION(&exercise, EXERCISES),
                                DEEP_OPTION(&deep, DEEP_PARTS)};
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc == CLI_CONTINUE)
        rc = deep_check(deep, deep_parts, sizeof deep_parts / sizeof deep_parts[0]);
    /* a, b, c and the x, y of experiment 3 on the GPU; a, b, c pinned on the host. */
    struct sized size = {"--size", &args.size, cli_given("--size"), 5, 3};
    if (rc != CLI_CONTINUE || (rc = lesson_open("03_events", &args, &size, 1, &gpu, &csv)))
        return rc;

    struct work w = {.n = args.size / sizeof(float)};
    CUDA_CHECK(cudaMallocHost((void **)&w.h_a, args.size));
    CUDA_CHECK(cudaMallocHost((void **)&w.h_b, args.size));
    CUDA_CHECK(cudaMallocHost((void **)&w.h_c, args.size));
    CUDA_CHECK(cudaMalloc((void **)&w.d_a, args.size));
    CUDA_CHECK(cudaMalloc((void **)&w.d_b, args.size));
    CUDA_CHECK(cudaMalloc((void **)&w.d_c, args.size));
    CUDA_CHECK(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
    fill_random(w.h_a, w.n, 1);
    fill_random(w.h_b, w.n, 2);

    const char *verified = "every result of every timed run (the racy runs are shown, not counted)";
    if (exercise) {
        verified = run_exercise(exercise, &w, args.reps, &csv);
    } else {
        events_or_host_clock(&w, args.reps, &csv);
        struct wait_stats poll = cpu_works_meanwhile(&w, args.reps, &csv);
        one_stream_waits_for_another(&w, args.reps, &csv);
        if (deep_wants(deep, "resolution"))
            deep_resolution(&w, &csv);
        if (deep_wants(deep, "waits"))
            deep_waits(&w, args.reps, &poll, &csv);
        if (deep_wants(deep, "event-cost"))
            deep_event_cost(args.reps, &csv);
    }

    CUDA_CHECK(cudaStreamDestroy(w.stream));
    CUDA_CHECK(cudaFree(w.d_a));
    CUDA_CHECK(cudaFree(w.d_b));
    CUDA_CHECK(cudaFree(w.d_c));
    CUDA_CHECK(cudaFreeHost(w.h_a));
    CUDA_CHECK(cudaFreeHost(w.h_b));
    CUDA_CHECK(cudaFreeHost(w.h_c));
    if (lesson_close(&csv))
        return EXIT_ERROR;
    printf("\nverified: %s\n", verified);
    return EXIT_VERIFIED;
}
