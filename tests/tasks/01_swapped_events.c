/*
 * 01_swapped_events.c - a typical wrong answer to lesson 01's task (make task-01
 * TASK=tests/tasks/01_swapped_events.c): everything right but the reading of the times, which
 * gives cudaEventElapsedTime each phase's end before its start. Every time comes out below zero;
 * the checker must say that the events were read the wrong way round.
 */
#include "../../01_sync_copy/task.h"

cudaError_t task_phases(const struct vectors *v, cudaEvent_t mark[N_PHASES],
                        struct phase_times *t)
{
    const size_t bytes = v->n * sizeof(float);
    CUDA_CHECK(cudaEventRecord(mark[0], 0));
    CUDA_CHECK(cudaMemcpy(v->d_a, v->h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(v->d_b, v->h_b, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaEventRecord(mark[1], 0));
    CUDA_CHECK(launch_vector_add(v->d_a, v->d_b, v->d_c, v->n, 0));
    CUDA_CHECK(cudaEventRecord(mark[2], 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(v->h_c, v->d_c, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaEventRecord(mark[3], 0));
    CUDA_CHECK(cudaEventSynchronize(mark[3]));

    const int from[N_PHASES] = {0, 1, 2, 0}, to[N_PHASES] = {1, 2, 3, 3};
    for (int p = 0; p < N_PHASES; p++) {
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, mark[to[p]], mark[from[p]])); /* the mistake */
        t->gpu_ms[p] = ms;
    }
    return cudaSuccess;
}
