/*
 * staged.c - `--deep staged`: lecture table 2 in full. The data set in pageable memory, staged
 * through pinned buffers by CPU threads while the GPU works (staging.c), against lesson 01's
 * way, cudaMemcpyAsync from pageable memory, and the pinned pipeline, on 1, 2, 4, ... threads;
 * the CPU copying with memcpy, and with streaming stores; and both sides at once, neither waiting
 * for the other, for the most this host lets a staged pipeline move. Host clock, the ways in
 * turns.
 */
#include "parts.h"
#include "staged.h"

#include <math.h>
#include <string.h>

/* The copies weighed against memcpy: streaming stores both ways, or, for the copies in, memcpy
 * into write-combined buffers (streaming stores out either way); part 5 measures which is faster
 * for the copies in, here. */
static const struct cpu_copies streaming_copies = {STREAMING_COPY, STREAMING_COPY, false,
                                                   "streaming"};
static const struct cpu_copies write_combined_copies = {PLAIN_COPY, STREAMING_COPY, true,
                                                        "write_combined"};

static int roles(const struct staged_plan *sp)
{
    return sp->sides ? 3 : 2;
}

int staged_way_index(const struct staged_plan *sp, int c, int m, enum staged_role role)
{
    return FIRST_STAGED + (c * sp->copy_ways + m) * roles(sp) + (int)role;
}

int staged_ways(const struct staged_plan *sp)
{
    return FIRST_STAGED + sp->counts * sp->copy_ways * roles(sp);
}

/* One run of way w; results poisoned before and verified after, where the way is verified in
 * this repetition: the staged runs every time, lesson 01's, the driver's and the pinned way in
 * the last repetition. `at_once` gets both sides' times of a run of both at once. */
static int staged_way(struct bench *b, const struct staged_plan *sp, int w, bool last,
                      struct staged_time *time, struct sides_time *at_once)
{
    const struct rig *r = &b->rig;
    const struct staging *st = sp->staging;
    const struct shape *p = sp->p;
    int k = w - FIRST_STAGED, per_count = sp->copy_ways * roles(sp);
    int threads = k >= 0 ? sp->threads[k / per_count] : 1;
    const struct cpu_copies *copies = k >= 0 ? sp->copies[k % per_count / roles(sp)] : NULL;
    enum staged_role role = k >= 0 ? (enum staged_role)(k % roles(sp)) : STAGED_RUN;
    bool pinned = w == PINNED_WAY, staged_full = k >= 0 && role == STAGED_RUN;
    bool verify = staged_full || (last && w < GPU_ALONE);
    unsigned *results = pinned ? r->h_out : st->results;
    if (verify)
        memset(results, 0xff, p->n * sizeof(unsigned));
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
        rc = staged_run(r, st, p, 1, &plain_copies, GPU_WORK, time);
    else if (role == SIDES_AT_ONCE)
        rc = staged_sides_at_once(r, st, p, threads, copies, at_once), time->ms = at_once->ms;
    else
        rc = staged_run(r, st, p, threads, copies, staged_full ? ALL_WORK : CPU_WORK, time);
    if (w < GPU_ALONE)
        time->ms = host_ms() - t0;
    if (rc == 0 && verify && !work_verified(r, pinned ? r->h_in : st->data, results, p->n,
                                            p->iters, "staged part"))
        rc = -1;
    return rc;
}

/* Every way in turns after a warm-up round, each repetition starting one way later. */
static int staged_in_turns(struct bench *b, const struct staged_plan *sp)
{
    int ways = staged_ways(sp), reps = b->reps;
    for (int rep = -1; rep < reps; rep++) {
        for (int k = 0; k < ways; k++) {
            int w = (k + rep + 1) % ways, run = (w - FIRST_STAGED) / roles(sp);
            struct staged_time time;
            struct sides_time at_once;
            if (staged_way(b, sp, w, rep == reps - 1, &time, &at_once))
                return -1;
            if (rep < 0)
                continue;
            sp->ms[w * reps + rep] = time.ms;
            if (w >= FIRST_STAGED && (w - FIRST_STAGED) % roles(sp) == STAGED_RUN)
                sp->copying[run * reps + rep] = time.copying_ms;
            if (w >= FIRST_STAGED && (w - FIRST_STAGED) % roles(sp) == SIDES_AT_ONCE) {
                sp->cpu_at_once[run * reps + rep] = at_once.cpu_ms;
                sp->gpu_at_once[run * reps + rep] = at_once.gpu_ms;
            }
        }
    }
    return 0;
}

