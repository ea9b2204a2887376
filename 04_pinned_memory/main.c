/*
 * 04_pinned_memory - every kind of host memory, measured against the link's limit.
 *
 * Lecture section 4 and table 1's memory row. The GPU's copy engines move data by DMA, straight
 * from physical memory, so they need host memory that the operating system will neither move nor
 * swap out: pinned (page-locked) memory. From pageable memory the driver must first copy the data
 * into a pinned staging buffer with the CPU. This program measures what that means:
 *
 *   1. bandwidth by size for four kinds of host memory, both directions, and both directions at
 *      once, each figure against the best one and against the PCIe link's theoretical peak;
 *      what one small copy costs the GPU and what its call costs the CPU; and lecture 7.2's two
 *      claims tested: that 256-byte aligned host addresses copy fastest, and that fewer, larger
 *      copies beat many small ones (also as one cudaMemcpyBatchAsync, CUDA 12.8 and later);
 *   2. the CPU's side: writing and reading pinned and write-combined memory;
 *   3. mapped ("zero-copy") memory, which kernels read and write directly over PCIe;
 *   4. what pinning costs, like with like, and after how many copies it pays for itself;
 *   5. the gotcha of lesson 02, measured: how long cudaMemcpyAsync holds the CPU.
 *
 * Copies are timed with events around back-to-back cudaMemcpyAsync calls in a non-blocking
 * stream, issued while a gate (common.h) holds the stream: the events then time the copy
 * engines' work, not how fast this CPU issues calls, which for small copies is slower. (Not
 * pageable copies: their calls wait for the copy, so they cannot queue behind a gate.) Each
 * sample holds up to 16 MiB of copies, so that the events' own overhead, which lesson 03
 * measured, stays out of the small sizes' figures.
 *
 * `--exercise N` runs the README's exercise N instead (exercises.c), with these parts' functions.
 */
#include "common.h"
#include "pinned.h"
#include "zero_copy.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const char summary[] =
    "Host memory kinds measured: pageable, pinned, write-combined and registered memory by\n"
    "transfer size in both directions (and both at once), mapped zero-copy access, the cost of\n"
    "pinning, and how long cudaMemcpyAsync holds the CPU; figures against the PCIe peak.";

/* The kinds of host memory and the two directions are declared in pinned.h, which shares this
 * program's parts with its exercises (exercises.c). */
const char *const kind_names[N_KINDS] = {"pageable", "pinned", "write_combined", "registered"};
const char *const direction_names[N_DIRECTIONS] = {"H2D", "D2H"};
enum { MAX_SIZES = 32, PIN_REPS = 5 };
static const size_t PIN_BYTES = 256u << 20; /* part 4 pins this much, or --sweep-max if less */
static const size_t bytes_per_sample = 16u << 20;

/* ------------------------------------------------------------------------------------------ *
 * The four ways to get host memory for copies (section 4.2), and how to give each back.
 * ------------------------------------------------------------------------------------------ */

/* Pins `bytes` of memory you already have where they are: they become REGISTERED memory, which
 * host_free(REGISTERED, p) unpins and frees. */
void *pin_in_place(void *p, size_t bytes)
{
    CUDA_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    return p;
}

void *host_alloc(enum memory_kind kind, size_t bytes)
{
    void *p = NULL;
    switch (kind) {
    case PAGEABLE: /* what malloc gives: the driver stages every copy through pinned memory */
        p = malloc_or_exit(bytes);
        break;
    case PINNED: /* page-locked: the copy engines read and write it directly */
        CUDA_CHECK(cudaMallocHost(&p, bytes));
        break;
    case WRITE_COMBINED: /* pinned, and uncached by the CPU: made for the CPU to write and the
                            GPU to read; CPU reads of it are slow */
        CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocWriteCombined));
        break;
    case REGISTERED: /* memory you already have, pinned in place */
        p = pin_in_place(malloc_or_exit(bytes), bytes);
        break;
    case N_KINDS:
        break;
    }
    return p;
}

void host_free(enum memory_kind kind, void *p)
{
    switch (kind) {
    case PAGEABLE: free(p); break;
    case PINNED:
    case WRITE_COMBINED: CUDA_CHECK(cudaFreeHost(p)); break;
    case REGISTERED:
        CUDA_CHECK(cudaHostUnregister(p));
        free(p);
        break;
    case N_KINDS: break;
    }
}

/* ------------------------------------------------------------------------------------------ *
 * 1. Bandwidth by size.
 * ------------------------------------------------------------------------------------------ */

/* What every part times with, and where it writes what it measured: struct timing, in pinned.h. */
struct timing timing_create(int reps, bool gated, struct csv *csv)
{
    struct timing t = {.samples = samples_or_exit((size_t)reps),
                       .d2h_samples = samples_or_exit((size_t)reps),
                       .cpu_samples = samples_or_exit((size_t)reps), .gated = gated,
                       .reps = reps, .csv = csv};
    CUDA_CHECK(cudaStreamCreateWithFlags(&t.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&t.d2h_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&t.start));
    CUDA_CHECK(cudaEventCreate(&t.stop));
    CUDA_CHECK(cudaEventCreate(&t.d2h_stop));
    CUDA_CHECK(gate_create(&t.gate));
    return t;
}

void timing_destroy(struct timing *t)
{
    CUDA_CHECK(cudaEventDestroy(t->start));
    CUDA_CHECK(cudaEventDestroy(t->stop));
    CUDA_CHECK(cudaEventDestroy(t->d2h_stop));
    gate_destroy(&t->gate);
    CUDA_CHECK(cudaStreamDestroy(t->stream));
    CUDA_CHECK(cudaStreamDestroy(t->d2h_stream));
    free(t->samples);
    free(t->d2h_samples);
    free(t->cpu_samples);
}

/* Device buffers of the sweep (struct device_buffers, in pinned.h): `data` receives H2D copies
 * and sends D2H ones; `reference` holds the expected bytes, copied once from `expected`, `check`
 * a copy to compare on the GPU. */
struct device_buffers device_buffers_holding(const void *expected, size_t bytes)
{
    struct device_buffers d;
    CUDA_CHECK(cudaMalloc(&d.data, bytes));
    CUDA_CHECK(cudaMalloc(&d.reference, bytes));
    CUDA_CHECK(cudaMalloc(&d.check, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d.count, sizeof *d.count));
    CUDA_CHECK(cudaMemcpy(d.reference, expected, bytes, cudaMemcpyHostToDevice));
    return d;
}

/* The same, expecting random bytes from pageable memory. */
struct device_buffers device_buffers_create(size_t bytes)
{
    float *expected = host_alloc(PAGEABLE, bytes);
    fill_random(expected, bytes / sizeof(float), 7);
    struct device_buffers d = device_buffers_holding(expected, bytes);
    host_free(PAGEABLE, expected);
    return d;
}

