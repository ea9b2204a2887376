/*
 * 03_events - markers in a stream: for timing, for letting the CPU work while the GPU does, and
 * for making one stream wait for another without stopping the CPU.
 *
 * Lecture section 3.3. An event is recorded into a stream and "happens" when the GPU reaches it.
 * Four measured experiments:
 *
 *   1. timing: the host clock around asynchronous calls measures only how long they took to
 *      enqueue; events measure the GPU's work. Events tick in about half a microsecond, so time
 *      many repetitions of short work.
 *   2. CPU/GPU overlap: poll cudaEventQuery and do CPU work until the GPU is done, versus
 *      cudaEventSynchronize, which spins, or, for a cudaEventBlockingSync event, sleeps.
 *   3. cross-stream dependency: a consumer stream waits for a producer stream's event with
 *      cudaStreamWaitEvent; the host never waits. Without the wait, the result is wrong.
 *   4. cudaEventDisableTiming: events used only to synchronise are cheaper without timestamps.
 *
 * Every copy here is from pinned memory (cudaMallocHost), because only those are asynchronous
 * (lesson 02 showed it; lesson 04 explains it). Streams are non-blocking.
 *
 * `--exercise N` runs exercise N of README.md instead (exercises.c), through the same functions.
 */
#include "common.h"
#include "events.h"
#include "kernels.h"

#include <math.h>
#include <string.h>
#include <time.h>

static const char summary[] =
    "Events, measured: host clock vs event timing and the events' resolution, CPU work while\n"
    "polling cudaEventQuery vs cudaEventSynchronize (spin or blocking sync), cross-stream\n"
    "dependencies with cudaStreamWaitEvent (and the race without it), and the cost of timing.";

/* CPU time this thread has used: a thread spinning in a CUDA call burns it; one asleep does not. */
static double thread_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void enqueue_work(const struct work *w)
{
    size_t bytes = w->n * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(w->d_a, w->h_a, bytes, cudaMemcpyHostToDevice, w->stream));
    CUDA_CHECK(cudaMemcpyAsync(w->d_b, w->h_b, bytes, cudaMemcpyHostToDevice, w->stream));
    CUDA_CHECK(launch_vector_add(w->d_a, w->d_b, w->d_c, w->n, w->stream));
    CUDA_CHECK(cudaMemcpyAsync(w->h_c, w->d_c, bytes, cudaMemcpyDeviceToHost, w->stream));
}

/* Poisons the output, so that verification proves the work just done wrote it. */
static void poison_output(const struct work *w)
{
    CUDA_CHECK(cudaMemsetAsync(w->d_c, 0xff, w->n * sizeof(float), w->stream));
    CUDA_CHECK(cudaStreamSynchronize(w->stream));
    memset(w->h_c, 0xff, w->n * sizeof(float));
}

static void verify_work(const struct work *w)
{
    if (!vector_add_verified(w->h_a, w->h_b, w->h_c, w->n, "copy in, add, copy out"))
        exit(EXIT_ERROR);
}

/* ------------------------------------------------------------------------------------------ *
 * 1. Timing asynchronous work.
 * ------------------------------------------------------------------------------------------ */

/* Two events that bracket work in one stream. */
struct event_pair {
    cudaEvent_t start, stop;
};

/* Waits for the stop event, then returns the milliseconds between the two. */
static double elapsed_ms(const struct event_pair *e)
{
    float ms;
    CUDA_CHECK(cudaEventSynchronize(e->stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, e->start, e->stop));
    return ms;
}

/* 1a. The same work seen by the host clock around the calls, by events, and by the host clock
 * around calls and a synchronisation. */