/* n samples' statistics: copied first, as summarizing sorts them. */
static struct stats summary(struct bench *b, const double *samples)
{
    memcpy(b->samples, samples, (size_t)b->reps * sizeof(double));
    return stats_summarize(b->samples, (size_t)b->reps);
}

struct stats way_stats(struct bench *b, const struct staged_plan *sp, int w)
{
    return summary(b, sp->ms + w * b->reps);
}

int record_staged(struct bench *b, const struct staged_plan *sp, const char *variant,
                  const char *direction, struct stats ms, const char *params)
{
    size_t bytes = 2 * sp->p->n * sizeof(unsigned); /* in and out */
    char all[320];
    snprintf(all, sizeof all, "%schunks=%zu;streams=%zu;buffers=%zu;iters=%u;clock=host",
             params, sp->p->chunks, sp->p->streams, sp->p->buffers, sp->p->iters);
    struct csv_row row = {.experiment = "staged", .variant = variant, .direction = direction,
                          .bytes = bytes, .reps = b->reps, .ms = ms,
                          .gbps = direction ? gbps(bytes, ms.median) : 0, .params = all};
    return csv_write(b->csv, &row);
}

/* Prints way w's line and writes its row. */
static int staged_line(struct bench *b, const struct staged_plan *sp, int w, const char *label,
                       const char *variant, const char *params, const char *note)
{
    struct stats ms = way_stats(b, sp, w);
    printf("  %-46s %8.2f%s ms %6.1f GB/s%s\n", label, ms.median, stats_unsteady(ms) ? "~" : " ",
           gbps(2 * sp->p->n * sizeof(unsigned), ms.median), note);
    return record_staged(b, sp, variant, "both", ms, params);
}

/* Staged run (c, m) against its bound, rep by rep: the slower of its GPU side alone and its CPU
 * side at its fastest, alone or as timed inside the staged run itself. Inside, the copies share
 * host memory with the DMA and are usually slower than alone, but not always (the DMA's writes
 * can leave results in the CPU's cache), and a bound must hold whichever way it goes. */
static struct stats staged_efficiency(struct bench *b, const struct staged_plan *sp, int c, int m)
{
    const double *full = sp->ms + staged_way_index(sp, c, m, STAGED_RUN) * b->reps;
    const double *alone = sp->ms + staged_way_index(sp, c, m, CPU_ALONE) * b->reps;
    const double *inside = sp->copying + (c * sp->copy_ways + m) * b->reps;
    const double *gpu = sp->ms + GPU_ALONE * b->reps;
    double *ratio = b->samples + b->reps;
    for (int rep = 0; rep < b->reps; rep++)
        ratio[rep] = fmax(gpu[rep], fmin(alone[rep], inside[rep])) / full[rep];
    return stats_summarize(ratio, (size_t)b->reps);
}

/* The CPU's copies of staged run (c, m): alone, inside the run, and with the GPU's work at once,
 * and the copy rate inside against alone, rep by rep; printed as a table row and recorded. */
