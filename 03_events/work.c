/*
 * work.c - the work 03_events times and waits for (lesson 01's c = a + b, from pinned memory), the
 * CPU's own work, and experiment 3's streams and buffers. What the lesson teaches, the events
 * around this work, is in main.c.
 */
#include "events.h"
#include "kernels.h"

#include <string.h>
#include <time.h>

void enqueue_work(const struct work *w)
{
    size_t bytes = w->n * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(w->d_a, w->h_a, bytes, cudaMemcpyHostToDevice, w->stream));
    CUDA_CHECK(cudaMemcpyAsync(w->d_b, w->h_b, bytes, cudaMemcpyHostToDevice, w->stream));
    CUDA_CHECK(launch_vector_add(w->d_a, w->d_b, w->d_c, w->n, w->stream));
    CUDA_CHECK(cudaMemcpyAsync(w->h_c, w->d_c, bytes, cudaMemcpyDeviceToHost, w->stream));
}

void poison_output(const struct work *w)
{
    CUDA_CHECK(cudaMemsetAsync(w->d_c, 0xff, w->n * sizeof(float), w->stream));
    CUDA_CHECK(cudaStreamSynchronize(w->stream));
    memset(w->h_c, 0xff, w->n * sizeof(float));
}

void verify_work(const struct work *w)
{
    if (!vector_add_verified(w->h_a, w->h_b, w->h_c, w->n, "copy in, add, copy out"))
        exit(EXIT_ERROR);
}

enum { CPU_WORK_FLOATS = 16384 };
static float cpu_work_data[CPU_WORK_FLOATS];

double cpu_work_unit(int passes)
{
    static bool filled;
    if (!filled) {
        fill_random(cpu_work_data, CPU_WORK_FLOATS, 4);
        filled = true;
    }
    double sum = 0;
    for (int pass = 0; pass < passes; pass++)
        for (size_t i = 0; i < CPU_WORK_FLOATS; i++)
            sum += (double)cpu_work_data[i] * cpu_work_data[i];
    return sum;
}

void cross_create(struct cross *c, const struct work *w)
{
    CUDA_CHECK(cudaStreamCreateWithFlags(&c->producer, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&c->consumer, cudaStreamNonBlocking));
    /* Only for ordering: an event that takes no timestamp. */
    CUDA_CHECK(cudaEventCreateWithFlags(&c->x_ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaMalloc((void **)&c->d_x, w->n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&c->d_y, w->n * sizeof(float)));
    /* The inputs a and b must be on the GPU already: the producer starts from them. */
    CUDA_CHECK(cudaMemcpy(w->d_a, w->h_a, w->n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(w->d_b, w->h_b, w->n * sizeof(float), cudaMemcpyHostToDevice));
}

void cross_destroy(struct cross *c)
{
    CUDA_CHECK(cudaFree(c->d_x));
    CUDA_CHECK(cudaFree(c->d_y));
    CUDA_CHECK(cudaEventDestroy(c->x_ready));
    CUDA_CHECK(cudaStreamDestroy(c->producer));
    CUDA_CHECK(cudaStreamDestroy(c->consumer));
}

void cross_reset(const struct work *w, const struct cross *c)
{
    size_t bytes = w->n * sizeof(float);
    CUDA_CHECK(cudaMemset(c->d_x, 0xff, bytes));
    CUDA_CHECK(cudaMemset(c->d_y, 0xff, bytes));
    memset(w->h_c, 0xff, bytes);
    CUDA_CHECK(cudaDeviceSynchronize());
}

size_t cross_wrong(const struct work *w)
{
    size_t wrong = 0;
    for (size_t i = 0; i < w->n; i++)
        if (w->h_c[i] != (w->h_a[i] + w->h_b[i]) + w->h_a[i])
            wrong++;
    return wrong;
}
