/* bench.c - runs timed in turns, a pipeline against its bound, and their rows; see bench.h. */
#include "bench.h"

#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <string.h>

static cudaError_t run_turn(struct bench *b, const struct turn *t, double *ms)
{
    static const enum left_out left_out[] = {[ENGINE] = NOTHING_LEFT_OUT,
                                             [WITHOUT_COPIES] = COPIES_LEFT_OUT,
                                             [WITHOUT_KERNELS] = KERNELS_LEFT_OUT};
    if (t->kind == PLAIN_LOOP)
        return loop_time(&b->rig, t->shape, b->plain, ms);
    return pipeline_time(&b->rig, t->shape, left_out[t->kind], ms);
}

/* A warm-up of each turn, then rep 1 of each, rep 2 of each, and so on. Copy speed wanders by a
 * few percent from one second to the next (lesson 04); timed one after the other, a pipeline and
 * its bound could meet different speeds, and their ratio would wander with them. Each rep starts
 * one turn later than the one before, so that no turn always follows the same one. Each full
 * run's last rep starts from a poisoned output and is checked at once, before the next run
 * overwrites it. */
int measure_in_turns(struct bench *b, const struct turn *turns, size_t n)
{
    double ms;
    for (size_t t = 0; t < n; t++)
        if (run_turn(b, &turns[t], &ms))
            return -1;
    for (int rep = 0; rep < b->reps; rep++) {
        for (size_t k = 0; k < n; k++) {
            size_t t = (k + (size_t)rep) % n;
            const struct shape *p = turns[t].shape;
            bool full = turns[t].kind == PLAIN_LOOP || turns[t].kind == ENGINE;
            bool checked = full && rep == b->reps - 1;
            if (checked)
                memset(b->rig.h_out, 0xff, p->n * sizeof(unsigned));
            nvtxRangePushA(turns[t].what);
            cudaError_t err = run_turn(b, &turns[t], &ms);
            nvtxRangePop();
            if (err || (checked && !work_verified(&b->rig, b->rig.h_in, b->rig.h_out, p->n,
                                                  p->iters, turns[t].what)))
                return -1;
            b->samples[t * (size_t)b->reps + (size_t)rep] = ms;
        }
    }
    return 0;
}

struct stats turn_stats(struct bench *b, size_t t)
{
    return stats_summarize(b->samples + t * (size_t)b->reps, (size_t)b->reps);
}

struct stats ratio_by_rep(const double *a, const double *b, int reps, double *scratch)
{
    for (int rep = 0; rep < reps; rep++)
        scratch[rep] = a[rep] / b[rep];
    return stats_summarize(scratch, (size_t)reps);
}

/* The bound of rep i is the slower of the pipeline without its copies and without its kernels
 * in rep i. */
struct stats paired_efficiency(struct bench *b, size_t pipeline, size_t kernels, size_t copies)
{
    const double *s = b->samples;
    size_t reps = (size_t)b->reps;
    double *ratio = b->samples + MAX_TURNS * reps;
    for (size_t i = 0; i < reps; i++)
        ratio[i] = fmax(s[kernels * reps + i], s[copies * reps + i]) / s[pipeline * reps + i];
    return stats_summarize(ratio, reps);
}

/* The turns of evaluate(). */
enum { PIPELINE, SERIAL, KERNELS, COPIES, EVALUATED };

int evaluate(struct bench *b, const struct shape *p, struct outcome *o)
{
    struct shape serial = *p;
    serial.streams = serial.buffers = 1;
    serial.breadth_first = serial.by_role = false;
    bool round_robin = !p->breadth_first && !p->by_role && !p->skip_buffer_free_wait;
    const struct turn turns[EVALUATED] = {
        [PIPELINE] = {p, round_robin ? PLAIN_LOOP : ENGINE, "pipeline"},
        [SERIAL] = {&serial, PLAIN_LOOP, "serial: one stream, one buffer"},
        [KERNELS] = {p, WITHOUT_COPIES, "the pipeline without its copies"},
        [COPIES] = {p, WITHOUT_KERNELS, "the pipeline without its kernels"},
    };
    if (measure_in_turns(b, turns, EVALUATED))
        return -1;
    *o = (struct outcome){.efficiency = paired_efficiency(b, PIPELINE, KERNELS, COPIES)};
    o->pipeline = turn_stats(b, PIPELINE);
    o->serial = turn_stats(b, SERIAL);
    o->kernels = turn_stats(b, KERNELS);
    o->copies = turn_stats(b, COPIES);
    o->bound = fmax(o->kernels.median, o->copies.median);
    return 0;
}

void flag_beaten_bound(const char *what, struct stats efficiency)
{
    if (efficiency.median > 1 + (efficiency.max - efficiency.min))
        printf("  !! %s: median efficiency %.3f is above 1 by more than its spread: a run beat "
               "its bound, so the bound is wrong\n", what, efficiency.median);
}

void print_ms(struct stats s)
{
    printf(" %9.2f%c", s.median, stats_unsteady(s) ? '~' : ' ');
}

int record(struct bench *b, const char *experiment, const char *variant, const char *direction,
           size_t bytes, struct stats ms, const char *params)
{
    struct csv_row row = {.experiment = experiment, .variant = variant, .direction = direction,
                          .bytes = bytes, .reps = b->reps, .ms = ms, .params = params};
    return csv_write(b->csv, &row);
}

int record_pipeline(struct bench *b, const char *experiment, const char *variant,
                    const struct shape *p, struct stats ms, struct stats efficiency,
                    const char *extra, double speedup_serial)
{
    char params[320];
    snprintf(params, sizeof params, "%schunks=%zu;streams=%zu;buffers=%zu;iters=%u;"
             "efficiency=%.4f;efficiency_min=%.4f;efficiency_max=%.4f;speedup_serial=%.3f;"
             "clock=gpu_event", extra, p->chunks, p->streams, p->buffers, p->iters,
             efficiency.median, efficiency.min, efficiency.max, speedup_serial);
    return record(b, experiment, variant, "both", 2 * p->n * sizeof(unsigned), ms, params);
}

int record_outcome(struct bench *b, const char *experiment, const struct shape *p,
                   const struct outcome *o, const char *extra)
{
    if (record_pipeline(b, experiment, "depth_first", p, o->pipeline, o->efficiency, extra,
                        o->serial.median / o->pipeline.median))
        return -1;
    char params[128];
    size_t bytes = p->n * sizeof(unsigned);
    snprintf(params, sizeof params, "%schunks=%zu;streams=%zu;buffers=%zu;iters=%u;"
             "clock=gpu_event", extra, p->chunks, p->streams, p->buffers, p->iters);
    return record(b, experiment, "serial_pinned", "both", 2 * bytes, o->serial, params) ||
           record(b, experiment, "kernels_only", NULL, bytes, o->kernels, params) ||
           record(b, experiment, "copies_only", "both", 2 * bytes, o->copies, params);
}
