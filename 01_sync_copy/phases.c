/*
 * phases.c - what part 1 of lesson 01 prints and records: each phase's median on both clocks,
 * its rate, and the kernel launch's own time (main.c measures them).
 */
#include "common.h"
#include "sync_copy.h"

#include <math.h>

static const char *const phase_names[N_PHASES] = {"h2d", "kernel", "d2h", "total"};
static const char *const phase_directions[N_PHASES] = {"H2D", "none", "D2H", "none"};

void print_phases(const struct vectors *v, const struct phase_times *times, int reps,
                  struct csv *csv)
{
    const size_t bytes = v->n * sizeof(float);
    /* Bytes each phase moves: two inputs in, one output out; the kernel touches all three. */
    const size_t phase_bytes[N_PHASES] = {2 * bytes, 3 * bytes, bytes, 3 * bytes};
    double *samples = samples_or_exit((size_t)reps);
    char size_text[32];
    printf("\nPart 1: c = a + b with blocking cudaMemcpy, %zu floats (%s per vector), "
           "median of %d\n", v->n, format_bytes(bytes, size_text, sizeof size_text), reps);
    printf("  %-8s %14s %12s %18s\n", "phase", "GPU ms", "GB/s", "CPU blocked ms");
    struct stats host[N_PHASES];
    for (int p = 0; p < N_PHASES; p++) {
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = times[rep].gpu_ms[p];
        struct stats gpu = stats_summarize(samples, (size_t)reps);
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = times[rep].host_ms[p];
        host[p] = stats_summarize(samples, (size_t)reps);
        double rate = p == PHASE_TOTAL ? NAN : gbps(phase_bytes[p], gpu.median);
        char rate_text[16] = "-";
        if (!isnan(rate))
            snprintf(rate_text, sizeof rate_text, "%.1f", rate);
        printf("  %-8s %14.3f %12s %18.3f\n", phase_names[p], gpu.median, rate_text,
               host[p].median);
        csv_record(csv, &(struct csv_row){"phases", phase_names[p], phase_directions[p],
                                          phase_bytes[p], reps, gpu, rate, "clock=gpu_event"});
        csv_record(csv, &(struct csv_row){"phases", phase_names[p], phase_directions[p],
                                          phase_bytes[p], reps, host[p], NAN, "clock=host"});
    }
    for (int rep = 0; rep < reps; rep++)
        samples[rep] = times[rep].launch_ms;
    struct stats launch = stats_summarize(samples, (size_t)reps);
    csv_record(csv, &(struct csv_row){.experiment = "phases", .variant = "launch", .reps = reps,
                                      .ms = launch, .params = "clock=host"});
    free(samples);

    printf("  (GB/s: H2D and D2H over PCIe; kernel: bytes read + written in device memory)\n");
    printf("  The CPU spent the whole %.3f ms inside blocking CUDA calls, and the copy engines "
           "and\n  the SMs took turns. Only the kernel launch returned at once (after %.4f ms):\n"
           "  cudaDeviceSynchronize did the waiting for it.\n",
           host[PHASE_TOTAL].median, launch.median);
}
