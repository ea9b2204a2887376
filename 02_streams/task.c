/*
 * task.c - your task for lesson 02: split lesson 01's c = a + b over two non-blocking streams.
 *
 * Write the two functions below with the calls main.c teaches (its run_split() and the streams
 * main() makes), and check every CUDA call with CUDA_CHECK. `make task-02` builds the lesson with
 * this file and runs it on the GPU: it checks your streams, runs your split in turns with the
 * lesson's own two-stream split and with the same work in one stream, checks every element of c
 * after every run, and ends with PASS or FAIL and why.
 */
#include "common.h"
#include "kernels.h"
#include "task.h"

void task_streams_create(cudaStream_t streams[2])
{
    /* 1. Make two streams of your own, streams[0] and streams[1], that never wait for the legacy
     *    default stream (stream 0), nor it for them. Leave them alive: the checker destroys
     *    them after its last run. */
    (void)streams;
}

void task_split(const struct task_vectors *host, const struct task_vectors *device, size_t n,
                cudaStream_t streams[2])
{
    /* 2. Split the n elements into two halves, one for each stream (common.h has a helper that
     *    splits a range into nearly equal parts).
     * 3. For each half, all in that half's stream, in this order: bring its part of a and of b
     *    to the GPU, compute its part of c = a + b there, and bring its part of c back to the
     *    host. Each half then waits only for its own copies, and one half's copies can run
     *    while the other's do.
     * 4. Issue both halves without waiting in between; then wait, once, until the work of both
     *    streams is done: c must be on the host when this function returns. */
    (void)host;
    (void)device;
    (void)n;
    (void)streams;
}
