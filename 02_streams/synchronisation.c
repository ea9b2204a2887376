/*
 * synchronisation.c - `--deep synchronisation`: cudaStreamSynchronize waits for one stream,
 * cudaDeviceSynchronize for every stream; cudaStreamDestroy on a busy stream returns at once,
 * and the work queued in it still runs to the end.
 */
#include "kernels.h"
#include "streams.h"

#include <stdio.h>
#include <stdlib.h>

/* One repetition: a short kernel in one stream, a long one in the other, and the two waits; then
 * a stream destroyed while busy. The three host-clock times go to ms[0], ms[1], ms[2]. */
static void one_round(cudaStream_t short_stream, cudaStream_t long_stream,
                      unsigned long long long_ns, unsigned long long *d_elapsed, double *ms)
{
    CUDA_CHECK(cudaMemset(d_elapsed, 0, 3 * sizeof *d_elapsed));
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = host_ms();
    CUDA_CHECK(launch_spin(spin_ns, 1, 32, d_elapsed, short_stream));
    CUDA_CHECK(launch_spin(long_ns, 1, 32, d_elapsed + 1, long_stream));
    CUDA_CHECK(cudaStreamSynchronize(short_stream));
    ms[0] = host_ms() - t0;
    CUDA_CHECK(cudaDeviceSynchronize());
    ms[1] = host_ms() - t0;

    /* The call returns at once, the work still runs, and the stream's resources are released
     * when it is done. */
    cudaStream_t doomed;
    CUDA_CHECK(cudaStreamCreateWithFlags(&doomed, cudaStreamNonBlocking));
    CUDA_CHECK(launch_spin(long_ns, 1, 32, d_elapsed + 2, doomed));
    double t_destroy = host_ms();
    CUDA_CHECK(cudaStreamDestroy(doomed));
    ms[2] = host_ms() - t_destroy;
    CUDA_CHECK(cudaDeviceSynchronize());
    verify_spins(d_elapsed, 1, spin_ns, "short-stream kernel");
    verify_spins(d_elapsed + 1, 1, long_ns, "long-stream kernel");
    verify_spins(d_elapsed + 2, 1, long_ns, "kernel in the destroyed stream");
}

void synchronisation(int reps, cudaStream_t short_stream, cudaStream_t long_stream,
                     double *samples, unsigned long long *d_elapsed, struct csv *csv)
{
    const unsigned long long long_ns = 4 * spin_ns;
    double *device_wait = samples_or_exit((size_t)reps), *destroy = samples_or_exit((size_t)reps);
    for (int rep = -1; rep < reps; rep++) {
        double ms[3];
        one_round(short_stream, long_stream, long_ns, d_elapsed, ms);
        if (rep >= 0) {
            samples[rep] = ms[0];
            device_wait[rep] = ms[1];
            destroy[rep] = ms[2];
        }
    }
    struct stats stream_sync = stats_summarize(samples, (size_t)reps);
    struct stats device_sync = stats_summarize(device_wait, (size_t)reps);
    struct stats destroy_call = stats_summarize(destroy, (size_t)reps);
    printf("\n--deep synchronisation: a %.1f ms kernel in stream A, a %.1f ms kernel in stream B, "
           "host clock,\n    median of %d\n", spin_ns / 1e6, long_ns / 1e6, reps);
    printf("  cudaStreamSynchronize(A) returned after %8.3f ms\n", stream_sync.median);
    printf("  cudaDeviceSynchronize()  returned after %8.3f ms\n", device_sync.median);
    printf("  cudaStreamDestroy on a stream with %.1f ms of work queued returned in %.4f ms, "
           "and the work completed\n", long_ns / 1e6, destroy_call.median);
    const struct { const char *variant; struct stats s; } rows[] = {
        {"stream_sync", stream_sync}, {"device_sync", device_sync},
        {"destroy_busy_stream", destroy_call}};
    for (int r = 0; r < 3; r++)
        csv_record(csv, &(struct csv_row){.experiment = "synchronize", .variant = rows[r].variant,
                                          .reps = reps, .ms = rows[r].s, .params = "clock=host"});
    free(device_wait);
    free(destroy);
}
