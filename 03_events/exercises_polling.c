/*
 * exercises_polling.c - `--exercise 1`: experiment 2 with a CPU work unit ten times longer: how
 * late the polling loop notices that the GPU is done, against the unit's length and the price of
 * one cudaEventQuery.
 */
#include "events.h"

enum { LONG_UNIT_PASSES = 10 };

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

void exercise_longer_unit(const struct work *w, int reps, struct csv *csv)
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
    printf("one cudaEventQuery alone: %.3f us; the GPU's work, cudaEventSynchronize's wall time: "
           "%.3f ms;\nhost clock, median of %d\n\n", 1e3 * query.median,
           normal.wall[SYNC_SPIN].median, reps);
    size_t bytes = 3 * w->n * sizeof(float);
    exercise_record(csv, 1, "unit_us", "one work unit alone, one pass", 1e3 * unit.median, "us",
                    exercise_measured(0, reps, unit, "clock=host"));
    exercise_record(csv, 1, "long_unit_us", "one work unit alone, ten passes",
                    1e3 * long_unit.median, "us",
                    exercise_measured(0, reps, long_unit, "clock=host"));
    exercise_record(csv, 1, "query_us", "one cudaEventQuery", 1e3 * query.median, "us",
                    exercise_measured(0, reps, query, "clock=host"));
    exercise_record(csv, 1, "wall_ms", "wall time polling, one-pass units",
                    normal.wall[POLL_QUERY].median, "ms",
                    exercise_measured(bytes, reps, normal.wall[POLL_QUERY], "clock=host"));
    exercise_record(csv, 1, "long_wall_ms", "wall time polling, ten-pass units",
                    longer.wall[POLL_QUERY].median, "ms",
                    exercise_measured(bytes, reps, longer.wall[POLL_QUERY], "clock=host"));
    exercise_record(csv, 1, "overrun_us", "CPU ran past the GPU's end, one-pass units",
                    1e3 * overrun.median, "us",
                    exercise_measured(bytes, reps, poll_wall, "clock=host"));
    exercise_record(csv, 1, "long_overrun_us", "CPU ran past the GPU's end, ten-pass units",
                    1e3 * long_overrun.median, "us",
                    exercise_measured(bytes, reps, long_poll_wall, "clock=host"));
    exercise_record(csv, 1, "long_overrun_units", "that overrun in ten-pass units",
                    long_overrun.median / long_unit.median, "units",
                    exercise_measured(bytes, reps, long_poll_wall, "clock=host"));
}
