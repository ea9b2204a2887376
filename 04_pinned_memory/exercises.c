/*
 * exercises.c - lesson 04's exercises (README.md, "Exercises"), each run by `--exercise N` in
 * place of the lesson, with the lesson's own functions (pinned.h):
 *
 *   1. the bandwidth sweep's last two sizes with --sweep-max 4G, 1 GiB and 4 GiB, for every kind
 *      of memory in both directions, against the link's peak;
 *   2. --deep zero-copy's sparse read with a stride of 8, 32 and 256 in place of 32 alone;
 *   3. one piece of pageable and of pinned memory copied again and again, against pieces taken
 *      in turn from a ring several times the host CPU's last-level cache, both ways.
 *
 * The two sides of every ratio are measured in turns, repetition by repetition, and the ratio is
 * taken rep by rep (CONTRIBUTING.md, "Measuring"). Each answer figure is printed beside the
 * shipped reference's.
 */
#include "exercises.h"

#include <string.h>

static const char *const asks[N_EXERCISES] = {
    "run --sweep-max 4G: does any kind of memory get closer to the link's peak at 4 GiB than at "
    "1 GiB?",
    "the zero-copy gather's stride at 8, 32 and 256: where does reading mapped memory directly "
    "stop beating \"copy everything, then pick\"?",
    "16 MiB copied again and again from one buffer, or 16 MiB pieces taken in turn from one "
    "several times the CPU's last-level cache: which is faster, by about how much, and does the "
    "same hold for pinned memory as for pageable?",
};

static const char *const verified[N_EXERCISES] = {
    "the last repetition of every copy, each kind, size and direction",
    "the last repetition of both ways at every stride",
    "after the timed rounds, a D2H and an H2D copy of the hot piece and of a cold one, for "
    "each memory",
};

const char *const direction_keys[N_DIRECTIONS] = {"h2d", "d2h"};

/* A ratio's repetitions: median (range), and "~" where the range is over 5% of the median. */
void print_ratio(struct stats r)
{
    printf("%7.3f (%.3f-%.3f)%s\n", r.median, r.min, r.max, stats_unsteady(r) ? "~" : "");
}

/* ------------------------------------------------------------------------------------------ *
 * 1. --sweep-max 4G: the sweep's last two sizes, a quarter of the largest and the largest.
 * ------------------------------------------------------------------------------------------ */

enum { SMALL, LARGE };

/* A host buffer of `kind` holding the first `bytes` of d->reference, which the checks expect. */
static void *host_holding_reference(enum memory_kind kind, size_t bytes,
                                    const struct device_buffers *d)
{
    void *host = host_alloc(kind, bytes);
    CUDA_CHECK(cudaMemcpy(host, d->reference, bytes, cudaMemcpyDeviceToHost));
    return host;
}

/* Copies to and from each of n host buffers (bytes[v] of kinds[v], holding d->reference's bytes)
 * in turns, repetition by repetition, each repetition starting one buffer later, so that neither
 * the link's wander nor the order favours one; ms[(v * N_DIRECTIONS + dir) * reps + rep] gets
 * each sample, milliseconds per copy (events, as the sweep times them). The last repetition copies
 * into poisoned buffers and is verified on the GPU; its D2H copy puts the host's bytes back. */
static void copies_in_turns(int n, void *const *host, const enum memory_kind *kinds,
                            const size_t *bytes, const struct device_buffers *d,
                            const struct timing *t, double *ms)
{
    size_t reps = (size_t)t->reps;
    for (int rep = -1; rep < t->reps; rep++) { /* rep -1 warms up */
        bool last = rep == t->reps - 1;
        for (int k = 0; k < n; k++) {
            int v = (k + rep + 1) % n;
            bool gated = t->gated && kinds[v] != PAGEABLE; /* as the sweep decides */
            double cpu_ms;
            if (last) /* in the timed stream, which does not wait for the default one */
                CUDA_CHECK(cudaMemsetAsync(d->data, 0xff, bytes[v], t->stream));
            double up = sample_copies(d->data, host[v], bytes[v], cudaMemcpyHostToDevice, gated,
                                      t, &cpu_ms);
            if (last) {
                expect_reference(d->data, d, bytes[v], kind_names[kinds[v]]);
                memset(host[v], 0xff, bytes[v]);
            }
            double down = sample_copies(host[v], d->data, bytes[v], cudaMemcpyDeviceToHost,
                                        gated, t, &cpu_ms);
            if (last)
                expect_reference_on_host(host[v], d, bytes[v], kind_names[kinds[v]]);
            if (rep >= 0) {
                ms[((size_t)v * N_DIRECTIONS + UP) * reps + (size_t)rep] = up;
                ms[((size_t)v * N_DIRECTIONS + DOWN) * reps + (size_t)rep] = down;
            }
        }
    }
}