static void host_clock_or_events(const struct work *w, const struct event_pair *e, int reps,
                                 struct csv *csv)
{
    double *host_enqueue = samples_or_exit((size_t)reps), *events = samples_or_exit((size_t)reps);
    double *host_synced = samples_or_exit((size_t)reps);
    for (int rep = -1; rep < reps; rep++) {
        poison_output(w);
        double t0 = host_ms();
        CUDA_CHECK(cudaEventRecord(e->start, w->stream));
        enqueue_work(w);
        CUDA_CHECK(cudaEventRecord(e->stop, w->stream));
        double t_enqueued = host_ms();
        double ms = elapsed_ms(e);
        double t_done = host_ms();
        verify_work(w);
        if (rep >= 0) {
            host_enqueue[rep] = t_enqueued - t0;
            events[rep] = ms;
            host_synced[rep] = t_done - t0;
        }
    }
    const struct { const char *variant, *label, *note, *clock; struct stats ms; } rows[] = {
        {"host_clock_enqueue", "host clock around the calls", "only the enqueue", "clock=host",
         stats_summarize(host_enqueue, (size_t)reps)},
        {"events", "events around the work", "the GPU's time", "clock=gpu_event",
         stats_summarize(events, (size_t)reps)},
        {"host_clock_synchronized", "host clock around calls + sync", "GPU time + wake-up",
         "clock=host", stats_summarize(host_synced, (size_t)reps)},
    };
    char size_text[32];
    printf("\n1a. copy in, add, copy out (%s per vector) in one stream, median of %d\n",
           format_bytes(w->n * sizeof(float), size_text, sizeof size_text), reps);
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        printf("  %-37s%9.3f ms   (%s)\n", rows[r].label, rows[r].ms.median, rows[r].note);
        csv_record(csv, &(struct csv_row){.experiment = "timing", .variant = rows[r].variant,
                                          .bytes = 3 * w->n * sizeof(float), .reps = reps,
                                          .ms = rows[r].ms, .params = rows[r].clock});
    }
    free(host_enqueue);
    free(events);
    free(host_synced);
}

/* 1b. How finely do events tick? Time nothing, many times, and look at the values. */
static void event_resolution(const struct work *w, const struct event_pair *e, struct csv *csv)
{
    enum { PAIRS = 1000 };
    static double empty[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        CUDA_CHECK(cudaEventRecord(e->start, w->stream));
        CUDA_CHECK(cudaEventRecord(e->stop, w->stream));
        empty[i] = elapsed_ms(e);
    }
    struct stats nothing = stats_summarize(empty, PAIRS); /* sorted now */
    double tick = INFINITY;
    for (int i = 1; i < PAIRS; i++)
        if (empty[i] > empty[i - 1])
            tick = fmin(tick, empty[i] - empty[i - 1]);
    printf("\n1b. an event pair around nothing, %d times: median %.4f ms, max %.4f ms;\n",
           PAIRS, nothing.median, nothing.max);
    if (isinf(tick))
        printf("    every value was the same, so the events' resolution is not visible here\n");
    else
        printf("    the smallest step between values is %.3f us: the events' resolution\n",
               tick * 1e3);
    char params[64];
    snprintf(params, sizeof params, "clock=gpu_event;tick_us=%.3f", tick * 1e3);
    csv_record(csv, &(struct csv_row){.experiment = "timing", .variant = "empty_pair",
                                      .reps = PAIRS, .ms = nothing, .params = params});
}

