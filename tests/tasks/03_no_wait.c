/*
 * 03_no_wait.c - a typical wrong answer to the task of 03_events: the consumer never waits for
 * the producer's event (no cudaStreamWaitEvent), so it reads x before the producer writes it.
 * make task-03 TASK=tests/tasks/03_no_wait.c must fail, naming the race.
 */
#include "../../03_events/task.h"
#include "kernels.h"

cudaError_t task_produce_consume(const struct work *w, const struct cross *c, cudaEvent_t start,
                                 cudaEvent_t stop)
{
    CUDA_CHECK(cudaEventRecord(start, c->producer));
    CUDA_CHECK(launch_spin(2000 * 1000, 1, 32, NULL, c->producer));
    CUDA_CHECK(launch_vector_add(w->d_a, w->d_b, c->d_x, w->n, c->producer));
    CUDA_CHECK(cudaEventRecord(c->x_ready, c->producer));
    /* missing: the consumer's wait for c->x_ready */
    CUDA_CHECK(launch_vector_add(c->d_x, w->d_a, c->d_y, w->n, c->consumer));
    CUDA_CHECK(cudaMemcpyAsync(w->h_c, c->d_y, w->n * sizeof(float), cudaMemcpyDeviceToHost,
                               c->consumer));
    CUDA_CHECK(cudaEventRecord(stop, c->consumer));
    return cudaSuccess;
}
