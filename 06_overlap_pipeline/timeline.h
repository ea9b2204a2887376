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
/* The same, stamped with the CPU time (timeline_now()) at which the program issues it: a staged
 * run's copies in, so that the time from a chunk prepared to its copy in issued can be read. */
void timeline_chunk_stamped(unsigned chunk);
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

/* A staged run's copies in, on the CPU: how long after its chunk was prepared (its last piece
 * copied) the issuing thread issued each one (timeline_chunk_stamped), median over the run's
 * chunks, and over its first chunks alone. A chunk's copy in is issued once the chunk is
 * prepared, after the chunks before it, and, from the ring's second round on, once its slot's
 * previous result has been processed. The first chunks, issued before the CPU began processing
 * any result, waited for their preparation and the issuing thread alone (its wake-up, and its
 * calls for the chunks before), nothing else; 0 without stamped copies. */
struct issue_wait {
    double all_ms, first_ms;
    unsigned first_chunks;
};

/* Stops recording, writes PREFIX.json and PREFIX.csv (nothing, where prefix is NULL), counts the
 * operations recorded, fills busy[r] for each run r named since the last discard, and waits[r]
 * too where waits is not NULL, and releases what the recording held. */
int timeline_write(const char *prefix, unsigned long *operations,
                   struct busy_time busy[TIMELINE_MAX_RUNS],
                   struct issue_wait waits[TIMELINE_MAX_RUNS]);
/* Stops recording, if it was, and releases what it held, writing nothing: after an error. */
void timeline_stop(void);

#endif /* TIMELINE_H */
