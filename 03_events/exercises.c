/*
 * exercises.c - `--exercise N`: the exercises of README.md, each the lesson's own experiment with
 * the one change it asks for, ending with the figures of its answer.
 *
 *   1. experiment 2 with a CPU work unit ten times longer: how late the polling loop notices
 *      that the GPU is done, against the unit's length and the price of one cudaEventQuery
 *   2. experiment 2, and a wait in cudaStreamSynchronize beside it, before and after
 *      cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync): which waits' CPU time changes
 *   3. experiment 3 fixed on the host, cudaStreamSynchronize(producer), against the lesson's
 *      cudaStreamWaitEvent: both right, and what the host's enqueue time becomes
 */
#include "events.h"

#include <math.h>

enum { LONG_UNIT_PASSES = 10 };

/* A figure of the answer, or the end of the program when the CSV cannot be written. */
static void answer(struct csv *csv, int n, const char *key, const char *what, double value,
                   const char *unit, struct csv_row measured)
{
    if (exercise_answer(csv, n, key, what, value, unit, measured))
        exit(EXIT_ERROR);
}

/* The statistics behind a figure of the answer, for its CSV row. */
static struct csv_row measured(size_t bytes, int reps, struct stats ms)
{
    return (struct csv_row){.bytes = bytes, .reps = reps, .ms = ms};
}

/* The lesson's tables print as they do in the lesson; their rows are the lesson's, so they stay
 * out of the exercise's CSV, which holds its answers only. */
static struct csv table_only(const struct csv *csv)
{
    return (struct csv){.lesson = csv->lesson, .gpu = csv->gpu};
}

/* ------------------------------------------------------------------------------------------ *
 * 1. A CPU work unit ten times longer.
 * ------------------------------------------------------------------------------------------ */

/* One work unit of `passes` passes, alone on the CPU: ms per unit, over 100 units a sample. */
static struct stats unit_ms(int passes, int reps)
{
    enum { UNITS = 100 };
    volatile double sink = 0; /* keeps the sums from being optimised away */
    double *samples = samples_or_exit((size_t)reps);
    for (int rep = 0; rep < reps; rep++) {
        double t0 = host_ms();
        for (int u = 0; u < UNITS; u++)
            sink += cpu_work_unit(passes);
        samples[rep] = (host_ms() - t0) / UNITS;
    }
    struct stats s = stats_summarize(samples, (size_t)reps);
    free(samples);
    return s;
}

/* One cudaEventQuery, the price of each poll: ms per call, over 1000 calls a sample. */
static struct stats query_ms(const struct work *w, int reps)
{
    enum { QUERIES = 1000 };
    cudaEvent_t done;
    CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventRecord(done, w->stream));
    CUDA_CHECK(cudaEventSynchronize(done));
    double *samples = samples_or_exit((size_t)reps);
    for (int rep = 0; rep < reps; rep++) {
        double t0 = host_ms();
        for (int q = 0; q < QUERIES; q++)
            CUDA_CHECK(cudaEventQuery(done));
        samples[rep] = (host_ms() - t0) / QUERIES;
    }
    struct stats s = stats_summarize(samples, (size_t)reps);
    free(samples);
    CUDA_CHECK(cudaEventDestroy(done));
    return s;
}

