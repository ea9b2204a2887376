/*
 * shapes.c - `--deep shapes`: the pipeline's efficiency by chunks x streams (buffers = streams),
 * on the sweep's data set at the balanced regime's iterations. Fewer chunks leave more of the run
 * to fill and drain; more chunks cost more calls and smaller copies.
 */
#include "parts.h"

static const size_t sweep_chunk_counts[] = {4, 8, 16, 32, 64, 128, 256};
static const size_t sweep_stream_counts[] = {1, 2, 3, 4, 8};
enum {
    N_SWEEP_CHUNKS = sizeof sweep_chunk_counts / sizeof sweep_chunk_counts[0],
    N_SWEEP_STREAMS = sizeof sweep_stream_counts / sizeof sweep_stream_counts[0],
};

int shapes_part(struct bench *b, const struct shape *base)
{
    char size_text[32];
    printf("\nshapes: efficiency by chunks and streams (buffers = streams), %s, %u iterations\n",
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
            if (evaluate(b, &p, &o) || record_outcome(b, "sweep_shape", &p, &o, ""))
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

