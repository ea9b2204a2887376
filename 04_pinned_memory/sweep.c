/*
 * sweep.c - the bandwidth sweep's measurements of one kind of memory, its CSV rows and its
 * tables; main.c allocates the memory and runs the sweep (lecture 4.2 and table 1's memory row).
 */
#include "pinned.h"

#include <math.h>
#include <string.h>

/* From SWEEP_MIN_BYTES up by factors of 4, and the last size is max_bytes itself. */
void sweep_sizes(struct sweep *sw, size_t max_bytes)
{
    *sw = (struct sweep){.n_sizes = 0};
    for (size_t b = SWEEP_MIN_BYTES; b <= max_bytes && sw->n_sizes < MAX_SIZES;
         b = sweep_next_size(b, max_bytes))
        sw->sizes[sw->n_sizes++] = b;
}

static void record_kind(enum memory_kind kind, int s, struct stats up, struct stats down,
                        bool gated, struct sweep *sw, const struct timing *t)
{
    size_t bytes = sw->sizes[s];
    char params[192];
    snprintf(params, sizeof params, "clock=gpu_event;call=cudaMemcpyAsync;copies=%d;gated=%d;%s",
             copies_per_sample(bytes), gated, t->link);
    sw->gbps[kind][UP][s] = gbps(bytes, up.median);
    sw->gbps[kind][DOWN][s] = gbps(bytes, down.median);
    csv_record(t->csv, &(struct csv_row){.experiment = "bandwidth", .variant = kind_names[kind],
                                         .direction = "H2D", .bytes = bytes, .reps = t->reps,
                                         .ms = up, .gbps = sw->gbps[kind][UP][s],
                                         .params = params});
    csv_record(t->csv, &(struct csv_row){.experiment = "bandwidth", .variant = kind_names[kind],
                                         .direction = "D2H", .bytes = bytes, .reps = t->reps,
                                         .ms = down, .gbps = sw->gbps[kind][DOWN][s],
                                         .params = params});
}

/* Every size, H2D from `host` and D2H back into it; `host` holds d->reference's bytes, and
 * holds them again after each size's D2H copies, which are verified. Pinned memory's copies
 * keep the GPU's and the CPU's time per copy too, for --deep per-copy. */
void sweep_kind(enum memory_kind kind, void *host, struct sweep *sw,
                const struct device_buffers *d, const struct timing *t)
{
    bool gated = t->gated && kind != PAGEABLE, pinned = kind == PINNED;
    struct stats (*per_call)[MAX_SIZES] = sw->pinned_copy_ms[ON_CPU];
    for (int s = 0; s < sw->n_sizes; s++) {
        size_t bytes = sw->sizes[s];
        /* In the timed stream: it is non-blocking, so it would not wait for a cudaMemset in the
         * default stream, which could then land on top of the copies. */
        CUDA_CHECK(cudaMemsetAsync(d->data, 0xff, bytes, t->stream));
        struct stats up = time_copies(d->data, host, bytes, cudaMemcpyHostToDevice, gated, t,
                                      pinned ? &per_call[UP][s] : NULL);
        expect_reference(d->data, d, bytes, "H2D copy");
        memset(host, 0xff, bytes);
        struct stats down = time_copies(host, d->data, bytes, cudaMemcpyDeviceToHost, gated, t,
                                        pinned ? &per_call[DOWN][s] : NULL);
        expect_reference_on_host(host, d, bytes, "D2H copy");
        if (pinned) {
            sw->pinned_copy_ms[ON_GPU][UP][s] = up;
            sw->pinned_copy_ms[ON_GPU][DOWN][s] = down;
        }
        record_kind(kind, s, up, down, gated, sw, t);
    }
}

/* Size s of both directions at once: t->samples and t->d2h_samples hold each direction's
 * milliseconds per copy, sum[] those of the pair. */
