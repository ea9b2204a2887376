/*
 * which_calls_wait.c - `--deep which-calls-wait`: copies of 4 KiB up to one stream's chunk of
 * experiment 1, in and then out again, each cudaMemcpyAsync queued behind a 2 ms kernel in its
 * stream. When the call returns tells whether it waited for that kernel, and so for the stream:
 * the CUDA runtime's "API synchronization behavior" page says only that a copy between the device
 * and pageable memory "might be synchronous", and one size of one direction is not a rule. The
 * chunk makes the round trip, and is checked.
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

/* From 4 KiB up by 16 times, then the chunk itself: the sizes the calls are sampled at. */
enum { FIRST_BYTES = 4096, MAX_SIZES = 8 };
static int sizes_up_to(size_t bytes, size_t out[MAX_SIZES])
{
    int n = 0;
    for (size_t size = FIRST_BYTES; size < bytes && n < MAX_SIZES - 1; size *= 16)
        out[n++] = size;
    out[n++] = bytes;
    return n;
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
    size_t sizes[MAX_SIZES];
    int n_sizes = sizes_up_to(bytes, sizes);
    char size_text[32], first_text[32], params[80];
    printf("\n--deep which-calls-wait: one cudaMemcpyAsync of %s to %s (one stream's chunk) "
           "queued\n    behind a %.1f ms kernel in its stream: when does the call return? host "
           "clock, median of %d\n", format_bytes(FIRST_BYTES, first_text, sizeof first_text),
           format_bytes(bytes, size_text, sizeof size_text), kernel_ns / 1e6, reps);
    float *const *kinds[] = {pageable, pinned};
    for (int k = 0; k < 2; k++) {
        memset(kinds[k][1], 0, bytes);
        for (int up = 1; up >= 0; up--)
            for (int i = 0; i < n_sizes; i++) {
                struct stats s = copy_returns(kinds[k][0], kinds[k][1], device, sizes[i], up,
                                              stream, reps, samples, d_elapsed, kernel_ns);
                const char *name = k == 0 ? "pageable" : "pinned", *direction = up ? "H2D" : "D2H";
                printf("  %-9s %s %8s returned after %8.3f ms: %s\n", name, direction,
                       format_bytes(sizes[i], size_text, sizeof size_text), s.median,
                       s.median > 0.9 * kernel_ns / 1e6 ? "it waited for the kernel before it"
                                                        : "at once: the copy queued behind it");
                snprintf(params, sizeof params,
                         "clock=host;measure=call_returned;kernel_before_ms=%.1f", kernel_ns / 1e6);
                csv_record(csv, &(struct csv_row){.experiment = "async_returns", .variant = name,
                                                  .direction = direction, .bytes = sizes[i],
                                                  .reps = reps, .ms = s, .params = params});
            }
        /* The last D2H, of the whole chunk, brings back what the last H2D took up. */
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
