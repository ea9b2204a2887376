/*
 * orders.c - `--deep orders`: main.c's plain loop against the engine (pipeline.c) issuing the
 * same chunks in the same streams and buffers, depth-first as the loop does, and breadth-first
 * (the copies in of a wave of B chunks, then their kernels, then their copies out), in turns,
 * rep by rep, in the three regimes. The loop and the engine's depth-first run issue the same
 * calls in the same order, so their ratio should be 1 within its spread: that is what lets the
 * other parts time the engine's bound runs against the loop. Breadth-first is timed against its
 * bound too, as part 1 once printed it.
 */
#include "parts.h"

#include <math.h>

enum { LOOP, DEPTH, BREADTH, SERIAL, KERNELS, COPIES, ORDERS_TURNS };

/* A ratio of two turns, rep by rep; the samples are left unsorted. */
static struct stats turn_ratio(struct bench *b, size_t over, size_t under)
{
    size_t reps = (size_t)b->reps;
    return ratio_by_rep(b->samples + over * reps, b->samples + under * reps, b->reps,
                        b->samples + MAX_TURNS * reps);
}

/* Whether a ratio is 1 within its spread: 1 lies between its min and max, or its median is
 * within 1% of 1. */
static const char *same_time(struct stats r)
{
    return (r.min <= 1 && 1 <= r.max) || fabs(r.median - 1) <= 0.01 ? "yes" : "no";
}

static int record_ratio(struct bench *b, const char *variant, const struct shape *p,
                        const char *regime, struct stats ms, struct stats ratio)
{
    char params[256];
    snprintf(params, sizeof params, "regime=%s;chunks=%zu;streams=%zu;buffers=%zu;iters=%u;"
             "ratio_vs_engine=%.4f;ratio_vs_engine_min=%.4f;ratio_vs_engine_max=%.4f;"
             "clock=gpu_event", regime, p->chunks, p->streams, p->buffers, p->iters,
             ratio.median, ratio.min, ratio.max);
    return record(b, "orders", variant, "both", 2 * p->n * sizeof(unsigned), ms, params);
}

static int one_order(struct bench *b, const struct shape *p, const char *regime)
{
    struct shape breadth = *p, serial = *p;
    breadth.breadth_first = true;
    serial.streams = serial.buffers = 1;
    const struct turn turns[ORDERS_TURNS] = {
        [LOOP] = {p, PLAIN_LOOP, "main.c's loop"},
        [DEPTH] = {p, ENGINE, "the engine, depth-first"},
        [BREADTH] = {&breadth, ENGINE, "the engine, breadth-first"},
        [SERIAL] = {&serial, PLAIN_LOOP, "serial: one stream, one buffer"},
        [KERNELS] = {p, WITHOUT_COPIES, "the pipeline without its copies"},
        [COPIES] = {p, WITHOUT_KERNELS, "the pipeline without its kernels"},
    };
    if (measure_in_turns(b, turns, ORDERS_TURNS))
        return -1;
    struct stats loop_ratio = turn_ratio(b, LOOP, DEPTH);
    struct stats breadth_ratio = turn_ratio(b, BREADTH, DEPTH);
    struct stats one = {1, 1, 1};
    struct stats breadth_efficiency = paired_efficiency(b, BREADTH, KERNELS, COPIES);
    struct stats loop = turn_stats(b, LOOP), depth = turn_stats(b, DEPTH);
    struct stats breadth_ms = turn_stats(b, BREADTH), serial_ms = turn_stats(b, SERIAL);
    printf("  %-14s %6u", regime, p->iters);
    print_ms(loop);
    print_ms(depth);
    print_ms(breadth_ms);
    printf("  %.3f (%.3f-%.3f) %-3s  %.3f (%.3f-%.3f)  %.3f (%.3f-%.3f)\n", loop_ratio.median,
           loop_ratio.min, loop_ratio.max, same_time(loop_ratio), breadth_ratio.median,
           breadth_ratio.min, breadth_ratio.max, breadth_efficiency.median,
           breadth_efficiency.min, breadth_efficiency.max);
    flag_beaten_bound(regime, breadth_efficiency);
    char extra[64];
    snprintf(extra, sizeof extra, "regime=%s;", regime);
    return record_ratio(b, "plain_loop", p, regime, loop, loop_ratio) ||
           record_ratio(b, "engine_depth_first", p, regime, depth, one) ||
           record_ratio(b, "engine_breadth_first", p, regime, breadth_ms, breadth_ratio) ||
           record_pipeline(b, "regimes", "breadth_first", p, breadth_ms, breadth_efficiency,
                           extra, serial_ms.median / breadth_ms.median);
}

int orders_part(struct bench *b, const struct shape *base)
{
    printf("\norders: main.c's loop against the engine (pipeline.c) issuing the same chunks "
           "depth-first, as\n  the loop does, and breadth-first; %zu chunks, %zu buffers, %zu "
           "streams; ms on the GPU, the\n  runs in turns, median of %d; ratios rep by rep, "
           "median (range); same: the loop's ratio is 1\n  within its spread (1 inside its "
           "range, or its median within 1%% of 1)\n", base->chunks, base->buffers,
           base->streams, b->reps);
    printf("  %-14s %6s %10s %10s %10s  %-24s  %-20s  %s\n", "regime", "iters", "loop",
           "depth", "breadth", "loop/depth (range) same", "breadth/depth", "breadth efficiency");
    struct regime regime[REGIMES];
    regimes_of(base->iters, regime);
    for (size_t i = 0; i < REGIMES; i++) {
        struct shape p = *base;
        p.iters = regime[i].iters;
        if (one_order(b, &p, regime[i].name))
            return -1;
    }
    return 0;
}