void device_buffers_destroy(struct device_buffers *d)
{
    CUDA_CHECK(cudaFree(d->data));
    CUDA_CHECK(cudaFree(d->reference));
    CUDA_CHECK(cudaFree(d->check));
    CUDA_CHECK(cudaFree(d->count));
}

/* Enough copies per sample that the events' own overhead, which lesson 03 measured, stays out
 * of the small sizes' figures, and no more than can queue behind a gate. */
static int copies_per_sample(size_t bytes)
{
    size_t copies = bytes >= bytes_per_sample ? 1 : bytes_per_sample / bytes;
    return copies < GATE_MAX_QUEUED ? (int)copies : GATE_MAX_QUEUED;
}

/* Milliseconds between t->start and t->stop, once the GPU has got to t->stop. */
static double stop_clock_waited(const struct timing *t)
{
    CUDA_CHECK(cudaEventSynchronize(t->stop));
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
    return ms;
}

/* Ends a region begun by recording t->start in t->stream: milliseconds between the two. */
static double stop_clock(const struct timing *t)
{
    CUDA_CHECK(cudaEventRecord(t->stop, t->stream));
    return stop_clock_waited(t);
}

/* Ends a region that began with gate_close() and t->start: the stop event goes in while the
 * gate still holds the stream, then the gate opens and the GPU runs everything back to back. */
static double open_gate_and_time(const struct timing *t)
{
    CUDA_CHECK(cudaEventRecord(t->stop, t->stream));
    gate_open(&t->gate);
    double ms = stop_clock_waited(t);
    if (!gate_held(&t->gate))
        exit(EXIT_ERROR);
    return ms;
}

/* One sample: copies_per_sample() copies, timed with events; milliseconds per copy on the GPU,
 * and in *cpu_ms how long each call held the CPU. When `gated`, the copies are issued behind a
 * closed gate, so that the events time the copy engine's work, however slowly the CPU issues the
 * calls. Copies from or to pageable memory cannot be: their cudaMemcpyAsync waits for the copy
 * itself (lesson 02), so the host would wait for a GPU that waits for the host. */
double sample_copies(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                     bool gated, const struct timing *t, double *cpu_ms)
{
    int copies = copies_per_sample(bytes);
    if (gated)
        CUDA_CHECK(gate_close(&t->gate, t->stream));
    CUDA_CHECK(cudaEventRecord(t->start, t->stream));
    double t0 = host_ms();
    for (int c = 0; c < copies; c++)
        CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, t->stream));
    *cpu_ms = (host_ms() - t0) / copies;
    return (gated ? open_gate_and_time(t) : stop_clock(t)) / copies;
}

/* Milliseconds per copy on the GPU: median, min and max of t->reps samples after a warm-up.
 * *cpu_ms_per_call, when not NULL, gets how long each call held the CPU. */
static struct stats time_copies(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                                bool gated, const struct timing *t, struct stats *cpu_ms_per_call)
{
    for (int rep = -1; rep < t->reps; rep++) { /* rep -1 warms up */
        double cpu_ms, ms = sample_copies(dst, src, bytes, kind, gated, t, &cpu_ms);
        if (rep >= 0) {
            t->samples[rep] = ms;
            t->cpu_samples[rep] = cpu_ms;
        }
    }
    if (cpu_ms_per_call)
        *cpu_ms_per_call = stats_summarize(t->cpu_samples, (size_t)t->reps);
    return stats_summarize(t->samples, (size_t)t->reps);
}

/* Fails unless the first `bytes` of a device buffer equal the reference. Compared on the GPU, so
 * that write-combined memory is never read by the CPU. */
void expect_reference(const void *d_buffer, const struct device_buffers *d, size_t bytes,
                      const char *what)
{
    CUDA_CHECK(cudaMemset(d->count, 0, sizeof *d->count));
    CUDA_CHECK(launch_count_differences(d_buffer, d->reference, bytes / sizeof(unsigned),
                                        d->count, 0));
    unsigned long long differences;
    CUDA_CHECK(cudaMemcpy(&differences, d->count, sizeof differences, cudaMemcpyDeviceToHost));
    if (differences) {
        fprintf(stderr, "%s: %s of %zu bytes: %llu of %zu words differ\n", program_name, what,
                bytes, differences, bytes / sizeof(unsigned));
        exit(EXIT_ERROR);
    }
}

/* After a D2H copy into host memory `dst`, brings it back to the GPU and compares it there. */
void expect_reference_on_host(const void *dst, const struct device_buffers *d, size_t bytes,
                              const char *what)
{
    CUDA_CHECK(cudaMemcpy(d->check, dst, bytes, cudaMemcpyHostToDevice));
    expect_reference(d->check, d, bytes, what);
}

enum { ON_GPU, ON_CPU }; /* the two costs of one copy */

struct sweep {
    size_t sizes[MAX_SIZES];
    int n_sizes;
    double gbps[N_KINDS][N_DIRECTIONS][MAX_SIZES];
    double both_gbps[N_DIRECTIONS + 1][MAX_SIZES]; /* H2D, D2H, and their sum */
    struct stats pinned_copy_ms[2][N_DIRECTIONS][MAX_SIZES]; /* per copy: ON_GPU, ON_CPU */
};