static void longer_unit(const struct work *w, int reps, struct csv *csv)
{
    exercise_begin(1, EXERCISES, "experiment 2 with one CPU work unit ten times longer");
    struct csv tables = table_only(csv);
    printf("experiment 2 as in the lesson, one pass a unit:\n");
    struct overlap_table normal = cpu_gpu_overlap(w, reps, 1, &tables);
    printf("\nexperiment 2 with a unit of %d passes:\n", LONG_UNIT_PASSES);
    struct overlap_table longer = cpu_gpu_overlap(w, reps, LONG_UNIT_PASSES, &tables);
    struct stats unit = unit_ms(1, reps), long_unit = unit_ms(LONG_UNIT_PASSES, reps);
    struct stats query = query_ms(w, reps);
    /* cudaEventSynchronize returns as the GPU ends (a few microseconds later: it spins), so the
     * polling loop's wall time beyond it is how long the last unit ran past the GPU's end. */
    double overrun_us = 1e3 * (normal.wall[POLL_QUERY].median - normal.wall[SYNC_SPIN].median);
    double long_overrun_us = 1e3 * (longer.wall[POLL_QUERY].median -
                                    longer.wall[SYNC_SPIN].median);
    printf("\nthe loop sees the GPU's end only between units: on average half a unit late, at "
           "most one.\nA unit should cost much more than a poll (%.3f us) and much less than the "
           "GPU's work\n(%.3f ms); host clock, median of %d\n\n", 1e3 * query.median,
           normal.wall[SYNC_SPIN].median, reps);
    size_t bytes = 3 * w->n * sizeof(float);
    answer(csv, 1, "unit_us", "one work unit alone, one pass", 1e3 * unit.median, "us",
           measured(0, reps, unit));
    answer(csv, 1, "long_unit_us", "one work unit alone, ten passes", 1e3 * long_unit.median,
           "us", measured(0, reps, long_unit));
    answer(csv, 1, "query_us", "one cudaEventQuery", 1e3 * query.median, "us",
           measured(0, reps, query));
    answer(csv, 1, "wall_ms", "wall time polling, one-pass units", normal.wall[POLL_QUERY].median,
           "ms", measured(bytes, reps, normal.wall[POLL_QUERY]));
    answer(csv, 1, "long_wall_ms", "wall time polling, ten-pass units",
           longer.wall[POLL_QUERY].median, "ms", measured(bytes, reps, longer.wall[POLL_QUERY]));
    answer(csv, 1, "overrun_us", "CPU ran past the GPU's end, one-pass units", overrun_us, "us",
           measured(bytes, reps, normal.wall[POLL_QUERY]));
    answer(csv, 1, "long_overrun_us", "CPU ran past the GPU's end, ten-pass units",
           long_overrun_us, "us", measured(bytes, reps, longer.wall[POLL_QUERY]));
    answer(csv, 1, "long_overrun_units", "that overrun in ten-pass units",
           long_overrun_us / (1e3 * long_unit.median), "units",
           measured(bytes, reps, longer.wall[POLL_QUERY]));
}

/* ------------------------------------------------------------------------------------------ *
 * 2. cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync).
 * ------------------------------------------------------------------------------------------ */

static const char *schedule_name(unsigned flags)
{
    switch (flags & cudaDeviceScheduleMask) {
    case cudaDeviceScheduleSpin: return "spin";
    case cudaDeviceScheduleYield: return "yield";
    case cudaDeviceScheduleBlockingSync: return "blocking sync";
    default: return "auto (spins while the process has no more contexts than CPU cores)";
    }
}

/* Experiment 2's work waited for with cudaStreamSynchronize, `reps` times after one untimed. */
static void stream_sync_waits(const struct work *w, int reps, struct stats *wall,
                              struct stats *cpu)
{
    cudaEvent_t done;
    CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    double *walls = samples_or_exit((size_t)reps), *cpus = samples_or_exit((size_t)reps);
    double sink = 0;
    for (int rep = -1; rep < reps; rep++) {
        struct wait_result r = wait_for_gpu(w, done, SYNC_STREAM, 1, &sink);
        if (rep >= 0) {
            walls[rep] = r.wall_ms;
            cpus[rep] = r.cpu_ms;
        }
    }
    *wall = stats_summarize(walls, (size_t)reps);
    *cpu = stats_summarize(cpus, (size_t)reps);
    free(walls);
    free(cpus);
    CUDA_CHECK(cudaEventDestroy(done));
}

/* Experiment 2's table and a cudaStreamSynchronize wait, under the device's flags as they are:
 * wall and CPU time of each way of waiting, the table's rows first. */
