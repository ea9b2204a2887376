/*
 * 04_pinned_memory - the four kinds of host memory, and what each costs a copy.
 *
 * Lecture section 4 and table 1's memory row. The GPU's copy engines move data by DMA, straight
 * from physical memory, so they need host memory that the operating system will neither move nor
 * swap out: pinned (page-locked) memory. From pageable memory the driver must first copy the data
 * into a pinned staging buffer with the CPU. Two measurements show what that means:
 *
 *   - first, how long one cudaMemcpyAsync holds the CPU: from pageable memory the "async" call
 *     returns only once the CPU has staged the data; from pinned memory it returns at once;
 *   1. bandwidth by size for the four kinds (malloc, cudaMallocHost, cudaHostAlloc write-combined,
 *      cudaHostRegister), both directions, and both directions at once from pinned memory, each
 *      figure against the best one and against the PCIe link's peak (link.c).
 *
 * Copies are timed with events in a non-blocking stream, issued behind a gate that holds the
 * stream until they are all queued, so that the events time the copy engines, not how fast this
 * CPU issues calls (timing.c). `--deep PARTS` then runs DEEP.md's parts, each in its own file:
 * per-copy, alignment, batching, cpu-access, zero-copy, pinning. `--exercise N` runs README.md's
 * exercise N instead (exercises.c).
 */
#include "common.h"
#include "pinned.h"

#include <math.h>
#include <string.h>

static const char summary[] =
    "Host memory kinds measured: how long cudaMemcpyAsync holds the CPU from pageable and pinned\n"
    "memory, and pageable, pinned, write-combined and registered memory by transfer size in\n"
    "both directions (and both at once), against the PCIe peak. --deep: the rest of DEEP.md.";

static const char *const deep_parts[] = {"per-copy", "alignment", "batching", "cpu-access",
                                         "zero-copy", "pinning"};
enum { N_DEEP = sizeof deep_parts / sizeof deep_parts[0] };
static const size_t PIN_BYTES = 256u << 20; /* --deep pinning pins this much, or --sweep-max */

/* First: the host clock around the call alone: the copy itself is waited for afterwards. */
static double call_held_ms(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                           cudaStream_t stream)
{
    double t0 = host_ms();
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
    double held = host_ms() - t0;
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return held;
}

static void cpu_held_by_one_copy(size_t bytes, const struct timing *t)
{
    float *pageable = malloc_or_exit(bytes), *pinned, *d_buffer;
    CUDA_CHECK(cudaMallocHost((void **)&pinned, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_buffer, bytes));
    fill_random(pageable, bytes / sizeof(float), 9);
    fill_random(pinned, bytes / sizeof(float), 9);
    char size_text[32];
    printf("\nhow long one cudaMemcpyAsync of %s holds the CPU, host clock, median of %d\n",
           format_bytes(bytes, size_text, sizeof size_text), t->reps);
    for (enum memory_kind kind = PAGEABLE; kind <= PINNED; kind++) {
        float *host = kind == PAGEABLE ? pageable : pinned;
        for (int rep = -1; rep < t->reps; rep++) { /* rep -1 warms up */
            double ms = call_held_ms(d_buffer, host, bytes, cudaMemcpyHostToDevice, t->stream);
            if (rep >= 0)
                t->samples[rep] = ms;
        }
        print_call_held(kind, UP, bytes, t);
        for (int rep = -1; rep < t->reps; rep++) {
            double ms = call_held_ms(host, d_buffer, bytes, cudaMemcpyDeviceToHost, t->stream);
            if (rep >= 0)
                t->samples[rep] = ms;
        }
        print_call_held(kind, DOWN, bytes, t);
    }
    CUDA_CHECK(cudaFree(d_buffer));
    CUDA_CHECK(cudaFreeHost(pinned));
    free(pageable);
}

/* 1, both directions at once: H2D in t->stream, D2H in t->d2h_stream, both started by one event
 * behind the gate, so that the two directions run at the GPU's pace. ms[] gets milliseconds per
 * copy of H2D, of D2H, and of the pair (the later of the two to finish). */