struct size_pair {
    struct stats ms[N_DIRECTIONS][2]; /* per copy, at each size */
    struct stats ratio[N_DIRECTIONS]; /* the large size's GB/s over the small one's, rep by rep */
};

/* Both sizes' copies from and to `host`, of `kind`, holding d->reference's bytes. */
static struct size_pair measure_size_pair(enum memory_kind kind, void *host, const size_t bytes[2],
                                          const struct device_buffers *d, const struct timing *t)
{
    size_t reps = (size_t)t->reps;
    double *ms = samples_or_exit(2 * N_DIRECTIONS * reps), *ratio = samples_or_exit(reps);
    copies_in_turns(2, (void *const[]){host, host}, (const enum memory_kind[]){kind, kind}, bytes,
                    d, t, ms);
    struct size_pair p;
    for (int dir = 0; dir < N_DIRECTIONS; dir++) {
        double *small = ms + (SMALL * N_DIRECTIONS + dir) * reps;
        double *large = ms + (LARGE * N_DIRECTIONS + dir) * reps;
        for (size_t rep = 0; rep < reps; rep++)
            ratio[rep] = gbps(bytes[LARGE], large[rep]) / gbps(bytes[SMALL], small[rep]);
        p.ratio[dir] = stats_summarize(ratio, reps);
        p.ms[dir][SMALL] = stats_summarize(small, reps);
        p.ms[dir][LARGE] = stats_summarize(large, reps);
    }
    free(ms);
    free(ratio);
    return p;
}

static void print_size_pairs(const struct size_pair p[N_KINDS], const size_t bytes[2],
                             const struct pcie_link *link, int reps)
{
    char text[2][32];
    for (int s = SMALL; s <= LARGE; s++)
        format_bytes(bytes[s], text[s], sizeof text[s]);
    printf("\n1. GB/s (1e9 bytes/s) at %s and %s, a quarter of --sweep-max and --sweep-max (with "
           "4G,\n   the bandwidth sweep's last two sizes), each kind's two sizes in turns, events, "
           "median of %d", text[SMALL], text[LARGE], reps);
    if (link->known)
        printf(";\n   and each figure's share of the link's peak, %.1f GB/s", link->peak_gbps);
    printf(". Last column: %s's speed\n   over %s's, rep by rep: median (range), ~ where the "
           "range is over 5%% of it\n", text[LARGE], text[SMALL]);
    printf("  %-15s %s%16s%16s   %s over %s\n", "kind", "dir", text[SMALL], text[LARGE],
           text[LARGE], text[SMALL]);
    for (int k = 0; k < N_KINDS; k++) {
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            printf("  %-15s %s", kind_names[k], direction_names[dir]);
            for (int s = SMALL; s <= LARGE; s++) {
                double rate = gbps(bytes[s], p[k].ms[dir][s].median);
                printf(" %8.2f", rate);
                if (link->known)
                    printf(" %5.1f%%", 100 * rate / link->peak_gbps);
                else
                    printf("       ");
            }
            printf("   ");
            print_ratio(p[k].ratio[dir]);
        }
    }
    printf("  the last repetition of every kind, size and direction verified on the GPU\n\n");
}

static void answer_size_pairs(const struct size_pair p[N_KINDS], const size_t bytes[2],
                              const struct timing *t)
{
    static const char *const size_keys[2] = {"small", "large"};
    for (int k = 0; k < N_KINDS; k++) {
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            char key[64], what[96], text[2][32];
            for (int s = SMALL; s <= LARGE; s++) {
                format_bytes(bytes[s], text[s], sizeof text[s]);
                double rate = gbps(bytes[s], p[k].ms[dir][s].median);
                struct csv_row row = {.direction = direction_names[dir], .bytes = bytes[s],
                                      .reps = t->reps, .ms = p[k].ms[dir][s], .gbps = rate,
                                      .params = "clock=gpu_event"};
                snprintf(key, sizeof key, "%s_%s_%s_gbps", kind_names[k], direction_keys[dir],
                         size_keys[s]);
                snprintf(what, sizeof what, "%s %s at %s", kind_names[k], direction_names[dir],
                         text[s]);
                exercise_record(t->csv, 1, key, what, rate, "GB/s", row);
            }
            struct csv_row row = {.direction = direction_names[dir], .bytes = bytes[LARGE],
                                  .reps = t->reps, .ms = p[k].ms[dir][LARGE],
                                  .gbps = gbps(bytes[LARGE], p[k].ms[dir][LARGE].median),
                                  .params = "clock=gpu_event"};
            snprintf(key, sizeof key, "%s_%s_large_over_small", kind_names[k],
                     direction_keys[dir]);
            snprintf(what, sizeof what, "%s %s, %s's speed over %s's", kind_names[k],
                     direction_names[dir], text[LARGE], text[SMALL]);
            exercise_record(t->csv, 1, key, what, p[k].ratio[dir].median, "x", row);
        }
    }
}

