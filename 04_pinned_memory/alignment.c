/*
 * alignment.c - `--deep alignment`: lecture 7.2 says copies to and from 256-byte aligned host
 * addresses are fastest, "especially with pinned memory". The same bytes copied from and to host
 * addresses that many bytes past an aligned one, pinned and pageable, both directions, at the
 * sweep's sizes up to 64 MiB.
 */
#include "pinned.h"

#include <string.h>

static const size_t align_offsets[] = {0, 1, 4, 64, 256, 4096};
enum { N_OFFSETS = sizeof align_offsets / sizeof align_offsets[0], ALIGN_MAX_BYTES = 64 << 20 };
static const enum memory_kind align_kinds[] = {PINNED, PAGEABLE};

static char *page_aligned(char *p)
{
    return p + (4096 - (uintptr_t)p % 4096) % 4096;
}

/* Every sample of the alignment part: milliseconds per copy, by direction, offset, size and
 * repetition. */
struct alignment_samples {
    double *ms;
    int n_sizes, reps;
};

static double *samples_at(const struct alignment_samples *a, int dir, int o, int s)
{
    return a->ms + (((size_t)dir * N_OFFSETS + (size_t)o) * (size_t)a->n_sizes + (size_t)s) *
                       (size_t)a->reps;
}

/* The six offsets in turns, repetition by repetition, each repetition starting one offset later:
 * pageable figures drift over a run, and neither a drift nor the order may pass for an offset's
 * effect. The offsets share one buffer, so the data is put in place before each sample; the last
 * repetition's copies are verified. */
static void alignment_measure(enum memory_kind kind, const size_t *sizes,
                              const struct alignment_samples *a,
                              const struct device_buffers *d,
                              const struct timing *t)
{
    /* The offsets count from a page boundary: malloc's large blocks start 16 bytes past one. */
    size_t max_bytes = sizes[a->n_sizes - 1], room = max_bytes + 2 * 4096;
    char *src_block = host_alloc(kind, room), *dst_block = host_alloc(kind, room);
    char *src = page_aligned(src_block), *dst = page_aligned(dst_block);
    float *pattern = host_alloc(PAGEABLE, max_bytes); /* the data d->reference holds */
    fill_random(pattern, max_bytes / sizeof(float), 7);
    bool gated = t->gated && kind != PAGEABLE;
    for (int s = 0; s < a->n_sizes; s++) {
        for (int rep = -1; rep < a->reps; rep++) { /* rep -1 warms up */
            bool last = rep == a->reps - 1;
            for (int k = 0; k < N_OFFSETS; k++) {
                int o = (k + rep + 1) % N_OFFSETS;
                char *from = src + align_offsets[o], *to = dst + align_offsets[o];
                memcpy(from, pattern, sizes[s]);
                if (last) {
                    CUDA_CHECK(cudaMemsetAsync(d->data, 0xff, sizes[s], t->stream));
                    memset(to, 0xff, sizes[s]);
                }
                double cpu_ms;
                double up = sample_copies(d->data, from, sizes[s], cudaMemcpyHostToDevice, gated,
                                          t, &cpu_ms);
                double down = sample_copies(to, d->data, sizes[s], cudaMemcpyDeviceToHost, gated,
                                            t, &cpu_ms);
                if (last) {
                    expect_reference(d->data, d, sizes[s], "H2D copy from an offset address");
                    expect_reference_on_host(to, d, sizes[s], "D2H copy to an offset address");
                }
                if (rep >= 0) {
                    samples_at(a, UP, o, s)[rep] = up;
                    samples_at(a, DOWN, o, s)[rep] = down;
                }
            }
        }
    }
    host_free(PAGEABLE, pattern);
    host_free(kind, src_block);
    host_free(kind, dst_block);
}

/* One row of the table: GB/s at each size; the CSV gets each size's copy time and its paired
 * ratio to offset 0 (offset 0's time / this offset's, rep by rep: above 1 is faster). The row
 * ends with the mean over sizes of those ratios, repetition by repetition, as median (range). */
