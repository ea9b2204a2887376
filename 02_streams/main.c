/*
 * 02_streams - what a stream is, and what the default stream does to your streams.
 *
 * Lecture sections 3.1-3.2 (and 7.5, stream priorities). A stream is an ordered queue of GPU work:
 * operations in one stream run in the order they were issued; operations in different streams may
 * run at the same time. Five measured experiments:
 *
 *   1. lesson 01's c = a + b split over N streams with cudaMemcpyAsync: from pageable memory the
 *      "async" copies block the CPU and nothing overlaps; from pinned memory both work. 1b shows
 *      which pageable call blocks: the CUDA runtime's "API synchronization behavior" page says
 *      only that a copy between the device and pageable memory "might be synchronous".
 *   2. small kernels in one stream run one after another; in N streams, side by side.
 *   3. the legacy default stream (stream 0) is a barrier between blocking streams; non-blocking
 *      streams do not wait for it. The per-thread default stream is no barrier itself, but it
 *      is a blocking stream: it waits for stream 0, and stream 0 for it.
 *   4. a stream's priority decides which kernel's blocks the GPU schedules first.
 *   5. cudaStreamSynchronize waits for one stream, cudaDeviceSynchronize for all; destroying a
 *      busy stream does not cancel its work.
 *
 * `--exercise N` runs exercise N of README.md instead (exercises.c), with these functions and the
 * change it asks for as a parameter: run_split()'s compute, a_then_tiny_then_b()'s
 * memset_between, priority_rig_create()'s filler block length.
 *
 * Times here are host-clock times from the first launch until cudaDeviceSynchronize returns, on
 * an idle GPU: events that bracket several streams need cross-stream waits, lesson 03's subject.
 */
#include "common.h"
#include "kernels.h"
#include "streams.h"

#include <math.h>
#include <string.h>

static const char summary[] =
    "Streams, measured: lesson 01's work split over N streams (pageable vs pinned memory),\n"
    "kernel concurrency, the legacy default stream as a barrier, stream priorities, and\n"
    "cudaStreamSynchronize vs cudaDeviceSynchronize.";

/* The GPU work of experiments 2-5 is launch_spin: blocks that hold an SM for a set time. */
const unsigned long long spin_ns = 500 * 1000ull; /* one small kernel: 0.5 ms */

/* Checks that every block of a spin launch ran for at least `ns` (elapsed was zeroed before). */
static void verify_spins(const unsigned long long *d_elapsed, unsigned blocks,
                         unsigned long long ns, const char *what)
{
    unsigned long long *h_elapsed = malloc_or_exit(blocks * sizeof *h_elapsed);
    CUDA_CHECK(cudaMemcpy(h_elapsed, d_elapsed, blocks * sizeof *h_elapsed,
                          cudaMemcpyDeviceToHost));
    for (unsigned b = 0; b < blocks; b++) {
        if (h_elapsed[b] < ns) {
            fprintf(stderr, "%s: %s: block %u ran %llu ns, want at least %llu\n", program_name,
                    what, b, h_elapsed[b], ns);
            exit(EXIT_ERROR);
        }
    }
    free(h_elapsed);
}

/* ------------------------------------------------------------------------------------------ *
 * 1. Lesson 01's work over N streams: each stream copies in, adds and copies out its own chunk.
 * ------------------------------------------------------------------------------------------ */

/* Gives a, b and c back with `release`: cudaFree for device memory, cudaFreeHost for pinned. */
static void vectors_release(const struct vectors *v, cudaError_t (*release)(void *))
{
    CUDA_CHECK(release(v->a));
    CUDA_CHECK(release(v->b));
    CUDA_CHECK(release(v->c));
}

