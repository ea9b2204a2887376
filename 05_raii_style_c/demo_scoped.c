/*
 * demo_scoped.c - the synchronous baseline of the lecture's demo, with scoped handles.
 *
 * __attribute__((cleanup(f))) calls f(&variable) whenever the variable goes out of scope, by any
 * return: C's nearest thing to a destructor. Every handle below is released on every path,
 * without a single explicit destroy call. It is a GNU C extension, so this file is compiled with
 * -std=gnu11 (GCC, Clang and NVIDIA's HPC compilers have it; MSVC does not: there, use the goto
 * ladder of demo_goto.c). Never end the program with `exit` while such handles are live: it skips
 * the cleanup.
 */
#include "demo.h"
#include "kernels.h"
#include "resources.h"

#include <string.h>

#if !defined(__GNUC__)
#error "demo_scoped.c needs __attribute__((cleanup)) (GNU C); see demo_goto.c for portable C"
#endif

#define scoped_pinned __attribute__((cleanup(pinned_buffer_destroy))) struct pinned_buffer
#define scoped_device __attribute__((cleanup(device_buffer_destroy))) struct device_buffer

/* Builds an input vector and hands it to the caller: the scoped handle is moved out on success,
 * so its cleanup finds it empty; on failure the cleanup releases it. */
static cudaError_t make_input(struct pinned_buffer *out, size_t n, unsigned long long seed)
{
    scoped_pinned input = {NULL, 0};
    cudaError_t err = pinned_buffer_create(&input, n * sizeof(float));
    if (err != cudaSuccess)
        return err;
    fill_random(input.data, n, seed);
    *out = pinned_buffer_move(&input);
    return cudaSuccess;
}

int run_sync_baseline(const struct demo_config *cfg, struct demo_samples *out)
{
    const size_t bytes = cfg->n * sizeof(float);
    scoped_pinned h_a = {NULL, 0};
    scoped_pinned h_b = {NULL, 0};
    scoped_pinned h_c = {NULL, 0};
    scoped_device d_a = {NULL, 0};
    scoped_device d_b = {NULL, 0};
    scoped_device d_c = {NULL, 0};
    if (make_input(&h_a, cfg->n, 1) || make_input(&h_b, cfg->n, 2) ||
        pinned_buffer_create(&h_c, bytes) || device_buffer_create(&d_a, bytes) ||
        device_buffer_create(&d_b, bytes) || device_buffer_create(&d_c, bytes))
        return EXIT_ERROR; /* whatever was created is released on the way out */

    for (int rep = -1; rep < cfg->reps; rep++) {
        memset(h_c.data, 0xff, bytes);
        double t0 = host_ms();
        if (CUDA_REPORT(cudaMemcpy(d_a.data, h_a.data, bytes, cudaMemcpyHostToDevice)) ||
            CUDA_REPORT(cudaMemcpy(d_b.data, h_b.data, bytes, cudaMemcpyHostToDevice)) ||
            CUDA_REPORT(launch_vector_add(d_a.data, d_b.data, d_c.data, cfg->n, 0)) ||
            CUDA_REPORT(cudaDeviceSynchronize()) ||
            CUDA_REPORT(cudaMemcpy(h_c.data, d_c.data, bytes, cudaMemcpyDeviceToHost)))
            return EXIT_ERROR;
        double total = host_ms() - t0;
        if (!vector_add_verified(h_a.data, h_b.data, h_c.data, cfg->n, "synchronous result"))
            return EXIT_ERROR;
        if (rep >= 0)
            out->sync_total[rep] = total;
    }
    return EXIT_VERIFIED;
}
