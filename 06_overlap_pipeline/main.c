/*
 * 06_overlap_pipeline - copy in, compute and copy out at the same time: the multi-buffer pipeline.
 *
 * Lecture section 7.1 and table 2. The pipeline itself is pipeline.c: a data set in pinned host
 * memory, larger than what the GPU holds of it, goes through in K chunks and a ring of B device
 * buffers, spread over S streams. This file measures it:
 *
 *   1. three regimes (copy-bound, balanced, compute-bound), each against lesson 01's synchronous
 *      way, the serial pinned version, and the bound: the slower of the same pipeline without
 *      its copies and without its kernels. Efficiency = bound / pipeline time, rep by rep.
 *   2. a timeline of a serial and a pipelined run, recorded by CUPTI, for Perfetto and the plots,
 *      and how busy it kept each engine.
 *   3. sweeps: chunks x streams, and the kernel's arithmetic intensity.
 *   4. variants: the pipeline captured in a CUDA graph and replayed (many small chunks); and
 *      managed memory left to fault, advised, or prefetched, against explicit copies (7.6).
 *
 * Every time but 4b's is the GPU's: events around the work (a fork-join of the streams, lesson
 * 03), and, for the synchronous way, events in the legacy default stream that its blocking calls
 * use. Managed memory's results reach the host when the CPU reads them, so 4b times every way on
 * the host clock until it has. Runs compared with each other are timed in turns, so that all of
 * them see the same link, and each ratio is taken rep by rep and printed with its range. The last
 * repetition of every pipelined, serial, synchronous, graph and managed run is checked element by
 * element.
 *
 * `--exercise N` runs exercise N of README.md instead, on these same measurements (exercises.c,
 * which bench.h shares them with).
 *
 * From lesson 05 on, code that owns resources returns its error and releases everything on one
 * path: every function here returns 0, or -1 after saying why, and main() releases the rig.
 */
#include "bench.h"
#include "fault.h"

#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <string.h>

static const char summary[] =
    "The multi-buffer pipeline of lecture 7.1: a data set in K chunks through a ring of B device\n"
    "buffers over S streams, against the synchronous and serial versions and the hardware's\n"
    "bound, in three regimes; a CUPTI timeline; sweeps; CUDA-graph and managed-memory variants.";

/* Part 3's sweep over shapes. Its fewest chunks and most streams size the ring's buffers. */
enum { SWEEP_FEWEST_CHUNKS = 4, SWEEP_MOST_STREAMS = 8 };
static const size_t sweep_chunk_counts[] = {SWEEP_FEWEST_CHUNKS, 8, 16, 32, 64, 128, 256};
static const size_t sweep_stream_counts[] = {1, 2, 3, 4, SWEEP_MOST_STREAMS};
enum {
    N_SWEEP_CHUNKS = sizeof sweep_chunk_counts / sizeof sweep_chunk_counts[0],
    N_SWEEP_STREAMS = sizeof sweep_stream_counts / sizeof sweep_stream_counts[0],
    GRAPH_CHUNKS = 256,      /* part 4's many small chunks */
    MANAGED_CHUNKS = 16,
    SYNC_REPS = 3,           /* the synchronous baseline takes a quarter of a second a run */
    BALANCE_PROBE_ITERS = 128,
    MAX_BALANCE_PROBES = 6,
};

/* ------------------------------------------------------------------------------------------ *
 * Runs timed in turns.
 * ------------------------------------------------------------------------------------------ */

enum { MAX_TURNS = 5 }; /* depth-first, serial, kernels only, copies only, breadth-first */

/* Runs that are compared with each other, timed in turns: a warm-up of each, then rep 1 of each,
 * rep 2 of each, and so on, into b->samples[turn * reps + rep]. Copy speed wanders by a few
 * percent from one second to the next (lesson 04); timed one after the other, a pipeline and its
 * bound could meet different speeds, and their ratio would wander with them. Each full run's
 * last rep starts from a poisoned output and is checked at once, before the next run overwrites
 * it. */
int measure_in_turns(struct bench *b, const struct turn *turns, size_t n)
{
    double ms;
    for (size_t t = 0; t < n; t++)
        if (pipeline_time(&b->rig, turns[t].shape, turns[t].stages, &ms))
            return -1;
    for (int rep = 0; rep < b->reps; rep++) {
        for (size_t t = 0; t < n; t++) {
            const struct shape *p = turns[t].shape;
            bool checked = turns[t].stages == ALL_STAGES && rep == b->reps - 1;
            if (checked)
                memset(b->rig.h_out, 0xff, p->n * sizeof(unsigned));
            nvtxRangePushA(turns[t].what);
            cudaError_t err = pipeline_time(&b->rig, p, turns[t].stages, &ms);
            nvtxRangePop();
            if (err || (checked && !work_verified(&b->rig, b->rig.h_in, b->rig.h_out, p->n,
                                                  p->iters, turns[t].what)))
                return -1;
            b->samples[t * (size_t)b->reps + (size_t)rep] = ms;
        }
    }
    return 0;
}

static struct stats turn_stats(struct bench *b, size_t t)
{
    return stats_summarize(b->samples + t * (size_t)b->reps, (size_t)b->reps);
}

/* bound / pipeline, repetition by repetition: the bound of rep i is the slower of the pipeline
 * without its copies and without its kernels in rep i. Before turn_stats() sorts the samples. */
static struct stats paired_efficiency(struct bench *b, size_t pipeline, size_t kernels,
                                      size_t copies)
{
    const double *s = b->samples;
    size_t reps = (size_t)b->reps;
    double *ratio = b->samples + MAX_TURNS * reps;
    for (size_t i = 0; i < reps; i++)
        ratio[i] = fmax(s[kernels * reps + i], s[copies * reps + i]) / s[pipeline * reps + i];
    return stats_summarize(ratio, reps);
}

