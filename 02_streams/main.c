/*
 * 02_streams - what a stream is, and what the default stream does to yours.
 *
 * Lecture section 3 (CUDA Streams), 3.1 and 3.2. A stream is an ordered queue of GPU work:
 * operations in one stream run in the order they were issued; operations in different streams
 * may run at the same time. Two experiments:
 *
 *   1. lesson 01's c = a + b split over N non-blocking streams, each stream copying in, adding
 *      and copying out its own chunk with cudaMemcpyAsync, against the same work in one stream:
 *      from pinned memory the chunks overlap; from pageable memory the "async" calls hold the
 *      CPU, and nothing does.
 *   2. (default_stream.c, read it next) the legacy default stream, stream 0, is a barrier
 *      between blocking streams; non-blocking streams do not wait for it, and the per-thread
 *      default stream is a blocking stream.
 *
 * `--deep PARTS` runs DEEP.md's parts after them, one file each: which_calls_wait.c,
 * concurrency.c, priorities.c, synchronisation.c. `--exercise N` runs exercise N of README.md
 * instead (exercises.c), the change it asks for a parameter of the lesson's own function.
 */
#include "common.h"
#include "kernels.h"
#include "streams.h"

#include <string.h>

static const char summary[] =
    "Streams: lesson 01's work split over N streams (pinned vs pageable memory) against one\n"
    "stream, and the legacy default stream as a barrier; --deep for DEEP.md's parts.";

static const char *const deep_parts[] = {"which-calls-wait", "concurrency", "priorities",
                                         "synchronisation"};

struct vectors {
    float *a, *b, *c;
};
struct split_data { /* a and b random; n elements each */
    size_t n;
    struct vectors pageable, pinned, device;
};

static void split_data_create(size_t bytes, struct split_data *d)
{
    d->n = bytes / sizeof(float);
    d->pageable = (struct vectors){malloc_or_exit(bytes), malloc_or_exit(bytes),
                                   malloc_or_exit(bytes)};
    /* Pinned (page-locked) memory, which lesson 04 explains: here only to show the difference. */
    CUDA_CHECK(cudaMallocHost((void **)&d->pinned.a, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&d->pinned.b, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&d->pinned.c, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d->device.a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d->device.b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d->device.c, bytes));
    fill_random(d->pageable.a, d->n, 1);
    fill_random(d->pageable.b, d->n, 2);
    memcpy(d->pinned.a, d->pageable.a, bytes);
    memcpy(d->pinned.b, d->pageable.b, bytes);
}

static void split_data_destroy(struct split_data *d)
{
    float *device[] = {d->device.a, d->device.b, d->device.c};
    float *pinned[] = {d->pinned.a, d->pinned.b, d->pinned.c};
    for (int i = 0; i < 3; i++) {
        CUDA_CHECK(cudaFree(device[i]));
        CUDA_CHECK(cudaFreeHost(pinned[i]));
    }
    free(d->pageable.a);
    free(d->pageable.b);
    free(d->pageable.c);
}

/* c = a + b from host vectors h over n_streams streams, and waits for it. Without its kernels
 * (exercise 1) it is the copies alone, in the same streams and order, and c holds no sum. Host
 * clock: how long the issuing held the CPU up, and the whole run. */
static void run_split(const struct vectors *h, const struct vectors *d, size_t n,
                      cudaStream_t *streams, int n_streams, bool with_kernels, double *enqueue_ms,
                      double *total_ms)
{
    CUDA_CHECK(cudaMemset(d->c, 0xff, n * sizeof(float))); /* poisoned: every element is checked */
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
        if (with_kernels) /* in the chunk's stream: it waits for this chunk's copies only */
            CUDA_CHECK(launch_vector_add(d->a + first, d->b + first, d->c + first, count,
                                         streams[s]));
        CUDA_CHECK(cudaMemcpyAsync(h->c + first, d->c + first, bytes, cudaMemcpyDeviceToHost,
                                   streams[s]));
    }
    double t_issued = host_ms();
    CUDA_CHECK(cudaDeviceSynchronize());
    *total_ms = host_ms() - t0;
    *enqueue_ms = t_issued - t0;
    if (with_kernels && !vector_add_verified(h->a, h->b, h->c, n, "c = a + b over streams"))
        exit(EXIT_ERROR);
}

/* 1. One stream against n_streams, from pageable and from pinned memory. */
static void split_over_streams(size_t bytes, int n_streams, int reps, cudaStream_t *streams,
                               struct csv *csv)
{
    struct split_data data;
    split_data_create(bytes, &data);
    double *blocked = samples_or_exit((size_t)reps), *total = samples_or_exit((size_t)reps);
    char text[32], params[64];
    printf("\n1. c = a + b (%s per vector) split over streams with cudaMemcpyAsync, host clock, "
           "median of %d\n", format_bytes(bytes, text, sizeof text), reps);
    printf("  %-9s %8s %18s %12s\n", "memory", "streams", "CPU blocked ms", "total ms");
    const struct vectors *host[] = {&data.pageable, &data.pinned};
    const char *name[] = {"pageable", "pinned"};
    const int counts[] = {1, n_streams};
    double median[2][2];
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 2; c++) {
            for (int rep = -1; rep < reps; rep++) /* rep -1 warms up, uncounted */
                run_split(host[k], &data.device, data.n, streams, counts[c], true,
                          &blocked[rep < 0 ? 0 : rep], &total[rep < 0 ? 0 : rep]);
            struct stats cpu = stats_summarize(blocked, (size_t)reps);
            struct stats all = stats_summarize(total, (size_t)reps);
            median[k][c] = all.median;
            printf("  %-9s %8d %18.3f %12.3f\n", name[k], counts[c], cpu.median, all.median);
            const struct stats *figure[] = {&cpu, &all};
            for (int m = 0; m < 2; m++) {
                snprintf(params, sizeof params, "streams=%d;clock=host;measure=%s", counts[c],
                         m == 0 ? "cpu_blocked" : "total");
                csv_record(csv, &(struct csv_row){.experiment = "split_streams",
                                                  .variant = name[k], .bytes = 3 * bytes,
                                                  .reps = reps, .ms = *figure[m],
                                                  .params = params});
            }
        }
    printf("  pageable: the CPU is held up for the whole run, and %d streams are %.2fx as fast "
           "as one;\n  pinned: the calls return at once, and %d streams are %.2fx as fast as one "
           "(lesson 04 says why)\n", n_streams, median[0][0] / median[0][1], n_streams,
           median[1][0] / median[1][1]);
    free(blocked);
    free(total);
    split_data_destroy(&data);
}

