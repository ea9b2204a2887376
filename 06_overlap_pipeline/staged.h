/*
 * staged.h - the staged part's ways and table (staged.c), shared with exercise 4, which runs
 * them on two thread counts.
 *
 * Every function returns 0, or -1 after saying why.
 */
#ifndef STAGED_H
#define STAGED_H

#include "bench.h"
#include "staging.h"

/* The ways, timed in turns: three of their own and the GPU's work alone, then two per thread
 * count (the staged run, and its CPU side alone). */
enum { SYNC_WAY, DRIVER_WAY, PINNED_WAY, GPU_ALONE, FIRST_STAGED, MAX_THREAD_COUNTS = 12 };

struct staged_plan {
    const struct staging *staging;
    const struct shape *p;
    int threads[MAX_THREAD_COUNTS], counts; /* T = 1, 2, 4, ... and the most */
    double *ms;      /* way w's rep k at [w * reps + k] */
    double *copying; /* staged run c's CPU copying (staged_time) in rep k at [c * reps + k] */
};

/* The part on the plan's ring and thread counts: its heading, every way in turns, its table. The
 * samples stay in sp->ms and sp->copying for the caller, who frees them with staged_plan_free()
 * whatever the outcome. */
int staged_part(struct bench *b, struct staged_plan *sp);
void staged_plan_free(struct staged_plan *sp);
/* How many ways the plan times: sp->ms holds staged_ways() x reps samples. */
int staged_ways(const struct staged_plan *sp);
/* Every way in turns, a warm-up round first; every staged run verified. */
int staged_in_turns(struct bench *b, const struct staged_plan *sp);
/* The table: every way's time, the staged runs' efficiencies, the CPU's copies. */
int staged_report(struct bench *b, const struct staged_plan *sp);
/* Staged run c (thread count sp->threads[c]) against its bound, rep by rep. */
struct stats staged_efficiency(struct bench *b, const struct staged_plan *sp, int c);
/* Way w's times (staged run c is way FIRST_STAGED + 2c). */
struct stats way_stats(struct bench *b, const struct staged_plan *sp, int w);

#endif /* STAGED_H */