static void both_directions_once(float *dst, const float *src, size_t bytes, int copies,
                                 const struct device_buffers *d, const struct timing *t,
                                 double ms[N_DIRECTIONS + 1])
{
    if (t->gated)
        CUDA_CHECK(gate_close(&t->gate, t->stream));
    CUDA_CHECK(cudaEventRecord(t->start, t->stream));
    CUDA_CHECK(cudaStreamWaitEvent(t->d2h_stream, t->start, 0));
    for (int c = 0; c < copies; c++) {
        CUDA_CHECK(cudaMemcpyAsync(d->data, src, bytes, cudaMemcpyHostToDevice, t->stream));
        CUDA_CHECK(cudaMemcpyAsync(dst, d->reference, bytes, cudaMemcpyDeviceToHost,
                                   t->d2h_stream));
    }
    CUDA_CHECK(cudaEventRecord(t->d2h_stop, t->d2h_stream));
    double up_ms = t->gated ? open_gate_and_time(t) : stop_clock(t);
    float down_ms;
    CUDA_CHECK(cudaEventSynchronize(t->d2h_stop));
    CUDA_CHECK(cudaEventElapsedTime(&down_ms, t->start, t->d2h_stop));
    ms[UP] = up_ms / copies;
    ms[DOWN] = down_ms / copies;
    ms[N_DIRECTIONS] = fmax(up_ms, down_ms) / copies;
}

static void sweep_both_directions(float *dst, const float *src, struct sweep *sw,
                                  const struct device_buffers *d, const struct timing *t)
{
    double *sum = samples_or_exit((size_t)t->reps);
    for (int s = 0; s < sw->n_sizes; s++) {
        size_t bytes = sw->sizes[s];
        int copies = copies_per_sample(bytes);
        CUDA_CHECK(cudaMemsetAsync(d->data, 0xff, bytes, t->stream)); /* poisoned, then */
        memset(dst, 0xff, bytes);                                     /* verified */
        for (int rep = -1; rep < t->reps; rep++) {
            double ms[N_DIRECTIONS + 1];
            both_directions_once(dst, src, bytes, copies, d, t, ms);
            if (rep >= 0) {
                t->samples[rep] = ms[UP];
                t->d2h_samples[rep] = ms[DOWN];
                sum[rep] = ms[N_DIRECTIONS];
            }
        }
        expect_reference(d->data, d, bytes, "H2D copy (both directions at once)");
        expect_reference_on_host(dst, d, bytes, "D2H copy (both directions at once)");
        record_both_directions(sw, s, copies, sum, t);
    }
    free(sum);
}

