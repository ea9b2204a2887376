/*
 * which_calls_wait.c - `--deep which-calls-wait`: one stream's chunk of experiment 1 copied in
 * and then out again, each cudaMemcpyAsync queued behind a 2 ms kernel in its stream. When the
 * call returns tells whether it waited for that kernel, and so for the stream: the CUDA runtime's
 * "API synchronization behavior" page says only that a copy between the device and pageable
 * memory "might be synchronous". The chunk makes the round trip, and is checked.
 */
#include "kernels.h"
#include "streams.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One direction from one kind of host memory: the median of reps calls' return times. */
static struct stats copy_returns(float *host_in, float *host_out, float *device, size_t bytes,
                                 bool up, cudaStream_t stream, int reps, double *samples,
                                 unsigned long long *d_elapsed, unsigned long long kernel_ns)
{
    for (int rep = -1; rep < reps; rep++) {
        CUDA_CHECK(cudaMemset(d_elapsed, 0, sizeof *d_elapsed));
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(launch_spin(kernel_ns, 1, 32, d_elapsed, stream));
        double t0 = host_ms();
        if (up)
            CUDA_CHECK(cudaMemcpyAsync(device, host_in, bytes, cudaMemcpyHostToDevice, stream));
        else
            CUDA_CHECK(cudaMemcpyAsync(host_out, device, bytes, cudaMemcpyDeviceToHost, stream));
        double returned = host_ms() - t0;
        CUDA_CHECK(cudaStreamSynchronize(stream));
        verify_spins(d_elapsed, 1, kernel_ns, "kernel before the copy");
        if (rep >= 0)
            samples[rep] = returned;
    }
    return stats_summarize(samples, (size_t)reps);
}

void which_calls_wait(size_t bytes, cudaStream_t stream, int reps, unsigned long long *d_elapsed,
                      struct csv *csv)
{
    const unsigned long long kernel_ns = 2000 * 1000ull;
    float *pageable[2] = {malloc_or_exit(bytes), malloc_or_exit(bytes)}, *pinned[2], *device;
    CUDA_CHECK(cudaMallocHost((void **)&pinned[0], bytes));
    CUDA_CHECK(cudaMallocHost((void **)&pinned[1], bytes));
    CUDA_CHECK(cudaMalloc((void **)&device, bytes));
    fill_random(pageable[0], bytes / sizeof(float), 1);
    memcpy(pinned[0], pageable[0], bytes);
    double *samples = samples_or_exit((size_t)reps);
    char size_text[32], params[80];
    printf("\n--deep which-calls-wait: one cudaMemcpyAsync of %s (one stream's chunk) queued "
           "behind a\n    %.1f ms kernel in its stream: when does the call return? host clock, "
           "median of %d\n", format_bytes(bytes, size_text, sizeof size_text), kernel_ns / 1e6,
           reps);
    float *const *kinds[] = {pageable, pinned};
    for (int k = 0; k < 2; k++) {
        for (int up = 1; up >= 0; up--) {
            struct stats s = copy_returns(kinds[k][0], kinds[k][1], device, bytes, up, stream,
                                          reps, samples, d_elapsed, kernel_ns);
            const char *name = k == 0 ? "pageable" : "pinned", *direction = up ? "H2D" : "D2H";
            printf("  %-9s %s returned after %8.3f ms: %s\n", name, direction, s.median,
                   s.median > 0.9 * kernel_ns / 1e6 ? "it waited for the kernel before it"
                                                    : "at once: the copy queued behind the kernel");
            snprintf(params, sizeof params,
                     "clock=host;measure=call_returned;kernel_before_ms=%.1f", kernel_ns / 1e6);
            csv_record(csv, &(struct csv_row){.experiment = "async_returns", .variant = name,
                                              .direction = direction, .bytes = bytes,
                                              .reps = reps, .ms = s, .params = params});
        }
        if (memcmp(kinds[k][0], kinds[k][1], bytes) != 0) {
            fprintf(stderr, "%s: which-calls-wait: the chunk came back changed\n", program_name);
            exit(EXIT_ERROR);
        }
    }
    free(samples);
    CUDA_CHECK(cudaFree(device));
    CUDA_CHECK(cudaFreeHost(pinned[0]));
    CUDA_CHECK(cudaFreeHost(pinned[1]));
    free(pageable[0]);
    free(pageable[1]);
}
