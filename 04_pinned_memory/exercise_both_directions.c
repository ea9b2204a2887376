/*
 * exercise_both_directions.c - lesson 04's exercise 3 (README.md): from pinned memory, a copy to
 * the GPU alone, a copy back alone, and both at once, each in its own non-blocking stream, at
 * --size and at BOTH_LARGER times it, against the link's peak from the `link:` line.
 */
#include "exercises.h"

#include <math.h>
#include <string.h>

enum { H2D_ALONE, D2H_ALONE, BOTH, N_RUNS }; /* what each repetition runs, in turns */
enum { N_SIZES = 2 }; /* --size, and BOTH_LARGER times it */
enum { ALONE, TOGETHER };

struct both_buffers {
    struct device_buffers d; /* H2D copies land in d.data, D2H copies read d.reference */
    void *h2d_src, *d2h_dst; /* pinned; two, so that one is read while the other is written */
};

struct both_result {
    size_t bytes;
    struct stats ms[2][N_DIRECTIONS]; /* [ALONE, TOGETHER]: milliseconds per copy */
    struct stats pair;                /* both at once: from the start to the later end */
    struct stats ratio[N_DIRECTIONS]; /* the speed together over the speed alone, rep by rep */
};

/* Both at once: H2D in t->stream, D2H in t->d2h_stream, which waits on the start event that the
 * gate holds, so that both are held while they are issued and start together. ms[] gets each
 * direction's milliseconds per copy from that start to its own end event. */
static void sample_both(const struct both_buffers *b, size_t bytes, const struct timing *t,
                        double ms[N_DIRECTIONS])
{
    int copies = copies_per_sample(bytes);
    if (t->gated)
        CUDA_CHECK(gate_close(&t->gate, t->stream));
    CUDA_CHECK(cudaEventRecord(t->start, t->stream));
    CUDA_CHECK(cudaStreamWaitEvent(t->d2h_stream, t->start, 0));
    for (int c = 0; c < copies; c++) {
        CUDA_CHECK(cudaMemcpyAsync(b->d.data, b->h2d_src, bytes, cudaMemcpyHostToDevice,
                                   t->stream));
        CUDA_CHECK(cudaMemcpyAsync(b->d2h_dst, b->d.reference, bytes, cudaMemcpyDeviceToHost,
                                   t->d2h_stream));
    }
    CUDA_CHECK(cudaEventRecord(t->d2h_stop, t->d2h_stream));
    double up_ms = t->gated ? open_gate_and_time(t) : stop_clock(t);
    float down_ms;
    CUDA_CHECK(cudaEventSynchronize(t->d2h_stop));
    CUDA_CHECK(cudaEventElapsedTime(&down_ms, t->start, t->d2h_stop));
    ms[UP] = up_ms / copies;
    ms[DOWN] = down_ms / copies;
}

/* One run of `run`, its destinations poisoned before it and checked after it, every time;
 * ms[] gets milliseconds per copy of each direction it ran. */
static void run_verified(int run, const struct both_buffers *b, size_t bytes,
                         const struct timing *t, double ms[N_DIRECTIONS])
{
    bool up = run != D2H_ALONE, down = run != H2D_ALONE;
    if (up) /* in the timed stream, before the gate and the start event: not timed */
        CUDA_CHECK(cudaMemsetAsync(b->d.data, 0xff, bytes, t->stream));
    if (down)
        memset(b->d2h_dst, 0xff, bytes);
    double cpu_ms;
    if (run == BOTH)
        sample_both(b, bytes, t, ms);
    else if (up)
        ms[UP] = sample_copies(b->d.data, b->h2d_src, bytes, cudaMemcpyHostToDevice, t->gated,
                               t, &cpu_ms);
    else
        ms[DOWN] = sample_copies(b->d2h_dst, b->d.reference, bytes, cudaMemcpyDeviceToHost,
                                 t->gated, t, &cpu_ms);
    if (up)
        expect_reference(b->d.data, &b->d, bytes, run == BOTH ? "H2D copy (both at once)"
                                                              : "H2D copy (alone)");
    if (down)
        expect_reference_on_host(b->d2h_dst, &b->d, bytes, run == BOTH ? "D2H copy (both at once)"
                                                                       : "D2H copy (alone)");
}

