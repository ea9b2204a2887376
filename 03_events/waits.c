/*
 * waits.c - `--deep waits`: the ways the CPU can wait for the GPU, side by side. The lesson
 * (main.c) polls cudaEventQuery and works between polls; here the same work is waited for with
 * cudaEventSynchronize, on an ordinary event (the thread spins) and on a cudaEventBlockingSync
 * event (it sleeps), timed by the host clock and by the thread's CPU clock. Exercises 1 and 2 run
 * the whole table again, and exercise 2 adds a fourth wait, cudaStreamSynchronize.
 */
#include "events.h"

static const struct {
    const char *variant, *label;
} rows[N_WAIT_STYLES] = {
    [POLL_QUERY] = {"poll_query", "poll cudaEventQuery, work between"},
    [SYNC_SPIN] = {"sync_spin", "cudaEventSynchronize"},
    [SYNC_BLOCKING] = {"sync_blocking", "cudaEventSynchronize, BlockingSync"},
};

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
        /* The event's own flag decides: cudaEventBlockingSync sleeps, else the thread spins. */
        CUDA_CHECK(cudaEventSynchronize(done));
    }
    struct wait_result r = {host_ms() - t0, thread_cpu_ms() - cpu0, units};
    verify_work(w);
    return r;
}

struct wait_stats wait_stats_of(double *wall, double *cpu, double *units, int reps)
{
    return (struct wait_stats){stats_summarize(wall, (size_t)reps),
                               stats_summarize(cpu, (size_t)reps),
                               stats_summarize(units, (size_t)reps)};
}

void wait_record(struct csv *csv, const struct work *w, int reps, enum wait_style style,
                 const struct wait_stats *s)
{
    char params[96];
    snprintf(params, sizeof params, "clock=host;measure=wall;work_units=%.0f", s->units.median);
    csv_record(csv, &(struct csv_row){.experiment = "cpu_overlap", .variant = rows[style].variant,
                                      .bytes = 3 * w->n * sizeof(float), .reps = reps,
                                      .ms = s->wall, .params = params});
    snprintf(params, sizeof params, "clock=thread_cpu;measure=cpu_time;work_units=%.0f",
             s->units.median);
    csv_record(csv, &(struct csv_row){.experiment = "cpu_overlap", .variant = rows[style].variant,
                                      .bytes = 3 * w->n * sizeof(float), .reps = reps,
                                      .ms = s->cpu, .params = params});
}

/* One wait, one untimed run first, then `reps` timed ones. */
static struct wait_stats measure(const struct work *w, cudaEvent_t done, enum wait_style style,
                                 int unit_passes, int reps, double *sink)
{
    double *wall = samples_or_exit((size_t)reps), *cpu = samples_or_exit((size_t)reps);
    double *units = samples_or_exit((size_t)reps);
    wait_for_gpu(w, done, style, unit_passes, sink);
    for (int rep = 0; rep < reps; rep++) {
        struct wait_result r = wait_for_gpu(w, done, style, unit_passes, sink);
        wall[rep] = r.wall_ms;
        cpu[rep] = r.cpu_ms;
        units[rep] = r.units;
    }
    struct wait_stats s = wait_stats_of(wall, cpu, units, reps);
    free(wall);
    free(cpu);
    free(units);
    return s;
}

static void print_head(const char *title, int reps)
{
    printf("\n%s waiting for copy in, add, copy out; host clocks, median of %d\n", title, reps);
    printf("  %-36s %10s %14s %16s\n", "how the CPU waits", "wall ms", "CPU time ms",
           "CPU work units");
}

static void print_row(enum wait_style style, const struct wait_stats *s)
{
    printf("  %-36s %10.3f %14.3f %16.0f\n", rows[style].label, s->wall.median, s->cpu.median,
           s->units.median);
}

/* The events each wait waits on. No timing needed: these events only say "done". */
static void create_wait_events(cudaEvent_t events[N_WAIT_STYLES])
{
    CUDA_CHECK(cudaEventCreateWithFlags(&events[SYNC_SPIN], cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&events[SYNC_BLOCKING], cudaEventDisableTiming |
                                                                    cudaEventBlockingSync));
    events[POLL_QUERY] = events[SYNC_SPIN];
}

struct overlap_table cpu_gpu_overlap(const struct work *w, int reps, int unit_passes,
                                     struct csv *csv)
{
    cudaEvent_t events[N_WAIT_STYLES];
    create_wait_events(events);
    double sink = 0;
    struct overlap_table table;
    print_head("2.", reps);
    for (int s = 0; s < N_WAIT_STYLES; s++) {
        struct wait_stats m = measure(w, events[s], (enum wait_style)s, unit_passes, reps, &sink);
        table.wall[s] = m.wall;
        table.cpu[s] = m.cpu;
        table.units[s] = m.units;
        print_row((enum wait_style)s, &m);
        wait_record(csv, w, reps, (enum wait_style)s, &m);
    }
    char times[32] = "";
    if (unit_passes > 1)
        snprintf(times, sizeof times, ", %d times over", unit_passes);
    printf("  (one work unit: a sum of squares over 16 Ki floats%s; checksum %.3g)\n", times,
           sink);
    CUDA_CHECK(cudaEventDestroy(events[SYNC_SPIN]));
    CUDA_CHECK(cudaEventDestroy(events[SYNC_BLOCKING]));
    return table;
}

void deep_waits(const struct work *w, int reps, const struct wait_stats *poll, struct csv *csv)
{
    cudaEvent_t events[N_WAIT_STYLES];
    create_wait_events(events);
    double sink = 0;
    print_head("waits:", reps);
    print_row(POLL_QUERY, poll);
    for (int s = SYNC_SPIN; s < N_WAIT_STYLES; s++) {
        struct wait_stats m = measure(w, events[s], (enum wait_style)s, 1, reps, &sink);
        print_row((enum wait_style)s, &m);
        wait_record(csv, w, reps, (enum wait_style)s, &m);
    }
    printf("  (the first row is the lesson's experiment 2, measured before; one work unit: a sum "
           "of squares\n  over 16 Ki floats)\n");
    CUDA_CHECK(cudaEventDestroy(events[SYNC_SPIN]));
    CUDA_CHECK(cudaEventDestroy(events[SYNC_BLOCKING]));
}