static void sweep_kind(enum memory_kind kind, struct sweep *sw, const struct device_buffers *d,
                       const struct timing *t)
{
    size_t max_bytes = sw->sizes[sw->n_sizes - 1];
    float *src = host_alloc(kind, max_bytes), *dst = host_alloc(kind, max_bytes);
    fill_random(src, max_bytes / sizeof(float), 7); /* the data d->reference holds */
    for (int s = 0; s < sw->n_sizes; s++) {
        size_t bytes = sw->sizes[s];
        char params[192];
        bool gated = t->gated && kind != PAGEABLE;
        snprintf(params, sizeof params,
                 "clock=gpu_event;call=cudaMemcpyAsync;copies=%d;gated=%d;%s",
                 copies_per_sample(bytes), gated, t->link);

        /* In the timed stream: it is non-blocking, so it would not wait for a cudaMemset in the
         * default stream, which could then land on top of the copies. */
        CUDA_CHECK(cudaMemsetAsync(d->data, 0xff, bytes, t->stream));
        struct stats (*per_call)[MAX_SIZES] = sw->pinned_copy_ms[ON_CPU];
        bool pinned = kind == PINNED;
        struct stats up = time_copies(d->data, src, bytes, cudaMemcpyHostToDevice, gated, t,
                                      pinned ? &per_call[UP][s] : NULL);
        expect_reference(d->data, d, bytes, "H2D copy");
        memset(dst, 0xff, bytes);
        struct stats down = time_copies(dst, d->data, bytes, cudaMemcpyDeviceToHost, gated, t,
                                        pinned ? &per_call[DOWN][s] : NULL);
        expect_reference_on_host(dst, d, bytes, "D2H copy");
        if (pinned) {
            sw->pinned_copy_ms[ON_GPU][UP][s] = up;
            sw->pinned_copy_ms[ON_GPU][DOWN][s] = down;
        }

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
    host_free(kind, src);
    host_free(kind, dst);
}

/* Both directions at once, from pinned memory: H2D in one stream, D2H in another, started
 * together by one event. */
static void sweep_both_directions(struct sweep *sw, const struct device_buffers *d,
                                  const struct timing *t)
{
    size_t max_bytes = sw->sizes[sw->n_sizes - 1];
    float *src = host_alloc(PINNED, max_bytes), *dst = host_alloc(PINNED, max_bytes);
    fill_random(src, max_bytes / sizeof(float), 7);
    double *sum = samples_or_exit((size_t)t->reps);
    for (int s = 0; s < sw->n_sizes; s++) {
        size_t bytes = sw->sizes[s];
        int copies = copies_per_sample(bytes);
        CUDA_CHECK(cudaMemsetAsync(d->data, 0xff, bytes, t->stream)); /* else it holds the
                                                                           reference already */
        memset(dst, 0xff, bytes);
        for (int rep = -1; rep < t->reps; rep++) {
            /* Both streams start from t->start, behind the gate: the copies in both directions
             * run at the GPU's pace, not at the pace one CPU thread issues them. */
            if (t->gated)
                CUDA_CHECK(gate_close(&t->gate, t->stream));
            CUDA_CHECK(cudaEventRecord(t->start, t->stream));
            CUDA_CHECK(cudaStreamWaitEvent(t->d2h_stream, t->start, 0));
            for (int c = 0; c < copies; c++) {
                CUDA_CHECK(cudaMemcpyAsync(d->data, src, bytes, cudaMemcpyHostToDevice,
                                           t->stream));
                CUDA_CHECK(cudaMemcpyAsync(dst, d->reference, bytes, cudaMemcpyDeviceToHost,
                                           t->d2h_stream));
            }
            CUDA_CHECK(cudaEventRecord(t->d2h_stop, t->d2h_stream));
            double up_ms = t->gated ? open_gate_and_time(t) : stop_clock(t);
            float down_ms;
            CUDA_CHECK(cudaEventSynchronize(t->d2h_stop));
            CUDA_CHECK(cudaEventElapsedTime(&down_ms, t->start, t->d2h_stop));
            if (rep >= 0) {
                t->samples[rep] = up_ms / copies;
                t->d2h_samples[rep] = down_ms / copies;
                sum[rep] = fmax(up_ms, down_ms) / copies;
            }
        }
        expect_reference(d->data, d, bytes, "H2D copy (both directions at once)");
        expect_reference_on_host(dst, d, bytes, "D2H copy (both directions at once)");

        struct stats up = stats_summarize(t->samples, (size_t)t->reps);
        struct stats down = stats_summarize(t->d2h_samples, (size_t)t->reps);
        struct stats both = stats_summarize(sum, (size_t)t->reps);
        sw->both_gbps[UP][s] = gbps(bytes, up.median);
        sw->both_gbps[DOWN][s] = gbps(bytes, down.median);
        sw->both_gbps[N_DIRECTIONS][s] = gbps(2 * bytes, both.median);
        char params[96];
        snprintf(params, sizeof params,
                 "clock=gpu_event;call=cudaMemcpyAsync;copies=%d;streams=2;gated=%d", copies,
                 t->gated);
        csv_record(t->csv, &(struct csv_row){.experiment = "bandwidth_bidirectional",
                                             .variant = "pinned", .direction = "H2D",
                                             .bytes = bytes, .reps = t->reps, .ms = up,
                                             .gbps = sw->both_gbps[UP][s], .params = params});
        csv_record(t->csv, &(struct csv_row){.experiment = "bandwidth_bidirectional",
                                             .variant = "pinned", .direction = "D2H",
                                             .bytes = bytes, .reps = t->reps, .ms = down,
                                             .gbps = sw->both_gbps[DOWN][s], .params = params});
        csv_record(t->csv, &(struct csv_row){.experiment = "bandwidth_bidirectional",
                                             .variant = "pinned", .direction = "both",
                                             .bytes = 2 * bytes, .reps = t->reps, .ms = both,
                                             .gbps = sw->both_gbps[N_DIRECTIONS][s],
                                             .params = params});
    }
    free(sum);
    host_free(PINNED, src);
    host_free(PINNED, dst);
}

static void print_sweep(const struct sweep *sw, int reps)
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

/* Each kind's figure at the largest size, against the best pinned figure and the link's peak. */
static void print_against_limits(const struct sweep *sw, const struct pcie_link *link)
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
    for (int k = 0; k < N_KINDS; k++) {
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            double rate = sw->gbps[k][dir][last];
            printf("    %-15s %s %8.2f GB/s  %5.1f%% of best", kind_names[k], direction_names[dir],
                   rate, 100 * rate / best);
            if (link->known)
                printf("  %5.1f%% of peak", 100 * rate / link->peak_gbps);
            printf("\n");
        }
    }
    for (int dir = 0; dir <= N_DIRECTIONS; dir++) {
        double rate = sw->both_gbps[dir][last];
        printf("    %-15s %s %8.2f GB/s  %5.1f%% of best", "both at once",
               dir < N_DIRECTIONS ? direction_names[dir] : "sum", rate, 100 * rate / best);
        if (link->known)
            printf("  %5.1f%% of peak%s", 100 * rate / link->peak_gbps,
                   dir == N_DIRECTIONS ? " (one direction's)" : "");
        printf("\n");
    }
}

/* 1b. Small copies cost the GPU a copy engine's time, and the CPU the call that issues them.
 * Which is larger decides how fast a pipeline of small chunks issued from one thread can go. */
static void print_per_copy_cost(const struct sweep *sw, const struct timing *t)
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

/* 1c. Lecture 7.2 says copies to and from 256-byte aligned host addresses are fastest, "especially
 * with pinned memory". The same bytes copied from and to host addresses that many bytes past an
 * aligned one, pinned and pageable, both directions, up to 64 MiB. */
static const size_t align_offsets[] = {0, 1, 4, 64, 256, 4096};
enum { N_OFFSETS = sizeof align_offsets / sizeof align_offsets[0], ALIGN_MAX_BYTES = 64 << 20 };
static const enum memory_kind align_kinds[] = {PINNED, PAGEABLE};