/* Where sample `rep` of direction `dir`, ALONE or TOGETHER, lies in measure_size()'s samples. */
static size_t slot(int when, int dir, size_t reps, int rep)
{
    return ((size_t)when * N_DIRECTIONS + (size_t)dir) * reps + (size_t)rep;
}

/* The three runs in turns, repetition by repetition, each repetition starting one run later. */
static struct both_result measure_size(const struct both_buffers *b, size_t bytes,
                                       const struct timing *t)
{
    size_t reps = (size_t)t->reps;
    double *ms = samples_or_exit(2 * N_DIRECTIONS * reps), *pair = samples_or_exit(reps);
    double *ratio = samples_or_exit(N_DIRECTIONS * reps);
    for (int rep = -1; rep < t->reps; rep++) { /* rep -1 warms up */
        for (int k = 0; k < N_RUNS; k++) {
            int run = (k + rep + 1) % N_RUNS;
            double once[N_DIRECTIONS];
            run_verified(run, b, bytes, t, once);
            if (rep < 0)
                continue;
            if (run == BOTH) {
                ms[slot(TOGETHER, UP, reps, rep)] = once[UP];
                ms[slot(TOGETHER, DOWN, reps, rep)] = once[DOWN];
                pair[rep] = fmax(once[UP], once[DOWN]);
            } else {
                int dir = run == H2D_ALONE ? UP : DOWN;
                ms[slot(ALONE, dir, reps, rep)] = once[dir];
            }
        }
    }
    struct both_result r = {.bytes = bytes};
    for (int dir = 0; dir < N_DIRECTIONS; dir++) {
        for (int rep = 0; rep < t->reps; rep++) /* same bytes: speed over speed, time over time */
            ratio[(size_t)dir * reps + (size_t)rep] = ms[slot(ALONE, dir, reps, rep)] /
                                                      ms[slot(TOGETHER, dir, reps, rep)];
        r.ratio[dir] = stats_summarize(ratio + (size_t)dir * reps, reps);
        for (int when = ALONE; when <= TOGETHER; when++)
            r.ms[when][dir] = stats_summarize(ms + slot(when, dir, reps, 0), reps);
    }
    r.pair = stats_summarize(pair, reps);
    free(ms);
    free(pair);
    free(ratio);
    return r;
}

/* A median's GB/s, marked "~" where its repetitions spread over 5% of it. */
static void print_rate(size_t bytes, struct stats ms)
{
    printf(" %8.2f GB/s%s", gbps(bytes, ms.median), stats_unsteady(ms) ? "~" : " ");
}

static void print_both(const struct both_result r[N_SIZES], const struct pcie_link *link,
                       int copy_engines, int reps)
{
    char text[N_SIZES][32];
    for (int s = 0; s < N_SIZES; s++)
        format_bytes(r[s].bytes, text[s], sizeof text[s]);
    printf("\n3. from pinned memory, H2D alone, D2H alone, and both at once (each copy in its own"
           "\n   non-blocking stream), at %s and %s (--size, and %d times it): the three in"
           "\n   turns, the order rotating each repetition; events, median of %d, ~ where the"
           "\n   repetitions spread over 5%% of it. Together over alone: a direction's speed "
           "beside the\n   other over its speed alone, rep by rep: median (range). both: the "
           "pair's bytes from\n   its one start to the later of its two ends",
           text[0], text[1], BOTH_LARGER, reps);
    if (link->known)
        printf(", and its share of twice the link's peak\n   (2 x %.1f GB/s)", link->peak_gbps);
    printf("\n  copy engines (asyncEngineCount): %d\n", copy_engines);
    printf("  %9s %-4s %13s  %13s    %s\n", "size", "dir", "alone", "together",
           "together over alone");
    for (int s = 0; s < N_SIZES; s++) {
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            printf("  %9s %-4s", text[s], direction_names[dir]);
            for (int when = ALONE; when <= TOGETHER; when++)
                print_rate(r[s].bytes, r[s].ms[when][dir]);
            printf("   ");
            print_ratio(r[s].ratio[dir]);
        }
        printf("  %9s %-4s %14s", text[s], "both", "");
        print_rate(2 * r[s].bytes, r[s].pair);
        if (link->known)
            printf("   %5.1f%% of twice the peak",
                   100 * gbps(2 * r[s].bytes, r[s].pair.median) / (2 * link->peak_gbps));
        printf("\n");
    }
    printf("  every repetition of every copy verified on the GPU, both directions, alone and "
           "together\n\n");
}