void split_data_create(size_t bytes, struct split_data *data)
{
    const size_t n = bytes / sizeof(float);
    data->n = n;
    data->pageable = (struct vectors){malloc_or_exit(bytes), malloc_or_exit(bytes),
                                      malloc_or_exit(bytes)};
    /* Pinned (page-locked) memory, which lesson 04 explains: here only to show the difference. */
    CUDA_CHECK(cudaMallocHost((void **)&data->pinned.a, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&data->pinned.b, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&data->pinned.c, bytes));
    CUDA_CHECK(cudaMalloc((void **)&data->device.a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&data->device.b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&data->device.c, bytes));
    fill_random(data->pageable.a, n, 1);
    fill_random(data->pageable.b, n, 2);
    memcpy(data->pinned.a, data->pageable.a, bytes);
    memcpy(data->pinned.b, data->pageable.b, bytes);
}

void split_data_destroy(struct split_data *data)
{
    vectors_release(&data->device, cudaFree);
    vectors_release(&data->pinned, cudaFreeHost);
    free(data->pageable.a);
    free(data->pageable.b);
    free(data->pageable.c);
}

void run_split(const struct vectors *h, const struct vectors *d, size_t n, cudaStream_t *streams,
               int n_streams, bool compute, double *enqueue_ms, double *total_ms)
{
    CUDA_CHECK(cudaMemset(d->c, 0xff, n * sizeof(float)));
    memset(h->c, 0xff, n * sizeof(float));
    CUDA_CHECK(cudaDeviceSynchronize());

    double t0 = host_ms();
    for (int s = 0; s < n_streams; s++) {
        size_t first, count;
        chunk_bounds(n, (size_t)n_streams, (size_t)s, &first, &count);
        size_t bytes = count * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(d->a + first, h->a + first, bytes, cudaMemcpyHostToDevice,
                                   streams[s]));
        CUDA_CHECK(cudaMemcpyAsync(d->b + first, h->b + first, bytes, cudaMemcpyHostToDevice,
                                   streams[s]));
        if (compute)
            CUDA_CHECK(launch_vector_add(d->a + first, d->b + first, d->c + first, count,
                                         streams[s]));
        CUDA_CHECK(cudaMemcpyAsync(h->c + first, d->c + first, bytes, cudaMemcpyDeviceToHost,
                                   streams[s]));
    }
    double t_enqueued = host_ms();
    CUDA_CHECK(cudaDeviceSynchronize());
    double t_done = host_ms();

    if (compute && !vector_add_verified(h->a, h->b, h->c, n, "c = a + b over streams"))
        exit(EXIT_ERROR);
    *enqueue_ms = t_enqueued - t0;
    *total_ms = t_done - t0;
}

/* 1b. One stream's share of experiment 1, a chunk copied in and then out again, each copy queued
 * behind a kernel in its stream. When the call returns tells whether it waited for that kernel,
 * and so for the stream. The chunk makes the round trip, and is checked. */
