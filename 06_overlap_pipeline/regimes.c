/*
 * regimes.c - part 1: the balance point, then three regimes (copy-bound, balanced,
 * compute-bound), each timing main.c's loop against lesson 01's synchronous way, the serial
 * version and the bound. Efficiency = bound / pipeline, rep by rep.
 *
 * The synchronous way's time is the GPU's too: events in the legacy default stream, which its
 * blocking calls use.
 */
#include "bench.h"

#include <math.h>
#include <string.h>

enum { SYNC_REPS = 3, /* the synchronous baseline takes a quarter of a second a run */
       BALANCE_PROBE_ITERS = 128, MAX_BALANCE_PROBES = 6 };

void regimes_of(unsigned balanced, struct regime regime[REGIMES])
{
    regime[0] = (struct regime){"copy-bound", 1};
    regime[1] = (struct regime){"balanced", balanced};
    regime[2] = (struct regime){"compute-bound", 4 * balanced};
}

/* Lesson 01's way, for comparison: pageable memory, blocking copies, one buffer. Every call goes
 * to the legacy default stream, so events recorded there bracket them all, and the figure is on
 * the same clock as the others. */
static int measure_synchronous(struct bench *b, const struct shape *p, const unsigned *in,
                               unsigned *out, struct stats *result)
{
    const struct rig *r = &b->rig;
    int reps = b->reps < SYNC_REPS ? b->reps : SYNC_REPS;
    for (int rep = -1; rep < reps; rep++) {
        if (rep == reps - 1)
            memset(out, 0xff, p->n * sizeof(unsigned));
        if (CUDA_REPORT(cudaEventRecord(r->start, 0)) || pipeline_sync(r, p, in, out))
            return -1;
        float ms;
        if (CUDA_REPORT(cudaEventRecord(r->stop, 0)) ||
            CUDA_REPORT(cudaEventSynchronize(r->stop)) ||
            CUDA_REPORT(cudaEventElapsedTime(&ms, r->start, r->stop)))
            return -1;
        if (rep >= 0)
            b->samples[rep] = ms;
    }
    if (!work_verified(r, in, out, p->n, p->iters, "synchronous baseline"))
        return -1;
    *result = stats_summarize(b->samples, (size_t)reps);
    return 0;
}

/* The pipeline without its copies and without its kernels, at `iters`, timed in turns. */
static int probe_balance(struct bench *b, const struct shape *p, unsigned iters, double *kernels,
                         double *copies)
{
    struct shape probe = *p;
    probe.iters = iters;
    const struct turn turns[] = {{&probe, WITHOUT_COPIES, "calibration: without copies"},
                                 {&probe, WITHOUT_KERNELS, "calibration: without kernels"}};
    if (measure_in_turns(b, turns, 2))
        return -1;
    *kernels = turn_stats(b, 0).median;
    *copies = turn_stats(b, 1).median;
    return 0;
}

/* The iterations at which the kernels take as long as the copies: measured, not assumed. The
 * kernels take a fixed time (launches, reading and writing memory) plus a time per iteration;
 * the copies take the same time whatever the iterations. Two probes give the line; its
 * crossing with the copies is the next probe (the secant method), until the two are within 2%. */
struct probe {
    double iters, kernels, copies; /* ms without copies, ms without kernels */
};

static double imbalance(struct probe p)
{
    return fabs(p.kernels - p.copies) / p.copies;
}

static int balanced_iters(struct bench *b, const struct shape *p, unsigned *iters)
{
    struct probe last[2] = {{.iters = BALANCE_PROBE_ITERS}, {.iters = 8 * BALANCE_PROBE_ITERS}};
    for (int i = 0; i < 2; i++)
        if (probe_balance(b, p, (unsigned)last[i].iters, &last[i].kernels, &last[i].copies))
            return -1;
    struct probe best = imbalance(last[1]) < imbalance(last[0]) ? last[1] : last[0];
    int probes = 2;
    while (imbalance(best) > 0.02 && probes < MAX_BALANCE_PROBES) {
        double slope = (last[1].kernels - last[0].kernels) / (last[1].iters - last[0].iters);
        double next = round(fmin(fmax(last[1].iters + (last[1].copies - last[1].kernels) / slope,
                                      1), 1e6));
        if (!(slope > 0) || next == last[1].iters)
            break; /* noise at this size, or no step left: keep the nearest probe */
        last[0] = last[1];
        last[1].iters = next;
        if (probe_balance(b, p, (unsigned)next, &last[1].kernels, &last[1].copies))
            return -1;
        probes++;
        if (imbalance(last[1]) < imbalance(best))
            best = last[1];
    }
    *iters = (unsigned)best.iters;
    printf("\nbalance: at %u iterations the pipeline without its copies takes %.2f ms and without "
           "its kernels %.2f ms\n(%.1f%% apart, after %d probes)\n", *iters, best.kernels,
           best.copies, 100 * imbalance(best), probes);
    return 0;
}