/* Size s's answer: each direction's speed together over alone, the pair's speed, and, where the
 * link is known, its share of twice the link's peak. */
static void answer_both(int s, const struct both_result *r, const struct pcie_link *link,
                        const char *link_params, const struct timing *t)
{
    static const char *const dir_keys[N_DIRECTIONS] = {"h2d", "d2h"};
    char size_key[16], text[32], key[64], what[128], params[160];
    snprintf(size_key, sizeof size_key, "size_x%d", s == 0 ? 1 : BOTH_LARGER);
    format_bytes(r->bytes, text, sizeof text);
    for (int dir = 0; dir < N_DIRECTIONS; dir++) {
        snprintf(key, sizeof key, "%s_together_over_alone_%s", dir_keys[dir], size_key);
        snprintf(what, sizeof what, "%s at %s, together over alone", direction_names[dir], text);
        struct stats ms = r->ms[TOGETHER][dir];
        exercise_record(t->csv, 3, key, what, r->ratio[dir].median, "x",
                        (struct csv_row){.direction = direction_names[dir], .bytes = r->bytes,
                                         .reps = t->reps, .ms = ms,
                                         .gbps = gbps(r->bytes, ms.median),
                                         .params = "clock=gpu_event"});
    }
    double pair_gbps = gbps(2 * r->bytes, r->pair.median);
    struct csv_row row = {.direction = "both", .bytes = 2 * r->bytes, .reps = t->reps,
                          .ms = r->pair, .gbps = pair_gbps, .params = "clock=gpu_event"};
    snprintf(key, sizeof key, "both_gbps_%s", size_key);
    snprintf(what, sizeof what, "both at once at %s, the pair's speed", text);
    exercise_record(t->csv, 3, key, what, pair_gbps, "GB/s", row);
    if (!link->known)
        return;
    snprintf(params, sizeof params, "clock=gpu_event;%s", link_params);
    row.params = params;
    snprintf(key, sizeof key, "both_share_of_twice_peak_%s", size_key);
    snprintf(what, sizeof what, "both at once at %s, share of twice the link's peak", text);
    exercise_record(t->csv, 3, key, what, 100 * pair_gbps / (2 * link->peak_gbps), "%", row);
}

void exercise_both_directions(size_t bytes, int device, int copy_engines,
                              const struct timing *t)
{
    const size_t sizes[N_SIZES] = {bytes, BOTH_LARGER * bytes};
    char link_params[96];
    struct pcie_link link = usable_link(device, sizes[1], link_params, sizeof link_params);
    struct both_buffers b = {.d = device_buffers_create(sizes[1])};
    b.h2d_src = host_holding_reference(PINNED, sizes[1], &b.d);
    b.d2h_dst = host_alloc(PINNED, sizes[1]);
    struct both_result r[N_SIZES];
    for (int s = 0; s < N_SIZES; s++)
        r[s] = measure_size(&b, sizes[s], t);
    host_free(PINNED, b.d2h_dst);
    host_free(PINNED, b.h2d_src);
    device_buffers_destroy(&b.d);
    print_both(r, &link, copy_engines, t->reps);
    for (int s = 0; s < N_SIZES; s++)
        answer_both(s, &r[s], &link, link_params, t);
}
