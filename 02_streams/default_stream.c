/*
 * default_stream.c - the lesson's experiment 2 (lecture 3.1, the default stream): the legacy
 * default stream, stream 0, as a barrier. Kernel A in stream s1, a tiny kernel in stream 0,
 * kernel B in stream s2: with ordinary ("blocking") streams B waits for A; with
 * cudaStreamNonBlocking streams it does not, nor with the tiny kernel in the per-thread default
 * stream. A fourth case puts A in cudaStreamPerThread: is the per-thread default stream a
 * non-blocking stream?
 *
 * Times are host-clock times from A's launch until cudaDeviceSynchronize returns, on an idle GPU:
 * events that bracket several streams need cross-stream waits, lesson 03's subject.
 */
#include "kernels.h"
#include "streams.h"

#include <stdio.h>
#include <stdlib.h>

double a_then_tiny_then_b(cudaStream_t s1, cudaStream_t between, cudaStream_t s2,
                          bool memset_between, unsigned long long *d_elapsed)
{
    CUDA_CHECK(cudaMemset(d_elapsed, 0, 3 * sizeof *d_elapsed));
    if (memset_between)
        CUDA_CHECK(cudaMemset(d_elapsed + 1, 0xff, sizeof *d_elapsed));
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = host_ms();
    CUDA_CHECK(launch_spin(spin_ns, 1, 32, d_elapsed, s1));
    if (memset_between)
        CUDA_CHECK(cudaMemsetAsync(d_elapsed + 1, 0, sizeof *d_elapsed, between));
    else
        CUDA_CHECK(launch_spin(1000, 1, 32, d_elapsed + 1, between));
    CUDA_CHECK(launch_spin(spin_ns, 1, 32, d_elapsed + 2, s2));
    CUDA_CHECK(cudaDeviceSynchronize());
    double ms = host_ms() - t0;
    verify_spins(d_elapsed, 1, spin_ns, "kernel A");
    verify_spins(d_elapsed + 2, 1, spin_ns, "kernel B");
    unsigned long long word = 0;
    if (memset_between)
        CUDA_CHECK(cudaMemcpy(&word, d_elapsed + 1, sizeof word, cudaMemcpyDeviceToHost));
    if (word != 0) {
        fprintf(stderr, "%s: the memset in stream 0 left its word at %#llx, not 0\n",
                program_name, word);
        exit(EXIT_ERROR);
    }
    return ms;
}

void default_stream_barrier(int reps, double *samples, unsigned long long *d_elapsed,
                            struct csv *csv)
{
    cudaStream_t blocking[2], non_blocking[2];
    for (int i = 0; i < 2; i++) {
        CUDA_CHECK(cudaStreamCreate(&blocking[i])); /* = cudaStreamDefault: a "blocking" stream */
        CUDA_CHECK(cudaStreamCreateWithFlags(&non_blocking[i], cudaStreamNonBlocking));
    }
    const struct { const char *variant, *label; cudaStream_t s1, between, s2; } cases[] = {
        {"blocking_legacy", "blocking streams, tiny kernel in stream 0", blocking[0], 0,
         blocking[1]},
        {"nonblocking_legacy", "non-blocking streams, tiny kernel in stream 0", non_blocking[0],
         0, non_blocking[1]},
        {"blocking_per_thread", "blocking streams, tiny kernel in cudaStreamPerThread",
         blocking[0], cudaStreamPerThread, blocking[1]},
        /* As the first case, with s1 the per-thread default stream: is it non-blocking? */
        {"per_thread_legacy", "s1 = cudaStreamPerThread, tiny kernel in stream 0",
         cudaStreamPerThread, 0, blocking[1]},
    };
    printf("\n2. kernel A (%.1f ms) in s1, a tiny kernel between, kernel B (%.1f ms) in s2, "
           "host clock, median of %d\n", spin_ns / 1e6, spin_ns / 1e6, reps);
    for (int c = 0; c < 4; c++) {
        for (int rep = -1; rep < reps; rep++)
            samples[rep < 0 ? 0 : rep] = a_then_tiny_then_b(cases[c].s1, cases[c].between,
                                                             cases[c].s2, false, d_elapsed);
        struct stats s = stats_summarize(samples, (size_t)reps);
        printf("  %-52s %7.3f ms  %s\n", cases[c].label, s.median,
               s.median > 1.5 * spin_ns / 1e6 ? "A, then B: serialised" : "A and B together");
        char params[64];
        snprintf(params, sizeof params, "kernel_ms=%.1f;clock=host", spin_ns / 1e6);
        csv_record(csv, &(struct csv_row){.experiment = "default_stream",
                                          .variant = cases[c].variant, .reps = reps, .ms = s,
                                          .params = params});
    }
    for (int i = 0; i < 2; i++) {
        CUDA_CHECK(cudaStreamDestroy(blocking[i]));
        CUDA_CHECK(cudaStreamDestroy(non_blocking[i]));
    }
}
