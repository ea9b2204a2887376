/*
 * task.c - your task for lesson 01: time the three phases of the blocking version with events.
 *
 * Write task_phases() (task.h says what it gets and what it returns), then run `make task-01`:
 * it runs your function and the lesson's own part 1 in turns, checks c every time, and says
 * PASS when each of your phases takes what the lesson's takes, within the lesson's own spread
 * (or 10%). Check every CUDA call: CUDA_CHECK, as main.c uses it, is fine here.
 */
#include "task.h"

cudaError_t task_phases(const struct vectors *v, cudaEvent_t mark[N_PHASES],
                        struct phase_times *t)
{
    /* 1. Mark the start, where the GPU will see it: in the stream all the work goes to. */

    /* 2. Copy a and b to the GPU, blocking, as part 1 of main.c does; then mark the end of the
     *    copies in. */

    /* 3. Add them on the GPU (c = a + b over all n elements), checking the launch; mark the end
     *    of the kernel right behind it, in the same stream, before the CPU waits for anything,
     *    so that the mark times the GPU's work and not the CPU's waiting. */

    /* 4. Copy c back to the host, all of it; then mark the end. */

    /* 5. Wait until the GPU has passed the last mark: a time can be read only after that. */

    /* 6. Read each phase's time, and the total, from the marks on either side of it, into
     *    t->gpu_ms[] (PHASE_H2D, PHASE_KERNEL, PHASE_D2H, PHASE_TOTAL). */

    /* 7. Report success. (The four lines below make the checker say "not written yet": delete
     *    them.) */
    (void)v;
    (void)mark;
    (void)t;
    return cudaErrorNotYetImplemented;
}
