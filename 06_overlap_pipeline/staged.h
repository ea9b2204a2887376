/*
 * staged.h - the staged part's ways and tables (staged.c), shared with exercise 4, which runs
 * them on two thread counts.
 *
 * Every function returns 0, or -1 after saying why.
 */
#ifndef STAGED_H
#define STAGED_H

#include "bench.h"
#include "staging.h"

/* The ways, timed in turns: four of their own, then for each thread count and each way of
 * copying, the staged run, its CPU side alone and, where the plan asks, both sides at once. */
enum { SYNC_WAY, DRIVER_WAY, PINNED_WAY, GPU_ALONE, FIRST_STAGED, MAX_THREAD_COUNTS = 12 };
enum staged_role { STAGED_RUN, CPU_ALONE, SIDES_AT_ONCE };
enum { MAX_COPY_WAYS = 2 };

struct staged_plan {
    const struct staging *staging;
    const struct shape *p;
    int threads[MAX_THREAD_COUNTS], counts;              /* T = 1, 2, 4, ... and the most */
    const struct cpu_copies *copies[MAX_COPY_WAYS];      /* memcpy, then the way it is weighed */
    int copy_ways;                                       /* against, if any */
    bool sides;      /* both sides at once too, for the host's ceiling */
    double *ms;      /* way w's rep k at [w * reps + k] */
    double *copying; /* run (c, m)'s CPU copying (staged_time) at [(c * ways + m) * reps + k] */
    double *cpu_at_once, *gpu_at_once; /* both sides at once (c, m): each side's own time, same */
};

/* The part on the plan's ring and thread counts: its heading, every way in turns, its tables.
 * The samples stay in the plan for the caller, who frees them with staged_plan_free() whatever
 * the outcome. */
int staged_part(struct bench *b, struct staged_plan *sp);
void staged_plan_free(struct staged_plan *sp);
/* Way w of thread count c's copying way m in `role`; how many ways the plan times. */
int staged_way_index(const struct staged_plan *sp, int c, int m, enum staged_role role);
int staged_ways(const struct staged_plan *sp);
/* Way w's times. */
struct stats way_stats(struct bench *b, const struct staged_plan *sp, int w);
/* A row of the part; `params` starts its params. */
int record_staged(struct bench *b, const struct staged_plan *sp, const char *variant,
                  const char *direction, struct stats ms, const char *params);
/* sides.c: the host's ceiling against `fastest`, the fastest staged run's samples: printed,
 * checked and recorded. */
int host_ceiling(struct bench *b, const struct staged_plan *sp, const double *fastest);

#endif /* STAGED_H */