static void which_calls_wait(const struct vectors *pageable, const struct vectors *pinned,
                             const struct vectors *device, size_t count, cudaStream_t stream,
                             int reps, unsigned long long *d_elapsed, struct csv *csv)
{
    const unsigned long long kernel_ns = 2000 * 1000ull;
    const size_t bytes = count * sizeof(float);
    double *samples = samples_or_exit((size_t)reps);
    char size_text[32];
    printf("\n1b. one cudaMemcpyAsync of %s (one stream's chunk) queued behind a %.1f ms kernel "
           "in its\n    stream: when does the call return? host clock, median of %d\n",
           format_bytes(bytes, size_text, sizeof size_text), kernel_ns / 1e6, reps);
    const struct vectors *kinds[] = {pageable, pinned};
    for (int k = 0; k < 2; k++) {
        for (int up = 1; up >= 0; up--) {
            for (int rep = -1; rep < reps; rep++) {
                CUDA_CHECK(cudaMemset(d_elapsed, 0, sizeof *d_elapsed));
                CUDA_CHECK(cudaDeviceSynchronize());
                CUDA_CHECK(launch_spin(kernel_ns, 1, 32, d_elapsed, stream));
                double t0 = host_ms();
                if (up)
                    CUDA_CHECK(cudaMemcpyAsync(device->a, kinds[k]->a, bytes,
                                               cudaMemcpyHostToDevice, stream));
                else
                    CUDA_CHECK(cudaMemcpyAsync(kinds[k]->c, device->a, bytes,
                                               cudaMemcpyDeviceToHost, stream));
                double returned = host_ms() - t0;
                CUDA_CHECK(cudaStreamSynchronize(stream));
                verify_spins(d_elapsed, 1, kernel_ns, "kernel before the copy");
                if (rep >= 0)
                    samples[rep] = returned;
            }
            struct stats s = stats_summarize(samples, (size_t)reps);
            const char *name = k == 0 ? "pageable" : "pinned", *direction = up ? "H2D" : "D2H";
            printf("  %-9s %s returned after %8.3f ms: %s\n", name, direction, s.median,
                   s.median > 0.9 * kernel_ns / 1e6 ? "it waited for the kernel before it"
                                                    : "at once: the copy queued behind the kernel");
            char params[80];
            snprintf(params, sizeof params,
                     "clock=host;measure=call_returned;kernel_before_ms=%.1f", kernel_ns / 1e6);
            csv_record(csv, &(struct csv_row){.experiment = "async_returns", .variant = name,
                                              .direction = direction, .bytes = bytes,
                                              .reps = reps, .ms = s, .params = params});
        }
        if (memcmp(kinds[k]->a, kinds[k]->c, bytes) != 0) {
            fprintf(stderr, "%s: 1b: the chunk came back changed\n", program_name);
            exit(EXIT_ERROR);
        }
    }
    free(samples);
}

static void split_over_streams(size_t bytes, int n_streams, int reps, cudaStream_t *streams,
                               unsigned long long *d_elapsed, struct csv *csv)
{
    struct split_data data;
    split_data_create(bytes, &data);
    double *enqueue = samples_or_exit((size_t)reps);
    double *total = samples_or_exit((size_t)reps);
    char size_text[32];
    printf("\n1. c = a + b (%s per vector) split over streams with cudaMemcpyAsync, "
           "host clock, median of %d\n", format_bytes(bytes, size_text, sizeof size_text), reps);
    printf("  %-9s %8s %18s %12s\n", "memory", "streams", "CPU blocked ms", "total ms");

    const struct { const char *name; const struct vectors *host; } kinds[] = {
        {"pageable", &data.pageable}, {"pinned", &data.pinned}};
    const int stream_counts[] = {1, n_streams};
    double total_of[2][2];
    for (int k = 0; k < 2; k++) {
        for (int c = 0; c < 2; c++) {
            double ignored;
            run_split(kinds[k].host, &data.device, data.n, streams, stream_counts[c], true,
                      &ignored, &ignored);
            for (int rep = 0; rep < reps; rep++)
                run_split(kinds[k].host, &data.device, data.n, streams, stream_counts[c], true,
                          &enqueue[rep], &total[rep]);
            struct stats blocked = stats_summarize(enqueue, (size_t)reps);
            struct stats all = stats_summarize(total, (size_t)reps);
            total_of[k][c] = all.median;
            printf("  %-9s %8d %18.3f %12.3f\n", kinds[k].name, stream_counts[c], blocked.median,
                   all.median);

            char params[64];
            snprintf(params, sizeof params, "streams=%d;clock=host;measure=cpu_blocked",
                     stream_counts[c]);
            csv_record(csv, &(struct csv_row){.experiment = "split_streams",
                                              .variant = kinds[k].name, .bytes = 3 * bytes,
                                              .reps = reps, .ms = blocked, .params = params});
            snprintf(params, sizeof params, "streams=%d;clock=host;measure=total",
                     stream_counts[c]);
            csv_record(csv, &(struct csv_row){.experiment = "split_streams",
                                              .variant = kinds[k].name, .bytes = 3 * bytes,
                                              .reps = reps, .ms = all, .params = params});
        }
    }
    printf("  pageable: the CPU is held up for the whole run, and %d streams are %.2fx as fast "
           "as one;\n  pinned: the calls return at once, and %d streams are %.2fx as fast as one "
           "(lesson 04 says why)\n", n_streams, total_of[0][0] / total_of[0][1], n_streams,
           total_of[1][0] / total_of[1][1]);
    which_calls_wait(&data.pageable, &data.pinned, &data.device, data.n / (size_t)n_streams,
                     streams[0], reps, d_elapsed, csv);

    free(enqueue);
    free(total);
    split_data_destroy(&data);
}