/* Prints a time, and a '~' after it when it is unsteady. */
static void print_ms(struct stats s)
{
    printf(" %9.2f%c", s.median, stats_unsteady(s) ? '~' : ' ');
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

/* ------------------------------------------------------------------------------------------ *
 * A pipeline against its serial version and its bound.
 * ------------------------------------------------------------------------------------------ */

/* The turns of evaluate(), whose medians make a struct outcome (bench.h). */
enum { DEPTH, SERIAL, KERNELS, COPIES, BREADTH };

/* Runs the pipeline, the serial version and the two halves of the bound for one shape, and the
 * breadth-first pipeline too when asked. */
int evaluate(struct bench *b, const struct shape *p, bool both_orders, struct outcome *o)
{
    struct shape serial = *p, breadth = *p;
    serial.streams = serial.buffers = 1;
    serial.breadth_first = serial.by_role = false;
    breadth.breadth_first = true;
    const struct turn turns[MAX_TURNS] = {
        [DEPTH] = {p, ALL_STAGES, "pipeline, depth-first"},
        [SERIAL] = {&serial, ALL_STAGES, "serial: one stream, one buffer"},
        [KERNELS] = {p, COMPUTE, "the pipeline without its copies"},
        [COPIES] = {p, COPY_IN | COPY_OUT, "the pipeline without its kernels"},
        [BREADTH] = {&breadth, ALL_STAGES, "pipeline, breadth-first"},
    };
    if (measure_in_turns(b, turns, both_orders ? MAX_TURNS : BREADTH))
        return -1;
    *o = (struct outcome){.efficiency = paired_efficiency(b, DEPTH, KERNELS, COPIES)};
    if (both_orders) {
        /* Against the bound issued depth-first. With as many streams as buffers, as in the
         * regimes, each stream gets the same work in the same order either way. */
        o->breadth_efficiency = paired_efficiency(b, BREADTH, KERNELS, COPIES);
        o->breadth = turn_stats(b, BREADTH);
    }
    o->pipeline = turn_stats(b, DEPTH);
    o->serial = turn_stats(b, SERIAL);
    o->kernels = turn_stats(b, KERNELS);
    o->copies = turn_stats(b, COPIES);
    o->bound = fmax(o->kernels.median, o->copies.median);
    return 0;
}

/* Says so when a measured pipeline beat its bound by more than the bound's own spread allows. */
void flag_beaten_bound(const char *what, struct stats efficiency)
{
    if (efficiency.median > 1 + (efficiency.max - efficiency.min))
        printf("  !! %s: median efficiency %.3f is above 1 by more than its spread: a run beat "
               "its bound, so the bound is wrong\n", what, efficiency.median);
}

static int record(struct bench *b, const char *experiment, const char *variant,
                  const char *direction, size_t bytes, struct stats ms, const char *params)
{
    struct csv_row row = {.experiment = experiment, .variant = variant, .direction = direction,
                          .bytes = bytes, .reps = b->reps, .ms = ms, .params = params};
    return csv_write(b->csv, &row);
}

static int record_pipeline(struct bench *b, const char *experiment, const char *variant,
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

static int record_outcome(struct bench *b, const char *experiment, const struct shape *p,
                          const struct outcome *o, const char *extra, bool both_orders)
{
    if (record_pipeline(b, experiment, "depth_first", p, o->pipeline, o->efficiency, extra,
                        o->serial.median / o->pipeline.median) ||
        (both_orders && record_pipeline(b, experiment, "breadth_first", p, o->breadth,
                                        o->breadth_efficiency, extra,
                                        o->serial.median / o->breadth.median)))
        return -1;
    char params[128];
    size_t bytes = p->n * sizeof(unsigned);
    snprintf(params, sizeof params, "%schunks=%zu;streams=%zu;buffers=%zu;iters=%u;"
             "clock=gpu_event", extra, p->chunks, p->streams, p->buffers, p->iters);
    return record(b, experiment, "serial_pinned", "both", 2 * bytes, o->serial, params) ||
           record(b, experiment, "kernels_only", NULL, bytes, o->kernels, params) ||
           record(b, experiment, "copies_only", "both", 2 * bytes, o->copies, params);
}

/* ------------------------------------------------------------------------------------------ *
 * 1. Three regimes.
 * ------------------------------------------------------------------------------------------ */

/* The pipeline without its copies and without its kernels, at `iters`, timed in turns. */
static int probe_balance(struct bench *b, const struct shape *p, unsigned iters, double *kernels,
                         double *copies)
{
    struct shape probe = *p;
    probe.iters = iters;
    const struct turn turns[] = {{&probe, COMPUTE, "calibration: without copies"},
                                 {&probe, COPY_IN | COPY_OUT, "calibration: without kernels"}};
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
    if (measure_synchronous(b, p, in, out, &sync) || evaluate(b, p, true, &o))
        return -1;
    printf("  %-14s %6u", name, p->iters);
    const struct stats times[] = {sync, o.serial, o.pipeline, o.breadth, o.kernels, o.copies};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        print_ms(times[i]);
    printf(" %6.3f (%.3f-%.3f) %6.2fx %6.2fx\n", o.efficiency.median, o.efficiency.min,
           o.efficiency.max, sync.median / o.serial.median, o.serial.median / o.pipeline.median);
    flag_beaten_bound(name, o.efficiency);
    flag_beaten_bound(name, o.breadth_efficiency);
    char extra[64];
    snprintf(extra, sizeof extra, "regime=%s;", name);
    if (record_outcome(b, "regimes", p, &o, extra, true))
        return -1;
    snprintf(extra, sizeof extra, "regime=%s;chunks=%zu;iters=%u;clock=gpu_event", name,
             p->chunks, p->iters);
    struct csv_row row = {.experiment = "regimes", .variant = "sync_pageable",
                          .direction = "both", .bytes = 2 * p->n * sizeof(unsigned),
                          .reps = b->reps < SYNC_REPS ? b->reps : SYNC_REPS, .ms = sync,
                          .params = extra};
    return csv_write(b->csv, &row);
}

static int regimes(struct bench *b, const struct shape *base, unsigned balanced)
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
    printf("  %-14s %6s %10s %10s %10s %10s %10s %10s %-20s %7s %7s\n", "regime", "iters",
           "sync", "serial", "pipeline", "breadth", "kernels", "copies", " efficiency (range)",
           "pinning", "overlap");
    const struct { const char *name; unsigned iters; } cases[] = {
        {"copy-bound", 1}, {"balanced", balanced}, {"compute-bound", 4 * balanced}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct shape p = *base;
        p.iters = cases[c].iters;
        if (one_regime(b, &p, cases[c].name, in, out))
            goto out_free;
    }
    printf("  sync: lesson 01's way (pageable memory, blocking copies); serial: pinned, one\n"
           "  stream and one buffer; kernels, copies: the pipeline without its copies, without\n"
           "  its kernels. efficiency = max(kernels, copies) / pipeline, rep by rep; pinning =\n"
           "  sync / serial; overlap = serial / pipeline. ~: unsteady (repetitions spread over\n"
           "  5%% of the median)\n");
    rc = 0;
out_free:
    free(in);
    free(out);
    return rc;
}

/* ------------------------------------------------------------------------------------------ *
 * 2. The timeline of a serial and a pipelined run.
 * ------------------------------------------------------------------------------------------ */

/* The runs part 2 records, in order: a serial one, the pipeline round robin and by role, and
 * the staged pipeline with its CPU work (part 5). */
enum { TRACED_SERIAL, TRACED_PIPELINED, TRACED_BY_ROLE, TRACED_STAGED, TRACED_RUNS };

int record_runs(struct bench *b, const struct traced *runs, int count, const char *prefix,
                struct busy_time busy[TIMELINE_MAX_RUNS], struct issue_wait *waits,
                unsigned long *operations, bool *recorded)
{
    *recorded = false;
    if (timeline_start())
        return 0; /* no CUPTI here: it said so, and the rest goes on */
    double ms;
    struct staged_time staged;
    b->rig.tracing = true;
    int rc = timeline_run("warm-up") || pipeline_time(&b->rig, runs[0].p, ALL_STAGES, &ms) ||
             timeline_discard();
    for (int t = 0; rc == 0 && t < count; t++) {
        rc = timeline_run(runs[t].name);
        if (rc == 0 && runs[t].staging)
            rc = staged_run(&b->rig, runs[t].staging, runs[t].p, runs[t].threads, ALL_WORK,
                            &staged);
        else if (rc == 0)
            rc = pipeline_time(&b->rig, runs[t].p, ALL_STAGES, &ms) ? -1 : 0;
    }
    b->rig.tracing = false;
    if (rc) {
        timeline_stop();
        return -1;
    }
    if (timeline_write(prefix, operations, busy, waits))
        return -1;
    *recorded = true;
    return 0;
}

/* Prints and records how busy each kind of work kept the GPU, and the CPU, in one recorded run. */
int report_busy(struct bench *b, const char *key, const char *name,
                const struct busy_time *busy)
{
    const struct { const char *variant; double ms; } rows[] = {
        {"h2d_busy", busy->h2d_ms},     {"kernels_busy", busy->kernels_ms},
        {"d2h_busy", busy->d2h_ms},     {"all_three_busy", busy->all_three_ms},
        {"span", busy->span_ms},        {"cpu_busy", busy->cpu_ms},
        {"all_four_busy", busy->all_four_ms},
    };
    double span = busy->span_ms;
    printf("  %-38s %6.2f ms, busy: H2D %3.0f%%, kernels %3.0f%%, D2H %3.0f%%, all three at once "
           "%3.0f%%\n", name, span, 100 * busy->h2d_ms / span, 100 * busy->kernels_ms / span,
           100 * busy->d2h_ms / span, 100 * busy->all_three_ms / span);
    if (busy->cpu_ms > 0)
        printf("  %38s %9s  CPU copying %3.0f%%, all four columns of table 2 at once %3.0f%%\n",
               "", "", 100 * busy->cpu_ms / span, 100 * busy->all_four_ms / span);
    size_t n_rows = sizeof rows / sizeof rows[0] - (busy->cpu_ms > 0 ? 0 : 2);
    for (size_t i = 0; i < n_rows; i++) {
        char params[96];
        snprintf(params, sizeof params, "run=%s;share=%.4f;clock=gpu_cupti", key,
                 rows[i].ms / span);
        struct csv_row row = {.experiment = "timeline", .variant = rows[i].variant, .reps = 1,
                              .ms = {rows[i].ms, rows[i].ms, rows[i].ms}, .params = params};
        if (csv_write(b->csv, &row))
            return -1;
    }
    return 0;
}

static int timeline(struct bench *b, const struct shape *p, const struct staging *st,
                    int threads, const char *prefix)
{
    struct shape shapes[TRACED_RUNS] = {*p, *p, *p, *p};
    shapes[TRACED_SERIAL].streams = shapes[TRACED_SERIAL].buffers = 1;
    shapes[TRACED_BY_ROLE].streams = 3;
    shapes[TRACED_BY_ROLE].by_role = true;
    char names[TRACED_RUNS][64];
    snprintf(names[TRACED_SERIAL], 64, "serial: 1 stream, 1 buffer");
    snprintf(names[TRACED_PIPELINED], 64, "pipelined: %zu streams, %zu buffers", p->streams,
             p->buffers);
    snprintf(names[TRACED_BY_ROLE], 64, "by role: 3 streams, %zu buffers", p->buffers);
    snprintf(names[TRACED_STAGED], 64, "staged: pageable data, %d CPU threads", threads);
    const char *const keys[TRACED_RUNS] = {"serial", "pipelined", "by_role", "staged"};
    struct traced runs[TRACED_RUNS];
    for (int t = 0; t < TRACED_RUNS; t++)
        runs[t] = (struct traced){names[t], &shapes[t], t == TRACED_STAGED ? st : NULL, threads};
    unsigned long operations = 0;
    struct busy_time busy[TIMELINE_MAX_RUNS];
    bool recorded;
    printf("\n2. timeline (CUPTI) of a serial, a pipelined, a by-role and a staged run, balanced "
           "regime\n");
    if (record_runs(b, runs, TRACED_RUNS, prefix, busy, NULL, &operations, &recorded))
        return -1;
    if (!recorded)
        return 0;
    printf("  %lu copies and kernels written to %s.json (open it in https://ui.perfetto.dev or\n"
           "  chrome://tracing) and %s.csv, with the staged run's CPU copies\n", operations,
           prefix, prefix);
    for (int t = 0; t < TRACED_RUNS; t++)
        if (report_busy(b, keys[t], names[t], &busy[t]))
            return -1;
    return 0;
}

/* ------------------------------------------------------------------------------------------ *
 * 3. Sweeps.
 * ------------------------------------------------------------------------------------------ */

static int sweep_shapes(struct bench *b, const struct shape *base)
{
    char size_text[32];
    printf("\n3a. efficiency by chunks and streams (buffers = streams), %s, %u iterations\n",
           format_bytes(base->n * sizeof(unsigned), size_text, sizeof size_text), base->iters);
    printf("  %8s", "chunks");
    for (size_t s = 0; s < N_SWEEP_STREAMS; s++)
        printf("  %2zu stream%s", sweep_stream_counts[s], sweep_stream_counts[s] == 1 ? " " : "s");
    printf("\n");
    struct shape best = *base;
    double best_efficiency = 0;
    for (size_t c = 0; c < N_SWEEP_CHUNKS; c++) {
        printf("  %8zu", sweep_chunk_counts[c]);
        for (size_t s = 0; s < N_SWEEP_STREAMS; s++) {
            struct shape p = *base;
            p.chunks = sweep_chunk_counts[c];
            p.streams = p.buffers = sweep_stream_counts[s];
            struct outcome o;
            if (evaluate(b, &p, false, &o) || record_outcome(b, "sweep_shape", &p, &o, "", false))
                return -1;
            printf("  %9.3f%c", o.efficiency.median, stats_unsteady(o.efficiency) ? '~' : ' ');
            flag_beaten_bound("sweep", o.efficiency);
            if (o.efficiency.median > best_efficiency) {
                best_efficiency = o.efficiency.median;
                best = p;
            }
        }
        printf("\n");
    }
    printf("  best: %zu chunks over %zu streams, efficiency %.3f\n", best.chunks, best.streams,
           best_efficiency);
    return 0;
}

static int sweep_intensity(struct bench *b, const struct shape *base, unsigned balanced)
{
    printf("\n3b. speed-up over serial by kernel intensity, %zu chunks, %zu streams, ms on the "
           "GPU\n", base->chunks, base->streams);
    printf("  %8s %10s %10s %10s %10s %8s %8s  %s\n", "iters", "serial", "pipeline", "kernels",
           "copies", "speed-up", "bound x", "efficiency (range)");
    for (unsigned iters = 1; iters <= 8 * balanced; iters *= 4) {
        struct shape p = *base;
        p.iters = iters;
        struct outcome o;
        if (evaluate(b, &p, false, &o))
            return -1;
        /* The most a pipeline can gain over the serial version: serial time over the bound. A
         * speed-up above it is an efficiency above 1. */
        printf("  %8u", iters);
        const struct stats times[] = {o.serial, o.pipeline, o.kernels, o.copies};
        for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
            print_ms(times[i]);
        printf(" %7.2fx %7.2fx  %.3f (%.3f-%.3f)\n", o.serial.median / o.pipeline.median,
               o.serial.median / o.bound, o.efficiency.median, o.efficiency.min,
               o.efficiency.max);
        flag_beaten_bound("intensity sweep", o.efficiency);
        if (record_outcome(b, "sweep_intensity", &p, &o, "", false))
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ *
 * 4. Variants: a CUDA graph, and managed memory.
 * ------------------------------------------------------------------------------------------ */

/* Replays `exec` b->reps times after a warm-up, and checks the last replay's output. */
static int time_replays(struct bench *b, const struct shape *p, cudaGraphExec_t exec,
                        struct stats *replay)
{
    const struct rig *r = &b->rig;
    for (int rep = -1; rep < b->reps; rep++) {
        if (rep == b->reps - 1)
            memset(r->h_out, 0xff, p->n * sizeof(unsigned));
        double ms;
        if (CUDA_REPORT(cudaEventRecord(r->start, r->stream[0])) ||
            CUDA_REPORT(cudaGraphLaunch(exec, r->stream[0])) || clock_stop(r, &ms))
            return -1;
        if (rep >= 0)
            b->samples[rep] = ms;
    }
    if (!work_verified(r, r->h_in, r->h_out, p->n, p->iters, "graph replay"))
        return -1;
    *replay = stats_summarize(b->samples, (size_t)b->reps);
    return 0;
}

/* Many small chunks cost one call each, microseconds of CPU apiece. Captured once into a graph,
 * the whole pipeline is then launched with one call. Its efficiency is against the bound issued
 * call by call, which pays those calls: unlike the others, it could exceed 1 without a wrong
 * bound. */
static int graph_replay(struct bench *b, const struct shape *p, struct stats *replay)
{
    const struct rig *r = &b->rig;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    int rc = -1;
    if (CUDA_REPORT(cudaStreamBeginCapture(r->stream[0], cudaStreamCaptureModeThreadLocal)))
        return -1;
    cudaError_t captured = pipeline_enqueue(r, p, ALL_STAGES);
    /* The capture must end, failed or not, or stream 0 stays in capture mode. */
    if (CUDA_REPORT(cudaStreamEndCapture(r->stream[0], &graph)))
        return -1;
    resource_acquired(); /* the graph */
    if (!captured && !ACQUIRE("graph instance", cudaGraphInstantiate(&exec, graph, 0))) {
        resource_acquired();
        rc = time_replays(b, p, exec, replay);
        CUDA_REPORT(cudaGraphExecDestroy(exec));
        resource_released();
    }
    CUDA_REPORT(cudaGraphDestroy(graph));
    resource_released();
    return rc;
}

static int graph_variant(struct bench *b, const struct shape *p)
{
    struct outcome o;
    struct stats replay;
    if (evaluate(b, p, false, &o) || graph_replay(b, p, &replay))
        return -1;
    char size_text[32];
    printf("\n4a. %zu chunks of %s over %zu streams, %u iterations: issued call by call, or "
           "replayed as one CUDA graph\n", p->chunks,
           format_bytes(p->n / p->chunks * sizeof(unsigned), size_text, sizeof size_text),
           p->streams, p->iters);
    printf("  bound %.3f ms; streams %.3f ms (efficiency %.3f); graph %.3f ms (efficiency "
           "%.3f)\n", o.bound, o.pipeline.median, o.efficiency.median, replay.median,
           o.bound / replay.median);
    char params[160];
    snprintf(params, sizeof params, "chunks=%zu;streams=%zu;buffers=%zu;iters=%u;efficiency=%.4f;"
             "clock=gpu_event", p->chunks, p->streams, p->buffers, p->iters,
             o.bound / replay.median);
    return record_outcome(b, "graph", p, &o, "", false) ||
           record(b, "graph", "graph_replay", "both", 2 * p->n * sizeof(unsigned), replay,
                  params);
}

/* Lecture 7.6: managed memory moves itself, page by page, and "implicit migration can bring
 * unpredictable latency". Four ways to get the same chunks through the same kernel, in the same
 * streams: explicit copies from pinned memory (the pipeline), and managed memory left to fault,
 * advised, or prefetched there and back. Managed memory's last step, bringing the results to the
 * host, happens when the CPU reads them, after the GPU's last event: so every way is timed on
 * the host clock, from the first call until the CPU has read every page of the results. */
enum managed_way { EXPLICIT, FAULTS, ADVISED, PREFETCHED, N_MANAGED_WAYS };
static const char *const managed_names[N_MANAGED_WAYS] = {
    "explicit_pinned", "managed_no_prefetch", "managed_advise", "managed_prefetch"};
static const char *const managed_labels[N_MANAGED_WAYS] = {
    "explicit copies, pinned memory (the pipeline)", "managed, pages fault their way over",
    "managed, advised: stays in host memory, GPU maps it", "managed, prefetched there and back"};

/* device -1 is the host. CUDA 13 takes a location where CUDA 12 took a device number. */
#if CUDART_VERSION >= 13000
static struct cudaMemLocation where(int device)
{
    return (struct cudaMemLocation){device >= 0 ? cudaMemLocationTypeDevice
                                                : cudaMemLocationTypeHost, device};
}
#endif

static cudaError_t prefetch(const void *p, size_t bytes, int device, cudaStream_t stream)
{
#if CUDART_VERSION >= 13000
    return cudaMemPrefetchAsync(p, bytes, where(device), 0, stream);
#else
    return cudaMemPrefetchAsync(p, bytes, device >= 0 ? device : cudaCpuDeviceId, stream);
#endif
}

static cudaError_t advise(const void *p, size_t bytes, enum cudaMemoryAdvise advice, int device)
{
#if CUDART_VERSION >= 13000
    return cudaMemAdvise(p, bytes, advice, where(device));
#else
    return cudaMemAdvise(p, bytes, advice, device >= 0 ? device : cudaCpuDeviceId);
#endif
}

/* The pipeline's loop over chunks on managed memory, in place; only PREFETCHED moves the data
 * itself, each chunk to the GPU before its kernel and back after it. */
static cudaError_t managed_enqueue(const struct rig *r, const struct shape *p, unsigned *data,
                                   int device, enum managed_way way)
{
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, p->streams);
    CUDA_TRY(fan_out(r, p->streams));
    for (size_t k = 0; k < plan.chunks; k++) {
        size_t first, count;
        chunk_bounds(p->n, plan.chunks, k, &first, &count);
        cudaStream_t s = r->stream[k % p->streams];
        if (way == PREFETCHED)
            CUDA_TRY(prefetch(data + first, count * sizeof(unsigned), device, s));
        CUDA_TRY(launch_work(data + first, count, p->iters, r->map, s));
        if (way == PREFETCHED)
            CUDA_TRY(prefetch(data + first, count * sizeof(unsigned), -1, s));
    }
    return fan_in(r, p->streams);
}

/* What the CPU does first with results: read them. One word per 4 KiB page is enough to bring
 * every page of managed memory home. */
static void read_every_page(const unsigned *data, size_t n)
{
    const volatile unsigned *words = data;
    for (size_t i = 0; i < n; i += 4096 / sizeof(unsigned))
        (void)words[i];
}

/* One run of one way, on the host clock until the CPU has read every page of the results.
 * `data` is the way's managed data set, or NULL for the explicit pipeline. */
static int run_managed_way(const struct rig *r, const struct shape *p, unsigned *data,
                           int device, enum managed_way way, double *ms)
{
    if (data)
        memcpy(data, r->h_in, p->n * sizeof(unsigned)); /* fresh input, on the host */
    else
        memset(r->h_out, 0xff, p->n * sizeof(unsigned));
    if (CUDA_REPORT(cudaDeviceSynchronize()))
        return -1;
    double t0 = host_ms();
    cudaError_t err = data ? managed_enqueue(r, p, data, device, way)
                           : pipeline_enqueue(r, p, ALL_STAGES);
    if (err || CUDA_REPORT(cudaStreamSynchronize(r->stream[0])))
        return -1;
    read_every_page(data ? data : r->h_out, p->n);
    *ms = host_ms() - t0;
    return 0;
}

/* The first `ways` ways in turns, repetition by repetition, each repetition starting one way
 * later, so that neither the link's wandering nor the order favours one. b->samples gets way w's
 * repetition k at [w * reps + k]. The last repetition of each way is verified. */
static int managed_in_turns(struct bench *b, const struct shape *p,
                            unsigned *const data[N_MANAGED_WAYS], int ways, int device)
{
    for (int rep = -1; rep < b->reps; rep++) { /* rep -1 warms up */
        for (int k = 0; k < ways; k++) {
            int way = (k + rep + 1) % ways;
            double ms;
            if (run_managed_way(&b->rig, p, data[way], device, (enum managed_way)way, &ms))
                return -1;
            if (rep >= 0)
                b->samples[way * b->reps + rep] = ms;
            if (rep == b->reps - 1 &&
                !work_verified(&b->rig, b->rig.h_in, data[way] ? data[way] : b->rig.h_out, p->n,
                               p->iters, managed_names[way]))
                return -1;
        }
    }
    return 0;
}

/* Each way's time, and its ratio to the explicit copies' rep by rep, printed and recorded. */
static int managed_report(struct bench *b, const struct shape *p, int ways)
{
    struct stats ms[N_MANAGED_WAYS], ratio[N_MANAGED_WAYS];
    double *explicit_ms = b->samples, *scratch = b->samples + MAX_TURNS * b->reps;
    for (int way = ways - 1; way >= 0; way--) { /* the explicit way's samples last: all need them */
        double *way_ms = b->samples + way * b->reps;
        for (int rep = 0; rep < b->reps; rep++)
            scratch[rep] = way_ms[rep] / explicit_ms[rep];
        ratio[way] = stats_summarize(scratch, (size_t)b->reps);
        ms[way] = stats_summarize(way_ms, (size_t)b->reps);
    }
    for (int way = 0; way < ways; way++) {
        printf("  %-52s %8.3f%s ms  %5.2fx (%.2f-%.2f)\n", managed_labels[way], ms[way].median,
               stats_unsteady(ms[way]) ? "~" : " ", ratio[way].median, ratio[way].min,
               ratio[way].max);
        char params[192];
        snprintf(params, sizeof params, "chunks=%zu;streams=%zu;iters=%u;ratio=%.4f;"
                 "ratio_min=%.4f;ratio_max=%.4f;clock=host;measure=until_host_read", p->chunks,
                 p->streams, p->iters, ratio[way].median, ratio[way].min, ratio[way].max);
        if (record(b, "managed", managed_names[way], "both", 2 * p->n * sizeof(unsigned),
                   ms[way], params))
            return -1;
    }
    printf("  (x: against the explicit copies, rep by rep, median (range); ~: times spread over "
           "5%% of\n  their median; every way's last repetition verified, element by element)\n");
    return 0;
}

static int managed_variant(struct bench *b, const struct shape *p, int device)
{
    int concurrent = 0, pageable = 0;
    if (CUDA_REPORT(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess,
                                           device)) ||
        CUDA_REPORT(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device)))
        return -1;
    char size_text[32];
    printf("\n4b. lecture 7.6, managed memory: %s in %zu chunks over %zu streams, %u iterations;"
           "\n    host clock from the first call until the CPU has read every page of the "
           "results,\n    the ways in turns, median of %d\n",
           format_bytes(p->n * sizeof(unsigned), size_text, sizeof size_text), p->chunks,
           p->streams, p->iters, b->reps);
    printf("  this GPU: concurrent managed access %s; pageable memory access (HMM or ATS) %s\n",
           concurrent ? "yes" : "no (no prefetching or advice; pages move at each launch)",
           pageable ? "yes: kernels could also use malloc'ed memory directly, with faults alike"
                    : "no");
    /* A data set per managed way, as advice stays with the memory it was given for. */
    int ways = concurrent ? N_MANAGED_WAYS : ADVISED;
    size_t bytes = p->n * sizeof(unsigned);
    unsigned *data[N_MANAGED_WAYS] = {NULL};
    int rc = 0;
    for (int way = FAULTS; rc == 0 && way < ways; way++) {
        if (ACQUIRE("managed data set",
                    cudaMallocManaged((void **)&data[way], bytes, cudaMemAttachGlobal))) {
            data[way] = NULL;
            rc = -1;
        } else {
            resource_acquired();
        }
    }
    if (rc == 0 && ways > ADVISED &&
        (CUDA_REPORT(advise(data[ADVISED], bytes, cudaMemAdviseSetPreferredLocation, -1)) ||
         CUDA_REPORT(advise(data[ADVISED], bytes, cudaMemAdviseSetAccessedBy, device))))
        rc = -1;
    if (rc == 0)
        rc = managed_in_turns(b, p, data, ways, device) || managed_report(b, p, ways) ? -1 : 0;
    for (int way = FAULTS; way < ways; way++) {
        if (data[way]) {
            CUDA_REPORT(cudaFree(data[way]));
            resource_released();
        }
    }
    return rc;
}

