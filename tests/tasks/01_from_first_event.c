/*
 * 01_from_first_event.c - a typical wrong answer to lesson 01's task (make task-01
 * TASK=tests/tasks/01_from_first_event.c): the events are recorded where they belong, but every
 * phase is read from the first one, so each phase's time holds the phases before it too (the
 * kernel's is the copies in plus the kernel). The checker must say that a phase was timed from
 * an earlier phase's start.
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

    for (int p = 0; p < N_PHASES; p++) {
        float ms; /* the mistake: from mark 0 to the phase's end, for every phase */
        CUDA_CHECK(cudaEventElapsedTime(&ms, mark[0], mark[p == PHASE_TOTAL ? 3 : p + 1]));
        t->gpu_ms[p] = ms;
    }
    return cudaSuccess;
}
