/*
 * exercises.c - `--exercise N`: the exercises of README.md, each the lesson's own experiment with
 * the one change it asks for, ending with the figures of its answer.
 *
 *   1. experiment 2 with a CPU work unit ten times longer: how late the polling loop notices
 *      that the GPU is done, against the unit's length and the price of one cudaEventQuery
 *   2. experiment 2's waits, and one in cudaStreamSynchronize, in turns under the default flags
 *      and cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync): which waits' CPU time changes
 *   3. experiment 3 fixed on the host, cudaStreamSynchronize(producer), against the lesson's
 *      cudaStreamWaitEvent: both right, and what the host's enqueue time becomes
 */
#include "events.h"

#include <math.h>

enum { LONG_UNIT_PASSES = 10 };

/* The statistics behind a figure of the answer, for its CSV row, and the clock that took them. */
static struct csv_row measured(size_t bytes, int reps, struct stats ms, const char *clock)
{
    return (struct csv_row){.bytes = bytes, .reps = reps, .ms = ms, .params = clock};
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

/* Experiment 2's polling loop and its cudaEventSynchronize in turns, run by run, one untimed pair
 * first, with units of `passes` passes. cudaEventSynchronize returns as the GPU ends (a few
 * microseconds later: it spins), so the loop's wall time beyond it in the same turn is how long
 * the last unit ran past the GPU's end: ms, run by run; *poll_wall, the loop's wall times. */
static struct stats overrun_in_turns(const struct work *w, int reps, int passes,
                                     struct stats *poll_wall)
{
    cudaEvent_t done;
    CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    double *overrun = samples_or_exit((size_t)reps), *wall = samples_or_exit((size_t)reps);
    double sink = 0;
    for (int rep = -1; rep < reps; rep++) {
        struct wait_result spin = wait_for_gpu(w, done, SYNC_SPIN, passes, &sink);
        struct wait_result poll = wait_for_gpu(w, done, POLL_QUERY, passes, &sink);
        if (rep >= 0) {
            overrun[rep] = poll.wall_ms - spin.wall_ms;
            wall[rep] = poll.wall_ms;
        }
    }
    struct stats s = stats_summarize(overrun, (size_t)reps);
    *poll_wall = stats_summarize(wall, (size_t)reps);
    free(overrun);
    free(wall);
    CUDA_CHECK(cudaEventDestroy(done));
    return s;
}

/* One line of the overrun's table: microseconds, and units of `unit_ms`. */
static void print_overrun(const char *label, struct stats ms, double unit_ms)
{
    printf("  %-28s %9.2f us (%.2f to %.2f)   %5.2f units (%.2f to %.2f)\n", label,
           1e3 * ms.median, 1e3 * ms.min, 1e3 * ms.max, ms.median / unit_ms, ms.min / unit_ms,
           ms.max / unit_ms);
}

static void longer_unit(const struct work *w, int reps, struct csv *csv)
{
    exercise_begin(csv, 1, EXERCISES, "experiment 2 with one CPU work unit ten times longer");
    printf("experiment 2 as in the lesson, one pass a unit:\n");
    struct overlap_table normal = cpu_gpu_overlap(w, reps, 1, csv);
    printf("\nexperiment 2 with a unit of %d passes:\n", LONG_UNIT_PASSES);
    struct overlap_table longer = cpu_gpu_overlap(w, reps, LONG_UNIT_PASSES, csv);
    struct stats unit = unit_ms(1, reps), long_unit = unit_ms(LONG_UNIT_PASSES, reps);
    struct stats query = query_ms(w, reps);
    struct stats poll_wall, long_poll_wall;
    struct stats overrun = overrun_in_turns(w, reps, 1, &poll_wall);
    struct stats long_overrun = overrun_in_turns(w, reps, LONG_UNIT_PASSES, &long_poll_wall);
    printf("\npolling and cudaEventSynchronize in turns, run by run: the loop's wall time minus "
           "the\nsynchronize's, how long the CPU ran past the GPU's end; host clock, median "
           "(range) of %d\n", reps);
    print_overrun("one-pass units", overrun, unit.median);
    print_overrun("ten-pass units", long_overrun, long_unit.median);
    printf("the loop sees the GPU's end only between units: on average half a unit late, at "
           "most one.\nA unit should cost much more than a poll (%.3f us) and much less than the "
           "GPU's work\n(%.3f ms); host clock, median of %d\n\n", 1e3 * query.median,
           normal.wall[SYNC_SPIN].median, reps);
    size_t bytes = 3 * w->n * sizeof(float);
    exercise_record(csv, 1, "unit_us", "one work unit alone, one pass", 1e3 * unit.median, "us",
                    measured(0, reps, unit, "clock=host"));
    exercise_record(csv, 1, "long_unit_us", "one work unit alone, ten passes",
                    1e3 * long_unit.median, "us", measured(0, reps, long_unit, "clock=host"));
    exercise_record(csv, 1, "query_us", "one cudaEventQuery", 1e3 * query.median, "us",
                    measured(0, reps, query, "clock=host"));
    exercise_record(csv, 1, "wall_ms", "wall time polling, one-pass units",
                    normal.wall[POLL_QUERY].median, "ms",
                    measured(bytes, reps, normal.wall[POLL_QUERY], "clock=host"));
    exercise_record(csv, 1, "long_wall_ms", "wall time polling, ten-pass units",
                    longer.wall[POLL_QUERY].median, "ms",
                    measured(bytes, reps, longer.wall[POLL_QUERY], "clock=host"));
    exercise_record(csv, 1, "overrun_us", "CPU ran past the GPU's end, one-pass units",
                    1e3 * overrun.median, "us", measured(bytes, reps, poll_wall, "clock=host"));
    exercise_record(csv, 1, "long_overrun_us", "CPU ran past the GPU's end, ten-pass units",
                    1e3 * long_overrun.median, "us",
                    measured(bytes, reps, long_poll_wall, "clock=host"));
    exercise_record(csv, 1, "long_overrun_units", "that overrun in ten-pass units",
                    long_overrun.median / long_unit.median, "units",
                    measured(bytes, reps, long_poll_wall, "clock=host"));
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

/* The device's flags, as cudaGetDeviceFlags reads them back: printed after `when`. */
static unsigned print_device_flags(const char *when)
{
    unsigned flags;
    CUDA_CHECK(cudaGetDeviceFlags(&flags));
    printf("  %-46s cudaGetDeviceFlags reads 0x%02x: %s\n", when, flags, schedule_name(flags));
    return flags;
}

/* The two flags of exercise 2's turns, and its four waits: experiment 2's three rows and a
 * cudaStreamSynchronize. Samples are stored [flags][wait][rep]. */
enum { UNDER_DEFAULT, UNDER_BLOCKING, N_FLAGS };
enum { N_WAITS = SYNC_STREAM + 1 };

static double *samples_of(double *samples, int reps, int flags, int wait)
{
    return samples + ((size_t)flags * N_WAITS + (size_t)wait) * (size_t)reps;
}

/* Run by run, one untimed run first: the device's flags set to schedule[UNDER_DEFAULT], the four
 * waits, then to schedule[UNDER_BLOCKING], the four waits. Returns in how many of the timed
 * settings cudaGetDeviceFlags read back the schedule just set. */
static int waits_in_turns(const struct work *w, int reps, const unsigned schedule[N_FLAGS],
                          double *wall, double *cpu)
{
    cudaEvent_t spinning, sleeping;
    CUDA_CHECK(cudaEventCreateWithFlags(&spinning, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&sleeping, cudaEventDisableTiming |
                                                       cudaEventBlockingSync));
    int read_back = 0;
    double sink = 0;
    for (int rep = -1; rep < reps; rep++) {
        for (int f = 0; f < N_FLAGS; f++) {
            /* Every wait_for_gpu() ends with its stream idle, so nothing is in flight here. */
            CUDA_CHECK(cudaSetDeviceFlags(schedule[f]));
            unsigned now;
            CUDA_CHECK(cudaGetDeviceFlags(&now));
            read_back += rep >= 0 && (now & cudaDeviceScheduleMask) == schedule[f];
            if (rep == 0) {
                char set[64];
                snprintf(set, sizeof set, "after cudaSetDeviceFlags(0x%02x):", schedule[f]);
                print_device_flags(set);
            }
            for (int s = 0; s < N_WAITS; s++) {
                struct wait_result r = wait_for_gpu(w, s == SYNC_BLOCKING ? sleeping : spinning,
                                                    (enum wait_style)s, 1, &sink);
                if (rep >= 0) {
                    samples_of(wall, reps, f, s)[rep] = r.wall_ms;
                    samples_of(cpu, reps, f, s)[rep] = r.cpu_ms;
                }
            }
        }
    }
    CUDA_CHECK(cudaEventDestroy(spinning));
    CUDA_CHECK(cudaEventDestroy(sleeping));
    return read_back;
}

/* The turns' statistics: each wait under each flags, and taken run by run, what blocking sync
 * changed of each wait's CPU time, what it added to cudaStreamSynchronize's wall time, and the
 * share of that wait's wall time its CPU time was under blocking sync. */
struct turn_stats {
    struct stats wall[N_FLAGS][N_WAITS], cpu[N_FLAGS][N_WAITS], cpu_change[N_WAITS];
    struct stats wakeup, share;
};

static struct turn_stats summarize_turns(double *wall, double *cpu, int reps)
{
    size_t n = (size_t)reps;
    double *diff = samples_or_exit(n), *share = samples_or_exit(n);
    struct turn_stats t;
    for (int s = 0; s < N_WAITS; s++) {
        const double *before = samples_of(cpu, reps, UNDER_DEFAULT, s);
        const double *after = samples_of(cpu, reps, UNDER_BLOCKING, s);
        for (int rep = 0; rep < reps; rep++)
            diff[rep] = after[rep] - before[rep];
        t.cpu_change[s] = stats_summarize(diff, n);
    }
    const double *stream_before = samples_of(wall, reps, UNDER_DEFAULT, SYNC_STREAM);
    const double *stream_after = samples_of(wall, reps, UNDER_BLOCKING, SYNC_STREAM);
    const double *stream_cpu = samples_of(cpu, reps, UNDER_BLOCKING, SYNC_STREAM);
    for (int rep = 0; rep < reps; rep++) {
        diff[rep] = stream_after[rep] - stream_before[rep];
        share[rep] = 100 * stream_cpu[rep] / stream_after[rep];
    }
    t.wakeup = stats_summarize(diff, n);
    t.share = stats_summarize(share, n);
    /* Last: summarizing sorts the samples, which ends their pairing run by run. */
    for (int f = 0; f < N_FLAGS; f++)
        for (int s = 0; s < N_WAITS; s++) {
            t.wall[f][s] = stats_summarize(samples_of(wall, reps, f, s), n);
            t.cpu[f][s] = stats_summarize(samples_of(cpu, reps, f, s), n);
        }
    free(diff);
    free(share);
    return t;
}

/* The turns' table; returns how many of experiment 2's rows changed their CPU time by more than
 * half the wait itself. */
static int print_turns(const struct turn_stats *t, int reps)
{
    static const char *const rows[N_WAITS] = {
        [POLL_QUERY] = "poll cudaEventQuery, work between",
        [SYNC_SPIN] = "cudaEventSynchronize",
        [SYNC_BLOCKING] = "cudaEventSynchronize, BlockingSync",
        [SYNC_STREAM] = "cudaStreamSynchronize (exercise 2)",
    };
    double threshold = 0.5 * t->wall[UNDER_DEFAULT][SYNC_SPIN].median;
    int changed_rows = 0;
    printf("\nCPU time ms, default flags -> blocking sync, and its change run by run, median "
           "(range) of %d;\nwall ms the same way\n", reps);
    for (int s = 0; s < N_WAITS; s++) {
        struct stats change = t->cpu_change[s];
        bool changed = fabs(change.median) > threshold;
        changed_rows += changed && s < N_WAIT_STYLES;
        printf("  %-36s %7.3f -> %7.3f  %+7.3f (%+.3f to %+.3f)  (%.3f -> %.3f)%s\n", rows[s],
               t->cpu[UNDER_DEFAULT][s].median, t->cpu[UNDER_BLOCKING][s].median, change.median,
               change.min, change.max, t->wall[UNDER_DEFAULT][s].median,
               t->wall[UNDER_BLOCKING][s].median, changed ? "   changed" : "");
    }
    printf("  (a row changed: its CPU time moved by over half the wait, %.3f ms)\n"
           "blocking sync added to cudaStreamSynchronize's wall time, run by run: %.3f ms "
           "(%.3f to %.3f)\n\n", threshold, t->wakeup.median, t->wakeup.min, t->wakeup.max);
    return changed_rows;
}

static void blocking_sync_device(const struct work *w, int reps, struct csv *csv)
{
    exercise_begin(csv, 2, EXERCISES, "experiment 2, and a cudaStreamSynchronize wait, under the "
                   "default flags and cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync)");
    printf("experiment 2 as in the lesson:\n");
    cpu_gpu_overlap(w, reps, 1, csv);
    printf("\nthe device is live: its buffers are allocated and experiment 2 ran on it\n");
    unsigned initial = print_device_flags("before any cudaSetDeviceFlags:");
    /* Since CUDA 12 the context exists from the first call that selects the device, so "before
     * anything else in main" is already too late for a context-creation flag; but
     * cudaSetDeviceFlags overwrites the flags of a live device (its documentation says so), and
     * cudaGetDeviceFlags reads them back. So one run takes both flags in turns, run by run, on
     * the same buffers, and compares each wait with itself under the other flags. */
    const unsigned schedule[N_FLAGS] = {initial & cudaDeviceScheduleMask,
                                        cudaDeviceScheduleBlockingSync};
    size_t count = (size_t)N_FLAGS * N_WAITS * (size_t)reps;
    double *wall = samples_or_exit(count), *cpu = samples_or_exit(count);
    printf("in turns, run by run: the device's own flags and the four waits, then BlockingSync "
           "and the four waits\n");
    int read_back = waits_in_turns(w, reps, schedule, wall, cpu);
    CUDA_CHECK(cudaSetDeviceFlags(schedule[UNDER_DEFAULT]));
    printf("  cudaGetDeviceFlags read back the schedule just set in %d of %d settings\n", read_back,
           N_FLAGS * reps);
    struct turn_stats t = summarize_turns(wall, cpu, reps);
    free(wall);
    free(cpu);
    int changed_rows = print_turns(&t, reps);

    size_t bytes = 3 * w->n * sizeof(float);
    const char *cpu_clock = "clock=thread_cpu";
    exercise_record(csv, 2, "rows_changed", "rows of experiment 2 whose CPU time changed by over "
                    "half the wait", changed_rows, "of 3 rows",
                    measured(bytes, reps, t.cpu[UNDER_BLOCKING][SYNC_SPIN], cpu_clock));
    exercise_record(csv, 2, "event_sync_cpu_ms", "CPU time in cudaEventSynchronize, default "
                    "flags", t.cpu[UNDER_DEFAULT][SYNC_SPIN].median, "ms",
                    measured(bytes, reps, t.cpu[UNDER_DEFAULT][SYNC_SPIN], cpu_clock));
    exercise_record(csv, 2, "event_sync_cpu_ms_blocking", "CPU time in cudaEventSynchronize, "
                    "blocking sync", t.cpu[UNDER_BLOCKING][SYNC_SPIN].median, "ms",
                    measured(bytes, reps, t.cpu[UNDER_BLOCKING][SYNC_SPIN], cpu_clock));
    exercise_record(csv, 2, "stream_sync_cpu_ms", "CPU time in cudaStreamSynchronize, default "
                    "flags", t.cpu[UNDER_DEFAULT][SYNC_STREAM].median, "ms",
                    measured(bytes, reps, t.cpu[UNDER_DEFAULT][SYNC_STREAM], cpu_clock));
    exercise_record(csv, 2, "stream_sync_cpu_ms_blocking", "CPU time in cudaStreamSynchronize, "
                    "blocking sync", t.cpu[UNDER_BLOCKING][SYNC_STREAM].median, "ms",
                    measured(bytes, reps, t.cpu[UNDER_BLOCKING][SYNC_STREAM], cpu_clock));
    exercise_record(csv, 2, "stream_sync_cpu_share_blocking", "cudaStreamSynchronize's CPU time "
                    "over its wall time, blocking sync", t.share.median, "%",
                    measured(bytes, reps, t.cpu[UNDER_BLOCKING][SYNC_STREAM], cpu_clock));
    exercise_record(csv, 2, "stream_sync_wakeup_ms", "what sleeping adds to "
                    "cudaStreamSynchronize's wait, run by run", t.wakeup.median, "ms",
                    measured(bytes, reps, t.wall[UNDER_BLOCKING][SYNC_STREAM], "clock=host"));
}

/* ------------------------------------------------------------------------------------------ *
 * 3. The race fixed on the host.
 * ------------------------------------------------------------------------------------------ */

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
           "  %-36s %12s\n", "how the consumer waits for x", "enqueue ms");
    printf("  %-36s %12.3f\n", "cudaStreamWaitEvent (the GPU waits)", gpu.median);
    printf("  %-36s %12.3f\n", "cudaStreamSynchronize(producer)", host.median);
    printf("  (host clock, median of %d; the ratio run by run: %.0f (%.0f to %.0f))\n", reps,
           times.median, times.min, times.max);
    /* A wrong y ends the program above, so reaching here is the verdict, not a figure. */
    printf("both fixes: y right in %d of %d runs each\n\n", reps, reps);
    size_t bytes = 3 * w->n * sizeof(float);
    exercise_record(csv, 3, "enqueue_ms_host_sync", "host's enqueue time, cudaStreamSynchronize",
                    host.median, "ms", measured(bytes, reps, host, "clock=host"));
    exercise_record(csv, 3, "enqueue_ms_wait_event", "host's enqueue time, cudaStreamWaitEvent",
                    gpu.median, "ms", measured(bytes, reps, gpu, "clock=host"));
    exercise_record(csv, 3, "enqueue_ratio", "the host sync's enqueue time over the event "
                    "wait's, run by run", times.median, "times",
                    measured(bytes, reps, host, "clock=host"));
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
