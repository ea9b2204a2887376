/*
 * per_copy.c - `--deep per-copy`: what one small pinned copy costs the GPU (a copy engine's
 * time, events, the stream held by a gate) and the CPU (the cudaMemcpyAsync call, host clock).
 * Which is larger decides how fast a pipeline of small chunks issued from one thread can go.
 * The figures are the sweep's own: sweep_kind() keeps them for pinned memory.
 */
#include "pinned.h"

void per_copy_cost(const struct sweep *sw, const struct timing *t)
{
    enum { MAX_COST_BYTES = 1 << 20 };
    printf("\n1b. one pinned copy, in us: the GPU's time (events, the stream held by a gate) and "
           "the\n    CPU's time per cudaMemcpyAsync call (host clock), median of %d\n", t->reps);
    printf("  %9s %9s %9s %9s %9s\n", "size", "H2D GPU", "H2D CPU", "D2H GPU", "D2H CPU");
    for (int s = 0; s < sw->n_sizes && sw->sizes[s] <= MAX_COST_BYTES; s++) {
        char size_text[32];
        printf("  %9s", format_bytes(sw->sizes[s], size_text, sizeof size_text));
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            for (int side = ON_GPU; side <= ON_CPU; side++) {
                struct stats ms = sw->pinned_copy_ms[side][dir][s];
                printf(" %9.2f", ms.median * 1e3);
                const char *params = side == ON_CPU ? "clock=host;per=call"
                                     : t->gated     ? "clock=gpu_event;gated=1;per=copy"
                                                    : "clock=gpu_event;gated=0;per=copy";
                csv_record(t->csv, &(struct csv_row){.experiment = "per_copy_cost",
                                                     .variant = side == ON_GPU ? "gpu" : "cpu",
                                                     .direction = direction_names[dir],
                                                     .bytes = sw->sizes[s], .reps = t->reps,
                                                     .ms = ms, .params = params});
            }
        }
        printf("\n");
    }
    printf("  where the CPU's column is the larger, copies issued one by one from one thread come\n"
           "  no faster than the CPU issues them, whatever the link\n");
}