static void alignment_row(enum memory_kind kind, int dir, int o, const size_t *sizes,
                          const struct alignment_samples *a, const struct timing *t)
{
    double *ratio = samples_or_exit((size_t)a->reps), *mean = samples_or_exit((size_t)a->reps);
    bool gated = t->gated && kind != PAGEABLE;
    for (int rep = 0; rep < a->reps; rep++)
        mean[rep] = 0;
    printf("  %20zu", align_offsets[o]);
    for (int s = 0; s < a->n_sizes; s++) {
        const double *ms = samples_at(a, dir, o, s), *ms0 = samples_at(a, dir, 0, s);
        for (int rep = 0; rep < a->reps; rep++) {
            ratio[rep] = ms0[rep] / ms[rep];
            mean[rep] += ratio[rep] / a->n_sizes;
            t->samples[rep] = ms[rep];
        }
        struct stats copy = stats_summarize(t->samples, (size_t)a->reps);
        struct stats vs0 = stats_summarize(ratio, (size_t)a->reps);
        double rate = gbps(sizes[s], copy.median);
        printf(" %8.2f", rate);
        char params[160];
        snprintf(params, sizeof params, "offset=%zu;ratio=%.4f;ratio_min=%.4f;ratio_max=%.4f;"
                 "clock=gpu_event;copies=%d;gated=%d", align_offsets[o], vs0.median, vs0.min,
                 vs0.max, copies_per_sample(sizes[s]), gated);
        csv_record(t->csv, &(struct csv_row){.experiment = "alignment", .variant = kind_names[kind],
                                             .direction = direction_names[dir], .bytes = sizes[s],
                                             .reps = a->reps, .ms = copy, .gbps = rate,
                                             .params = params});
    }
    struct stats m = stats_summarize(mean, (size_t)a->reps);
    printf("   %.3f (%.3f-%.3f)%s\n", m.median, m.min, m.max, stats_unsteady(m) ? "~" : "");
    free(ratio);
    free(mean);
}

void alignment(const struct sweep *sw, const struct timing *t)
{
    struct alignment_samples a = {.reps = t->reps};
    while (a.n_sizes < sw->n_sizes && sw->sizes[a.n_sizes] <= ALIGN_MAX_BYTES)
        a.n_sizes++;
    a.ms = samples_or_exit((size_t)N_DIRECTIONS * N_OFFSETS * (size_t)a.n_sizes * (size_t)a.reps);
    struct device_buffers d = device_buffers_create(sw->sizes[a.n_sizes - 1]);
    printf("\n1c. lecture 7.2: \"transfers to 256-byte aligned addresses are usually fastest, "
           "especially\n    pinned\". GB/s with the host address this many bytes past a page "
           "boundary, events,\n    median of %d; offsets in turns. Last column: this offset's "
           "speed over offset 0's, rep by\n    rep, averaged over the sizes: median (range), "
           "~ where the range is over 5%% of it\n", t->reps);
    for (int k = 0; k < 2; k++) {
        alignment_measure(align_kinds[k], sw->sizes, &a, &d, t);
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            printf("  %-8s %s  offset", kind_names[align_kinds[k]], direction_names[dir]);
            for (int s = 0; s < a.n_sizes; s++) {
                char size_text[32];
                printf(" %8s", format_bytes(sw->sizes[s], size_text, sizeof size_text));
            }
            printf("   x offset 0\n");
            for (int o = 0; o < N_OFFSETS; o++)
                alignment_row(align_kinds[k], dir, o, sw->sizes, &a, t);
        }
    }
    printf("  the last repetition of every offset and size verified on the GPU; the lecture "
           "predicts\n  the rows for offsets 1, 4 and 64 below those for 0, 256 and 4096, the "
           "pinned ones most\n");
    free(a.ms);
    device_buffers_destroy(&d);
}