static char *page_aligned(char *p)
{
    return p + (4096 - (uintptr_t)p % 4096) % 4096;
}

/* Every sample of part 1c: milliseconds per copy, by direction, offset, size and repetition. */
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
                              const struct alignment_samples *a, const struct device_buffers *d,
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

static void alignment(const struct sweep *sw, const struct device_buffers *d,
                      const struct timing *t)
{
    struct alignment_samples a = {.reps = t->reps};
    while (a.n_sizes < sw->n_sizes && sw->sizes[a.n_sizes] <= ALIGN_MAX_BYTES)
        a.n_sizes++;
    a.ms = samples_or_exit((size_t)N_DIRECTIONS * N_OFFSETS * (size_t)a.n_sizes * (size_t)a.reps);
    printf("\n1c. lecture 7.2: \"transfers to 256-byte aligned addresses are usually fastest, "
           "especially\n    pinned\". GB/s with the host address this many bytes past a page "
           "boundary, events,\n    median of %d; offsets in turns. Last column: this offset's "
           "speed over offset 0's, rep by\n    rep, averaged over the sizes: median (range), "
           "~ where the range is over 5%% of it\n", t->reps);
    for (int k = 0; k < 2; k++) {
        alignment_measure(align_kinds[k], sw->sizes, &a, d, t);
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
}

/* 1d. Lecture 7.2: "the more data each transfer moves, the more efficient it is". The same bytes
 * of pinned memory in pieces, issued one call per piece, as one copy, and as one batched call. */
enum { ONE_CALL_EACH, ONE_COPY, BATCH_CALL, N_BATCH_WAYS };
static const char *const batch_ways[N_BATCH_WAYS] = {"one_call_each", "one_copy", "batch_call"};

#if CUDART_VERSION >= 12080
#define HAVE_BATCH_COPY 1
/* Every piece in one call; the toolkit's signature changed in 13.0 (failIdx went away). */
static cudaError_t copy_batched(void **dsts, void **srcs, size_t *sizes, size_t count,
                                cudaStream_t stream)
{
    struct cudaMemcpyAttributes in_order = {.srcAccessOrder = cudaMemcpySrcAccessOrderStream};
    size_t first = 0;
#if CUDART_VERSION >= 13000
    return cudaMemcpyBatchAsync(dsts, (const void *const *)srcs, sizes, count, &in_order, &first,
                                1, stream);
#else
    size_t failed = SIZE_MAX;
    cudaError_t err = cudaMemcpyBatchAsync(dsts, srcs, sizes, count, &in_order, &first, 1,
                                           &failed, stream);
    if (err != cudaSuccess && failed != SIZE_MAX)
        fprintf(stderr, "%s: cudaMemcpyBatchAsync refused copy %zu of %zu\n", program_name,
                failed, count);
    return err;
#endif
}
#else
#define HAVE_BATCH_COPY 0
#endif

/* Whether one batched call can be timed here: the toolkit must have it, and the driver too (a
 * program built with 12.8 may run on an older driver). Says why not, when not. */
static bool batch_copy_available(void)
{
    int driver = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    if (!HAVE_BATCH_COPY || driver < 12080) {
        printf("  one batched call: cudaMemcpyBatchAsync needs CUDA 12.8 or later, in the toolkit "
               "and the\n  driver; this program was built with %d.%d and the driver supports "
               "%d.%d\n", CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, driver / 1000,
               driver % 1000 / 10);
        return false;
    }
    return true;
}

/* The same `count` pieces of `piece` bytes, one way. */
static void issue_pieces(int way, void **dsts, void **srcs, size_t *sizes, size_t count,
                         enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (way == ONE_COPY)
        CUDA_CHECK(cudaMemcpyAsync(dsts[0], srcs[0], count * sizes[0], kind, stream));
    for (size_t i = 0; way == ONE_CALL_EACH && i < count; i++)
        CUDA_CHECK(cudaMemcpyAsync(dsts[i], srcs[i], sizes[i], kind, stream));
#if HAVE_BATCH_COPY
    if (way == BATCH_CALL)
        CUDA_CHECK(copy_batched(dsts, srcs, sizes, count, stream));
#endif
}

/* The ways in turns, repetition by repetition, each timed on the host clock from the first call
 * until cudaStreamSynchronize returns: the CPU's issuing is part of what batching saves, so it is
 * part of the figure. The last repetition of each way is verified. ms[way] gets its statistics. */
static void time_pieces(int ways, void *dst, void *src, size_t piece, size_t count,
                        enum cudaMemcpyKind kind, const struct device_buffers *d,
                        const struct timing *t, struct stats ms[N_BATCH_WAYS])
{
    void **dsts = malloc_or_exit(count * sizeof *dsts);
    void **srcs = malloc_or_exit(count * sizeof *srcs);
    size_t *sizes = malloc_or_exit(count * sizeof *sizes);
    double *samples = samples_or_exit((size_t)N_BATCH_WAYS * (size_t)t->reps);
    for (size_t i = 0; i < count; i++) {
        dsts[i] = (char *)dst + i * piece;
        srcs[i] = (char *)src + i * piece;
        sizes[i] = piece;
    }
    for (int rep = -1; rep < t->reps; rep++) {
        for (int k = 0; k < ways; k++) {
            int way = (k + rep + 1) % ways; /* each repetition starts one way later */
            if (kind == cudaMemcpyHostToDevice)
                CUDA_CHECK(cudaMemsetAsync(dst, 0xff, count * piece, t->stream));
            else
                memset(dst, 0xff, count * piece);
            CUDA_CHECK(cudaStreamSynchronize(t->stream));
            double t0 = host_ms();
            issue_pieces(way, dsts, srcs, sizes, count, kind, t->stream);
            CUDA_CHECK(cudaStreamSynchronize(t->stream));
            if (rep >= 0)
                samples[way * t->reps + rep] = host_ms() - t0;
            if (rep == t->reps - 1 && kind == cudaMemcpyHostToDevice)
                expect_reference(dst, d, count * piece, batch_ways[way]);
            else if (rep == t->reps - 1)
                expect_reference_on_host(dst, d, count * piece, batch_ways[way]);
        }
    }
    for (int way = 0; way < ways; way++)
        ms[way] = stats_summarize(samples + way * t->reps, (size_t)t->reps);
    free(samples);
    free(dsts);
    free(srcs);
    free(sizes);
}

static void batching(size_t total, const struct device_buffers *d, const struct timing *t)
{
    const size_t pieces[] = {4096, 64 << 10};
    void *src = host_alloc(PINNED, total), *dst = host_alloc(PINNED, total);
    fill_random(src, total / sizeof(float), 7);
    char size_text[32];
    printf("\n1d. lecture 7.2, batching: %s of pinned memory in pieces; host clock from the first "
           "call\n    until cudaStreamSynchronize returns, the ways in turns, median of %d (~: "
           "range over 5%%)\n", format_bytes(total, size_text, sizeof size_text), t->reps);
    int ways = batch_copy_available() ? N_BATCH_WAYS : BATCH_CALL;
    printf("  %9s %7s %4s %18s %18s %18s\n", "piece", "pieces", "dir", "one call each",
           "one copy", "one batched call");
    for (size_t p = 0; p < sizeof pieces / sizeof pieces[0] && pieces[p] <= total; p++) {
        size_t count = total / pieces[p];
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            bool up = dir == UP;
            struct stats ms[N_BATCH_WAYS];
            time_pieces(ways, up ? d->data : dst, up ? src : d->reference, pieces[p], count,
                        up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, d, t, ms);
            printf("  %9s %7zu %4s", format_bytes(pieces[p], size_text, sizeof size_text), count,
                   direction_names[dir]);
            for (int way = 0; way < ways; way++) {
                double rate = gbps(count * pieces[p], ms[way].median);
                printf(" %7.3f%s ms %5.1f GB/s", ms[way].median,
                       stats_unsteady(ms[way]) ? "~" : " ", rate);
                char params[96];
                snprintf(params, sizeof params, "piece_bytes=%zu;pieces=%zu;clock=host;"
                         "measure=issue_to_done", pieces[p], count);
                csv_record(t->csv, &(struct csv_row){.experiment = "batching",
                                                     .variant = batch_ways[way],
                                                     .direction = direction_names[dir],
                                                     .bytes = count * pieces[p], .reps = t->reps,
                                                     .ms = ms[way], .gbps = rate,
                                                     .params = params});
            }
            printf("%s\n", ways < N_BATCH_WAYS ? "                  -" : "");
        }
    }
    printf("  the last repetition of every way verified on the GPU\n");
    host_free(PINNED, src);
    host_free(PINNED, dst);
}