/* ------------------------------------------------------------------------------------------ *
 * 2. Kernel concurrency: N one-block kernels in one stream, then one in each of N streams.
 * ------------------------------------------------------------------------------------------ */

static double launch_small_kernels(cudaStream_t *streams, int n_kernels, bool one_stream,
                                   unsigned long long *d_elapsed)
{
    CUDA_CHECK(cudaMemset(d_elapsed, 0, (size_t)n_kernels * sizeof *d_elapsed));
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = host_ms();
    for (int k = 0; k < n_kernels; k++)
        CUDA_CHECK(launch_spin(spin_ns, 1, 32, d_elapsed + k, streams[one_stream ? 0 : k]));
    CUDA_CHECK(cudaDeviceSynchronize());
    double ms = host_ms() - t0;
    verify_spins(d_elapsed, (unsigned)n_kernels, spin_ns, "small kernel");
    return ms;
}

static void kernel_concurrency(int n_streams, int reps, cudaStream_t *streams, double *samples,
                               unsigned long long *d_elapsed, struct csv *csv)
{
    printf("\n2. %d kernels of one block, %.1f ms each, host clock, median of %d\n", n_streams,
           spin_ns / 1e6, reps);
    const char *variants[] = {"one_stream", "n_streams"};
    double medians[2];
    for (int v = 0; v < 2; v++) {
        launch_small_kernels(streams, n_streams, v == 0, d_elapsed);
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = launch_small_kernels(streams, n_streams, v == 0, d_elapsed);
        struct stats s = stats_summarize(samples, (size_t)reps);
        medians[v] = s.median;
        printf("  %-12s %8.3f ms\n", v == 0 ? "1 stream" : "N streams", s.median);
        char params[64];
        snprintf(params, sizeof params, "kernels=%d;kernel_ms=%.1f;clock=host", n_streams,
                 spin_ns / 1e6);
        csv_record(csv, &(struct csv_row){.experiment = "kernel_concurrency",
                                          .variant = variants[v], .reps = reps, .ms = s,
                                          .params = params});
    }
    printf("  one stream runs them in turn; %d streams run them side by side (%.1fx faster)\n",
           n_streams, medians[0] / medians[1]);
}

/* ------------------------------------------------------------------------------------------ *
 * 3. The legacy default stream: kernel A in stream s1, a tiny kernel in the default stream,
 *    kernel B in stream s2. Does B wait for A?
 * ------------------------------------------------------------------------------------------ */

double a_then_tiny_then_b(cudaStream_t s1, cudaStream_t between, cudaStream_t s2,
                          bool memset_between, unsigned long long *d_elapsed)
{
    CUDA_CHECK(cudaMemset(d_elapsed, 0, 3 * sizeof *d_elapsed));
    if (memset_between) /* all ones, which only the memset below turns back into 0 */
        CUDA_CHECK(cudaMemset(d_elapsed + 1, 0xff, sizeof *d_elapsed));
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = host_ms();
    CUDA_CHECK(launch_spin(spin_ns, 1, 32, d_elapsed, s1));
    if (memset_between) /* exercise 2: is any operation in stream 0 a barrier, or a kernel? */
        CUDA_CHECK(cudaMemsetAsync(d_elapsed + 1, 0, sizeof *d_elapsed, between));
    else
        CUDA_CHECK(launch_spin(1000, 1, 32, d_elapsed + 1, between));
    CUDA_CHECK(launch_spin(spin_ns, 1, 32, d_elapsed + 2, s2));
    CUDA_CHECK(cudaDeviceSynchronize());
    double ms = host_ms() - t0;
    verify_spins(d_elapsed, 1, spin_ns, "kernel A");
    verify_spins(d_elapsed + 2, 1, spin_ns, "kernel B");
    if (memset_between) {
        unsigned long long word;
        CUDA_CHECK(cudaMemcpy(&word, d_elapsed + 1, sizeof word, cudaMemcpyDeviceToHost));
        if (word != 0) {
            fprintf(stderr, "%s: the memset in stream 0 left its word at %#llx, not 0\n",
                    program_name, word);
            exit(EXIT_ERROR);
        }
    }
    return ms;
}

