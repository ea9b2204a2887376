/*
 * concurrency.c - `--deep concurrency`: N one-block kernels of 0.5 ms in one stream, then one in
 * each of N streams. One stream runs them in turn; N streams let the GPU run them side by side.
 */
#include "kernels.h"
#include "streams.h"

#include <stdio.h>

static double launch_small_kernels(cudaStream_t *streams, int n_kernels, bool one_stream,
                                   unsigned long long *d_elapsed)
{
    CUDA_CHECK(cudaMemset(d_elapsed, 0, (size_t)n_kernels * sizeof *d_elapsed));
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = host_ms();
    for (int k = 0; k < n_kernels; k++)
        CUDA_CHECK(launch_spin(spin_ns, 1, 32, d_elapsed + k, streams[one_stream ? 0 : k]));
    CUDA_CHECK(cudaDeviceSynchronize());
    double ms = host_ms() - t0;
    verify_spins(d_elapsed, (unsigned)n_kernels, spin_ns, "small kernel");
    return ms;
}

void kernel_concurrency(int n_streams, int reps, cudaStream_t *streams, double *samples,
                        unsigned long long *d_elapsed, struct csv *csv)
{
    printf("\n--deep concurrency: %d kernels of one block, %.1f ms each, host clock, median of "
           "%d\n", n_streams, spin_ns / 1e6, reps);
    const char *variants[] = {"one_stream", "n_streams"};
    double medians[2];
    for (int v = 0; v < 2; v++) {
        launch_small_kernels(streams, n_streams, v == 0, d_elapsed);
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = launch_small_kernels(streams, n_streams, v == 0, d_elapsed);
        struct stats s = stats_summarize(samples, (size_t)reps);
        medians[v] = s.median;
        printf("  %-12s %8.3f ms\n", v == 0 ? "1 stream" : "N streams", s.median);
        char params[64];
        snprintf(params, sizeof params, "kernels=%d;kernel_ms=%.1f;clock=host", n_streams,
                 spin_ns / 1e6);
        csv_record(csv, &(struct csv_row){.experiment = "kernel_concurrency",
                                          .variant = variants[v], .reps = reps, .ms = s,
                                          .params = params});
    }
    printf("  one stream runs them in turn; %d streams run them side by side (%.1fx faster)\n",
           n_streams, medians[0] / medians[1]);
}