/* 1c. A short kernel, timed alone many times, and timed as many launches between one pair. */
static void short_kernel(const struct work *w, const struct event_pair *e, struct csv *csv)
{
    enum { LAUNCHES = 1000 };
    const unsigned long long short_ns = 5000;
    static double single[LAUNCHES];
    for (int i = 0; i < LAUNCHES; i++) {
        CUDA_CHECK(cudaEventRecord(e->start, w->stream));
        CUDA_CHECK(launch_spin(short_ns, 1, 32, NULL, w->stream));
        CUDA_CHECK(cudaEventRecord(e->stop, w->stream));
        single[i] = elapsed_ms(e);
    }
    struct stats one = stats_summarize(single, LAUNCHES);
    CUDA_CHECK(cudaEventRecord(e->start, w->stream));
    for (int i = 0; i < LAUNCHES; i++)
        CUDA_CHECK(launch_spin(short_ns, 1, 32, NULL, w->stream));
    CUDA_CHECK(cudaEventRecord(e->stop, w->stream));
    double batch_ms = elapsed_ms(e);
    struct stats each = {batch_ms / LAUNCHES, batch_ms / LAUNCHES, batch_ms / LAUNCHES};
    printf("\n1c. a %.3f ms kernel: timed alone %d times, %.4f ms (min %.4f, max %.4f);\n"
           "    %d back to back between one pair, %.4f ms each\n", short_ns / 1e6, LAUNCHES,
           one.median, one.min, one.max, LAUNCHES, each.median);
    char params[64];
    snprintf(params, sizeof params, "clock=gpu_event;kernel_us=%.0f", short_ns / 1e3);
    csv_record(csv, &(struct csv_row){.experiment = "timing", .variant = "short_kernel_alone",
                                      .reps = LAUNCHES, .ms = one, .params = params});
    snprintf(params, sizeof params, "clock=gpu_event;kernel_us=%.0f;launches=%d", short_ns / 1e3,
             LAUNCHES);
    csv_record(csv, &(struct csv_row){.experiment = "timing", .variant = "short_kernel_batched",
                                      .reps = 1, .ms = each, .params = params});
}

static void timing(const struct work *w, int reps, struct csv *csv)
{
    struct event_pair e;
    CUDA_CHECK(cudaEventCreate(&e.start));
    CUDA_CHECK(cudaEventCreate(&e.stop));
    host_clock_or_events(w, &e, reps, csv);
    event_resolution(w, &e, csv);
    short_kernel(w, &e, csv);
    CUDA_CHECK(cudaEventDestroy(e.start));
    CUDA_CHECK(cudaEventDestroy(e.stop));
}

/* ------------------------------------------------------------------------------------------ *
 * 2. What the CPU does while the GPU works.
 * ------------------------------------------------------------------------------------------ */

/* One unit of CPU work: a sum of squares over 16 Ki floats, some microseconds, `passes` times
 * (the lesson's unit is one pass; exercise 1 makes it ten). */
enum { CPU_WORK_FLOATS = 16384 };
static float cpu_work_data[CPU_WORK_FLOATS];

double cpu_work_unit(int passes)
{
    double sum = 0;
    for (int pass = 0; pass < passes; pass++)
        for (size_t i = 0; i < CPU_WORK_FLOATS; i++)
            sum += (double)cpu_work_data[i] * cpu_work_data[i];
    return sum;
}

struct wait_result wait_for_gpu(const struct work *w, cudaEvent_t done, enum wait_style style,
                                int unit_passes, double *sink)
{
    poison_output(w);
    double units = 0;
    double t0 = host_ms(), cpu0 = thread_cpu_ms();
    enqueue_work(w);
    CUDA_CHECK(cudaEventRecord(done, w->stream));
    if (style == POLL_QUERY) {
        cudaError_t state;
        /* cudaErrorNotReady is not an error here: it means "not yet". */
        while ((state = cudaEventQuery(done)) == cudaErrorNotReady) {
            *sink += cpu_work_unit(unit_passes);
            units++;
        }
        CUDA_CHECK(state);
    } else if (style == SYNC_STREAM) { /* exercise 2: the device's flags decide how it waits */
        CUDA_CHECK(cudaStreamSynchronize(w->stream));
    } else {
        CUDA_CHECK(cudaEventSynchronize(done));
    }
    struct wait_result r = {host_ms() - t0, thread_cpu_ms() - cpu0, units};
    verify_work(w);
    return r;
}