static void default_stream_barrier(int reps, double *samples, unsigned long long *d_elapsed,
                                   struct csv *csv)
{
    cudaStream_t blocking[2], non_blocking[2];
    for (int i = 0; i < 2; i++) {
        CUDA_CHECK(cudaStreamCreate(&blocking[i])); /* = cudaStreamDefault: a "blocking" stream */
        CUDA_CHECK(cudaStreamCreateWithFlags(&non_blocking[i], cudaStreamNonBlocking));
    }
    const struct {
        const char *variant, *label;
        cudaStream_t s1, between, s2;
    } cases[] = {
        {"blocking_legacy", "blocking streams, tiny kernel in stream 0", blocking[0], 0,
         blocking[1]},
        {"nonblocking_legacy", "non-blocking streams, tiny kernel in stream 0", non_blocking[0],
         0, non_blocking[1]},
        {"blocking_per_thread", "blocking streams, tiny kernel in cudaStreamPerThread",
         blocking[0], cudaStreamPerThread, blocking[1]},
        /* As the first case, with s1 the per-thread default stream: is it non-blocking? */
        {"per_thread_legacy", "s1 = cudaStreamPerThread, tiny kernel in stream 0",
         cudaStreamPerThread, 0, blocking[1]},
    };
    printf("\n3. kernel A (%.1f ms) in s1, a tiny kernel between, kernel B (%.1f ms) in s2, "
           "host clock, median of %d\n", spin_ns / 1e6, spin_ns / 1e6, reps);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        a_then_tiny_then_b(cases[c].s1, cases[c].between, cases[c].s2, false, d_elapsed);
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = a_then_tiny_then_b(cases[c].s1, cases[c].between, cases[c].s2, false,
                                              d_elapsed);
        struct stats s = stats_summarize(samples, (size_t)reps);
        printf("  %-52s %7.3f ms  %s\n", cases[c].label, s.median,
               s.median > 1.5 * spin_ns / 1e6 ? "A, then B: serialised" : "A and B together");
        char params[64];
        snprintf(params, sizeof params, "kernel_ms=%.1f;clock=host", spin_ns / 1e6);
        csv_record(csv, &(struct csv_row){.experiment = "default_stream",
                                          .variant = cases[c].variant, .reps = reps, .ms = s,
                                          .params = params});
    }
    for (int i = 0; i < 2; i++) {
        CUDA_CHECK(cudaStreamDestroy(blocking[i]));
        CUDA_CHECK(cudaStreamDestroy(non_blocking[i]));
    }
}

/* ------------------------------------------------------------------------------------------ *
 * 4. Priorities (lecture 7.5): a one-block kernel's latency while a low-priority kernel with
 *    many waves of blocks fills every SM.
 * ------------------------------------------------------------------------------------------ */

/* Filler blocks of 0.1 ms, in 10 waves: the filler outlasts a block many times over, so the two
 * latencies part clearly (exercise 3 makes the blocks 1 ms). */
static const unsigned long long filler_ns = 100 * 1000;
const unsigned long long urgent_ns = 10 * 1000;
enum { FILLER_WAVES = 10 };

/* The filler's blocks: as many threads each as lets whole blocks take every thread slot of an
 * SM (2 of 1024 where an SM holds 2048 threads, 2 of 768 where it holds 1536), so that the
 * urgent kernel cannot squeeze in beside them and must wait for a filler block to finish. */
