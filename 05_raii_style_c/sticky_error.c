/*
 * sticky_error.c - lecture 7.3 asks for error handling that releases resources and reports
 * instead of calling exit(). This part shows where that stops: after a fault inside a kernel the
 * CUDA context is unusable, further CUDA work fails, and the process must end. Beside it, an
 * ordinary error that reading clears. Run with --sticky-error 1; it is never part of a sanitizer
 * run, which would report the fault as the bug it is.
 */
#include "sticky_error.h"

#include "common.h"
#include "kernels.h"
#include "resources.h"

static void show(const char *call, cudaError_t got, const char *meaning)
{
    printf("  %-42s -> %-32s %s\n", call, cudaGetErrorName(got), meaning);
}

/* An invalid argument fails the call that got it, and nothing else. */
static void ordinary_error(void *d_buffer, size_t bytes)
{
    static unsigned host_word;
    printf("\nan ordinary error: a copy with an invalid direction\n");
    show("cudaMemcpy(d, h, 4, (cudaMemcpyKind)42)",
         cudaMemcpy(d_buffer, &host_word, sizeof host_word, (enum cudaMemcpyKind)42),
         "only this call failed");
    show("cudaPeekAtLastError()", cudaPeekAtLastError(), "looks at it, leaves it");
    show("cudaPeekAtLastError()", cudaPeekAtLastError(), "still there");
    show("cudaGetLastError()", cudaGetLastError(), "returns it and clears it");
    show("cudaGetLastError()", cudaGetLastError(), "cleared");
    cudaError_t err = cudaMemset(d_buffer, 0, bytes);
    show("cudaMemset(d, 0, bytes)", err == cudaSuccess ? cudaDeviceSynchronize() : err,
         "the GPU still works");
}

/* A fault inside a kernel: queued behind a 20 ms kernel, so that the host sees every step. */
static void sticky_error(void *d_buffer, size_t bytes, cudaStream_t stream)
{
    printf("\na sticky error: a kernel that writes 1 TiB past the end of its buffer, queued "
           "behind\na 20 ms kernel in the same stream\n");
    show("launch_spin(20 ms)", launch_spin(20 * 1000 * 1000ull, 1, 1, NULL, stream), "");
    show("launch_write_past_end()", launch_write_past_end(d_buffer, bytes / sizeof(unsigned),
                                                          stream),
         "launching only queues it");
    show("cudaPeekAtLastError()", cudaPeekAtLastError(), "nothing has gone wrong yet");
    show("cudaStreamSynchronize(stream)", cudaStreamSynchronize(stream),
         "the fault surfaces at the next sync");
    show("cudaGetLastError()", cudaGetLastError(), "returns it and clears the record...");
    cudaError_t again = cudaGetLastError();
    show("cudaGetLastError()", again, again == cudaSuccess ? "...but not the fault:"
                                                            : "...and even the record stays:");
    show("cudaMemset(d, 0, bytes)", cudaMemset(d_buffer, 0, bytes), "further CUDA work fails,");
    void *more = NULL;
    cudaError_t err = cudaMalloc(&more, 1 << 20);
    show("cudaMalloc(&p, 1 MiB)", err, "even an allocation");
    if (err == cudaSuccess)
        cudaFree(more);
}

int sticky_error_demo(void)
{
    const size_t bytes = 1 << 20;
    struct cuda_stream stream;
    struct device_buffer buffer;
    printf("\nlecture 7.3: errors that stick (--sticky-error 1), return codes call by call\n");
    if (cuda_stream_create(&stream, cudaStreamNonBlocking) != cudaSuccess)
        return EXIT_ERROR;
    if (device_buffer_create(&buffer, bytes) != cudaSuccess)
        goto out_destroy_stream;
    ordinary_error(buffer.data, bytes);
    sticky_error(buffer.data, bytes, stream.handle);
    printf("\nreleasing what this part holds: the calls fail too (reported below), and the "
           "driver\nreclaims it all when the process ends, which is all that is left to do\n");
    fflush(stdout);
    device_buffer_destroy(&buffer);
out_destroy_stream:
    cuda_stream_destroy(&stream);
    return EXIT_ERROR;
}