/* 4c. Lecture 7.1's own layout: one stream per role (copies in, kernels, copies out) with
 * events between a chunk's stages, against the round robin of the rest of this lesson, each
 * against its own bound. */
static int by_role_variant(struct bench *b, const struct shape *base)
{
    struct shape by_role = *base;
    by_role.streams = 3;
    by_role.by_role = true;
    struct outcome round_robin, role;
    if (evaluate(b, base, false, &round_robin) || evaluate(b, &by_role, false, &role))
        return -1;
    printf("\n4c. lecture 7.1's layout, one stream per role, against chunk k in stream k mod S; "
           "%zu chunks,\n    %zu buffers, %u iterations, ms on the GPU, median of %d\n",
           base->chunks, base->buffers, base->iters, b->reps);
    printf("  round robin, %zu streams: %8.3f ms, efficiency %.3f (%.3f-%.3f); per chunk 1 event "
           "recorded,\n    1 waited for\n", base->streams, round_robin.pipeline.median,
           round_robin.efficiency.median, round_robin.efficiency.min,
           round_robin.efficiency.max);
    printf("  by role, 3 streams:     %8.3f ms, efficiency %.3f (%.3f-%.3f); per chunk 3 events "
           "recorded,\n    3 waited for\n", role.pipeline.median, role.efficiency.median,
           role.efficiency.min, role.efficiency.max);
    flag_beaten_bound("by role", role.efficiency);
    return record_outcome(b, "by_role", base, &round_robin, "layout=round_robin;", false) ||
           record_outcome(b, "by_role", &by_role, &role, "layout=by_role;", false);
}