static struct filler filler_for(const struct gpu_info *gpu, int waves, unsigned long long ns)
{
    int sm_threads, block_threads, per_sm;
    CUDA_CHECK(cudaDeviceGetAttribute(&sm_threads, cudaDevAttrMaxThreadsPerMultiProcessor,
                                      gpu->device));
    CUDA_CHECK(cudaDeviceGetAttribute(&block_threads, cudaDevAttrMaxThreadsPerBlock, gpu->device));
    int blocks_to_fill = (sm_threads + block_threads - 1) / block_threads;
    struct filler f = {.threads = (unsigned)(sm_threads / blocks_to_fill / 32 * 32),
                       .waves = (unsigned)waves, .ns = ns};
    CUDA_CHECK(spin_blocks_per_sm(f.threads, &per_sm));
    f.blocks_per_sm = (unsigned)per_sm;
    f.blocks = (unsigned)gpu->multiprocessors * f.blocks_per_sm * (unsigned)waves;
    if (f.blocks_per_sm * f.threads < (unsigned)sm_threads)
        printf("  (the filler's blocks take %u of an SM's %d thread slots: the urgent kernel may "
               "fit beside them)\n", f.blocks_per_sm * f.threads, sm_threads);
    return f;
}

void priority_rig_create(const struct gpu_info *gpu, unsigned long long block_ns,
                         struct priority_rig *rig)
{
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&rig->lowest, &rig->highest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&rig->background, cudaStreamNonBlocking,
                                            rig->lowest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&rig->same, cudaStreamNonBlocking, rig->lowest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&rig->high, cudaStreamNonBlocking, rig->highest));
    CUDA_CHECK(cudaEventCreate(&rig->start));
    CUDA_CHECK(cudaEventCreate(&rig->stop));
    rig->filler = filler_for(gpu, FILLER_WAVES, block_ns);
    CUDA_CHECK(cudaMalloc((void **)&rig->d_elapsed,
                          (rig->filler.blocks + 1) * sizeof *rig->d_elapsed));
}

void priority_rig_destroy(const struct priority_rig *rig)
{
    CUDA_CHECK(cudaFree(rig->d_elapsed));
    CUDA_CHECK(cudaEventDestroy(rig->start));
    CUDA_CHECK(cudaEventDestroy(rig->stop));
    CUDA_CHECK(cudaStreamDestroy(rig->background));
    CUDA_CHECK(cudaStreamDestroy(rig->same));
    CUDA_CHECK(cudaStreamDestroy(rig->high));
}

double urgent_latency(const struct priority_rig *rig, cudaStream_t urgent)
{
    const struct filler *filler = &rig->filler;
    unsigned long long *d_elapsed = rig->d_elapsed;
    CUDA_CHECK(cudaMemset(d_elapsed, 0, (filler->blocks + 1) * sizeof *d_elapsed));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(launch_spin(filler->ns, filler->blocks, filler->threads, d_elapsed + 1,
                           rig->background));
    double t0 = host_ms();
    while (host_ms() - t0 < 0.2) /* let the filler reach every SM first */
        ;
    CUDA_CHECK(cudaEventRecord(rig->start, urgent));
    CUDA_CHECK(launch_spin(urgent_ns, 1, 32, d_elapsed, urgent));
    CUDA_CHECK(cudaEventRecord(rig->stop, urgent));
    CUDA_CHECK(cudaDeviceSynchronize());
    verify_spins(d_elapsed, 1, urgent_ns, "urgent kernel");
    verify_spins(d_elapsed + 1, filler->blocks, filler->ns, "filler kernel");
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, rig->start, rig->stop));
    return ms;
}

static void stream_priorities(const struct gpu_info *gpu, int reps, double *samples,
                              struct csv *csv)
{
    struct priority_rig rig;
    priority_rig_create(gpu, filler_ns, &rig);
    const struct filler filler = rig.filler;

