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

#ifdef __cplusplus
extern "C" {
#endif

/* c[i] = a[i] + b[i] for i < n: the lecture's section-6 kernel, on floats. It reads 8 and writes 4
 * bytes per element, so it is bound by device-memory bandwidth, not arithmetic. */
cudaError_t launch_vector_add(const float *a, const float *b, float *c, size_t n,
                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* KERNELS_H */