/* Exercise 1: experiment 1 over 1, 2, 4, ... top streams, and the copies alone, in turns. */
static void exercise_streams(size_t bytes, int top, int reps, struct csv *csv)
{
    struct sweep sweep;
    sweep_begin(&sweep, bytes, top, reps, csv);
    cudaStream_t streams[MAX_STREAMS];
    for (int s = 0; s < top; s++)
        CUDA_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    struct split_data data;
    split_data_create(bytes, &data);
    for (int rep = -1; rep < reps; rep++)
        for (int c = 0; c < sweep.n_counts; c++)
            for (int t = 0; t < TURNS; t++) {
                double blocked, total;
                run_split(t == PAGEABLE ? &data.pageable : &data.pinned, &data.device, data.n,
                          streams, sweep.counts[c], t != COPIES, &blocked, &total);
                if (rep >= 0)
                    *sweep_sample(&sweep, t, c, rep) = total;
            }
    sweep_end(&sweep, csv);
    split_data_destroy(&data);
    for (int s = 0; s < top; s++)
        CUDA_CHECK(cudaStreamDestroy(streams[s]));
}

static void deep_layer(const char *deep, const struct gpu_info *gpu, size_t bytes, int n_streams,
                       int reps, cudaStream_t *streams, double *samples,
                       unsigned long long *d_elapsed, struct csv *csv)
{
    if (deep_wants(deep, "which-calls-wait")) /* one stream's chunk of experiment 1 */
        which_calls_wait(bytes / sizeof(float) / (size_t)n_streams * sizeof(float), streams[0],
                         reps, d_elapsed, csv);
    if (deep_wants(deep, "concurrency"))
        kernel_concurrency(n_streams, reps, streams, samples, d_elapsed, csv);
    if (deep_wants(deep, "priorities"))
        stream_priorities(gpu, reps, samples, csv);
    if (deep_wants(deep, "synchronisation"))
        synchronisation(reps, streams[0], streams[1], samples, d_elapsed, csv);
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 64u << 20, .size_help = "bytes per vector",
                               .size_multiple = sizeof(float), .reps = 10};
    int n_streams = 8, exercise = 0;
    const char *deep = NULL;
    const struct opt extra[] = {
        {"--streams", OPT_INT, &n_streams, 2, MAX_STREAMS, "N",
         "streams to split the work over (and kernels to run side by side)", 0},
        DEEP_OPTION(&deep, "which-calls-wait, concurrency, priorities, synchronisation"),
        EXERCISE_OPTION(&exercise, EXERCISE_COUNT),
    };
    struct gpu_info gpu;
    struct csv csv;
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc == CLI_CONTINUE)
        rc = deep_check(deep, deep_parts, sizeof deep_parts / sizeof deep_parts[0]);
    /* Experiment 1 holds 3 vectors on the GPU, 3 pageable and 3 pinned on the host, and so does
     * exercise 1; exercises 2 and 3 hold no vectors, and so have no size to fit. */
    struct sized size = {"--size", &args.size, cli_given("--size"), 3, 6};
    if (rc != CLI_CONTINUE ||
        (rc = lesson_open("02_streams", &args, &size, exercise <= 1 ? 1 : 0, &gpu, &csv)))
        return rc;
    if (exercise == 1)
        exercise_streams(args.size, cli_given("--streams") ? n_streams : SWEEP_TOP, args.reps,
                         &csv);
    else if (exercise == 2)
        exercise_memset_barrier(args.reps, &csv);
    else if (exercise == 3)
        exercise_long_filler(&gpu, args.reps, &csv);
    if (exercise)
        return lesson_close(&csv) ? EXIT_ERROR : EXIT_VERIFIED;

    /* Non-blocking streams: the legacy default stream never waits for them, nor they for it. */
    cudaStream_t streams[MAX_STREAMS];
    for (int s = 0; s < n_streams; s++)
        CUDA_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    double *samples = samples_or_exit((size_t)args.reps);
    unsigned long long *d_elapsed;
    CUDA_CHECK(cudaMalloc((void **)&d_elapsed, MAX_STREAMS * sizeof *d_elapsed));

    split_over_streams(args.size, n_streams, args.reps, streams, &csv);
    default_stream_barrier(args.reps, samples, d_elapsed, &csv);
    deep_layer(deep, &gpu, args.size, n_streams, args.reps, streams, samples, d_elapsed, &csv);

    /* cudaStreamDestroy does not wait for the stream's work: synchronise first. */
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