/* ------------------------------------------------------------------------------------------ *
 * 5. Lecture table 2 in full: the data in ordinary memory, the CPU staging it (staged.c).
 * ------------------------------------------------------------------------------------------ */

/* The ways of part 5 (bench.h's SYNC_WAY ... FIRST_STAGED), timed in turns: three of their own
 * and the GPU's work alone, then two per thread count, the staged run and its CPU side alone. */
int staged_ways(const struct staged_plan *sp)
{
    return FIRST_STAGED + 2 * sp->counts;
}

/* One run of way w; results poisoned before and verified after, where the way is verified in
 * this repetition: the staged runs every time, the others in the last repetition. */
static int staged_way(struct bench *b, const struct staged_plan *sp, int w, bool last,
                      struct staged_time *time)
{
    const struct rig *r = &b->rig;
    const struct staging *st = sp->staging;
    const struct shape *p = sp->p;
    size_t bytes = p->n * sizeof(unsigned);
    bool pinned = w == PINNED_WAY, staged_full = w >= FIRST_STAGED && (w - FIRST_STAGED) % 2 == 0;
    bool verify = staged_full || (last && w != GPU_ALONE && w < FIRST_STAGED);
    unsigned *results = pinned ? r->h_out : st->results;
    if (verify)
        memset(results, 0xff, bytes);
    struct rig driver = *r; /* the same pipeline on the pageable data: the driver stages it */
    driver.h_in = st->data;
    driver.h_out = st->results;
    if (CUDA_REPORT(cudaDeviceSynchronize()))
        return -1;
    double t0 = host_ms();
    int rc = 0;
    *time = (struct staged_time){0};
    if (w == SYNC_WAY)
        rc = pipeline_sync(r, p, st->data, st->results) ? -1 : 0;
    else if (w == DRIVER_WAY || pinned)
        rc = pipeline_enqueue(pinned ? r : &driver, p, ALL_STAGES) ||
                     CUDA_REPORT(cudaStreamSynchronize(r->stream[0]))
                 ? -1
                 : 0;
    else if (w == GPU_ALONE)
        rc = staged_run(r, st, p, 1, GPU_WORK, time);
    else
        rc = staged_run(r, st, p, sp->threads[(w - FIRST_STAGED) / 2], staged_full ? ALL_WORK
                                                                                   : CPU_WORK,
                        time);
    if (w < GPU_ALONE)
        time->ms = host_ms() - t0;
    if (rc == 0 && verify && !work_verified(r, pinned ? r->h_in : st->data, results, p->n,
                                            p->iters, "staged part"))
        rc = -1;
    return rc;
}

