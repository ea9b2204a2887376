/*
 * kernel_alone.c - `--deep kernel-alone` of lesson 01: the vector add without its launch.
 *
 * In part 1's table the kernel's events bracket its launch too: the host launches it only after
 * the copies return, and the GPU waits for the launch. Here the launches queue behind a gate
 * (common.h), so the events time only the GPU's work, beside the device memory's peak.
 */
#include "common.h"
#include "kernels.h"
#include "sync_copy.h"

#include <string.h>

enum { LAUNCHES = 10 };

/* Each repetition's time per launch into samples[0..reps); one untimed round first. */
static void gated_launches(const struct vectors *v, cudaEvent_t mark[N_PHASES], int reps,
                           double *samples)
{
    struct gate gate;
    CUDA_CHECK(gate_create(&gate));
    for (int rep = -1; rep < reps; rep++) {
        if (rep == reps - 1) /* poisoned, so that the check after sees this rep's result */
            CUDA_CHECK(cudaMemset(v->d_c, 0xff, v->n * sizeof(float)));
        CUDA_CHECK(gate_close(&gate, 0));
        CUDA_CHECK(cudaEventRecord(mark[0], 0));
        for (int i = 0; i < LAUNCHES; i++)
            CUDA_CHECK(launch_vector_add(v->d_a, v->d_b, v->d_c, v->n, 0));
        CUDA_CHECK(cudaEventRecord(mark[1], 0));
        gate_open(&gate);
        CUDA_CHECK(cudaEventSynchronize(mark[1]));
        if (!gate_held(&gate))
            exit(EXIT_ERROR);
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, mark[0], mark[1]));
        if (rep >= 0)
            samples[rep] = ms / LAUNCHES;
    }
    gate_destroy(&gate);
}

void kernel_alone(const struct vectors *v, cudaEvent_t mark[N_PHASES], int reps,
                  const struct gpu_info *gpu, struct csv *csv)
{
    double *samples = samples_or_exit((size_t)reps);
    gated_launches(v, mark, reps, samples);
    memset(v->h_c, 0xff, v->n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(v->h_c, v->d_c, v->n * sizeof(float), cudaMemcpyDeviceToHost));
    if (!vector_add_verified(v->h_a, v->h_b, v->h_c, v->n, "kernel alone"))
        exit(EXIT_ERROR);
    struct stats each = stats_summarize(samples, (size_t)reps);
    size_t bytes = 3 * v->n * sizeof(float); /* a and b read, c written */
    double rate = gbps(bytes, each.median);
    printf("  the kernel alone (%d launches queued behind a gate, events around them): %.3f ms,\n"
           "  %.1f GB/s", LAUNCHES, each.median, rate);
    if (gpu->memory_peak_gbps > 0)
        printf(", %.0f%% of the device memory's %.0f GB/s (memory clock x bus width)",
               100 * rate / gpu->memory_peak_gbps, gpu->memory_peak_gbps);
    printf("\n");
    char params[96];
    snprintf(params, sizeof params, "clock=gpu_event;gated=1;launches=%d;peak_gbps=%.0f", LAUNCHES,
             gpu->memory_peak_gbps);
    csv_record(csv, &(struct csv_row){.experiment = "phases", .variant = "kernel_alone",
                                      .bytes = bytes, .reps = reps, .ms = each, .gbps = rate,
                                      .params = params});
    free(samples);
}
