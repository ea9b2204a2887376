/*
 * exercise_strides.c - lesson 04's exercise 2 (README.md): the zero-copy part's strided read,
 * 1 float in 8, 32 or 256, read across PCIe or copied with the rest first.
 */
#include "exercises.h"

enum { DIRECT, COPY_FIRST, N_WAYS };
static const char *const way_names[N_WAYS] = {"sparse read of mapped memory",
                                              "copy, then gather"};

struct stride_result {
    struct stats ms[N_WAYS];
    struct stats ratio; /* reading directly over copying first, in time, rep by rep */
};

/* Both ways of the zero-copy part's gather in turns, repetition by repetition, into a poisoned
 * d_a; the last repetition of each is verified. */
static struct stride_result measure_stride(const struct mapped_buffers *m, size_t bytes,
                                           size_t stride, const struct timing *t)
{
    size_t reps = (size_t)t->reps, n_out = bytes / sizeof(float) / stride;
    double *ms = samples_or_exit(N_WAYS * reps), *ratio = samples_or_exit(reps);
    for (int rep = -1; rep < t->reps; rep++) { /* rep -1 warms up */
        for (int k = 0; k < N_WAYS; k++) {
            int way = (k + rep + 1) % N_WAYS;
            /* Before the start event, in the stream the gather runs in: not timed. */
            CUDA_CHECK(cudaMemsetAsync(m->d_a, 0xff, n_out * sizeof(float), t->stream));
            double once = way == DIRECT
                              ? gather_ms(m->src_view, m->d_a, n_out, stride, t)
                              : copy_then_gather_ms(m->h_src, m->d_b, bytes, m->d_a, n_out,
                                                    stride, t);
            if (rep == t->reps - 1) {
                CUDA_CHECK(cudaMemcpy(m->h_dst, m->d_a, n_out * sizeof(float),
                                      cudaMemcpyDeviceToHost));
                expect_gathered(m->h_dst, m->h_src, n_out, stride, way_names[way]);
            }
            if (rep >= 0)
                ms[(size_t)way * reps + (size_t)rep] = once;
        }
    }
    for (size_t rep = 0; rep < reps; rep++)
        ratio[rep] = ms[DIRECT * reps + rep] / ms[COPY_FIRST * reps + rep];
    struct stride_result r = {.ratio = stats_summarize(ratio, reps)};
    for (int way = 0; way < N_WAYS; way++)
        r.ms[way] = stats_summarize(ms + (size_t)way * reps, reps);
    free(ms);
    free(ratio);
    return r;
}

void exercise_strides(size_t bytes, const struct timing *t)
{
    enum { N_STRIDES = 3 };
    static const size_t strides[N_STRIDES] = {8, SPARSE_STRIDE, 256};
    struct stride_result r[N_STRIDES];
    struct mapped_buffers m = mapped_create(bytes);
    for (int s = 0; s < N_STRIDES; s++)
        r[s] = measure_stride(&m, bytes, strides[s], t);
    mapped_destroy(&m);

    char size_text[32];
    printf("\n2. --deep zero-copy's gather using 1 float in 8, %d (its own) and 256 of %s of "
           "mapped\n   memory: read those across PCIe, or copy all, then pick; the two ways in "
           "turns, events,\n   median of %d. Last column: reading's time over copying's, rep by "
           "rep: median (range),\n   ~ where the range is over 5%% of it; below 1, reading "
           "directly wins\n",
           SPARSE_STRIDE, format_bytes(bytes, size_text, sizeof size_text), t->reps);
    printf("  %6s %22s %22s   %s\n", "stride", "read those across PCIe", "copy all, then pick",
           "read over copy");
    for (int s = 0; s < N_STRIDES; s++) {
        printf("  %6zu %19.3f ms %19.3f ms   ", strides[s], r[s].ms[DIRECT].median,
               r[s].ms[COPY_FIRST].median);
        print_ratio(r[s].ratio);
    }
    printf("  the last repetition of both ways at every stride verified\n\n");
    for (int s = 0; s < N_STRIDES; s++) {
        char key[64], what[96];
        for (int way = 0; way < N_WAYS; way++) {
            snprintf(key, sizeof key, "stride_%zu_%s_ms", strides[s],
                     way == DIRECT ? "read" : "copy_then_pick");
            snprintf(what, sizeof what, "1 float in %zu, %s", strides[s],
                     way == DIRECT ? "read those across PCIe" : "copy all, then pick");
            exercise_record(t->csv, 2, key, what, r[s].ms[way].median, "ms",
                            (struct csv_row){.direction = "H2D", .bytes = bytes, .reps = t->reps,
                                             .ms = r[s].ms[way], .params = "clock=gpu_event"});
        }
        snprintf(key, sizeof key, "stride_%zu_read_over_copy", strides[s]);
        snprintf(what, sizeof what, "1 float in %zu, reading's time over copying's", strides[s]);
        exercise_record(t->csv, 2, key, what, r[s].ratio.median, "x",
                        (struct csv_row){.direction = "H2D", .bytes = bytes, .reps = t->reps,
                                         .ms = r[s].ms[DIRECT], .params = "clock=gpu_event"});
    }
}