int staged_in_turns(struct bench *b, const struct staged_plan *sp)
{
    int ways = staged_ways(sp);
    for (int rep = -1; rep < b->reps; rep++) { /* rep -1 warms up */
        for (int k = 0; k < ways; k++) {
            int w = (k + rep + 1) % ways;
            struct staged_time time;
            if (staged_way(b, sp, w, rep == b->reps - 1, &time))
                return -1;
            if (rep < 0)
                continue;
            sp->ms[w * b->reps + rep] = time.ms;
            if (w >= FIRST_STAGED && (w - FIRST_STAGED) % 2 == 0)
                sp->copying[(w - FIRST_STAGED) / 2 * b->reps + rep] = time.copying_ms;
        }
    }
    return 0;
}

/* A way's statistics: its samples are copied first, as summarizing sorts them. */
struct stats way_stats(struct bench *b, const struct staged_plan *sp, int w)
{
    memcpy(b->samples, sp->ms + w * b->reps, (size_t)b->reps * sizeof(double));
    return stats_summarize(b->samples, (size_t)b->reps);
}

/* Prints way w's line and writes its row; `params` starts the row's params. */
static int staged_line(struct bench *b, const struct staged_plan *sp, int w, const char *label,
                       const char *variant, const char *params, const char *note)
{
    size_t bytes = 2 * sp->p->n * sizeof(unsigned); /* in and out */
    struct stats ms = way_stats(b, sp, w);
    double rate = gbps(bytes, ms.median);
    printf("  %-42s %8.2f%s ms %6.1f GB/s%s\n", label, ms.median, stats_unsteady(ms) ? "~" : " ",
           rate, note);
    char all[256];
    snprintf(all, sizeof all, "%schunks=%zu;streams=%zu;buffers=%zu;iters=%u;clock=host",
             params, sp->p->chunks, sp->p->streams, sp->p->buffers, sp->p->iters);
    struct csv_row row = {.experiment = "staged", .variant = variant, .direction = "both",
                          .bytes = bytes, .reps = b->reps, .ms = ms, .gbps = rate,
                          .params = all};
    return csv_write(b->csv, &row);
}