/* Part 1 whole: every kind, both directions, and both at once, size by size, then the tables. */
static void bandwidth_by_size(size_t sweep_max, const struct pcie_link *link,
                              const struct timing *t, struct sweep *sw)
{
    *sw = (struct sweep){.n_sizes = 0};
    for (size_t b = SWEEP_MIN_BYTES; b <= sweep_max && sw->n_sizes < MAX_SIZES;
         b = sweep_next_size(b, sweep_max))
        sw->sizes[sw->n_sizes++] = b;
    struct device_buffers d = device_buffers_create(sweep_max);

    for (int k = 0; k < N_KINDS; k++)
        sweep_kind((enum memory_kind)k, sw, &d, t);
    sweep_both_directions(sw, &d, t);
    print_sweep(sw, t->reps);
    print_against_limits(sw, link);
    print_per_copy_cost(sw, t);
    alignment(sw, &d, t);
    batching(sweep_max < bytes_per_sample ? sweep_max : bytes_per_sample, &d, t);
    device_buffers_destroy(&d);
}

/* ------------------------------------------------------------------------------------------ *
 * 2. The CPU's side: write-combined memory is meant for the CPU to write and the GPU to read.
 * ------------------------------------------------------------------------------------------ */

/* One repetition: the CPU writes `bytes` of `buffer` (memset), then reads them (a sum of 64-bit
 * words), each on the host clock; the sum is checked. */
void cpu_write_read(uint64_t *buffer, size_t bytes, int rep, enum memory_kind kind,
                    double *write_ms, double *read_ms)
{
    const size_t n = bytes / sizeof(uint64_t);
    /* A byte pattern that changes with rep, so the compiler cannot know what the sum will read,
     * and every repetition's sum can be checked. */
    unsigned char pattern = (unsigned char)(0x3c + (rep & 1));
    uint64_t word;
    memset(&word, pattern, sizeof word);
    double t0 = host_ms();
    memset(buffer, pattern, bytes);
    double t1 = host_ms();
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += buffer[i];
    double t2 = host_ms();
    if (sum != n * word) { /* both sides wrap around modulo 2^64 alike */
        fprintf(stderr, "%s: %s memory read back wrong: sum %#llx, want %#llx\n", program_name,
                kind_names[kind], (unsigned long long)sum, (unsigned long long)(n * word));
        exit(EXIT_ERROR);
    }
    *write_ms = t1 - t0;
    *read_ms = t2 - t1;
}

enum { CPU_ACCESS_BYTES = 4 << 20 };

static void cpu_access(const struct timing *t)
{
    const size_t bytes = CPU_ACCESS_BYTES;
    const enum memory_kind kinds[] = {PINNED, WRITE_COMBINED};
    printf("\n2. the CPU writing (memset) and reading (a sum of 64-bit words) 4 MiB of host "
           "memory,\n   host clock, median of %d\n", t->reps);
    for (int k = 0; k < 2; k++) {
        uint64_t *buffer = host_alloc(kinds[k], bytes);
        double *read_ms = samples_or_exit((size_t)t->reps);
        for (int rep = -1; rep < t->reps; rep++) {
            double write_ms_once, read_ms_once;
            cpu_write_read(buffer, bytes, rep, kinds[k], &write_ms_once, &read_ms_once);
            if (rep >= 0) {
                t->samples[rep] = write_ms_once;
                read_ms[rep] = read_ms_once;
            }
        }
        struct stats write = stats_summarize(t->samples, (size_t)t->reps);
        struct stats read = stats_summarize(read_ms, (size_t)t->reps);
        printf("  %-15s write %8.3f ms (%6.2f GB/s)   read %8.3f ms (%6.2f GB/s)\n",
               kind_names[kinds[k]], write.median, gbps(bytes, write.median), read.median,
               gbps(bytes, read.median));
        csv_record(t->csv, &(struct csv_row){.experiment = "cpu_access",
                                             .variant = kind_names[kinds[k]], .bytes = bytes,
                                             .reps = t->reps, .ms = write,
                                             .gbps = gbps(bytes, write.median),
                                             .params = "clock=host;measure=cpu_write"});
        csv_record(t->csv, &(struct csv_row){.experiment = "cpu_access",
                                             .variant = kind_names[kinds[k]], .bytes = bytes,
                                             .reps = t->reps, .ms = read,
                                             .gbps = gbps(bytes, read.median),
                                             .params = "clock=host;measure=cpu_read"});
        free(read_ms);
        host_free(kinds[k], buffer);
    }
}

