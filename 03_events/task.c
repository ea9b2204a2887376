/*
 * task.c - YOUR file: the task of 03_events. `make task-03` builds the lesson with this file and
 * checks it on the GPU, 10 runs in turns with main.c's own experiment 3.
 *
 * Write task_produce_consume() (task.h says what it gets): one stream waits for another's event,
 * without stopping the CPU, and a pair of events times the whole run. PASS needs y right in every
 * run, the producer still busy when your function returns (the host did not wait), and start..stop
 * around the work of both streams. Check every call, as main.c does.
 */
#include "task.h"
#include "kernels.h"

cudaError_t task_produce_consume(const struct work *w, const struct cross *c, cudaEvent_t start,
                                 cudaEvent_t stop)
{
    /* 1. Mark where the run begins: in the stream whose work comes first, before that work, so
     *    that the span start..stop holds the producer's work too. */

    /* 2. The producer's 2 ms of work, standing in for real work: kernels.h's spinning kernel,
     *    2 ms long, one block of 32 threads, in the producer stream. */

    /* 3. Still in the producer: x = a + b (from w->d_a and w->d_b into c->d_x). */

    /* 4. Mark, in the producer, the moment x is written: c->x_ready. */

    /* 5. Make the consumer stream's later work wait for that mark. The host must not wait here:
     *    the ordering is the GPU's to keep, and the call returns at once. */

    /* 6. In the consumer: y = x + a (from c->d_x and w->d_a into c->d_y), then y copied into
     *    w->h_c, without waiting for the copy. */

    /* 7. Mark where the run ends: in the stream whose work comes last, after that work. */

    /* 8. Return at once, without waiting for the GPU: the checker looks at both streams the
     *    moment you return. Then return cudaSuccess instead of this: */
    (void)w;
    (void)c;
    (void)start;
    (void)stop;
    return cudaErrorNotYetImplemented;
}
