/*
 * 03_stop_in_producer.c - a typical wrong answer to the task of 03_events: the wait is right, but
 * stop is recorded in the producer stream, so start..stop leaves out the consumer's work.
 * make task-03 TASK=tests/tasks/03_stop_in_producer.c must fail, naming stop.
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
    CUDA_CHECK(cudaEventRecord(stop, c->producer)); /* stop before the consumer's work */
    CUDA_CHECK(cudaStreamWaitEvent(c->consumer, c->x_ready, 0));
    CUDA_CHECK(launch_vector_add(c->d_x, w->d_a, c->d_y, w->n, c->consumer));
    CUDA_CHECK(cudaMemcpyAsync(w->h_c, c->d_y, w->n * sizeof(float), cudaMemcpyDeviceToHost,
                               c->consumer));
    return cudaSuccess;
}
