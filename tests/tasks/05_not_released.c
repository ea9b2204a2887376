/*
 * A typical wrong answer to lesson 05's task (make task-05 TASK=tests/tasks/05_not_released.c):
 * the demo's ladder copied without its transfer manager. The buffers and streams go, each once,
 * but the manager's two events, acquired last, are never released. Half-built sets hide it: a
 * manager whose create failed has already undone itself, so only the whole set shows the leak.
 */
#include "../../05_raii_style_c/task.h"

void task_release_all(struct async_resources *r)
{
    CUDA_REPORT(cudaDeviceSynchronize());
    cuda_stream_destroy(&r->s2);
    cuda_stream_destroy(&r->s1);
    device_buffer_destroy(&r->d_c);
    device_buffer_destroy(&r->d_b);
    device_buffer_destroy(&r->d_a);
    pinned_buffer_destroy(&r->h_c);
    pinned_buffer_destroy(&r->h_b);
    pinned_buffer_destroy(&r->h_a);
}