static int staged_copying(struct bench *b, const struct staged_plan *sp, int c, int m)
{
    int run = c * sp->copy_ways + m;
    const double *alone = sp->ms + staged_way_index(sp, c, m, CPU_ALONE) * b->reps;
    const double *inside = sp->copying + run * b->reps;
    double *ratio = b->samples + b->reps;
    for (int rep = 0; rep < b->reps; rep++)
        ratio[rep] = alone[rep] / inside[rep];
    struct stats rate = stats_summarize(ratio, (size_t)b->reps);
    struct stats alone_ms = summary(b, alone), inside_ms = summary(b, inside);
    printf("  %-14s %7d %9.2f%s %9.2f%s", sp->copies[m]->name, sp->threads[c], alone_ms.median,
           stats_unsteady(alone_ms) ? "~" : " ", inside_ms.median,
           stats_unsteady(inside_ms) ? "~" : " ");
    char params[192];
    snprintf(params, sizeof params, "threads=%d;copies=%s;", sp->threads[c], sp->copies[m]->name);
    if (record_staged(b, sp, "cpu_alone", NULL, alone_ms, params))
        return -1;
    if (sp->sides) {
        struct stats cpu = summary(b, sp->cpu_at_once + run * b->reps);
        struct stats gpu = summary(b, sp->gpu_at_once + run * b->reps);
        printf(" %9.2f%s %9.2f%s", cpu.median, stats_unsteady(cpu) ? "~" : " ", gpu.median,
               stats_unsteady(gpu) ? "~" : " ");
        if (record_staged(b, sp, "cpu_at_once", NULL, cpu, params) ||
            record_staged(b, sp, "gpu_at_once", "both", gpu, params) ||
            record_staged(b, sp, "sides_at_once", "both",
                          way_stats(b, sp, staged_way_index(sp, c, m, SIDES_AT_ONCE)), params))
            return -1;
    }
    printf("    %.2f (%.2f-%.2f)\n", rate.median, rate.min, rate.max);
    snprintf(params, sizeof params, "threads=%d;copies=%s;rate_vs_alone=%.4f;"
             "rate_vs_alone_min=%.4f;rate_vs_alone_max=%.4f;", sp->threads[c],
             sp->copies[m]->name, rate.median, rate.min, rate.max);
    return record_staged(b, sp, "cpu_inside", NULL, inside_ms, params);
}

/* The thread count of copying way m's fastest staged run. */
static int fastest_count(struct bench *b, const struct staged_plan *sp, int m)
{
    int best = 0;
    for (int c = 1; c < sp->counts; c++)
        if (way_stats(b, sp, staged_way_index(sp, c, m, STAGED_RUN)).median <
            way_stats(b, sp, staged_way_index(sp, best, m, STAGED_RUN)).median)
            best = c;
    return best;
}

/* The fastest staged run of the last copying way, against the two other ways and what its CPU
 * copies allow; where two ways are weighed, against memcpy's fastest run, rep by rep. */
static int staged_summary(struct bench *b, const struct staged_plan *sp)
{
    int m = sp->copy_ways - 1, best = fastest_count(b, sp, m);
    const double *fastest = sp->ms + staged_way_index(sp, best, m, STAGED_RUN) * b->reps;
    double staged = way_stats(b, sp, staged_way_index(sp, best, m, STAGED_RUN)).median;
    double cpu = way_stats(b, sp, staged_way_index(sp, best, m, CPU_ALONE)).median;
    double pinned = way_stats(b, sp, PINNED_WAY).median;
    printf("  best: %s, %d threads, %.1fx as fast as cudaMemcpyAsync from pageable memory and "
           "%.2fx\n  the pinned ceiling's throughput; its CPU copies alone took %.2f ms (%.1f GB/s "
           "copied),\n  so the CPU caps staging here at %.2fx the pinned ceiling\n",
           sp->copies[m]->name, sp->threads[best], way_stats(b, sp, DRIVER_WAY).median / staged,
           pinned / staged, cpu, gbps(2 * sp->p->n * sizeof(unsigned), cpu), pinned / cpu);
    if (m > 0) {
        int old = fastest_count(b, sp, 0);
        struct stats speedup = ratio_by_rep(
            sp->ms + staged_way_index(sp, old, 0, STAGED_RUN) * b->reps, fastest, b->reps,
            b->samples + b->reps);
        printf("  %s's best over memcpy's best (%d threads, %.2f ms), rep by rep: %.2fx "
               "(%.2f-%.2f)\n", sp->copies[m]->name, sp->threads[old],
               way_stats(b, sp, staged_way_index(sp, old, 0, STAGED_RUN)).median,
               speedup.median, speedup.min, speedup.max);
        char params[192];
        snprintf(params, sizeof params, "copies=%s;threads=%d;memcpy_threads=%d;ratio=%.4f;"
                 "ratio_min=%.4f;ratio_max=%.4f;", sp->copies[m]->name, sp->threads[best],
                 sp->threads[old], speedup.median, speedup.min, speedup.max);
        if (record_staged(b, sp, "best_vs_memcpy", "both",
                          way_stats(b, sp, staged_way_index(sp, best, m, STAGED_RUN)), params))
            return -1;
    }
    return sp->sides ? host_ceiling(b, sp, fastest) : 0;
}