/* Staged run c against its bound, rep by rep: the slower of its GPU side alone and its CPU
 * side at its fastest, alone or as timed inside the staged run itself. Inside, the copies share
 * host memory with the DMA and are usually slower than alone, but not always (the DMA's writes
 * can leave results in the CPU's cache), and a bound must hold whichever way it goes. */
struct stats staged_efficiency(struct bench *b, const struct staged_plan *sp, int c)
{
    const double *full = sp->ms + (FIRST_STAGED + 2 * c) * b->reps;
    const double *alone = full + b->reps, *inside = sp->copying + c * b->reps;
    const double *gpu = sp->ms + GPU_ALONE * b->reps;
    double *ratio = b->samples + b->reps;
    for (int rep = 0; rep < b->reps; rep++)
        ratio[rep] = fmax(gpu[rep], fmin(alone[rep], inside[rep])) / full[rep];
    return stats_summarize(ratio, (size_t)b->reps);
}

/* The CPU's copies of staged run c: alone and inside the run, and the copy rate inside against
 * alone, rep by rep; printed as a table row and recorded. */
static int staged_copying(struct bench *b, const struct staged_plan *sp, int c)
{
    const double *alone = sp->ms + (FIRST_STAGED + 2 * c + 1) * b->reps;
    const double *inside = sp->copying + c * b->reps;
    double *ratio = b->samples + b->reps;
    for (int rep = 0; rep < b->reps; rep++)
        ratio[rep] = alone[rep] / inside[rep];
    struct stats rate = stats_summarize(ratio, (size_t)b->reps);
    struct stats alone_ms = way_stats(b, sp, FIRST_STAGED + 2 * c + 1);
    memcpy(b->samples, inside, (size_t)b->reps * sizeof(double));
    struct stats inside_ms = stats_summarize(b->samples, (size_t)b->reps);
    printf("  %9d %9.2f%s %10.2f%s    %.2f (%.2f-%.2f)\n", sp->threads[c], alone_ms.median,
           stats_unsteady(alone_ms) ? "~" : " ", inside_ms.median,
           stats_unsteady(inside_ms) ? "~" : " ", rate.median, rate.min, rate.max);
    char params[160];
    size_t bytes = 2 * sp->p->n * sizeof(unsigned);
    snprintf(params, sizeof params, "threads=%d;clock=host", sp->threads[c]);
    struct csv_row row = {.experiment = "staged", .variant = "cpu_alone", .direction = "none",
                          .bytes = bytes, .reps = b->reps, .ms = alone_ms, .params = params};
    if (csv_write(b->csv, &row))
        return -1;
    snprintf(params, sizeof params, "threads=%d;rate_vs_alone=%.4f;rate_vs_alone_min=%.4f;"
             "rate_vs_alone_max=%.4f;clock=host", sp->threads[c], rate.median, rate.min,
             rate.max);
    row.variant = "cpu_inside";
    row.ms = inside_ms;
    return csv_write(b->csv, &row);
}