/* ------------------------------------------------------------------------------------------ *
 * 3. Mapped (zero-copy) memory: kernels that reach across PCIe themselves.
 * ------------------------------------------------------------------------------------------ */

/* dst[i] = src[i * stride] for i < n_out, once, timed with events. src or dst may be mapped
 * host memory. */
double gather_ms(const float *src, float *dst, size_t n_out, size_t stride,
                 const struct timing *t)
{
    CUDA_CHECK(cudaEventRecord(t->start, t->stream));
    CUDA_CHECK(launch_gather(src, dst, n_out, stride, t->stream));
    return stop_clock(t);
}

/* The usual way instead: copy all of h_src to d_src, then gather from it on the GPU; once. */
double copy_then_gather_ms(const float *h_src, float *d_src, size_t bytes, float *dst,
                           size_t n_out, size_t stride, const struct timing *t)
{
    CUDA_CHECK(cudaEventRecord(t->start, t->stream));
    CUDA_CHECK(cudaMemcpyAsync(d_src, h_src, bytes, cudaMemcpyHostToDevice, t->stream));
    CUDA_CHECK(launch_gather(d_src, dst, n_out, stride, t->stream));
    return stop_clock(t);
}

static struct stats time_gather(const float *src, float *dst, size_t n_out, size_t stride,
                                const struct timing *t)
{
    for (int rep = -1; rep < t->reps; rep++) { /* rep -1 warms up */
        double ms = gather_ms(src, dst, n_out, stride, t);
        if (rep >= 0)
            t->samples[rep] = ms;
    }
    return stats_summarize(t->samples, (size_t)t->reps);
}

static struct stats time_copy_then_gather(const float *h_src, float *d_src, size_t bytes,
                                          float *dst, size_t n_out, size_t stride,
                                          const struct timing *t)
{
    for (int rep = -1; rep < t->reps; rep++) {
        double ms = copy_then_gather_ms(h_src, d_src, bytes, dst, n_out, stride, t);
        if (rep >= 0)
            t->samples[rep] = ms;
    }
    return stats_summarize(t->samples, (size_t)t->reps);
}

void expect_gathered(const float *h_result, const float *h_src, size_t n_out, size_t stride,
                     const char *what)
{
    for (size_t i = 0; i < n_out; i++) {
        if (h_result[i] != h_src[i * stride]) {
            fprintf(stderr, "%s: %s: element %zu is %.9g, want %.9g\n", program_name, what, i,
                    h_result[i], h_src[i * stride]);
            exit(EXIT_ERROR);
        }
    }
}

/* Part 3's buffers (struct mapped_buffers, in pinned.h). Mapped: pinned, and visible to kernels
 * at the address cudaHostGetDevicePointer gives. */
struct mapped_buffers mapped_create(size_t bytes)
{
    struct mapped_buffers m;
    CUDA_CHECK(cudaHostAlloc((void **)&m.h_src, bytes, cudaHostAllocMapped));
    CUDA_CHECK(cudaHostAlloc((void **)&m.h_dst, bytes, cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&m.src_view, m.h_src, 0));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&m.dst_view, m.h_dst, 0));
    CUDA_CHECK(cudaMalloc((void **)&m.d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&m.d_b, bytes));
    fill_random(m.h_src, bytes / sizeof(float), 8);
    CUDA_CHECK(cudaMemcpy(m.d_b, m.h_src, bytes, cudaMemcpyHostToDevice));
    return m;
}

void mapped_destroy(struct mapped_buffers *m)
{
    CUDA_CHECK(cudaFree(m->d_a));
    CUDA_CHECK(cudaFree(m->d_b));
    CUDA_CHECK(cudaFreeHost(m->h_src));
    CUDA_CHECK(cudaFreeHost(m->h_dst));
}

static void print_zero_copy(size_t bytes, size_t stride, struct stats read, struct stats write,
                            struct stats sparse, struct stats copy_all, const struct timing *t)
{
    char size_text[32], params[64];
    printf("\n3. mapped (zero-copy) memory, %s, events, median of %d\n",
           format_bytes(bytes, size_text, sizeof size_text), t->reps);
    printf("  a kernel reads host memory directly     %8.3f ms  %8.2f GB/s\n", read.median,
           gbps(bytes, read.median));
    printf("  a kernel writes host memory directly    %8.3f ms  %8.2f GB/s\n", write.median,
           gbps(bytes, write.median));
    printf("  using 1 float in %zu: read those across PCIe  %8.3f ms\n", stride, sparse.median);
    printf("  using 1 float in %zu: copy all, then pick     %8.3f ms\n", stride,
           copy_all.median);
    csv_record(t->csv, &(struct csv_row){.experiment = "zero_copy", .variant = "mapped_read",
                                         .direction = "H2D", .bytes = bytes, .reps = t->reps,
                                         .ms = read, .gbps = gbps(bytes, read.median),
                                         .params = "clock=gpu_event;kernel=gather"});
    csv_record(t->csv, &(struct csv_row){.experiment = "zero_copy", .variant = "mapped_write",
                                         .direction = "D2H", .bytes = bytes, .reps = t->reps,
                                         .ms = write, .gbps = gbps(bytes, write.median),
                                         .params = "clock=gpu_event;kernel=gather"});
    snprintf(params, sizeof params, "clock=gpu_event;stride=%zu", stride);
    csv_record(t->csv, &(struct csv_row){.experiment = "zero_copy", .variant = "sparse_mapped_read",
                                         .direction = "H2D", .bytes = bytes, .reps = t->reps,
                                         .ms = sparse, .params = params});
    csv_record(t->csv, &(struct csv_row){.experiment = "zero_copy",
                                         .variant = "sparse_copy_then_gather", .direction = "H2D",
                                         .bytes = bytes, .reps = t->reps, .ms = copy_all,
                                         .params = params});
}

