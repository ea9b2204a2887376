/*
 * timing.c - how lesson 04 times copies, and checks them.
 *
 * Copies are timed with events around back-to-back cudaMemcpyAsync calls in a non-blocking
 * stream, issued while a gate (common.h) holds the stream: the events then time the copy
 * engines' work, not how fast this CPU issues calls, which for small copies is slower. (Not
 * pageable copies: their calls wait for the copy, so they cannot queue behind a gate.) Each
 * sample holds up to BYTES_PER_SAMPLE of copies, so that the events' own overhead, which lesson
 * 03 measured, stays out of the small sizes' figures.
 */
#include "pinned.h"
#include "zero_copy.h"

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

/* `reference` gets the expected bytes, copied once from `expected`. */
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

/* The same, expecting random bytes: those fill_random(..., 7) writes. */
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

/* Enough copies per sample that the events' own overhead stays out of the small sizes' figures,
 * and no more than can queue behind a gate. */
int copies_per_sample(size_t bytes)
{
    size_t copies = bytes >= BYTES_PER_SAMPLE ? 1 : BYTES_PER_SAMPLE / bytes;
    return copies < GATE_MAX_QUEUED ? (int)copies : GATE_MAX_QUEUED;
}

/* Milliseconds between t->start and t->stop, once the GPU has got to t->stop. */
double stop_clock_waited(const struct timing *t)
{
    CUDA_CHECK(cudaEventSynchronize(t->stop));
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
    return ms;
}

/* Ends a region begun by recording t->start in t->stream: milliseconds between the two. */
double stop_clock(const struct timing *t)
{
    CUDA_CHECK(cudaEventRecord(t->stop, t->stream));
    return stop_clock_waited(t);
}

/* Ends a region that began with gate_close() and t->start: the stop event goes in while the
 * gate still holds the stream, then the gate opens and the GPU runs everything back to back. */
double open_gate_and_time(const struct timing *t)
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
struct stats time_copies(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
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
