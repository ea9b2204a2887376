/* wild_write.cu - the faulting kernel of sticky_error.c (see sticky_error.h). */
#include "sticky_error.h"

__global__ void write_past_end(unsigned *data, size_t n)
{
    data[n + ((size_t)1 << 38)] = 1; /* 2^38 words: 1 TiB past the end */
}

extern "C" cudaError_t launch_write_past_end(unsigned *data, size_t n, cudaStream_t stream)
{
    write_past_end<<<1, 1, 0, stream>>>(data, n);
    return cudaGetLastError();
}
