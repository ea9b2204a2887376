/*
 * by_role.c - `--deep by-role`: lecture 7.1's own layout, one stream per role (streams[0] copies
 * in, streams[1] computes, streams[2] copies out: created non-blocking streams, none of them the
 * default stream), with events between a chunk's stages, against main.c's round robin.
 */
#include "parts.h"

/* 4c. Lecture 7.1's own layout: one stream per role (copies in, kernels, copies out) with
 * events between a chunk's stages, against the round robin of the rest of this lesson, each
 * against its own bound. */
int by_role_part(struct bench *b, const struct shape *base)
{
    struct shape by_role = *base;
    by_role.streams = 3;
    by_role.by_role = true;
    struct outcome round_robin, role;
    if (evaluate(b, base, &round_robin) || evaluate(b, &by_role, &role))
        return -1;
    printf("\nby-role: lecture 7.1's layout, one stream per role, against chunk k in stream k "
           "mod S; "
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
    return record_outcome(b, "by_role", base, &round_robin, "layout=round_robin;") ||
           record_outcome(b, "by_role", &by_role, &role, "layout=by_role;");
}

