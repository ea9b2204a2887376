/*
 * exercises_flags.c - `--exercise 2`: experiment 2's waits, and one in cudaStreamSynchronize, in
 * turns under the default flags and cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync): which
 * waits' CPU time changes.
 */
#include "events.h"

#include <math.h>

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

void exercise_blocking_sync_device(const struct work *w, int reps, struct csv *csv)
{
    exercise_begin(csv, 2, EXERCISES, "experiment 2, and a cudaStreamSynchronize wait, under the "
                   "default flags and cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync)");
    printf("experiment 2 as in the lesson:\n");
    cpu_gpu_overlap(w, reps, 1, csv);
    printf("\nthe device is live: its buffers are allocated and experiment 2 ran on it\n");
    unsigned initial = print_device_flags("before any cudaSetDeviceFlags:");
    /* The flags are set on the live device, not first thing in main: since CUDA 12 the context
     * exists from the first call that selects the device, and cudaSetDeviceFlags overwrites the
     * flags of a live device (its documentation says so), which cudaGetDeviceFlags reads back.
     * So one run takes both flags in turns, run by run, on the same buffers, and compares each
     * wait with itself under the other flags. */
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
                    exercise_measured(bytes, reps, t.cpu[UNDER_BLOCKING][SYNC_SPIN], cpu_clock));
    exercise_record(csv, 2, "event_sync_cpu_ms", "CPU time in cudaEventSynchronize, default "
                    "flags", t.cpu[UNDER_DEFAULT][SYNC_SPIN].median, "ms",
                    exercise_measured(bytes, reps, t.cpu[UNDER_DEFAULT][SYNC_SPIN], cpu_clock));
    exercise_record(csv, 2, "event_sync_cpu_ms_blocking", "CPU time in cudaEventSynchronize, "
                    "blocking sync", t.cpu[UNDER_BLOCKING][SYNC_SPIN].median, "ms",
                    exercise_measured(bytes, reps, t.cpu[UNDER_BLOCKING][SYNC_SPIN], cpu_clock));
    exercise_record(csv, 2, "stream_sync_cpu_ms", "CPU time in cudaStreamSynchronize, default "
                    "flags", t.cpu[UNDER_DEFAULT][SYNC_STREAM].median, "ms",
                    exercise_measured(bytes, reps, t.cpu[UNDER_DEFAULT][SYNC_STREAM], cpu_clock));
    exercise_record(csv, 2, "stream_sync_cpu_ms_blocking", "CPU time in cudaStreamSynchronize, "
                    "blocking sync", t.cpu[UNDER_BLOCKING][SYNC_STREAM].median, "ms",
                    exercise_measured(bytes, reps, t.cpu[UNDER_BLOCKING][SYNC_STREAM], cpu_clock));
    exercise_record(csv, 2, "stream_sync_cpu_share_blocking", "cudaStreamSynchronize's CPU time "
                    "over its wall time, blocking sync", t.share.median, "%",
                    exercise_measured(bytes, reps, t.cpu[UNDER_BLOCKING][SYNC_STREAM], cpu_clock));
    exercise_record(csv, 2, "stream_sync_wakeup_ms", "what sleeping adds to "
                    "cudaStreamSynchronize's wait, run by run", t.wakeup.median, "ms",
                    exercise_measured(bytes, reps, t.wall[UNDER_BLOCKING][SYNC_STREAM],
                                      "clock=host"));
}
