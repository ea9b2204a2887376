/*
 * A typical wrong answer to lesson 05's task (make task-05 TASK=tests/tasks/05_released_twice.c):
 * the release works on a copy of the set, made with `=`. Every resource goes, once, but the
 * handles zeroed are the copy's: *r still names buffers and streams that no longer exist, and
 * whatever releases *r next (a second call, a cleanup label further down) releases them twice.
 * resources.c warns of it: copying a handle struct makes two owners.
 */
#include "../../05_raii_style_c/task.h"

static void release_set(struct async_resources set)
{
    transfer_manager_destroy(&set.tm);
    cuda_stream_destroy(&set.s2);
    cuda_stream_destroy(&set.s1);
    device_buffer_destroy(&set.d_c);
    device_buffer_destroy(&set.d_b);
    device_buffer_destroy(&set.d_a);
    pinned_buffer_destroy(&set.h_c);
    pinned_buffer_destroy(&set.h_b);
    pinned_buffer_destroy(&set.h_a);
}

void task_release_all(struct async_resources *r)
{
    CUDA_REPORT(cudaDeviceSynchronize());
    release_set(*r);
}
