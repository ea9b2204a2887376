/* demo_report.c - the demo's table and CSV rows, from the samples of its two halves (demo.h). */
#include "demo.h"

int demo_report(const struct demo_config *cfg, struct demo_samples *s, struct csv *csv)
{
    const size_t bytes = 3 * cfg->n * sizeof(float);
    const size_t reps = (size_t)cfg->reps;
    struct stats sync = stats_summarize(s->sync_total, reps);
    struct stats async = stats_summarize(s->async_total, reps);
    struct stats cpu = stats_summarize(s->cpu_work, reps);
    struct stats wait = stats_summarize(s->waiting, reps);

    char size_text[32];
    printf("\nc = a + b, %s per vector, host clock, median of %d\n",
           format_bytes(cfg->n * sizeof(float), size_text, sizeof size_text), cfg->reps);
    printf("  synchronous (the CPU waits throughout)          %9.3f ms\n", sync.median);
    printf("  asynchronous, CPU work included                 %9.3f ms\n", async.median);
    /* The lecture's simulated CPU work is a sleep: the CPU is free, not busy, meanwhile. What
     * is measured of the overlap is the last line: how long the GPU's work outlasted the CPU's. */
    printf("    of which the CPU slept (its simulated work)   %9.3f ms\n", cpu.median);
    printf("    and waited at the end (transfer_wait_all)     %9.3f ms\n", wait.median);
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
