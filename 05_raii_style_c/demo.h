/*
 * demo.h - the lecture's section-6 demo (main.cpp), in two halves, each in one cleanup style:
 *   run_sync_baseline()  demo_scoped.c  cleanup attributes (GNU C)
 *   run_async_demo()     demo_goto.c    the goto ladder (ISO C11)
 * Both return EXIT_VERIFIED or EXIT_ERROR, having released everything they acquired.
 */
#ifndef DEMO_H
#define DEMO_H

#include "common.h"

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

#endif /* DEMO_H */
