/* work.cu - lesson 06's kernel; see work.h. */
#include "work.h"

#include "kernels.h"

/* a and c arrive at run time, so the compiler cannot fold the loop into one step. */
__global__ void iterate_affine(unsigned *data, size_t n, unsigned iters, unsigned a, unsigned c)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned x = data[i];
        for (unsigned k = 0; k < iters; k++)
            x = a * x + c;
        data[i] = x;
    }
}

extern "C" cudaError_t launch_work(unsigned *data, size_t n, unsigned iters, struct affine map,
                                   cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    iterate_affine<<<grid_stride_blocks(n), GRID_STRIDE_THREADS, 0, stream>>>(data, n, iters,
                                                                              map.a, map.c);
    return cudaGetLastError();
}

extern "C" struct affine work_compose(struct affine map, unsigned iters)
{
    struct affine total = {1, 0}; /* the identity */
    for (unsigned k = 0; k < iters; k++)
        total = (struct affine){map.a * total.a, map.a * total.c + map.c};
    return total;
}
