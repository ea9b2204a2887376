/*
 * task.h - the task of lesson 01 (make task-01): the function you write in task.c, and what
 * task_check.c runs it against, the lesson's own part 1 in main.c.
 */
#ifndef SYNC_COPY_TASK_H
#define SYNC_COPY_TASK_H

#include "common.h"
#include "kernels.h"
#include "sync_copy.h"

/* One repetition of part 1, c = a + b the blocking way, each of its three phases timed with CUDA
 * events: a and b copied to the GPU (PHASE_H2D), the kernel (PHASE_KERNEL), c copied back
 * (PHASE_D2H), and PHASE_TOTAL from the start of the first to the end of the last.
 *   v     the vectors: h_a, h_b, h_c on the host (pageable, from malloc), d_a, d_b, d_c on the GPU,
 *         n floats each. The checker has filled a and b, and poisoned c and the GPU's buffers.
 *   mark  four events, made and released by the checker: enough to mark the start, the two
 *         boundaries between the phases, and the end.
 *   t     where the times go: t->gpu_ms[p], in milliseconds, for every p < N_PHASES. The host
 *         clock's fields (host_ms, launch_ms) are not checked.
 * On return v->h_c holds c. Returns cudaSuccess, or the error of a CUDA call that failed. */
cudaError_t task_phases(const struct vectors *v, cudaEvent_t mark[N_PHASES],
                        struct phase_times *t);

#endif /* SYNC_COPY_TASK_H */
