/*
 * demo.h - the lecture's section-6 demo (main.cpp), in two halves, each in one cleanup style:
 *   run_sync_baseline()  demo_scoped.c  cleanup attributes (GNU C)
 *   run_async_demo()     demo_goto.c    the goto ladder (ISO C11)
 * Both return EXIT_VERIFIED or EXIT_ERROR, having released everything they acquired.
 *   demo_report()        demo_report.c  the demo's table and CSV rows
 *   scoped_faults()      scoped_faults.c  --deep scoped: the synchronous half, made to fail at
 *                                         each of its acquisitions in turn
 */
#ifndef DEMO_H
#define DEMO_H

#include "common.h"
#include "transfer_manager.h"

struct demo_config {
    size_t n;             /* elements per vector */
    int reps;
    double cpu_work_ms[2]; /* the lecture's simulated CPU work: 50 ms, then 70 ms */
};

struct demo_samples {
    double *sync_total;  /* host clock: the synchronous baseline, start to verified result */
    double *async_total; /* host clock: the asynchronous version, CPU work included */
    double *cpu_work;    /* host clock: the CPU work done while the GPU worked */
    double *waiting;     /* host clock: what the CPU still waited for at the end */
};

int run_sync_baseline(const struct demo_config *cfg, struct demo_samples *out);
int run_async_demo(const struct demo_config *cfg, struct demo_samples *out);

/* Prints the demo's table from both halves' samples and writes its CSV rows. */
int demo_report(const struct demo_config *cfg, struct demo_samples *s, struct csv *csv);

/* --deep scoped: run_sync_baseline() made to fail at acquisition 1, then 2, ... until a run
 * fails none; prints and writes what the walk found. --fail-at's point (0: none) still fails
 * the acquisition it names, and the walk then ends with EXIT_ERROR. */
int scoped_faults(struct csv *csv, unsigned long outer_fail_at);

/* Everything the asynchronous half owns (the exercises acquire the same). */
struct async_resources {
    struct pinned_buffer h_a, h_b, h_c;
    struct device_buffer d_a, d_b, d_c;
    struct cuda_stream s1, s2;
    struct transfer_manager tm;
};

/* How many resources *r holds now. */
int async_resources_held(const struct async_resources *r);

#endif /* DEMO_H */
