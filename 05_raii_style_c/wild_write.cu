/* wild_write.cu - the faulting kernel of sticky_error.c (see sticky_error.h). */
#include "sticky_error.h"

__global__ void write_past_end(unsigned *data, size_t n)
{
    /* 2^38 words: 1 TiB past the end, where this program maps nothing (on a system where the GPU
     * can reach all host memory, HMM or ATS, it might land somewhere; the test would then fail) */
    data[n + ((size_t)1 << 38)] = 1;
}

extern "C" cudaError_t launch_write_past_end(unsigned *data, size_t n, cudaStream_t stream)
{
    write_past_end<<<1, 1, 0, stream>>>(data, n);
    return cudaGetLastError();
}
