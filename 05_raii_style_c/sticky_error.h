/*
 * sticky_error.h - lecture 7.3, errors that stick: what a fault inside a kernel does to every
 * CUDA call after it, shown call by call (sticky_error.c), beside an error that does not stick.
 */
#ifndef STICKY_ERROR_H
#define STICKY_ERROR_H

#include <stddef.h>

#include <cuda_runtime.h>

/* A kernel with a bug on purpose: one thread writes a word 1 TiB past the end of data[n], where
 * nothing is mapped, so the GPU faults. (wild_write.cu) */
#ifdef __cplusplus
extern "C"
#endif
cudaError_t launch_write_past_end(unsigned *data, size_t n, cudaStream_t stream);

/* Runs the demonstration, releases what it acquired, and returns EXIT_ERROR: after a sticky
 * error the process can only end. */
int sticky_error_demo(void);

#endif /* STICKY_ERROR_H */