static void exercise_sweep_max(size_t sweep_max, int device, const struct timing *t)
{
    /* With --sweep-max 4G, the sweep's last two sizes are 1 GiB and 4 GiB: it grows by factors
     * of 4 (sweep_next_size). Whatever --sweep-max is, the exercise sets it against a quarter. */
    const size_t bytes[2] = {sweep_max / 4 / sizeof(float) * sizeof(float), sweep_max};
    char link_params[96];
    struct pcie_link link = usable_link(device, sweep_max, link_params, sizeof link_params);
    /* One host buffer of each kind at a time, holding the reference's bytes. Allocating, first
     * touching and pinning 4 GiB takes seconds, so the pageable buffer is the one the reference
     * is copied from, and is then pinned in place as the registered one. */
    float *yours = host_alloc(PAGEABLE, sweep_max);
    fill_random(yours, sweep_max / sizeof(float), 7);
    struct device_buffers d = device_buffers_holding(yours, sweep_max);
    struct size_pair p[N_KINDS];
    p[PAGEABLE] = measure_size_pair(PAGEABLE, yours, bytes, &d, t);
    p[REGISTERED] = measure_size_pair(REGISTERED, pin_in_place(yours, sweep_max), bytes, &d, t);
    host_free(REGISTERED, yours);
    for (int k = PINNED; k <= WRITE_COMBINED; k++) {
        void *host = host_holding_reference((enum memory_kind)k, sweep_max, &d);
        p[k] = measure_size_pair((enum memory_kind)k, host, bytes, &d, t);
        host_free((enum memory_kind)k, host);
    }
    device_buffers_destroy(&d);
    print_size_pairs(p, bytes, &link, t->reps);
    answer_size_pairs(p, bytes, t);
}

/* ------------------------------------------------------------------------------------------ */

int run_exercise(int n, struct common_args *args, size_t sweep_max, bool gated)
{
    /* Exercise 1 asks for --sweep-max 4G. Each of its samples is one copy of 1 or 4 GiB, long
     * enough to average the link's wander; 3 repetitions of each, in turns, take about as long
     * as allocating, filling and pinning its 4 GiB buffers (seconds), where 10 would triple it.
     * Exercise 3's copies of 16 MiB take milliseconds or less: 30 repetitions of its eight cost
     * under a second, less than filling its ring takes. */
    if (n == 1 && !cli_given("--sweep-max"))
        sweep_max = (size_t)4 << 30;
    if (n != 2 && !cli_given("--reps"))
        args->reps = n == 1 ? 3 : 30;
    /* What each holds at once, per byte of its size: 1, the sweep's three device buffers and one
     * host buffer of a kind; 2, the zero-copy part's two mapped host buffers and two device
     * buffers; 3, what hot_cold_sizes() says. */
    struct sized sizes[2] = {{"--sweep-max", &sweep_max, cli_given("--sweep-max"), 3, 1}};
    size_t n_sizes = 1;
    struct host_cache llc = {.bytes = 0};
    if (n == 2)
        sizes[0] = (struct sized){"--size", &args->size, cli_given("--size"), 2, 2};
    if (n == 3) {
        llc = host_last_level_cache();
        int rc = hot_cold_sizes(&llc, &args->size, &sweep_max, sizes);
        if (rc != CLI_CONTINUE)
            return rc;
        n_sizes = 2;
    }
    struct gpu_info gpu;
    struct csv csv;
    int rc = lesson_open("04_pinned_memory", args, sizes, n_sizes, &gpu, &csv);
    if (rc)
        return rc;
    exercise_begin(&csv, n, N_EXERCISES, asks[n - 1]);
    struct timing t = timing_create(args->reps, gated, &csv);
    if (n == 1)
        exercise_sweep_max(sweep_max, args->device, &t);
    else if (n == 2)
        exercise_strides(args->size, &t);
    else
        exercise_hot_cold(args->size, sweep_max, &llc, &t);
    timing_destroy(&t);
    if (lesson_close(&csv))
        return EXIT_ERROR;
    printf("\nverified: %s\n", verified[n - 1]);
    return EXIT_VERIFIED;
}
