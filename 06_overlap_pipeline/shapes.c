/*
 * shapes.c - `--deep shapes`: the pipeline by chunks x streams (buffers = streams), on the sweep's
 * data set at the balanced regime's iterations. Fewer chunks leave more of the run to fill and
 * drain; more chunks cost more calls and smaller copies.
 *
 * Each shape's own bound (bench.h) is a reference for that shape only: its halves have the
 * shape's fill, drain and per-copy costs. Shapes are compared by time, and against one floor for
 * them all: the fastest copies alone of any shape, or the fastest kernels alone of any shape,
 * whichever is slower. Like each shape's bound, it is a heuristic, not a proof (kernels change
 * how the copies share the link), so a run below it by more than its spread is flagged.
 */
#include "parts.h"

#include <math.h>

static const size_t sweep_chunk_counts[] = {4, 8, 16, 32, 64, 128, 256};
static const size_t sweep_stream_counts[] = {1, 2, 3, 4, 8};
enum {
    N_SWEEP_CHUNKS = sizeof sweep_chunk_counts / sizeof sweep_chunk_counts[0],
    N_SWEEP_STREAMS = sizeof sweep_stream_counts / sizeof sweep_stream_counts[0],
};

enum shape_figure { TIME, FLOOR_OVER_TIME, OWN_HALVES };

static void print_heading(const char *what)
{
    printf("  %-28s", what);
    for (size_t s = 0; s < N_SWEEP_STREAMS; s++)
        printf("  %2zu stream%s", sweep_stream_counts[s], sweep_stream_counts[s] == 1 ? " " : "s");
    printf("\n");
}

/* One table: a figure per shape, chunk counts down and stream counts across. */
static void print_table(const char *what, struct outcome cell[N_SWEEP_CHUNKS][N_SWEEP_STREAMS],
                        double floor_ms, enum shape_figure figure)
{
    print_heading(what);
    for (size_t c = 0; c < N_SWEEP_CHUNKS; c++) {
        printf("  %21zu chunks", sweep_chunk_counts[c]);
        for (size_t s = 0; s < N_SWEEP_STREAMS; s++) {
            const struct outcome *o = &cell[c][s];
            struct stats shown = figure == TIME ? o->pipeline : o->efficiency;
            double value = figure == FLOOR_OVER_TIME ? floor_ms / o->pipeline.median
                                                     : shown.median;
            printf("  %9.3f%c", value, stats_unsteady(shown) ? '~' : ' ');
        }
        printf("\n");
    }
}

int shapes_part(struct bench *b, const struct shape *base, struct stats *fastest_copies)
{
    struct outcome cell[N_SWEEP_CHUNKS][N_SWEEP_STREAMS];
    struct shape p = *base, fastest = *base, copies_at = *base, kernels_at = *base;
    struct stats copies = {.median = INFINITY}, kernels = {.median = INFINITY};
    double fastest_ms = INFINITY;
    for (size_t c = 0; c < N_SWEEP_CHUNKS; c++) {
        for (size_t s = 0; s < N_SWEEP_STREAMS; s++) {
            p.chunks = sweep_chunk_counts[c];
            p.streams = p.buffers = sweep_stream_counts[s];
            struct outcome *o = &cell[c][s];
            if (evaluate(b, &p, o) || record_outcome(b, "sweep_shape", &p, o, ""))
                return -1;
            if (o->pipeline.median < fastest_ms)
                fastest_ms = o->pipeline.median, fastest = p;
            if (o->copies.median < copies.median)
                copies = o->copies, copies_at = p;
            if (o->kernels.median < kernels.median)
                kernels = o->kernels, kernels_at = p;
        }
    }
    bool copy_bound = copies.median >= kernels.median;
    struct stats floor = copy_bound ? copies : kernels;
    const struct shape *floor_at = copy_bound ? &copies_at : &kernels_at;

    char size_text[32];
    printf("\nshapes: chunks x streams (buffers = streams), %s, %u iterations, ms on the GPU\n"
           "  (events), median of %d paired repetitions; ~: unsteady\n",
           format_bytes(base->n * sizeof(unsigned), size_text, sizeof size_text), base->iters,
           b->reps);
    print_table("time (ms)", cell, floor.median, TIME);
    print_table("floor / time", cell, floor.median, FLOOR_OVER_TIME);
    print_table("against its own halves", cell, floor.median, OWN_HALVES);
    printf("  floor: %.2f ms (%.2f-%.2f), the %s alone of %zu chunks x %zu streams, the fastest "
           "of any\n  shape (the fastest %s alone: %.2f ms, %zu x %zu)\n", floor.median, floor.min,
           floor.max, copy_bound ? "copies" : "kernels", floor_at->chunks, floor_at->streams,
           copy_bound ? "kernels" : "copies", copy_bound ? kernels.median : copies.median,
           copy_bound ? kernels_at.chunks : copies_at.chunks,
           copy_bound ? kernels_at.streams : copies_at.streams);
    printf("  fastest: %zu chunks over %zu streams, %.2f ms, %.3f of the floor's speed\n",
           fastest.chunks, fastest.streams, fastest_ms, floor.median / fastest_ms);
    printf("  against its own halves: max(this shape's kernels alone, its copies alone) / its "
           "time,\n  rep by rep: how well a shape overlaps its own work, not how fast it is\n");
    for (size_t c = 0; c < N_SWEEP_CHUNKS; c++)
        for (size_t s = 0; s < N_SWEEP_STREAMS; s++) {
            flag_beaten_bound("sweep", cell[c][s].efficiency);
            if (cell[c][s].pipeline.median < floor.min)
                printf("  !! %zu chunks x %zu streams took %.2f ms, below the floor's fastest "
                       "repetition (%.2f ms):\n     the floor is wrong\n", sweep_chunk_counts[c],
                       sweep_stream_counts[s], cell[c][s].pipeline.median, floor.min);
        }
    char params[160];
    snprintf(params, sizeof params, "from=%s;chunks=%zu;streams=%zu;buffers=%zu;iters=%u;"
             "clock=gpu_event", copy_bound ? "copies_only" : "kernels_only", floor_at->chunks,
             floor_at->streams, floor_at->buffers, base->iters);
    *fastest_copies = copies;
    return record(b, "sweep_shape", "floor_across_shapes", "both",
                  2 * base->n * sizeof(unsigned), floor, params);
}
