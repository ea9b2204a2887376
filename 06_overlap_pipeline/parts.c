/* parts.c - part 2 and the deep layer, in the order DEEP.md tells them; see parts.h. */
#include "parts.h"

#include "trace.h"

enum { GRAPH_CHUNKS = 256, MANAGED_CHUNKS = 16 }; /* the graph's many small chunks */

/* The deep parts on the sweep's data set: shapes and intensity, graph and managed. */
static int sweep_parts(struct bench *b, const struct settings *s, const struct shape *base)
{
    unsigned balanced = base->iters;
    struct shape sweep = {.n = s->sweep_n, .chunks = 16, .buffers = 4, .streams = 4,
                          .iters = balanced};
    struct shape intensity = {.n = s->sweep_n, .chunks = (size_t)s->chunks,
                              .buffers = (size_t)s->buffers, .streams = (size_t)s->streams};
    struct shape many_small = {.n = s->sweep_n,
                               .chunks = s->sweep_n < GRAPH_CHUNKS ? s->sweep_n : GRAPH_CHUNKS,
                               .buffers = (size_t)s->buffers, .streams = (size_t)s->streams,
                               .iters = 1};
    struct shape managed = {.n = s->sweep_n, .chunks = MANAGED_CHUNKS,
                            .buffers = (size_t)s->buffers, .streams = (size_t)s->streams,
                            .iters = balanced};
    struct stats fastest_copies;
    bool shapes = s->sweeps && deep_wants(s->deep, "shapes");
    if (shapes && shapes_part(b, &sweep, &fastest_copies))
        return -1;
    if (s->sweeps && deep_wants(s->deep, "intensity") &&
        intensity_part(b, &intensity, balanced, shapes ? &fastest_copies : NULL))
        return -1;
    if (deep_wants(s->deep, "graph") && graph_part(b, &many_small))
        return -1;
    return deep_wants(s->deep, "managed") && managed_part(b, &managed, s->device) ? -1 : 0;
}

static int parts_on(struct bench *b, const struct settings *s, const struct shape *base,
                    const struct staging *st)
{
    bool by_role = deep_wants(s->deep, "by-role");
    if (s->trace && timeline_part(b, base, by_role, st, s->staged_threads, s->trace))
        return -1;
    if (deep_wants(s->deep, "orders") && orders_part(b, base))
        return -1;
    if (sweep_parts(b, s, base) || (by_role && by_role_part(b, base)))
        return -1;
    return st && staged_threads_part(b, base, st, s->staged_threads) ? -1 : 0;
}

int later_parts(struct bench *b, const struct settings *s, const struct shape *base)
{
    if (!deep_wants(s->deep, "staged"))
        return parts_on(b, s, base, NULL);
    struct staging st; /* the pageable data set and the staging ring of the staged runs */
    size_t slots = (size_t)s->staged_buffers;
    if (staging_create(&st, slots, chunk_plan_make(base->n, base->chunks, slots).max_chunk,
                       b->rig.h_in, base->n, true))
        return -1;
    int rc = parts_on(b, s, base, &st);
    staging_destroy(&st);
    return rc;
}

void print_verified(const struct settings *s)
{
    bool graph = deep_wants(s->deep, "graph"), managed = deep_wants(s->deep, "managed");
    printf("verified: the last repetition of every pipelined, serial%s synchronous%s%s run\n",
           graph || managed ? "," : " and", graph ? (managed ? ", graph" : " and graph") : "",
           managed ? " and managed" : "");
    if (deep_wants(s->deep, "staged"))
        printf("  and every repetition of every staged run\n");
}