struct overlap_table cpu_gpu_overlap(const struct work *w, int reps, int unit_passes,
                                     struct csv *csv)
{
    cudaEvent_t spinning, sleeping;
    /* No timing needed: these events only say "done". cudaEventBlockingSync makes
     * cudaEventSynchronize sleep until the GPU signals, instead of spinning on a CPU core. */
    CUDA_CHECK(cudaEventCreateWithFlags(&spinning, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&sleeping, cudaEventDisableTiming |
                                                       cudaEventBlockingSync));
    const struct { const char *variant, *label; cudaEvent_t event; } styles[N_WAIT_STYLES] = {
        [POLL_QUERY] = {"poll_query", "poll cudaEventQuery, work between", spinning},
        [SYNC_SPIN] = {"sync_spin", "cudaEventSynchronize", spinning},
        [SYNC_BLOCKING] = {"sync_blocking", "cudaEventSynchronize, BlockingSync", sleeping},
    };
    double *wall = samples_or_exit((size_t)reps), *cpu = samples_or_exit((size_t)reps);
    double *units = samples_or_exit((size_t)reps);
    double sink = 0;
    struct overlap_table table;
    fill_random(cpu_work_data, CPU_WORK_FLOATS, 4);
    printf("\n2. waiting for copy in, add, copy out; host clocks, median of %d\n", reps);
    printf("  %-36s %10s %14s %16s\n", "how the CPU waits", "wall ms", "CPU time ms",
           "CPU work units");
    for (int s = 0; s < N_WAIT_STYLES; s++) {
        wait_for_gpu(w, styles[s].event, (enum wait_style)s, unit_passes, &sink);
        for (int rep = 0; rep < reps; rep++) {
            struct wait_result r = wait_for_gpu(w, styles[s].event, (enum wait_style)s,
                                                unit_passes, &sink);
            wall[rep] = r.wall_ms;
            cpu[rep] = r.cpu_ms;
            units[rep] = r.units;
        }
        struct stats wall_s = table.wall[s] = stats_summarize(wall, (size_t)reps);
        struct stats cpu_s = table.cpu[s] = stats_summarize(cpu, (size_t)reps);
        struct stats units_s = table.units[s] = stats_summarize(units, (size_t)reps);
        printf("  %-36s %10.3f %14.3f %16.0f\n", styles[s].label, wall_s.median, cpu_s.median,
               units_s.median);
        char params[96];
        snprintf(params, sizeof params, "clock=host;measure=wall;work_units=%.0f",
                 units_s.median);
        csv_record(csv, &(struct csv_row){.experiment = "cpu_overlap", .variant = styles[s].variant,
                                          .bytes = 3 * w->n * sizeof(float), .reps = reps,
                                          .ms = wall_s, .params = params});
        snprintf(params, sizeof params, "clock=thread_cpu;measure=cpu_time;work_units=%.0f",
                 units_s.median);
        csv_record(csv, &(struct csv_row){.experiment = "cpu_overlap", .variant = styles[s].variant,
                                          .bytes = 3 * w->n * sizeof(float), .reps = reps,
                                          .ms = cpu_s, .params = params});
    }
    char times[32] = "";
    if (unit_passes > 1)
        snprintf(times, sizeof times, ", %d times over", unit_passes);
    printf("  (one work unit: a sum of squares over 16 Ki floats%s; checksum %.3g)\n", times,
           sink);
    free(wall);
    free(cpu);
    free(units);
    CUDA_CHECK(cudaEventDestroy(spinning));
    CUDA_CHECK(cudaEventDestroy(sleeping));
    return table;
}

/* ------------------------------------------------------------------------------------------ *
 * 3. A consumer stream that waits for a producer stream, and one that does not.
 * ------------------------------------------------------------------------------------------ */