int main_shape(struct bench *b, const struct settings *s, struct shape *p)
{
    *p = (struct shape){.n = s->n, .chunks = (size_t)s->chunks, .buffers = (size_t)s->buffers,
                        .streams = (size_t)s->streams, .iters = (unsigned)s->iters};
    return p->iters ? 0 : balanced_iters(b, p, &p->iters);
}

static int one_regime(struct bench *b, const struct shape *p, const char *name,
                      const unsigned *in, unsigned *out)
{
    struct stats sync;
    struct outcome o;
    if (measure_synchronous(b, p, in, out, &sync) || evaluate(b, p, &o))
        return -1;
    printf("  %-14s %6u", name, p->iters);
    const struct stats times[] = {sync, o.serial, o.pipeline, o.kernels, o.copies};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        print_ms(times[i]);
    printf(" %6.3f (%.3f-%.3f) %6.2fx %6.2fx\n", o.efficiency.median, o.efficiency.min,
           o.efficiency.max, sync.median / o.serial.median, o.serial.median / o.pipeline.median);
    flag_beaten_bound(name, o.efficiency);
    char extra[64];
    snprintf(extra, sizeof extra, "regime=%s;", name);
    if (record_outcome(b, "regimes", p, &o, extra))
        return -1;
    snprintf(extra, sizeof extra, "regime=%s;chunks=%zu;iters=%u;clock=gpu_event", name,
             p->chunks, p->iters);
    struct csv_row row = {.experiment = "regimes", .variant = "sync_pageable",
                          .direction = "both", .bytes = 2 * p->n * sizeof(unsigned),
                          .reps = b->reps < SYNC_REPS ? b->reps : SYNC_REPS, .ms = sync,
                          .params = extra};
    return csv_write(b->csv, &row);
}

int regimes(struct bench *b, const struct shape *base)
{
    size_t bytes = base->n * sizeof(unsigned);
    unsigned *in = malloc(bytes), *out = malloc(bytes);
    int rc = -1;
    if (!in || !out) {
        fprintf(stderr, "%s: out of host memory for 2 x %zu bytes\n", program_name, bytes);
        goto out_free;
    }
    memcpy(in, b->rig.h_in, bytes); /* the synchronous baseline's pageable copy of the data */

    char size_text[32];
    printf("\n1. %s in %zu chunks, %zu buffers, %zu streams; ms on the GPU (events), median of %d "
           "paired\n   repetitions (synchronous: of %d)\n",
           format_bytes(bytes, size_text, sizeof size_text), base->chunks, base->buffers,
           base->streams, b->reps, b->reps < SYNC_REPS ? b->reps : SYNC_REPS);
    /* What the hardware allows, before any measurement: the copy engines decide which copies
     * can overlap each other (kernels need none of them). */
    if (b->copy_engines >= 2)
        printf("  this GPU has %d copy engines: an H2D copy, a D2H copy and kernels can all run at "
               "once\n", b->copy_engines);
    else if (b->copy_engines == 1)
        printf("  this GPU has 1 copy engine: copies in and out take turns, and only kernels "
               "overlap them\n");
    else
        printf("  this GPU has no copy engine that works beside kernels: nothing overlaps\n");
    printf("  %-14s %6s %10s %10s %10s %10s %10s %-20s %7s %7s\n", "regime", "iters", "sync",
           "serial", "pipeline", "kernels", "copies", " efficiency (range)", "pinning",
           "overlap");
    struct regime cases[REGIMES];
    regimes_of(base->iters, cases);
    for (size_t c = 0; c < REGIMES; c++) {
        struct shape p = *base;
        p.iters = cases[c].iters;
        if (one_regime(b, &p, cases[c].name, in, out))
            goto out_free;
    }
    printf("  sync: lesson 01's way (pageable memory, blocking copies); serial: main.c's loop on\n"
           "  one stream and one buffer; pipeline: the loop on the shape above; kernels, copies:\n"
           "  the pipeline without its copies, without its kernels. efficiency = max(kernels,\n"
           "  copies) / pipeline, rep by rep; pinning = sync / serial and overlap = serial /\n"
           "  pipeline, ratios of the medians (sync runs apart, not in turns). ~: unsteady\n"
           "  (repetitions spread over 5%% of the median)\n");
    rc = 0;
out_free:
    free(in);
    free(out);
    return rc;
}