struct waits {
    struct stats wall[N_WAIT_STYLES + 1], cpu[N_WAIT_STYLES + 1];
};

static struct waits waits_under_flags(const struct work *w, int reps, struct csv *tables)
{
    unsigned flags;
    CUDA_CHECK(cudaGetDeviceFlags(&flags));
    printf("the device schedules waits as: %s\n", schedule_name(flags));
    struct overlap_table table = cpu_gpu_overlap(w, reps, 1, tables);
    struct waits out;
    for (int s = 0; s < N_WAIT_STYLES; s++) {
        out.wall[s] = table.wall[s];
        out.cpu[s] = table.cpu[s];
    }
    stream_sync_waits(w, reps, &out.wall[SYNC_STREAM], &out.cpu[SYNC_STREAM]);
    printf("  and cudaStreamSynchronize on the same work: wall %.3f ms, CPU time %.3f ms\n",
           out.wall[SYNC_STREAM].median, out.cpu[SYNC_STREAM].median);
    return out;
}

static void blocking_sync_device(const struct work *w, int reps, struct csv *csv)
{
    exercise_begin(2, EXERCISES, "experiment 2, and a cudaStreamSynchronize wait, before and "
                   "after cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync)");
    struct csv tables = table_only(csv);
    struct waits before = waits_under_flags(w, reps, &tables);
    /* Since CUDA 12 the context exists from the first call that selects the device, so "before
     * anything else" is already too late for a context-creation flag; but this call overwrites
     * the flags of a device in use (its documentation says so), and on an H200 the new flags
     * governed the very next wait. So one run compares both, on the same buffers. */
    CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    printf("\ncudaSetDeviceFlags(cudaDeviceScheduleBlockingSync): ");
    struct waits after = waits_under_flags(w, reps, &tables);

    static const char *const rows[N_WAIT_STYLES + 1] = {
        [POLL_QUERY] = "poll cudaEventQuery, work between",
        [SYNC_SPIN] = "cudaEventSynchronize",
        [SYNC_BLOCKING] = "cudaEventSynchronize, BlockingSync",
        [SYNC_STREAM] = "cudaStreamSynchronize (exercise 2)",
    };
    /* A wait changed when its CPU time moved by more than half the wait itself. */
    double threshold = 0.5 * before.wall[SYNC_SPIN].median;
    int changed_rows = 0;
    printf("\nCPU time ms, default flags -> blocking sync (wall ms the same way)\n");
    for (int s = 0; s <= SYNC_STREAM; s++) {
        bool changed = fabs(after.cpu[s].median - before.cpu[s].median) > threshold;
        changed_rows += changed && s < N_WAIT_STYLES;
        printf("  %-36s %8.3f -> %8.3f   (%.3f -> %.3f)%s\n", rows[s], before.cpu[s].median,
               after.cpu[s].median, before.wall[s].median, after.wall[s].median,
               changed ? "   changed" : "");
    }
    printf("\n");
    size_t bytes = 3 * w->n * sizeof(float);
    struct stats event_cpu[2] = {before.cpu[SYNC_SPIN], after.cpu[SYNC_SPIN]};
    struct stats stream_cpu[2] = {before.cpu[SYNC_STREAM], after.cpu[SYNC_STREAM]};
    struct stats stream_wall[2] = {before.wall[SYNC_STREAM], after.wall[SYNC_STREAM]};
    answer(csv, 2, "rows_changed", "rows of experiment 2 whose CPU time changed by over half the "
           "wait", changed_rows, "of 3 rows", measured(bytes, reps, event_cpu[1]));
    answer(csv, 2, "event_sync_cpu_ms", "CPU time in cudaEventSynchronize, default flags",
           event_cpu[0].median, "ms", measured(bytes, reps, event_cpu[0]));
    answer(csv, 2, "event_sync_cpu_ms_blocking", "CPU time in cudaEventSynchronize, blocking sync",
           event_cpu[1].median, "ms", measured(bytes, reps, event_cpu[1]));
    answer(csv, 2, "stream_sync_cpu_ms", "CPU time in cudaStreamSynchronize, default flags",
           stream_cpu[0].median, "ms", measured(bytes, reps, stream_cpu[0]));
    answer(csv, 2, "stream_sync_cpu_ms_blocking", "CPU time in cudaStreamSynchronize, blocking "
           "sync", stream_cpu[1].median, "ms", measured(bytes, reps, stream_cpu[1]));
    answer(csv, 2, "stream_sync_cpu_share_blocking", "cudaStreamSynchronize's CPU time over its "
           "wall time, blocking sync", 100 * stream_cpu[1].median / stream_wall[1].median, "%",
           measured(bytes, reps, stream_cpu[1]));
    answer(csv, 2, "stream_sync_wakeup_ms", "what sleeping adds to cudaStreamSynchronize's wait",
           stream_wall[1].median - stream_wall[0].median, "ms",
           measured(bytes, reps, stream_wall[1]));
}