void cross_create(struct cross *c, const struct work *w)
{
    CUDA_CHECK(cudaStreamCreateWithFlags(&c->producer, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&c->consumer, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&c->x_ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaMalloc((void **)&c->d_x, w->n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&c->d_y, w->n * sizeof(float)));
    /* The inputs a and b must be on the GPU already: the producer starts from them. */
    CUDA_CHECK(cudaMemcpy(w->d_a, w->h_a, w->n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(w->d_b, w->h_b, w->n * sizeof(float), cudaMemcpyHostToDevice));
}

void cross_destroy(struct cross *c)
{
    CUDA_CHECK(cudaFree(c->d_x));
    CUDA_CHECK(cudaFree(c->d_y));
    CUDA_CHECK(cudaEventDestroy(c->x_ready));
    CUDA_CHECK(cudaStreamDestroy(c->producer));
    CUDA_CHECK(cudaStreamDestroy(c->consumer));
}

/* The producer takes a while (a 2 ms kernel first, standing in for real work), then writes
 * x = a + b. The consumer computes y = x + a and copies it back. Returns the wrong elements. */
size_t produce_consume(const struct work *w, const struct cross *c, enum consumer_wait how,
                       double *enqueue_ms)
{
    size_t bytes = w->n * sizeof(float);
    CUDA_CHECK(cudaMemset(c->d_x, 0xff, bytes));
    CUDA_CHECK(cudaMemset(c->d_y, 0xff, bytes));
    memset(w->h_c, 0xff, bytes);
    CUDA_CHECK(cudaDeviceSynchronize());

    double t0 = host_ms();
    CUDA_CHECK(launch_spin(2000 * 1000, 1, 32, NULL, c->producer));
    CUDA_CHECK(launch_vector_add(w->d_a, w->d_b, c->d_x, w->n, c->producer));
    CUDA_CHECK(cudaEventRecord(c->x_ready, c->producer));
    if (how == CONSUMER_WAITS_FOR_EVENT)
        CUDA_CHECK(cudaStreamWaitEvent(c->consumer, c->x_ready, 0));
    else if (how == HOST_WAITS_FOR_PRODUCER) /* exercise 3: right too, but the host waits */
        CUDA_CHECK(cudaStreamSynchronize(c->producer));
    CUDA_CHECK(launch_vector_add(c->d_x, w->d_a, c->d_y, w->n, c->consumer));
    CUDA_CHECK(cudaMemcpyAsync(w->h_c, c->d_y, bytes, cudaMemcpyDeviceToHost, c->consumer));
    *enqueue_ms = host_ms() - t0;
    CUDA_CHECK(cudaDeviceSynchronize());

    size_t wrong = 0;
    for (size_t i = 0; i < w->n; i++)
        if (w->h_c[i] != (w->h_a[i] + w->h_b[i]) + w->h_a[i])
            wrong++;
    return wrong;
}

static void cross_stream(const struct work *w, int reps, struct csv *csv)
{
    struct cross c;
    cross_create(&c, w);
    double *enqueue = samples_or_exit((size_t)reps);
    double *racy_enqueue = samples_or_exit((size_t)reps);
    int racy_wrong_reps = 0;
    size_t racy_wrong_elements = 0;
    for (int rep = 0; rep < reps; rep++) {
        size_t wrong = produce_consume(w, &c, CONSUMER_WAITS_FOR_EVENT, &enqueue[rep]);
        if (wrong) {
            fprintf(stderr, "%s: with cudaStreamWaitEvent, %zu of %zu elements of y are wrong\n",
                    program_name, wrong, w->n);
            exit(EXIT_ERROR);
        }
        wrong = produce_consume(w, &c, CONSUMER_DOES_NOT_WAIT, &racy_enqueue[rep]);
        racy_wrong_reps += wrong > 0;
        racy_wrong_elements = wrong > racy_wrong_elements ? wrong : racy_wrong_elements;
    }
    struct stats enq = stats_summarize(enqueue, (size_t)reps);
    printf("\n3. producer stream: 2 ms of work, then x = a + b; consumer stream: y = x + a\n");
    printf("  with cudaStreamWaitEvent:    y right in %d of %d runs; the host spent %.3f ms "
           "enqueueing and never waited\n", reps, reps, enq.median);
    printf("  without it (the race):       y wrong in %d of %d runs (up to %zu of %zu "
           "elements)\n", racy_wrong_reps, reps, racy_wrong_elements, w->n);
    if (racy_wrong_reps == 0)
        printf("  the race went unnoticed this time, which is what makes races dangerous\n");
    char params[64];
    csv_record(csv, &(struct csv_row){.experiment = "cross_stream", .variant = "wait_event",
                                      .bytes = 3 * w->n * sizeof(float), .reps = reps, .ms = enq,
                                      .params = "clock=host;measure=enqueue;wrong_runs=0"});
    snprintf(params, sizeof params, "clock=host;measure=enqueue;wrong_runs=%d", racy_wrong_reps);
    csv_record(csv, &(struct csv_row){.experiment = "cross_stream", .variant = "no_wait",
                                      .bytes = 3 * w->n * sizeof(float), .reps = reps,
                                      .ms = stats_summarize(racy_enqueue, (size_t)reps),
                                      .params = params});
    free(enqueue);
    free(racy_enqueue);
    cross_destroy(&c);
}

/* ------------------------------------------------------------------------------------------ *
 * 4. The price of a timestamp.
 * ------------------------------------------------------------------------------------------ */

/* Two streams hand work back and forth through events, `rounds` times; returns ms per round. */
static double ping_pong(cudaStream_t s1, cudaStream_t s2, cudaEvent_t e1, cudaEvent_t e2,
                        int rounds)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = host_ms();
    for (int r = 0; r < rounds; r++) {
        CUDA_CHECK(launch_spin(0, 1, 32, NULL, s1));
        CUDA_CHECK(cudaEventRecord(e1, s1));
        CUDA_CHECK(cudaStreamWaitEvent(s2, e1, 0));
        CUDA_CHECK(launch_spin(0, 1, 32, NULL, s2));
        CUDA_CHECK(cudaEventRecord(e2, s2));
        CUDA_CHECK(cudaStreamWaitEvent(s1, e2, 0));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    return (host_ms() - t0) / rounds;
}

static void event_cost(int reps, struct csv *csv)
{
    enum { ROUNDS = 1000 };
    cudaStream_t s1, s2;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    const struct { const char *variant, *label; unsigned flags; } kinds[] = {
        {"timing", "cudaEventDefault (timestamps)", cudaEventDefault},
        {"disable_timing", "cudaEventDisableTiming", cudaEventDisableTiming},
    };
    double *samples = samples_or_exit((size_t)reps);
    printf("\n4. two streams passing work back and forth through events, %d rounds, host clock,"
           "\n   median of %d\n", ROUNDS, reps);
    for (int k = 0; k < 2; k++) {
        cudaEvent_t e1, e2;
        CUDA_CHECK(cudaEventCreateWithFlags(&e1, kinds[k].flags));
        CUDA_CHECK(cudaEventCreateWithFlags(&e2, kinds[k].flags));
        ping_pong(s1, s2, e1, e2, ROUNDS);
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = ping_pong(s1, s2, e1, e2, ROUNDS);
        struct stats round = stats_summarize(samples, (size_t)reps);
        printf("  %-32s %8.2f us per round\n", kinds[k].label, round.median * 1e3);
        csv_record(csv, &(struct csv_row){.experiment = "event_cost", .variant = kinds[k].variant,
                                          .reps = reps, .ms = round,
                                          .params = "clock=host;rounds=1000"});
        CUDA_CHECK(cudaEventDestroy(e1));
        CUDA_CHECK(cudaEventDestroy(e2));
    }
    free(samples);
    CUDA_CHECK(cudaStreamDestroy(s1));
    CUDA_CHECK(cudaStreamDestroy(s2));
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 64u << 20, .size_help = "bytes per vector",
                               .size_multiple = sizeof(float), .reps = 20};
    struct gpu_info gpu;
    struct csv csv;
    int exercise = 0;
    const struct opt extra[] = {EXERCISE_OPTION(&exercise, EXERCISES)};
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
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
        timing(&w, args.reps, &csv);
        cpu_gpu_overlap(&w, args.reps, 1, &csv);
        cross_stream(&w, args.reps, &csv);
        event_cost(args.reps, &csv);
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
