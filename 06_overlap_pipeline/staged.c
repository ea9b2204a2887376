/*
 * staged.c - `--deep staged`: lecture table 2 in full. The data set in pageable memory, staged
 * through pinned buffers by CPU threads while the GPU works (staging.c), against lesson 01's
 * way, cudaMemcpyAsync from pageable memory, and the pinned pipeline, on 1, 2, 4, ... threads.
 * Host clock, the ways in turns; efficiency = bound / staged, rep by rep.
 */
#include "parts.h"
#include "staged.h"

#include <math.h>
#include <string.h>

/* The ways of part 5 (staged.h's SYNC_WAY ... FIRST_STAGED), timed in turns: three of their own
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
        rc = pipeline_enqueue(pinned ? r : &driver, p, NOTHING_LEFT_OUT) ||
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
    printf("\nstaged: lecture table 2 in full: %s from pageable memory to pageable results, %zu "
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
int staged_threads_part(struct bench *b, const struct shape *base,
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

