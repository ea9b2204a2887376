/*
 * alignment.c - `--deep alignment`: lecture 7.2 says copies to and from 256-byte aligned
 * addresses are fastest, "especially with pinned memory". The same bytes copied from and to
 * addresses that many bytes past an aligned one, both directions, at the sweep's sizes up to
 * 64 MiB: host addresses, pinned and pageable, then device addresses with pinned host memory;
 * and one pitched copy (cudaMemcpy2D) whose device rows start off the 256-byte boundary.
 */
#include "pinned.h"

#include <string.h>

static const size_t align_offsets[] = {0, 1, 4, 64, 256, 4096};
enum { N_OFFSETS = sizeof align_offsets / sizeof align_offsets[0], ALIGN_MAX_BYTES = 64 << 20 };
/* The three passes: which memory, and which side of the copy the offset is on. */
enum offset_side { HOST_SIDE, DEVICE_SIDE };
static const struct {
    enum memory_kind kind;
    enum offset_side side;
} align_passes[] = {{PINNED, HOST_SIDE}, {PAGEABLE, HOST_SIDE}, {PINNED, DEVICE_SIDE}};
enum { N_PASSES = sizeof align_passes / sizeof align_passes[0] };
static const char *const side_names[] = {"host", "device"};

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
 * repetition's copies are verified (a device buffer at an odd offset through an aligned copy of
 * it, as the check reads whole words). */
