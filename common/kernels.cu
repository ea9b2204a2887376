/* kernels.cu - device code shared by several lessons; see kernels.h for the C interface. */
#include "kernels.h"

/* Grid-stride loop: correct for any n, whatever grid the launcher picks. */
__global__ void vector_add(const float *__restrict__ a, const float *__restrict__ b,
                           float *__restrict__ c, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

extern "C" cudaError_t launch_vector_add(const float *a, const float *b, float *c, size_t n,
                                         cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    vector_add<<<grid_stride_blocks(n), GRID_STRIDE_THREADS, 0, stream>>>(a, b, c, n);
    return cudaGetLastError();
}

/* The GPU's nanosecond clock, the same on every SM. */
static __device__ unsigned long long globaltimer_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin(unsigned long long ns, unsigned long long *elapsed_ns)
{
    unsigned long long start = globaltimer_ns(), now;
    do
        now = globaltimer_ns();
    while (now - start < ns);
    if (threadIdx.x == 0 && elapsed_ns)
        elapsed_ns[blockIdx.x] = now - start;
}

extern "C" cudaError_t launch_spin(unsigned long long ns, unsigned blocks, unsigned threads,
                                   unsigned long long *elapsed_ns, cudaStream_t stream)
{
    spin<<<blocks, threads, 0, stream>>>(ns, elapsed_ns);
    return cudaGetLastError();
}

extern "C" cudaError_t spin_blocks_per_sm(unsigned threads, int *blocks)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, spin, (int)threads, 0);
}

__global__ void wait_for_flag(const volatile int *flag, unsigned long long timeout_ns,
                              volatile int *timed_out)
{
    unsigned long long start = globaltimer_ns();
    while (*flag == 0) {
        if (globaltimer_ns() - start > timeout_ns) {
            *timed_out = 1;
            return;
        }
    }
}

extern "C" cudaError_t launch_wait_for_flag(const volatile int *flag, unsigned long long timeout_ns,
                                            volatile int *timed_out, cudaStream_t stream)
{
    wait_for_flag<<<1, 1, 0, stream>>>(flag, timeout_ns, timed_out);
    return cudaGetLastError();
}
