/*
 * zero_copy.h - lesson 04's kernels, behind C launchers that return the launch's error.
 */
#ifndef ZERO_COPY_H
#define ZERO_COPY_H

#include <stddef.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = src[i * stride] for i < n_out. Either pointer may be mapped host memory (a device
 * pointer from cudaHostGetDevicePointer): then every access crosses PCIe, with no copy first. */
cudaError_t launch_gather(const float *src, float *dst, size_t n_out, size_t stride,
                          cudaStream_t stream);

/* Adds to *count the number of words where a and b differ: checks a copy on the GPU, without
 * reading either buffer from the CPU. */
cudaError_t launch_count_differences(const unsigned *a, const unsigned *b, size_t n,
                                     unsigned long long *count, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* ZERO_COPY_H */