static void alignment_measure(enum memory_kind kind, enum offset_side side, const size_t *sizes,
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
                size_t host_offset = side == HOST_SIDE ? align_offsets[o] : 0;
                char *from = src + host_offset, *to = dst + host_offset;
                char *device = (char *)d->data + (side == DEVICE_SIDE ? align_offsets[o] : 0);
                memcpy(from, pattern, sizes[s]);
                if (last) {
                    CUDA_CHECK(cudaMemsetAsync(device, 0xff, sizes[s], t->stream));
                    memset(to, 0xff, sizes[s]);
                }
                double cpu_ms;
                double up = sample_copies(device, from, sizes[s], cudaMemcpyHostToDevice, gated,
                                          t, &cpu_ms);
                double down = sample_copies(to, device, sizes[s], cudaMemcpyDeviceToHost, gated,
                                            t, &cpu_ms);
                if (last) {
                    CUDA_CHECK(cudaMemcpy(d->check, device, sizes[s], cudaMemcpyDeviceToDevice));
                    expect_reference(d->check, d, sizes[s], "H2D copy at an offset address");
                    expect_reference_on_host(to, d, sizes[s], "D2H copy at an offset address");
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
static void alignment_row(enum memory_kind kind, enum offset_side side, int dir, int o,
                          const size_t *sizes, const struct alignment_samples *a,
                          const struct timing *t)
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
        char params[176];
        snprintf(params, sizeof params, "offset=%zu;side=%s;ratio=%.4f;ratio_min=%.4f;"
                 "ratio_max=%.4f;clock=gpu_event;copies=%d;gated=%d", align_offsets[o],
                 side_names[side], vs0.median, vs0.min, vs0.max, copies_per_sample(sizes[s]),
                 gated);
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

/* One pitched copy each way: 4096 rows of 4096 bytes, between dense pinned rows and device rows
 * `pitch` bytes apart, in turns by pitch; the last repetition brought back and verified. */
static const size_t pitches[] = {4096, 4160, 4100};
enum { N_PITCHES = sizeof pitches / sizeof pitches[0], ROW_BYTES = 4096, ROWS = 4096 };

static void pitched_copies(const struct device_buffers *d, const struct timing *t)
{
    const size_t bytes = (size_t)ROW_BYTES * ROWS;
    char *host = host_alloc(PINNED, bytes), *back = host_alloc(PINNED, bytes);
    fill_random((float *)host, bytes / sizeof(float), 7);
    double *ms = samples_or_exit((size_t)N_DIRECTIONS * N_PITCHES * (size_t)t->reps);
    for (int rep = -1; rep < t->reps; rep++) { /* rep -1 warms up */
        for (int k = 0; k < N_PITCHES; k++) {
            int i = (k + rep + 1) % N_PITCHES;
            if (rep == t->reps - 1)
                memset(back, 0xff, bytes);
            CUDA_CHECK(cudaEventRecord(t->start, t->stream));
            CUDA_CHECK(cudaMemcpy2DAsync(d->data, pitches[i], host, ROW_BYTES, ROW_BYTES, ROWS,
                                         cudaMemcpyHostToDevice, t->stream));
            double up = stop_clock(t);
            CUDA_CHECK(cudaEventRecord(t->start, t->stream));
            CUDA_CHECK(cudaMemcpy2DAsync(back, ROW_BYTES, d->data, pitches[i], ROW_BYTES, ROWS,
                                         cudaMemcpyDeviceToHost, t->stream));
            double down = stop_clock(t);
            if (rep == t->reps - 1)
                expect_reference_on_host(back, d, bytes, "pitched copy there and back");
            if (rep >= 0) {
                ms[((size_t)UP * N_PITCHES + (size_t)i) * (size_t)t->reps + (size_t)rep] = up;
                ms[((size_t)DOWN * N_PITCHES + (size_t)i) * (size_t)t->reps + (size_t)rep] = down;
            }
        }
    }
    printf("  cudaMemcpy2D, %d rows of %d bytes between dense pinned rows and device rows this "
           "many\n  bytes apart (4096: every row 256-byte aligned; 4160: 64; 4100: 4), GB/s, "
           "median of %d,\n  and the speed over pitch 4096's, rep by rep: median (range)\n",
           ROWS, ROW_BYTES, t->reps);
    for (int i = 0; i < N_PITCHES; i++) {
        printf("  pitch %4zu", pitches[i]);
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            const double *aligned = ms + (size_t)dir * N_PITCHES * (size_t)t->reps;
            const double *own = aligned + (size_t)i * (size_t)t->reps;
            for (int rep = 0; rep < t->reps; rep++)
                t->samples[rep] = aligned[rep] / own[rep];
            struct stats vs_aligned = stats_summarize(t->samples, (size_t)t->reps);
            memcpy(t->samples, own, (size_t)t->reps * sizeof(double));
            struct stats copy = stats_summarize(t->samples, (size_t)t->reps);
            double rate = gbps(bytes, copy.median);
            printf("   %s %6.2f GB/s, x %.3f (%.3f-%.3f)", direction_names[dir], rate,
                   vs_aligned.median, vs_aligned.min, vs_aligned.max);
            char params[160];
            snprintf(params, sizeof params, "pitch=%zu;rows=%d;row_bytes=%d;ratio=%.4f;"
                     "ratio_min=%.4f;ratio_max=%.4f;clock=gpu_event", pitches[i], ROWS,
                     ROW_BYTES, vs_aligned.median, vs_aligned.min, vs_aligned.max);
            csv_record(t->csv, &(struct csv_row){.experiment = "alignment_pitch",
                                                 .variant = "pinned",
                                                 .direction = direction_names[dir],
                                                 .bytes = bytes, .reps = t->reps, .ms = copy,
                                                 .gbps = rate, .params = params});
        }
        printf("\n");
    }
    free(ms);
    host_free(PINNED, host);
    host_free(PINNED, back);
}

void alignment(const struct sweep *sw, const struct timing *t)
{
    struct alignment_samples a = {.reps = t->reps};
    while (a.n_sizes < sw->n_sizes && sw->sizes[a.n_sizes] <= ALIGN_MAX_BYTES)
        a.n_sizes++;
    a.ms = samples_or_exit((size_t)N_DIRECTIONS * N_OFFSETS * (size_t)a.n_sizes * (size_t)a.reps);
    size_t most = sw->sizes[a.n_sizes - 1] + 4096; /* room for the device offsets */
    for (int i = 0; i < N_PITCHES; i++)
        if (most < pitches[i] * ROWS)
            most = pitches[i] * ROWS;
    struct device_buffers d = device_buffers_create(most);
    printf("\n1c. lecture 7.2: \"transfers to 256-byte aligned addresses are usually fastest, "
           "especially\n    pinned\". GB/s with the address this many bytes past a page "
           "boundary, events,\n    median of %d; offsets in turns. Last column: this offset's "
           "speed over offset 0's, rep by\n    rep, averaged over the sizes: median (range), "
           "~ where the range is over 5%% of it\n", t->reps);
    for (int k = 0; k < N_PASSES; k++) {
        enum memory_kind kind = align_passes[k].kind;
        enum offset_side side = align_passes[k].side;
        alignment_measure(kind, side, sw->sizes, &a, &d, t);
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            printf("  %-8s %s, %s offset", kind_names[kind], direction_names[dir],
                   side_names[side]);
            for (int s = 0; s < a.n_sizes; s++) {
                char size_text[32];
                printf(" %8s", format_bytes(sw->sizes[s], size_text, sizeof size_text));
            }
            printf("   x offset 0\n");
            for (int o = 0; o < N_OFFSETS; o++)
                alignment_row(kind, side, dir, o, sw->sizes, &a, t);
        }
    }
    pitched_copies(&d, t);
    printf("  the last repetition of every offset, size and pitch verified on the GPU; the "
           "lecture\n  predicts the rows for offsets 1, 4 and 64 below those for 0, 256 and 4096, "
           "the pinned\n  ones most, and pitches 4160 and 4100 below 4096\n");
    free(a.ms);
    device_buffers_destroy(&d);
}
