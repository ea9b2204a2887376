/*
 * work.h - lesson 06's kernel: work per element of a length you choose.
 *
 * Each element goes `iters` times through x -> a*x + c (mod 2^32). More iterations, more
 * arithmetic for the same bytes: the knob that moves the pipeline from copy-bound to
 * compute-bound. The result is still cheap to check: iterating an affine map gives an affine map,
 * so the host computes it once (work_compose) and checks each element with one multiply-add.
 */
#ifndef WORK_H
#define WORK_H

#include <stddef.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

struct affine {
    unsigned a, c; /* x -> a*x + c, mod 2^32 */
};

/* data[i] = the map applied `iters` times to data[i], for i < n, in place. */
cudaError_t launch_work(unsigned *data, size_t n, unsigned iters, struct affine map,
                        cudaStream_t stream);

/* The map applied `iters` times, as one map. */
struct affine work_compose(struct affine map, unsigned iters);

#ifdef __cplusplus
}
#endif

#endif /* WORK_H */