/* The fastest staged run against the two other ways, and what its CPU copies allow. */
static void staged_summary(struct bench *b, const struct staged_plan *sp)
{
    int best = 0;
    for (int c = 1; c < sp->counts; c++)
        if (way_stats(b, sp, FIRST_STAGED + 2 * c).median <
            way_stats(b, sp, FIRST_STAGED + 2 * best).median)
            best = c;
    double staged = way_stats(b, sp, FIRST_STAGED + 2 * best).median;
    double cpu = way_stats(b, sp, FIRST_STAGED + 2 * best + 1).median;
    double pinned = way_stats(b, sp, PINNED_WAY).median;
    printf("  best: %d threads, %.1fx as fast as cudaMemcpyAsync from pageable memory and %.2fx "
           "the\n  pinned ceiling's throughput; its CPU copies alone took %.2f ms (%.1f GB/s "
           "copied), so the\n  CPU caps staging here at %.2fx the ceiling\n", sp->threads[best],
           way_stats(b, sp, DRIVER_WAY).median / staged, pinned / staged, cpu,
           gbps(2 * sp->p->n * sizeof(unsigned), cpu), pinned / cpu);
}

int staged_report(struct bench *b, const struct staged_plan *sp)
{
    if (staged_line(b, sp, SYNC_WAY, "lesson 01's way (blocking, one buffer)", "sync_pageable",
                    "", "") ||
        staged_line(b, sp, DRIVER_WAY, "cudaMemcpyAsync from pageable memory", "async_pageable",
                    "", "  (the driver stages it)"))
        return -1;
    for (int c = 0; c < sp->counts; c++) {
        struct stats e = staged_efficiency(b, sp, c);
        char label[64], params[192], note[96];
        snprintf(label, sizeof label, "staged, %d CPU thread%s", sp->threads[c],
                 sp->threads[c] == 1 ? "" : "s");
        snprintf(params, sizeof params, "threads=%d;efficiency=%.4f;efficiency_min=%.4f;"
                 "efficiency_max=%.4f;", sp->threads[c], e.median, e.min, e.max);
        snprintf(note, sizeof note, "  efficiency %.3f (%.3f-%.3f)", e.median, e.min, e.max);
        flag_beaten_bound("staged", e);
        if (staged_line(b, sp, FIRST_STAGED + 2 * c, label, "staged", params, note))
            return -1;
    }
    if (staged_line(b, sp, GPU_ALONE, "the staged GPU work alone (no CPU copies)", "gpu_alone",
                    "", "") ||
        staged_line(b, sp, PINNED_WAY, "data already pinned (the ceiling)", "pinned_only", "",
                    ""))
        return -1;
    printf("  the CPU's copies, alone and inside the staged run (per thread), and the copy rate\n"
           "  inside against alone, rep by rep: the DMA shares host memory with them\n"
           "  %9s %10s %11s    %s\n", "threads", "alone ms", "inside ms", "rate (range)");
    for (int c = 0; c < sp->counts; c++)
        if (staged_copying(b, sp, c))
            return -1;
    staged_summary(b, sp);
    return 0;
}

int staged_part(struct bench *b, struct staged_plan *sp)
{
    const struct shape *p = sp->p;
    char size_text[32];
    printf("\n5. lecture table 2 in full: %s from pageable memory to pageable results, %zu "
           "chunks,\n   %zu pinned staging buffers each way, %zu streams, %u iterations, up to %d "
           "CPU threads\n   (--staged-threads; default one per online CPU); host clock, the ways "
           "in turns, median\n   of %d; efficiency = bound / staged, rep by rep, where the bound "
           "is the slower\n   of the GPU work alone and the CPU copies at their fastest (alone or "
           "inside the run)\n",
           format_bytes(p->n * sizeof(unsigned), size_text, sizeof size_text), p->chunks,
           sp->staging->slots, p->streams, p->iters, sp->threads[sp->counts - 1], b->reps);
    sp->ms = samples_alloc((size_t)staged_ways(sp) * (size_t)b->reps);
    sp->copying = samples_alloc((size_t)sp->counts * (size_t)b->reps);
    if (!sp->ms || !sp->copying)
        return -1;
    return staged_in_turns(b, sp) || staged_report(b, sp) ? -1 : 0;
}

void staged_plan_free(struct staged_plan *sp)
{
    free(sp->copying);
    free(sp->ms);
    sp->copying = sp->ms = NULL;
}