/* Part 3 whole, using 1 float in SPARSE_STRIDE in its second half. */
static void zero_copy(size_t bytes, const struct timing *t)
{
    const size_t n = bytes / sizeof(float), stride = SPARSE_STRIDE, n_sparse = n / stride;
    struct mapped_buffers m = mapped_create(bytes);

    /* A kernel reads host memory into device memory, then writes device memory to the host. */
    struct stats read = time_gather(m.src_view, m.d_a, n, 1, t);
    CUDA_CHECK(cudaMemcpy(m.h_dst, m.d_a, bytes, cudaMemcpyDeviceToHost));
    expect_gathered(m.h_dst, m.h_src, n, 1, "kernel read of mapped memory");
    memset(m.h_dst, 0xff, bytes);
    struct stats write = time_gather(m.d_b, m.dst_view, n, 1, t);
    expect_gathered(m.h_dst, m.h_src, n, 1, "kernel write to mapped memory");

    /* Using 1 float in `stride`: read just those across PCIe, or copy everything and pick on the
     * GPU. */
    struct stats sparse = time_gather(m.src_view, m.d_a, n_sparse, stride, t);
    CUDA_CHECK(cudaMemcpy(m.h_dst, m.d_a, n_sparse * sizeof(float), cudaMemcpyDeviceToHost));
    expect_gathered(m.h_dst, m.h_src, n_sparse, stride, "sparse read of mapped memory");
    CUDA_CHECK(cudaMemsetAsync(m.d_a, 0xff, bytes, t->stream)); /* the stream the gather runs in */
    struct stats copy_all = time_copy_then_gather(m.h_src, m.d_b, bytes, m.d_a, n_sparse, stride,
                                                  t);
    CUDA_CHECK(cudaMemcpy(m.h_dst, m.d_a, n_sparse * sizeof(float), cudaMemcpyDeviceToHost));
    expect_gathered(m.h_dst, m.h_src, n_sparse, stride, "copy, then gather");

    print_zero_copy(bytes, stride, read, write, sparse, copy_all, t);
    mapped_destroy(&m);
}

/* ------------------------------------------------------------------------------------------ *
 * 4. What pinning costs (host clock), and when it pays back.
 * ------------------------------------------------------------------------------------------ */

/* Each operation, timed on its own; the first four pin memory malloc gave, in place. */
enum {
    MALLOC_TOUCH, HOST_REGISTER, HOST_UNREGISTER, FREE, REGISTER_UNTOUCHED, MALLOC_HOST,
    FREE_HOST, N_PIN_OPS
};
static const struct { const char *variant, *name; } pin_ops[N_PIN_OPS] = {
    [MALLOC_TOUCH] = {"malloc_touch", "malloc + first touch"},
    [HOST_REGISTER] = {"host_register", "cudaHostRegister"},
    [HOST_UNREGISTER] = {"host_unregister", "cudaHostUnregister"},
    [FREE] = {"free", "free"},
    [REGISTER_UNTOUCHED] = {"host_register_untouched", "cudaHostRegister, untouched"},
    [MALLOC_HOST] = {"malloc_host", "cudaMallocHost"},
    [FREE_HOST] = {"free_host", "cudaFreeHost"},
};

/* One repetition of every operation, into times[]. */
static void pin_once(size_t bytes, double times[N_PIN_OPS])
{
    double t0 = host_ms();
    char *p = malloc_or_exit(bytes);
    memset(p, 1, bytes); /* the operating system maps the pages only when first touched */
    double t1 = host_ms();
    CUDA_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    double t2 = host_ms();
    CUDA_CHECK(cudaHostUnregister(p));
    double t3 = host_ms();
    free(p);
    double t4 = host_ms();
    p = malloc_or_exit(bytes); /* pages not mapped yet: registering must map them */
    double t5 = host_ms();
    CUDA_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    double t6 = host_ms();
    CUDA_CHECK(cudaHostUnregister(p));
    free(p);
    void *q;
    double t7 = host_ms();
    CUDA_CHECK(cudaMallocHost(&q, bytes));
    double t8 = host_ms();
    CUDA_CHECK(cudaFreeHost(q));
    double t9 = host_ms();
    const double each[N_PIN_OPS] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3, t6 - t5, t8 - t7, t9 - t8};
    memcpy(times, each, sizeof each);
}

static void pinning_cost(size_t bytes, const struct sweep *sw, const struct timing *t)
{
    double samples[N_PIN_OPS][PIN_REPS], in_place[PIN_REPS];
    for (int rep = 0; rep < PIN_REPS; rep++) {
        double times[N_PIN_OPS];
        pin_once(bytes, times);
        for (int op = 0; op < N_PIN_OPS; op++)
            samples[op][rep] = times[op];
        in_place[rep] = times[MALLOC_TOUCH] + times[HOST_REGISTER];
    }
    char size_text[32];
    double gib = (double)bytes / (1u << 30);
    printf("\n4. the cost of %s of host memory, host clock, median of %d\n",
           format_bytes(bytes, size_text, sizeof size_text), PIN_REPS);
    struct stats cost[N_PIN_OPS];
    for (int op = 0; op < N_PIN_OPS; op++) {
        cost[op] = stats_summarize(samples[op], PIN_REPS);
        printf("  %-30s %9.2f ms  %9.2f ms per GiB\n", pin_ops[op].name, cost[op].median,
               cost[op].median / gib);
        csv_record(t->csv, &(struct csv_row){.experiment = "pin_cost",
                                             .variant = pin_ops[op].variant, .bytes = bytes,
                                             .reps = PIN_REPS, .ms = cost[op],
                                             .params = "clock=host"});
    }
    /* Like with like: memory that ends up pinned and written once, either way. */
    struct stats yours = stats_summarize(in_place, PIN_REPS);
    csv_record(t->csv, &(struct csv_row){.experiment = "pin_cost",
                                         .variant = "malloc_touch_register", .bytes = bytes,
                                         .reps = PIN_REPS, .ms = yours, .params = "clock=host"});
    printf("  like with like, pinned memory ready to use: malloc + first touch + cudaHostRegister\n"
           "  %.2f ms, cudaMallocHost %.2f ms\n", yours.median, cost[MALLOC_HOST].median);
    /* Pinning in place pays once the copies it speeds up have saved what it cost. */
    int last = sw->n_sizes - 1;
    double pageable_ms = bytes / (sw->gbps[PAGEABLE][UP][last] * 1e6);
    double pinned_ms = bytes / (sw->gbps[REGISTERED][UP][last] * 1e6);
    double pin_ms = cost[HOST_REGISTER].median + cost[HOST_UNREGISTER].median;
    printf("  registering memory you already have and unregistering it cost %.2f ms; each H2D\n"
           "  copy of it then takes %.2f ms instead of %.2f: pinning pays back after %.1f copies\n",
           pin_ms, pinned_ms, pageable_ms, pin_ms / (pageable_ms - pinned_ms));
}

/* ------------------------------------------------------------------------------------------ *
 * 5. The gotcha: how long does cudaMemcpyAsync itself take to return?
 * ------------------------------------------------------------------------------------------ */