static int staged_report(struct bench *b, const struct staged_plan *sp)
{
    if (staged_line(b, sp, SYNC_WAY, "lesson 01's way (blocking, one buffer)", "sync_pageable",
                    "", "") ||
        staged_line(b, sp, DRIVER_WAY, "cudaMemcpyAsync from pageable memory", "async_pageable",
                    "", "  (the driver stages it)") ||
        staged_line(b, sp, GPU_ALONE, "the staged GPU work alone (no CPU copies)", "gpu_alone",
                    "", "") ||
        staged_line(b, sp, PINNED_WAY, "data already pinned (the pinned ceiling)", "pinned_only",
                    "", ""))
        return -1;
    for (int m = 0; m < sp->copy_ways; m++)
        for (int c = 0; c < sp->counts; c++) {
            struct stats e = staged_efficiency(b, sp, c, m);
            char label[64], params[192], note[96];
            snprintf(label, sizeof label, "staged, %s, %d CPU thread%s", sp->copies[m]->name,
                     sp->threads[c], sp->threads[c] == 1 ? "" : "s");
            snprintf(params, sizeof params, "threads=%d;copies=%s;efficiency=%.4f;"
                     "efficiency_min=%.4f;efficiency_max=%.4f;", sp->threads[c],
                     sp->copies[m]->name, e.median, e.min, e.max);
            snprintf(note, sizeof note, "  efficiency %.3f (%.3f-%.3f)", e.median, e.min, e.max);
            flag_beaten_bound("staged", e);
            if (staged_line(b, sp, staged_way_index(sp, c, m, STAGED_RUN), label, "staged",
                            params, note))
                return -1;
        }
    printf("  the CPU's copies, ms: alone, inside the staged run (per thread)%s; and the copy "
           "rate\n  inside against alone, rep by rep: the DMA shares host memory with them\n"
           "  %-14s %7s %10s %10s%s    %s\n", sp->sides ? ", and at once with the\n  GPU's work "
           "(both sides started together, neither waiting), beside the GPU's time then" : "",
           "copies", "threads", "alone", "inside", sp->sides ? "    at once  GPU then" : "",
           "inside/alone (range)");
    for (int m = 0; m < sp->copy_ways; m++)
        for (int c = 0; c < sp->counts; c++)
            if (staged_copying(b, sp, c, m))
                return -1;
    return staged_summary(b, sp);
}

/* Which copies in are faster here: streaming stores into the cached input buffers, or memcpy
 * into write-combined ones, each with streaming stores out, the CPU's side alone on the most
 * threads, in turns. */