/* ------------------------------------------------------------------------------------------ *
 * 3. The race fixed on the host.
 * ------------------------------------------------------------------------------------------ */

static void host_sync_fix(const struct work *w, int reps, struct csv *csv)
{
    exercise_begin(3, EXERCISES, "experiment 3 fixed with cudaStreamSynchronize(producer) on "
                   "the host instead of cudaStreamWaitEvent");
    struct cross c;
    cross_create(&c, w);
    double *on_gpu = samples_or_exit((size_t)reps), *on_host = samples_or_exit((size_t)reps);
    double *ratio = samples_or_exit((size_t)reps);
    /* The two fixes in turns, run by run, after one untimed run of each. */
    for (int rep = -1; rep < reps; rep++) {
        double event_ms, sync_ms;
        size_t wrong_gpu = produce_consume(w, &c, CONSUMER_WAITS_FOR_EVENT, &event_ms);
        size_t wrong_host = produce_consume(w, &c, HOST_WAITS_FOR_PRODUCER, &sync_ms);
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
    printf("producer stream: 2 ms of work, then x = a + b; consumer stream: y = x + a\n"
           "  %-36s %12s %16s\n", "how the consumer waits for x", "enqueue ms", "y right in");
    printf("  %-36s %12.3f %9d of %d\n", "cudaStreamWaitEvent (the GPU waits)", gpu.median,
           reps, reps);
    printf("  %-36s %12.3f %9d of %d\n", "cudaStreamSynchronize(producer)", host.median, reps,
           reps);
    printf("  (host clock, median of %d; the ratio run by run: %.0f to %.0f)\n\n", reps,
           times.min, times.max);
    size_t bytes = 3 * w->n * sizeof(float);
    char of_runs[32];
    snprintf(of_runs, sizeof of_runs, "of %d runs", reps);
    answer(csv, 3, "right_runs_host_sync", "runs with y right after cudaStreamSynchronize",
           reps, of_runs, measured(bytes, reps, host));
    answer(csv, 3, "enqueue_ms_host_sync", "host's enqueue time, cudaStreamSynchronize",
           host.median, "ms", measured(bytes, reps, host));
    answer(csv, 3, "enqueue_ms_wait_event", "host's enqueue time, cudaStreamWaitEvent",
           gpu.median, "ms", measured(bytes, reps, gpu));
    answer(csv, 3, "enqueue_ratio", "the host sync's enqueue time over the event wait's",
           times.median, "times", measured(bytes, reps, host));
    free(on_gpu);
    free(on_host);
    free(ratio);
    cross_destroy(&c);
}

const char *run_exercise(int n, const struct work *w, int reps, struct csv *csv)
{
    switch (n) {
    case 1:
        longer_unit(w, reps, csv);
        return "every result of every timed run of experiment 2, both unit sizes";
    case 2:
        blocking_sync_device(w, reps, csv);
        return "every result of every timed run of experiment 2, under both flags";
    default:
        host_sync_fix(w, reps, csv);
        return "every result of both fixes, in every run";
    }
}
