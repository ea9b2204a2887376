/*
 * trace.h - part 2: runs recorded by CUPTI (timeline.c) for Perfetto and the plots, and how busy
 * they kept each engine; shared with exercise 1.
 *
 * Every function returns 0, or -1 after saying why.
 */
#ifndef TRACE_H
#define TRACE_H

#include "bench.h"
#include "staging.h"
#include "timeline.h"

/* One run to record on the timeline: the engine's pipeline, or, with `staging`, a staged run on
 * `threads` CPU threads. */
struct traced {
    const char *name;
    const struct shape *p;
    const struct staging *staging;
    int threads;
};

/* Records the runs with CUPTI, after a warm-up run of the first one's shape recorded and dropped
 * (the first launch under CUPTI pays milliseconds for its setup); fills busy[r], counts the
 * operations, and writes PREFIX.json and PREFIX.csv where prefix is not NULL. *recorded stays
 * false where there is no CUPTI here: timeline_start() said so, and the rest goes on. */
int record_runs(struct bench *b, const struct traced *runs, int count, const char *prefix,
                struct busy_time busy[TIMELINE_MAX_RUNS], unsigned long *operations,
                bool *recorded);

/* Prints and records how busy each kind of work kept the GPU, and the CPU, in one recorded run. */
int report_busy(struct bench *b, const char *key, const char *name,
                const struct busy_time *busy);

/* Part 2: a serial and a pipelined run of shape p; a by-role run too where `by_role`, and a
 * staged run on `threads` CPU threads where `staging` is not NULL. */
int timeline_part(struct bench *b, const struct shape *p, bool by_role,
                  const struct staging *staging, int threads, const char *prefix);

#endif /* TRACE_H */