void record_both_directions(struct sweep *sw, int s, int copies, double *sum,
                            const struct timing *t)
{
    size_t bytes = sw->sizes[s];
    struct stats ms[N_DIRECTIONS + 1] = {stats_summarize(t->samples, (size_t)t->reps),
                                         stats_summarize(t->d2h_samples, (size_t)t->reps),
                                         stats_summarize(sum, (size_t)t->reps)};
    char params[96];
    snprintf(params, sizeof params,
             "clock=gpu_event;call=cudaMemcpyAsync;copies=%d;streams=2;gated=%d", copies,
             t->gated);
    for (int dir = 0; dir <= N_DIRECTIONS; dir++) {
        size_t moved = dir == N_DIRECTIONS ? 2 * bytes : bytes;
        sw->both_gbps[dir][s] = gbps(moved, ms[dir].median);
        csv_record(t->csv, &(struct csv_row){.experiment = "bandwidth_bidirectional",
                                             .variant = "pinned",
                                             .direction = dir < N_DIRECTIONS ? direction_names[dir]
                                                                             : "both",
                                             .bytes = moved, .reps = t->reps, .ms = ms[dir],
                                             .gbps = sw->both_gbps[dir][s], .params = params});
    }
}

void print_sweep(const struct sweep *sw, int reps)
{
    printf("\n1. bandwidth in GB/s (1e9 bytes/s), events, median of %d\n", reps);
    printf("  %9s %-17s %-17s %-17s %-17s %s\n", "", "pageable", "pinned", "write-combined",
           "registered", "pinned, both at once");
    printf("  %9s", "size");
    for (int k = 0; k < N_KINDS; k++)
        printf(" %8s %8s", "H2D", "D2H");
    printf(" %8s %8s %8s\n", "H2D", "D2H", "sum");
    for (int s = 0; s < sw->n_sizes; s++) {
        char size_text[32];
        printf("  %9s", format_bytes(sw->sizes[s], size_text, sizeof size_text));
        for (int k = 0; k < N_KINDS; k++)
            printf(" %8.2f %8.2f", sw->gbps[k][UP][s], sw->gbps[k][DOWN][s]);
        printf(" %8.2f %8.2f %8.2f\n", sw->both_gbps[UP][s], sw->both_gbps[DOWN][s],
               sw->both_gbps[N_DIRECTIONS][s]);
    }
    printf("  every size of every kind verified on the GPU, both ways\n");
}

static void print_limit(const char *name, const char *dir, double rate, double best,
                        const struct pcie_link *link, const char *after)
{
    printf("    %-15s %s %8.2f GB/s  %5.1f%% of best", name, dir, rate, 100 * rate / best);
    if (link->known)
        printf("  %5.1f%% of peak%s", 100 * rate / link->peak_gbps, after);
    printf("\n");
}

/* Each kind's figure at the largest size, against the best pinned figure and the link's peak. */
void print_against_limits(const struct sweep *sw, const struct pcie_link *link)
{
    double best = 0;
    for (int s = 0; s < sw->n_sizes; s++)
        for (int dir = 0; dir < N_DIRECTIONS; dir++)
            best = fmax(best, sw->gbps[PINNED][dir][s]);
    int last = sw->n_sizes - 1;
    char size_text[32];
    printf("\n  at %s, against the best pinned figure (%.2f GB/s)%s:\n",
           format_bytes(sw->sizes[last], size_text, sizeof size_text), best,
           link->known ? " and the link's peak" : "");
    for (int k = 0; k < N_KINDS; k++)
        for (int dir = 0; dir < N_DIRECTIONS; dir++)
            print_limit(kind_names[k], direction_names[dir], sw->gbps[k][dir][last], best, link,
                        "");
    for (int dir = 0; dir <= N_DIRECTIONS; dir++)
        print_limit("both at once", dir < N_DIRECTIONS ? direction_names[dir] : "sum",
                    sw->both_gbps[dir][last], best, link,
                    dir == N_DIRECTIONS ? " (one direction's)" : "");
}

/* How long each of t->reps calls of one cudaMemcpyAsync held the CPU: t->samples. */
void print_call_held(enum memory_kind kind, int dir, size_t bytes, const struct timing *t)
{
    struct stats s = stats_summarize(t->samples, (size_t)t->reps);
    printf("  %-9s %s returned after %9.3f ms\n", kind_names[kind], direction_names[dir],
           s.median);
    csv_record(t->csv, &(struct csv_row){.experiment = "async_blocking",
                                         .variant = kind_names[kind],
                                         .direction = direction_names[dir], .bytes = bytes,
                                         .reps = t->reps, .ms = s,
                                         .params = "clock=host;measure=call_returned"});
}