/* 1. Every kind of host memory, each size both ways (sweep.c), then both at once. */
static void bandwidth_by_kind(size_t max_bytes, const struct timing *t, struct sweep *sw)
{
    sweep_sizes(sw, max_bytes);
    /* Pageable: what malloc gives. Random bytes, which the device's reference copy holds too. */
    float *pageable = malloc_or_exit(max_bytes);
    fill_random(pageable, max_bytes / sizeof(float), 7);
    struct device_buffers d = device_buffers_holding(pageable, max_bytes);
    /* Pinned: page-locked, so the copy engines reach it directly. Both directions at once need
     * a second buffer, one to read from while the other is written. */
    float *pinned, *pinned_too, *write_combined;
    CUDA_CHECK(cudaMallocHost((void **)&pinned, max_bytes));
    CUDA_CHECK(cudaMallocHost((void **)&pinned_too, max_bytes));
    /* Write-combined: pinned, and not cached by the CPU; made for the CPU to write once and the
     * GPU to read. */
    CUDA_CHECK(cudaHostAlloc((void **)&write_combined, max_bytes, cudaHostAllocWriteCombined));
    CUDA_CHECK(cudaMemcpy(pinned, d.reference, max_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(write_combined, d.reference, max_bytes, cudaMemcpyDeviceToHost));

    sweep_kind(PAGEABLE, pageable, sw, &d, t);
    sweep_kind(PINNED, pinned, sw, &d, t);
    sweep_kind(WRITE_COMBINED, write_combined, sw, &d, t);
    /* Registered: memory you already have, pinned where it is. */
    CUDA_CHECK(cudaHostRegister(pageable, max_bytes, cudaHostRegisterDefault));
    sweep_kind(REGISTERED, pageable, sw, &d, t);
    CUDA_CHECK(cudaHostUnregister(pageable));
    sweep_both_directions(pinned_too, pinned, sw, &d, t);

    CUDA_CHECK(cudaFreeHost(write_combined));
    CUDA_CHECK(cudaFreeHost(pinned_too));
    CUDA_CHECK(cudaFreeHost(pinned));
    free(pageable);
    device_buffers_destroy(&d);
}

/* DEEP.md's parts, after the lesson, in its order. */
static void run_deep(const char *deep, size_t size, size_t sweep_max, const struct sweep *sw,
                     const struct timing *t)
{
    if (deep_wants(deep, "per-copy"))
        per_copy_cost(sw, t);
    if (deep_wants(deep, "alignment"))
        alignment(sw, t);
    if (deep_wants(deep, "batching"))
        batching(sweep_max < BYTES_PER_SAMPLE ? sweep_max : BYTES_PER_SAMPLE, t);
    if (deep_wants(deep, "cpu-access"))
        cpu_access(t);
    if (deep_wants(deep, "zero-copy"))
        zero_copy(size, t);
    if (deep_wants(deep, "pinning"))
        pinning_cost(sweep_max < PIN_BYTES ? sweep_max : PIN_BYTES, sw, t);
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 64u << 20, .size_help = "bytes per buffer of the call "
                               "timing (and of --deep zero-copy)", .size_multiple = sizeof(float),
                               .reps = 10};
    size_t sweep_max = 1u << 30;
    int gated = 1, exercise = 0;
    const char *deep = NULL;
    const struct opt extra[] = {
        SWEEP_MAX_OPTION(&sweep_max, "largest size of the bandwidth sweep"),
        {"--gated-timing", OPT_INT, &gated, 0, 1, "0|1",
         "hold the stream while copies are issued (0: the events time the issuing too; for "
         "compute-sanitizer's initcheck, under which copies cannot queue behind the gate)", 0},
        EXERCISE_OPTION(&exercise, N_EXERCISES),
        DEEP_OPTION(&deep, "per-copy, alignment, batching, cpu-access, zero-copy, pinning"),
    };
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc != CLI_CONTINUE || (rc = deep_check(deep, deep_parts, N_DEEP)) != CLI_CONTINUE)
        return rc;
    if (exercise) /* one of the README's exercises instead of the lesson: exercises.c */
        return run_exercise(exercise, &args, sweep_max, gated);
    /* The sweep holds three buffers on the GPU and four on the host; the call timing (and --deep
     * zero-copy) two of --size on each side. */
    struct sized sizes[] = {{"--size", &args.size, cli_given("--size"), 2, 2},
                            {"--sweep-max", &sweep_max, cli_given("--sweep-max"), 3, 4}};
    struct gpu_info gpu;
    struct csv csv;
    if ((rc = lesson_open("04_pinned_memory", &args, sizes, 2, &gpu, &csv)))
        return rc;

    struct timing t = timing_create(args.reps, gated, &csv);
    struct pcie_link link = usable_link(args.device, sweep_max, t.link, sizeof t.link);
    cpu_held_by_one_copy(args.size, &t);
    struct sweep sw;
    bandwidth_by_kind(sweep_max, &t, &sw);
    print_sweep(&sw, t.reps);
    print_against_limits(&sw, &link);
    run_deep(deep, args.size, sweep_max, &sw, &t);
    timing_destroy(&t);
    if (lesson_close(&csv))
        return EXIT_ERROR;
    printf("\nverified: every copy of every size and kind%s\n",
           deep_wants(deep, "zero-copy") ? ", and every zero-copy result" : "");
    return EXIT_VERIFIED;
}
