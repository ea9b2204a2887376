/* demo_report.c - the demo's table and CSV rows, from the samples of its two halves (demo.h). */
#include "demo.h"

int demo_report(const struct demo_config *cfg, struct demo_samples *s, struct csv *csv)
{
    const size_t bytes = 3 * cfg->n * sizeof(float);
    const size_t reps = (size_t)cfg->reps;
    /* The GPU work the CPU did not wait for: what the synchronous version took, plus the CPU
     * work, minus what the asynchronous version took. */
    struct stats sync = stats_summarize(s->sync_total, reps);
    double *overlapped = samples_alloc(reps);
    if (!overlapped)
        return EXIT_ERROR;
    for (size_t i = 0; i < reps; i++)
        overlapped[i] = sync.median + s->cpu_work[i] - s->async_total[i];
    struct stats async = stats_summarize(s->async_total, reps);
    struct stats cpu = stats_summarize(s->cpu_work, reps);
    struct stats wait = stats_summarize(s->waiting, reps);
    struct stats hidden = stats_summarize(overlapped, reps);
    free(overlapped);

    char size_text[32];
    printf("\nc = a + b, %s per vector, host clock, median of %d\n",
           format_bytes(cfg->n * sizeof(float), size_text, sizeof size_text), cfg->reps);
    printf("  synchronous (the CPU waits throughout)          %9.3f ms\n", sync.median);
    printf("  asynchronous, CPU work included                 %9.3f ms\n", async.median);
    printf("    of which the CPU worked                       %9.3f ms\n", cpu.median);
    printf("    and waited at the end (transfer_wait_all)     %9.3f ms\n", wait.median);
    printf("  GPU work done while the CPU worked              %9.3f ms of %.3f\n", hidden.median,
           sync.median);
    /* The overlap is a difference of measurements, not one, and can come out below zero for
     * small sizes: it is printed, not written as a time. */
    const struct { const char *variant; struct stats ms; } rows[] = {
        {"sync_total", sync}, {"async_total", async}, {"cpu_work", cpu}, {"final_wait", wait},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct csv_row row = {.experiment = "demo", .variant = rows[i].variant, .bytes = bytes,
                              .reps = cfg->reps, .ms = rows[i].ms,
                              .params = "clock=host;cpu_work_ms=50+70"};
        if (csv_write(csv, &row))
            return EXIT_ERROR;
    }
    return EXIT_VERIFIED;
}
