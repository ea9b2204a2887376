/*
 * task.c - your task for lesson 05 (make task-05): the release path of a small manager of several
 * resources, the one cleanup label that exercise 2 of README.md asks about.
 *
 * task_release_all() gets the asynchronous half's resources (task.h lists them) whole, or half
 * built after an acquisition failed. It releases what is there and leaves *r owning nothing, as
 * resources.c promises of each destroy function. The checker makes acquisition 1 fail, then 2,
 * and so on to 10, then none (and c = a + b runs on the whole set first); after every release it
 * checks that no resource is left live, that none was released twice, that every handle is
 * zeroed, and that a second call releases nothing. Until you write it, the check fails with
 * "not written yet".
 */
#include "task.h"

void task_release_all(struct async_resources *r)
{
    /* 1. After an error, copies and kernels may still be in flight on the GPU, using these
     *    buffers and streams: let them finish before anything they use goes away. */

    /* 2. Release the transfer manager's events, then the two streams: the reverse of the order
     *    they were acquired in, the last acquired first. */

    /* 3. Release the three device buffers, then the three pinned host buffers, again last
     *    acquired first. */

    /* 4. Some of these were never acquired (a zeroed handle owns nothing), and each one that
     *    was must be released exactly once and then zeroed, so that a second call does nothing:
     *    make sure every step above holds to that, whatever arrived. */
    (void)r;
}