static int copies_in(struct bench *b, const struct staged_plan *sp,
                     const struct cpu_copies **faster)
{
    const struct cpu_copies *way[2] = {&streaming_copies, &write_combined_copies};
    int threads = sp->threads[sp->counts - 1], reps = b->reps, rc = -1;
    double *ms = samples_alloc(2 * (size_t)reps);
    if (!ms)
        return -1;
    for (int rep = -1; rep < reps; rep++)
        for (int k = 0; k < 2; k++) {
            int i = (k + rep + 1) % 2;
            struct staged_time time;
            if (staged_run(&b->rig, sp->staging, sp->p, threads, way[i], CPU_WORK, &time))
                goto out_free;
            if (rep >= 0)
                ms[i * reps + rep] = time.ms;
        }
    struct stats s[2];
    for (int i = 0; i < 2; i++) {
        char params[96];
        s[i] = summary(b, ms + i * reps);
        snprintf(params, sizeof params, "threads=%d;copies=%s;", threads, way[i]->name);
        if (record_staged(b, sp, "cpu_copies_in_choice", NULL, s[i], params))
            goto out_free;
    }
    rc = 0;
    *faster = way[s[1].median < s[0].median];
    printf("  the copies in, weighed on the CPU's side alone, %d threads: streaming stores into "
           "pinned\n  buffers %.2f ms, memcpy into write-combined ones %.2f ms: %s it is\n",
           threads, s[0].median, s[1].median, (*faster)->name);
out_free:
    free(ms);
    return rc;
}

int staged_part(struct bench *b, struct staged_plan *sp)
{
    const struct shape *p = sp->p;
    char size_text[32];
    printf("\nstaged: lecture table 2 in full: %s from pageable memory to pageable results, %zu "
           "chunks,\n   %zu pinned staging buffers each way, %zu streams, %u iterations, up to %d "
           "CPU threads\n   (--staged-threads; default one per CPU this process may use); host "
           "clock, the ways in\n   turns, median of %d; efficiency = bound / staged, rep by rep, "
           "where the bound is the\n   slower of the GPU work alone and the CPU copies at their "
           "fastest (alone or inside the run)\n",
           format_bytes(p->n * sizeof(unsigned), size_text, sizeof size_text), p->chunks,
           sp->staging->slots, p->streams, p->iters, sp->threads[sp->counts - 1], b->reps);
    if (sp->copy_ways > 1) {
        const char *stores = streaming_stores();
        if (stores)
            printf("  streaming stores: %s, asked of this CPU\n", stores);
        else
            printf("  this CPU has no streaming stores this program knows (AVX): its streaming "
                   "copies are memcpy\n");
        if (copies_in(b, sp, &sp->copies[1]))
            return -1;
    }
    size_t runs = (size_t)sp->counts * (size_t)sp->copy_ways * (size_t)b->reps;
    sp->ms = samples_alloc((size_t)staged_ways(sp) * (size_t)b->reps);
    sp->copying = samples_alloc(runs);
    sp->cpu_at_once = samples_alloc(runs);
    sp->gpu_at_once = samples_alloc(runs);
    if (!sp->ms || !sp->copying || !sp->cpu_at_once || !sp->gpu_at_once)
        return -1;
    return staged_in_turns(b, sp) || staged_report(b, sp) ? -1 : 0;
}

void staged_plan_free(struct staged_plan *sp)
{
    free(sp->gpu_at_once);
    free(sp->cpu_at_once);
    free(sp->copying);
    free(sp->ms);
    sp->gpu_at_once = sp->cpu_at_once = sp->copying = sp->ms = NULL;
}

/* Part 5 on the ring `st`: T = 1, 2, 4, ... and the most; memcpy against the faster copies;
 * both sides at once. */
int staged_threads_part(struct bench *b, const struct shape *base, const struct staging *st,
                        int max_threads)
{
    struct shape p = *base;
    p.buffers = st->slots;
    struct staged_plan sp = {.staging = st, .p = &p, .copies = {&plain_copies}, .copy_ways = 2,
                             .sides = true};
    for (int t = 1; t < max_threads && sp.counts < MAX_THREAD_COUNTS - 1; t *= 2)
        sp.threads[sp.counts++] = t;
    sp.threads[sp.counts++] = max_threads;
    int rc = staged_part(b, &sp);
    staged_plan_free(&sp);
    return rc;
}
