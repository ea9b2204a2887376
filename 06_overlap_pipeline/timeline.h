/*
 * timeline.h - what the GPU did and when, without Nsight: CUPTI's activity API records every copy
 * and kernel with its start and end on the GPU, as Nsight Systems shows them.
 *
 *   timeline_start();                   begin recording
 *   timeline_run("pipelined");          the operations enqueued from now on belong to this run
 *   timeline_chunk(k); cudaMemcpy...    note each copy or kernel's chunk just before issuing it
 *   timeline_cpu(...)                   a span of CPU work (lesson 06's staged run), timed with
 *                                       timeline_now(), on the same clock as the GPU's records
 *   timeline_write("results/x_trace");  x_trace.json (Chrome trace-event format, for Perfetto
 *                                       or chrome://tracing) and x_trace.csv (for the plots)
 *
 * Built without CUPTI (the Makefile looks for it in the toolkit), every call says so once and
 * records nothing.
 */
#ifndef TIMELINE_H
#define TIMELINE_H

#include <stdbool.h>

/* Each returns 0, or -1 after printing why. */
int timeline_start(void);
int timeline_run(const char *name);
/* The next copy or kernel issued belongs to this chunk. A note that cannot be kept (out of
 * memory, or not recording) makes timeline_write() fail. */
void timeline_chunk(unsigned chunk);
/* Drops what was recorded so far: after a warm-up run, since the first launch under CUPTI pays
 * milliseconds for its setup. */
int timeline_discard(void);
enum { TIMELINE_MAX_RUNS = 8 };

/* CUPTI's clock, in nanoseconds: the time base of its records (0 without CUPTI). */
unsigned long long timeline_now(void);
/* A span of CPU work of the current run: copying `bytes` of chunk `chunk` into a staging buffer
 * (prepare) or out of one (process), on worker thread `thread`. Safe from any thread. */
void timeline_cpu(bool prepare, unsigned thread, unsigned chunk, unsigned long long start,
                  unsigned long long end, unsigned long long bytes);

/* How busy each kind of work kept the GPU during one run, as Nsight Systems users read it off
 * the timeline. */
struct busy_time {
    double span_ms;      /* from the run's first operation's start to its last one's end */
    double h2d_ms, kernels_ms, d2h_ms; /* time during which at least one of the kind ran */
    double all_three_ms; /* time during which all three kinds ran at once */
    double cpu_ms;       /* time during which a CPU thread copied data of this run */
    double all_four_ms;  /* ... and all three kinds of GPU work ran too: table 2's four columns */
};

/* Stops recording, writes PREFIX.json and PREFIX.csv (nothing, where prefix is NULL), counts the
 * operations recorded, fills busy[r] for each run r named since the last discard, and releases
 * what the recording held. */
int timeline_write(const char *prefix, unsigned long *operations,
                   struct busy_time busy[TIMELINE_MAX_RUNS]);
/* Stops recording, if it was, and releases what it held, writing nothing: after an error. */
void timeline_stop(void);

#endif /* TIMELINE_H */