/* Part 5 on the ring `st`: T = 1, 2, 4, ... and the most. */
static int staged_threads_part(struct bench *b, const struct shape *base,
                               const struct staging *st, int max_threads)
{
    struct shape p = *base;
    p.buffers = st->slots;
    struct staged_plan sp = {.staging = st, .p = &p};
    for (int t = 1; t < max_threads && sp.counts < MAX_THREAD_COUNTS - 1; t *= 2)
        sp.threads[sp.counts++] = t;
    sp.threads[sp.counts++] = max_threads;
    int rc = staged_part(b, &sp);
    staged_plan_free(&sp);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */

void size_rig(struct settings *s, size_t most, size_t other_n, size_t fewest)
{
    size_t main_chunk = chunk_plan_make(s->n, (size_t)s->chunks, 1).max_chunk;
    size_t other_chunk = chunk_plan_make(other_n, fewest, 1).max_chunk;
    s->buffer_elems = main_chunk > other_chunk ? main_chunk : other_chunk;
    s->ring_buffers = (size_t)s->buffers > most ? (size_t)s->buffers : most;
    if ((size_t)s->staged_buffers > s->ring_buffers)
        s->ring_buffers = (size_t)s->staged_buffers;
    s->streams_made = (size_t)s->streams > most ? (size_t)s->streams : most;
    if (s->streams_made < 3) /* part 4c's one stream per role */
        s->streams_made = 3;
}

/* The lesson's rig: besides the main shape's chunks, the managed variant's explicit pipeline,
 * whose 16 chunks of the sweep's data set are larger than the graph's 256; or, with the sweeps,
 * the sweep's fewest chunks, which meet its most buffers. */
static void size_lesson_rig(struct settings *s)
{
    size_rig(s, s->sweeps ? SWEEP_MOST_STREAMS : 1, s->sweep_n,
             s->sweeps ? SWEEP_FEWEST_CHUNKS : MANAGED_CHUNKS);
}

/* The rig of the lesson, or of exercise `exercise` (exercises.c). */
static void size_for(struct settings *s, int exercise)
{
    if (exercise)
        exercise_size_rig(s);
    else
        size_lesson_rig(s);
}

/* Parts 2 to 5, on the rig and the staging ring. */
static int run_later_parts(struct bench *b, const struct settings *s,
                           const struct shape *main_shape, const struct staging *st)
{
    struct shape base = *main_shape;
    unsigned balanced = base.iters;
    if (s->trace && timeline(b, &base, st, s->staged_threads, s->trace))
        return -1;
    struct shape sweep = {.n = s->sweep_n, .chunks = 16, .buffers = 4, .streams = 4,
                          .iters = balanced};
    struct shape intensity = {.n = s->sweep_n, .chunks = (size_t)s->chunks,
                              .buffers = (size_t)s->buffers, .streams = (size_t)s->streams};
    if (s->sweeps && (sweep_shapes(b, &sweep) || sweep_intensity(b, &intensity, balanced)))
        return -1;
    struct shape many_small = {.n = s->sweep_n,
                               .chunks = s->sweep_n < GRAPH_CHUNKS ? s->sweep_n : GRAPH_CHUNKS,
                               .buffers = (size_t)s->buffers, .streams = (size_t)s->streams,
                               .iters = 1};
    struct shape managed = {.n = s->sweep_n, .chunks = MANAGED_CHUNKS,
                            .buffers = (size_t)s->buffers, .streams = (size_t)s->streams,
                            .iters = balanced};
    return graph_variant(b, &many_small) || managed_variant(b, &managed, s->device) ||
                   by_role_variant(b, &base) ||
                   staged_threads_part(b, &base, st, s->staged_threads)
               ? -1
               : 0;
}

/* Every part in turn, on one rig; the first failure ends the run. */
static int run_parts(struct bench *b, const struct settings *s)
{
    struct shape base;
    if (main_shape(b, s, &base) || regimes(b, &base, base.iters))
        return -1;
    struct staging st; /* the pageable data set and the staging ring of parts 2 and 5 */
    if (staging_create(&st, (size_t)s->staged_buffers,
                       chunk_plan_make(base.n, base.chunks, (size_t)s->staged_buffers).max_chunk,
                       b->rig.h_in, base.n))
        return -1;
    int rc = run_later_parts(b, s, &base, &st);
    staging_destroy(&st);
    return rc;
}

/* The lesson's parts, or exercise `exercise` (exercises.c), on one rig. */
static int bench_run(const struct settings *s, const struct gpu_info *gpu, int reps,
                     struct csv *csv, int exercise)
{
    struct bench b = {.samples = samples_alloc((size_t)reps * (MAX_TURNS + 1)), .reps = reps,
                      .copy_engines = gpu->copy_engines, .csv = csv};
    if (!b.samples ||
        rig_create(&b.rig, s->n, s->ring_buffers, s->buffer_elems, s->streams_made)) {
        free(b.samples);
        return -1;
    }
    for (size_t i = 0; i < s->n; i++) /* any bits will do, as long as they differ */
        b.rig.h_in[i] = (unsigned)i * 2654435761u + 12345u;
    int rc = exercise ? run_exercise(&b, s, exercise) : run_parts(&b, s);
    rig_destroy(&b.rig);
    free(b.samples);
    return rc;
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 1u << 30, .size_help = "bytes in the data set",
                               .size_multiple = sizeof(unsigned), .reps = 5};
    struct settings s = {.chunks = 64, .streams = 8, .buffers = 8, .iters = 0, .sweeps = 1,
                         .staged_threads = 0, .staged_buffers = 8};
    size_t sweep_size = 256u << 20;
    int fail_at = 0, exercise = 0;
    const struct opt extra[] = {
        {"--chunks", OPT_INT, &s.chunks, 1, 1 << 20, "K", "chunks the data set is cut into", 0},
        {"--streams", OPT_INT, &s.streams, 1, MAX_STREAMS, "S", "streams the chunks go round", 0},
        {"--buffers", OPT_INT, &s.buffers, 1, MAX_BUFFERS, "B", "device buffers in the ring", 0},
        {"--kernel-iters", OPT_INT, &s.iters, 0, 1000000, "N",
         "the balanced regime's work per element (0: measure the balance point)", 0},
        {"--sweep-size", OPT_BYTES, &sweep_size, sizeof(unsigned), (size_t)1 << 40, "BYTES",
         "data set of the sweeps and the variants", sizeof(unsigned)},
        {"--trace", OPT_PATH, &s.trace, 0, 0, "PREFIX",
         "write the timeline to PREFIX.json and PREFIX.csv", 0},
        {"--sweeps", OPT_INT, &s.sweeps, 0, 1, "0|1", "run part 3's sweeps", 0},
        {"--staged-threads", OPT_INT, &s.staged_threads, 0, 256, "T",
         "part 5's most CPU threads (0: one per online CPU)", 0},
        {"--staged-buffers", OPT_INT, &s.staged_buffers, 1, MAX_BUFFERS, "B",
         "part 5's pinned staging buffers each way", 0},
        FAIL_AT_OPTION(&fail_at),
        EXERCISE_OPTION(&exercise, EXERCISES),
    };
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc != CLI_CONTINUE)
        return rc;
    fault_inject_at((unsigned long)fail_at);
    s.device = args.device;
    if (s.staged_threads == 0) {
        int cpus = host_cpus();
        s.staged_threads = cpus > 256 ? 256 : cpus;
    }
    size_for(&s, exercise); /* the ring's buffer count, which the sizes do not change */

    struct gpu_info gpu;
    struct csv csv;
    /* On the GPU the ring, a buffer per chunk of either data set, and part 4b's three managed
     * copies of the sweep's data set, which move to the GPU and back. On the host the pinned data
     * set and results, the synchronous baseline's pageable copies of both, part 5's pageable data
     * set and results and its staging ring of a chunk per slot each way, and those three managed
     * copies. */
    double ring = (double)s.ring_buffers;
    struct sized sizes[] = {
        {"--size", &args.size, cli_given("--size"), ring / s.chunks,
         6 + 2.0 * s.staged_buffers / s.chunks},
        {"--sweep-size", &sweep_size, cli_given("--sweep-size"),
         3 + ring / SWEEP_FEWEST_CHUNKS, 3}};
    size_t n_sizes = sizeof sizes / sizeof sizes[0];
    if (exercise) { /* an exercise holds its own data set and rig, in place of the lesson's */
        sizes[0] = exercise_sized(exercise, &s, &args.size);
        n_sizes = 1;
    }
    rc = lesson_open("06_overlap_pipeline", &args, sizes, n_sizes, &gpu, &csv);
    if (rc != EXIT_VERIFIED)
        return rc;
    s.n = args.size / sizeof(unsigned);
    s.sweep_n = sweep_size < args.size ? sweep_size / sizeof(unsigned) : s.n;
    size_for(&s, exercise);
    rc = bench_run(&s, &gpu, args.reps, &csv, exercise) ? EXIT_ERROR : EXIT_VERIFIED;
    if (lesson_close(&csv))
        rc = EXIT_ERROR;
    rc = resources_report(rc);
    if (rc == EXIT_VERIFIED && !exercise) /* an exercise says what it verified */
        printf("verified: the last repetition of every pipelined, serial, synchronous, graph "
               "and managed run,\n  and every repetition of every staged run\n");
    return rc;
}