    printf("\n4. latency of a %.2f ms kernel while %u blocks of %.1f ms fill the GPU: %u waves of "
           "%d SMs\n   x %u blocks of %u threads; events in the urgent stream, median of %d; "
           "priorities here:\n   %d (lowest) to %d\n", urgent_ns / 1e6, filler.blocks,
           filler.ns / 1e6, filler.waves, gpu->multiprocessors, filler.blocks_per_sm,
           filler.threads, reps, rig.lowest, rig.highest);
    const struct { const char *variant, *label; cudaStream_t urgent; } cases[] = {
        {"same_priority", "same priority as the filler", rig.same},
        {"high_priority", "highest priority", rig.high},
    };
    for (int c = 0; c < 2; c++) {
        urgent_latency(&rig, cases[c].urgent);
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = urgent_latency(&rig, cases[c].urgent);
        struct stats s = stats_summarize(samples, (size_t)reps);
        printf("  %-30s %8.3f ms (min %.3f, max %.3f)\n", cases[c].label, s.median, s.min,
               s.max);
        char params[96];
        snprintf(params, sizeof params, "priority=%d;filler_blocks=%u;filler_threads=%u;"
                 "clock=gpu_event", c == 0 ? rig.lowest : rig.highest, filler.blocks,
                 filler.threads);
        csv_record(csv, &(struct csv_row){.experiment = "priority", .variant = cases[c].variant,
                                          .reps = reps, .ms = s, .params = params});
    }
    printf("  the scheduler hands the next free SM slot to the highest-priority stream; here the\n"
           "  urgent kernel still waited for a running filler block to end (the driver may, but\n"
           "  need not, preempt one), and copies have no priority at all\n");
    priority_rig_destroy(&rig);
}

/* ------------------------------------------------------------------------------------------ *
 * 5. Waiting for one stream, waiting for the device, and destroying a stream that is busy.
 * ------------------------------------------------------------------------------------------ */

