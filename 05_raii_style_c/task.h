/*
 * task.h - the task of lesson 05 (make task-05): the function you write in task.c, and what
 * task_check.c runs it against, the lesson's own release_all() (exercises.c).
 */
#ifndef RAII_STYLE_C_TASK_H
#define RAII_STYLE_C_TASK_H

#include "demo.h"

/* The release path of struct async_resources (demo.h), everything the asynchronous half of the
 * demo owns. acquire_all() (exercises.c) acquires it in this order, ten acquisitions:
 *   h_a, h_b, h_c   three pinned host buffers     (struct pinned_buffer, resources.c)
 *   d_a, d_b, d_c   three device buffers          (struct device_buffer, resources.c)
 *   s1, s2          two non-blocking streams      (struct cuda_stream, resources.c)
 *   tm              the transfer manager, with one event per stream (transfer_manager.c)
 * and stops at the first that fails, undoing nothing: *r then arrives half built, the resources
 * before the failed one held, the rest zeroed handles.
 * On return *r must own nothing: every resource it held released once, every handle zeroed; called
 * again on it, the function must release nothing. Like every destroy function of the lesson, it
 * reports a failure on stderr and never aborts. */
void task_release_all(struct async_resources *r);

#endif /* RAII_STYLE_C_TASK_H */
