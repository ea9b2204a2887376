/*
 * kernels.h - the device work several lessons share, behind C launchers.
 *
 * Kernels are CUDA C++ (kernels.cu); host code is C. Each launcher is declared extern "C" and
 * returns the launch's cudaGetLastError(), so a C caller checks a launch like any other call:
 *     CUDA_CHECK(launch_vector_add(d_a, d_b, d_c, n, stream));
 */
#ifndef KERNELS_H
#define KERNELS_H

#include <stddef.h>

#include <cuda_runtime.h>

/* Launch shape of the grid-stride kernels, kernels.cu's and the lessons' own: 256 threads a block,
 * one thread per element up to 2^20 blocks (at least one); past that each thread strides. */
enum { GRID_STRIDE_THREADS = 256 };
static inline unsigned grid_stride_blocks(size_t n)
{
    size_t blocks = (n + GRID_STRIDE_THREADS - 1) / GRID_STRIDE_THREADS;
    return (unsigned)(blocks > (1u << 20) ? 1u << 20 : blocks < 1 ? 1 : blocks);
}

#ifdef __cplusplus
extern "C" {
#endif

/* c[i] = a[i] + b[i] for i < n: the lecture's section-6 kernel, on floats. It reads 8 and writes 4
 * bytes per element, so it is bound by device-memory bandwidth, not arithmetic. */
cudaError_t launch_vector_add(const float *a, const float *b, float *c, size_t n,
                              cudaStream_t stream);

/* Launches `blocks` blocks of `threads` threads that each hold their place on an SM until `ns`
 * nanoseconds of GPU time (the %globaltimer clock) have passed: work of a known length that uses
 * a known share of the GPU, whatever its clocks. Thread 0 of block i writes the nanoseconds its
 * block ran to elapsed_ns[i] (elapsed_ns may be NULL), which proves that the block ran. */
cudaError_t launch_spin(unsigned long long ns, unsigned blocks, unsigned threads,
                        unsigned long long *elapsed_ns, cudaStream_t stream);

/* How many blocks of `threads` threads of the spinning kernel one SM holds at once. */
cudaError_t spin_blocks_per_sm(unsigned threads, int *blocks);

/* One thread that spins until *flag is not 0, or until `timeout_ns` of GPU time have passed, when
 * it sets *timed_out to 1 and ends: the kernel behind a gate (common.h). flag and timed_out are
 * device pointers to mapped host memory. */
cudaError_t launch_wait_for_flag(const volatile int *flag, unsigned long long timeout_ns,
                                 volatile int *timed_out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* KERNELS_H */