static void synchronisation(int reps, cudaStream_t short_stream, cudaStream_t long_stream,
                            double *samples, unsigned long long *d_elapsed, struct csv *csv)
{
    const unsigned long long long_ns = 4 * spin_ns;
    double *device_wait = samples_or_exit((size_t)reps);
    double *destroy = samples_or_exit((size_t)reps);
    for (int rep = -1; rep < reps; rep++) {
        CUDA_CHECK(cudaMemset(d_elapsed, 0, 3 * sizeof *d_elapsed));
        CUDA_CHECK(cudaDeviceSynchronize());
        double t0 = host_ms();
        CUDA_CHECK(launch_spin(spin_ns, 1, 32, d_elapsed, short_stream));
        CUDA_CHECK(launch_spin(long_ns, 1, 32, d_elapsed + 1, long_stream));
        CUDA_CHECK(cudaStreamSynchronize(short_stream));
        double t_stream = host_ms();
        CUDA_CHECK(cudaDeviceSynchronize());
        double t_device = host_ms();

        /* A stream destroyed while busy: the call returns at once, the work still runs, and
         * the stream's resources are released when it is done. */
        cudaStream_t doomed;
        CUDA_CHECK(cudaStreamCreateWithFlags(&doomed, cudaStreamNonBlocking));
        CUDA_CHECK(launch_spin(long_ns, 1, 32, d_elapsed + 2, doomed));
        double t_destroy = host_ms();
        CUDA_CHECK(cudaStreamDestroy(doomed));
        double destroyed = host_ms() - t_destroy;
        CUDA_CHECK(cudaDeviceSynchronize());
        verify_spins(d_elapsed, 1, spin_ns, "short-stream kernel");
        verify_spins(d_elapsed + 1, 1, long_ns, "long-stream kernel");
        verify_spins(d_elapsed + 2, 1, long_ns, "kernel in the destroyed stream");
        if (rep >= 0) {
            samples[rep] = t_stream - t0;
            device_wait[rep] = t_device - t0;
            destroy[rep] = destroyed;
        }
    }
    struct stats stream_sync = stats_summarize(samples, (size_t)reps);
    struct stats device_sync = stats_summarize(device_wait, (size_t)reps);
    struct stats destroy_call = stats_summarize(destroy, (size_t)reps);
    printf("\n5. a %.1f ms kernel in stream A, a %.1f ms kernel in stream B, host clock, "
           "median of %d\n", spin_ns / 1e6, long_ns / 1e6, reps);
    printf("  cudaStreamSynchronize(A) returned after %8.3f ms\n", stream_sync.median);
    printf("  cudaDeviceSynchronize()  returned after %8.3f ms\n", device_sync.median);
    printf("  cudaStreamDestroy on a stream with %.1f ms of work queued returned in %.4f ms, "
           "and the work completed\n", long_ns / 1e6, destroy_call.median);
    csv_record(csv, &(struct csv_row){.experiment = "synchronize", .variant = "stream_sync",
                                      .reps = reps, .ms = stream_sync, .params = "clock=host"});
    csv_record(csv, &(struct csv_row){.experiment = "synchronize", .variant = "device_sync",
                                      .reps = reps, .ms = device_sync, .params = "clock=host"});
    csv_record(csv, &(struct csv_row){.experiment = "synchronize", .variant = "destroy_busy_stream",
                                      .reps = reps, .ms = destroy_call, .params = "clock=host"});
    free(device_wait);
    free(destroy);
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 64u << 20, .size_help = "bytes per vector",
                               .size_multiple = sizeof(float), .reps = 10};
    int n_streams = 8, exercise = 0;
    const struct opt extra[] = {
        {"--streams", OPT_INT, &n_streams, 2, MAX_STREAMS, "N",
         "streams to split the work over (and kernels to run side by side)", 0},
        EXERCISE_OPTION(&exercise, EXERCISE_COUNT),
    };
    struct gpu_info gpu;
    struct csv csv;
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    /* Experiment 1 holds 3 vectors on the GPU, 3 pageable and 3 pinned on the host, and so does
     * exercise 1; exercises 2 and 3 hold no vectors, and so have no size to fit. */
    struct sized size = {"--size", &args.size, cli_given("--size"), 3, 6};
    const size_t n_sizes = exercise <= 1 ? 1 : 0;
    if (rc != CLI_CONTINUE || (rc = lesson_open("02_streams", &args, &size, n_sizes, &gpu, &csv)))
        return rc;
    if (exercise) {
        run_exercise(exercise, &gpu, &args, n_streams, &csv);
        return lesson_close(&csv) ? EXIT_ERROR : EXIT_VERIFIED;
    }

    /* Non-blocking streams: the default stream never waits for them, nor they for it. */
    cudaStream_t streams[MAX_STREAMS];
    for (int s = 0; s < n_streams; s++)
        CUDA_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    double *samples = samples_or_exit((size_t)args.reps);
    unsigned long long *d_elapsed;
    CUDA_CHECK(cudaMalloc((void **)&d_elapsed, MAX_STREAMS * sizeof *d_elapsed));

    split_over_streams(args.size, n_streams, args.reps, streams, d_elapsed, &csv);
    kernel_concurrency(n_streams, args.reps, streams, samples, d_elapsed, &csv);
    default_stream_barrier(args.reps, samples, d_elapsed, &csv);
    stream_priorities(&gpu, args.reps, samples, &csv);
    synchronisation(args.reps, streams[0], streams[1], samples, d_elapsed, &csv);

    /* cudaStreamDestroy does not wait: synchronise first when the results are needed. */
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int s = 0; s < n_streams; s++)
        CUDA_CHECK(cudaStreamDestroy(streams[s]));
    CUDA_CHECK(cudaFree(d_elapsed));
    free(samples);
    if (lesson_close(&csv))
        return EXIT_ERROR;
    printf("\nverified: every element of c = a + b, and every kernel ran its full time\n");
    return EXIT_VERIFIED;
}
