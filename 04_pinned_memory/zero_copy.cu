/* zero_copy.cu - lesson 04's kernels; see zero_copy.h. */
#include "zero_copy.h"

#include "kernels.h"

__global__ void gather(const float *__restrict__ src, float *__restrict__ dst, size_t n_out,
                       size_t stride)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n_out;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i * stride];
}

__global__ void count_differences(const unsigned *__restrict__ a, const unsigned *__restrict__ b,
                                  size_t n, unsigned long long *count)
{
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        mine += a[i] != b[i];
    if (mine)
        atomicAdd(count, mine);
}

extern "C" cudaError_t launch_gather(const float *src, float *dst, size_t n_out, size_t stride,
                                     cudaStream_t stream)
{
    gather<<<grid_stride_blocks(n_out), GRID_STRIDE_THREADS, 0, stream>>>(src, dst, n_out, stride);
    return cudaGetLastError();
}

extern "C" cudaError_t launch_count_differences(const unsigned *a, const unsigned *b, size_t n,
                                                unsigned long long *count, cudaStream_t stream)
{
    count_differences<<<grid_stride_blocks(n), GRID_STRIDE_THREADS, 0, stream>>>(a, b, n, count);
    return cudaGetLastError();
}