static void async_gotcha(size_t bytes, const struct timing *t)
{
    void *host[2] = {host_alloc(PAGEABLE, bytes), host_alloc(PINNED, bytes)};
    const enum memory_kind kinds[2] = {PAGEABLE, PINNED};
    void *d_buffer;
    CUDA_CHECK(cudaMalloc(&d_buffer, bytes));
    char size_text[32];
    printf("\n5. how long one cudaMemcpyAsync of %s holds the CPU, host clock, median of %d\n",
           format_bytes(bytes, size_text, sizeof size_text), t->reps);
    for (int k = 0; k < 2; k++) {
        fill_random(host[k], bytes / sizeof(float), 9);
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            for (int rep = -1; rep < t->reps; rep++) {
                double t0 = host_ms();
                if (dir == UP)
                    CUDA_CHECK(cudaMemcpyAsync(d_buffer, host[k], bytes, cudaMemcpyHostToDevice,
                                               t->stream));
                else
                    CUDA_CHECK(cudaMemcpyAsync(host[k], d_buffer, bytes, cudaMemcpyDeviceToHost,
                                               t->stream));
                double returned = host_ms() - t0;
                CUDA_CHECK(cudaStreamSynchronize(t->stream));
                if (rep >= 0)
                    t->samples[rep] = returned;
            }
            struct stats s = stats_summarize(t->samples, (size_t)t->reps);
            printf("  %-9s %s returned after %9.3f ms\n", kind_names[kinds[k]],
                   direction_names[dir], s.median);
            csv_record(t->csv, &(struct csv_row){.experiment = "async_blocking",
                                                 .variant = kind_names[kinds[k]],
                                                 .direction = direction_names[dir], .bytes = bytes,
                                                 .reps = t->reps, .ms = s,
                                                 .params = "clock=host;measure=call_returned"});
        }
    }
    CUDA_CHECK(cudaFree(d_buffer));
    host_free(PAGEABLE, host[0]);
    host_free(PINNED, host[1]);
}

/* The link as it runs while copies keep it busy: an idle GPU drops to a slower link, and takes
 * a while to speed up again, so the link is read every millisecond while the copies last, and
 * the fastest reading taken while they were still running counts. */
enum { LINK_PROBE_BYTES = 64u << 20, LINK_PROBE_COPIES = 16 };
static struct pcie_link link_while_copying(int device, size_t bytes)
{
    void *host = host_alloc(PINNED, bytes), *dev;
    CUDA_CHECK(cudaMalloc(&dev, bytes));
    for (int i = 0; i < LINK_PROBE_COPIES; i++)
        CUDA_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, 0));
    struct pcie_link fastest = {.why_unknown = "the copies ended before the link was read"};
    for (double t0 = host_ms(); cudaStreamQuery(0) == cudaErrorNotReady;) {
        struct pcie_link now = gpu_pcie_link_now(device);
        if (!now.known) {
            fastest = now;
            break;
        }
        if (now.peak_gbps > fastest.peak_gbps)
            fastest = now;
        for (double t = host_ms(); host_ms() - t < 1.0;)
            ;
        if (host_ms() - t0 > 1000) /* the copies are stuck: a wait below reports it */
            break;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(dev));
    host_free(PINNED, host);
    return fastest;
}

/* The link's peak, against which the sweep's figures are read: the usable maximum where the
 * ports above the GPU show it, else the link as it ran; never the GPU's own maximum alone, which
 * a slower slot caps. The GPU's own link running faster than the maximum of the port at its
 * other end says that the ports are a VM's inventions. Printed, and described in `params` for
 * the bandwidth rows. The copies that keep the link busy are of at most `bytes`, the largest
 * the run has room for. */
struct pcie_link usable_link(int device, size_t bytes, char *params, size_t len)
{
    size_t probe = bytes < LINK_PROBE_BYTES ? bytes : LINK_PROBE_BYTES;
    struct pcie_link most = gpu_pcie_link(device), now = link_while_copying(device, probe);
    bool invented = most.upstream_seen && now.known && now.peak_gbps > most.own_link_gbps;
    bool upstream = most.known && most.upstream_seen && !invented;
    struct pcie_link link = upstream ? most : now;
    if (!link.known && !link.why_unknown)
        link.why_unknown = most.why_unknown;
    if (link.known) {
        printf("link: PCIe gen %d x%d (%.1f GT/s per lane): %.1f GB/s per direction at most,\n"
               "  %s\n", link.generation, link.width, link.gts, link.peak_gbps,
               upstream   ? "the smaller of the GPU's maximum and that of the ports above it"
               : invented ? "the link as it ran during a copy (faster than the port above the "
                            "GPU claims: a VM's port)"
                          : "the link as it ran during a copy (no port above the GPU shows its "
                            "maximum)");
        snprintf(params, len, "peak_gbps=%.2f;link=gen%d_x%d_%s", link.peak_gbps,
                 link.generation, link.width, upstream ? "upstream" : "during_copy");
    } else {
        printf("link: peak unknown: %s; the figures stand alone\n", link.why_unknown);
        snprintf(params, len, "link=unknown");
    }
    return link;
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 64u << 20, .size_help = "bytes per buffer of parts 3 and 5",
                               .size_multiple = sizeof(float), .reps = 10};
    size_t sweep_max = 1u << 30;
    int gated = 1, exercise = 0;
    const struct opt extra[] = {
        SWEEP_MAX_OPTION(&sweep_max, "largest size of the bandwidth sweep"),
        {"--gated-timing", OPT_INT, &gated, 0, 1, "0|1",
         "hold the stream while copies are issued (0: the events time the issuing too; for "
         "compute-sanitizer's initcheck, under which copies cannot queue behind the gate)", 0},
        EXERCISE_OPTION(&exercise, N_EXERCISES),
    };
    struct gpu_info gpu;
    struct csv csv;
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc != CLI_CONTINUE)
        return rc;
    if (exercise) /* one of the README's exercises instead of the lesson: exercises.c */
        return run_exercise(exercise, &args, sweep_max, gated);
    /* The sweep holds three buffers on the GPU and two on the host at a time; parts 3 and 5 two
     * of --size on each side. */
    struct sized sizes[] = {{"--size", &args.size, cli_given("--size"), 2, 2},
                            {"--sweep-max", &sweep_max, cli_given("--sweep-max"), 3, 2}};
    if ((rc = lesson_open("04_pinned_memory", &args, sizes, 2, &gpu, &csv)))
        return rc;

    struct timing t = timing_create(args.reps, gated, &csv);
    struct pcie_link link = usable_link(args.device, sweep_max, t.link, sizeof t.link);
    struct sweep sw;
    bandwidth_by_size(sweep_max, &link, &t, &sw);
    cpu_access(&t);
    zero_copy(args.size, &t);
    pinning_cost(sweep_max < PIN_BYTES ? sweep_max : PIN_BYTES, &sw, &t);
    async_gotcha(args.size, &t);
    timing_destroy(&t);
    if (lesson_close(&csv))
        return EXIT_ERROR;
    printf("\nverified: every copy of every size and kind, and every zero-copy result\n");
    return EXIT_VERIFIED;
}
