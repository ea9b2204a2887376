/*
 * 01_sync_copy - the baseline: blocking cudaMemcpy from pageable memory.
 *
 * Lecture sections 1-2 and table 1's left column: cudaMemcpy holds the CPU, and runs on the
 * legacy default stream, so nothing else happens on the GPU either.
 *
 *   part 1  c = a + b with malloc'ed buffers and blocking copies, each phase timed on the GPU
 *           (CUDA events) and as the CPU saw it (the host clock)
 *   part 2  how fast a blocking copy from pageable memory is, 1 MiB to --sweep-max
 *
 * `--deep PARTS` (DEEP.md) runs more: kernel-alone (kernel_alone.c), small-copies (part 2 from
 * 4 KiB), early-return (copy_return.c). `--exercise N` runs the README's exercise N instead.
 */
#include "common.h"
#include "kernels.h"
#include "sync_copy.h"

#include <stdint.h>
#include <string.h>

static const char summary[] =
    "The baseline of the course: a vector addition with blocking cudaMemcpy on pageable\n"
    "(malloc) memory, timed phase by phase on the GPU and on the CPU, then the bandwidth of\n"
    "pageable cudaMemcpy in both directions from 1 MiB to --sweep-max.";
static const char *const deep_parts[] = {"kernel-alone", "small-copies", "early-return"};
#define CORE_SWEEP_MIN ((size_t)1 << 20) /* part 2's smallest size; small-copies goes below */

/* ------------------------------------------------------------------------------------------ *
 * Part 1: c = a + b the synchronous way.
 * ------------------------------------------------------------------------------------------ */

/* malloc gives pageable memory: what most programs have, and what the GPU cannot read itself. */
static struct vectors vectors_alloc(size_t n)
{
    const size_t bytes = n * sizeof(float);
    struct vectors v = {.h_a = malloc_or_exit(bytes), .h_b = malloc_or_exit(bytes),
                        .h_c = malloc_or_exit(bytes), .n = n};
    fill_random(v.h_a, n, 1);
    fill_random(v.h_b, n, 2);
    CUDA_CHECK(cudaMalloc((void **)&v.d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&v.d_b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&v.d_c, bytes));
    return v;
}

static void vectors_free(struct vectors *v)
{
    CUDA_CHECK(cudaFree(v->d_a));
    CUDA_CHECK(cudaFree(v->d_b));
    CUDA_CHECK(cudaFree(v->d_c));
    free(v->h_a);
    free(v->h_b);
    free(v->h_c);
}

/* Copies a and b in, adds, copies c out, and checks c. The GPU stamps each event when it gets
 * there; all the work goes to the legacy default stream (0), so events there bracket it.
 * wait_for_kernel: the cudaDeviceSynchronize after the launch (exercise 2 leaves it out). */
static struct phase_times one_repetition(const struct vectors *v, cudaEvent_t mark[N_PHASES],
                                         bool wait_for_kernel)
{
    const size_t bytes = v->n * sizeof(float);
    /* Poisoned on both sides, so that the check proves this repetition wrote c. */
    CUDA_CHECK(cudaMemset(v->d_c, 0xff, bytes));
    memset(v->h_c, 0xff, bytes);
    CUDA_CHECK(cudaDeviceSynchronize());

    double t0 = host_ms();
    CUDA_CHECK(cudaEventRecord(mark[0], 0));
    CUDA_CHECK(cudaMemcpy(v->d_a, v->h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(v->d_b, v->h_b, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaEventRecord(mark[1], 0));
    double t1 = host_ms();

    CUDA_CHECK(launch_vector_add(v->d_a, v->d_b, v->d_c, v->n, 0));
    double t_launched = host_ms();
    CUDA_CHECK(cudaEventRecord(mark[2], 0));
    /* The CPU waits here until the kernel is done, so that the kernel phase on the host clock
     * ends when the kernel does, as its events' interval does on the GPU. */
    if (wait_for_kernel)
        CUDA_CHECK(cudaDeviceSynchronize());
    double t2 = host_ms();

    CUDA_CHECK(cudaMemcpy(v->h_c, v->d_c, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaEventRecord(mark[3], 0));
    double t3 = host_ms();
    CUDA_CHECK(cudaEventSynchronize(mark[3]));
    if (!vector_add_verified(v->h_a, v->h_b, v->h_c, v->n, "blocking c = a + b"))
        exit(EXIT_ERROR);

    struct phase_times t = {.host_ms = {t1 - t0, t2 - t1, t3 - t2, t3 - t0},
                            .launch_ms = t_launched - t1};
    const int from[N_PHASES] = {0, 1, 2, 0}, to[N_PHASES] = {1, 2, 3, 3};
    for (int p = 0; p < N_PHASES; p++) {
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, mark[from[p]], mark[to[p]]));
        t.gpu_ms[p] = ms;
    }
    return t;
}

/* Part 1 at `bytes` per vector, printed and recorded; the kernel alone after it if asked.
 * Returns the repetitions' times (the caller frees them). */
static struct phase_times *vector_add_sync(size_t bytes, int reps, bool and_kernel_alone,
                                           const struct gpu_info *gpu, struct csv *csv)
{
    struct vectors v = vectors_alloc(bytes / sizeof(float));
    cudaEvent_t mark[N_PHASES];
    for (int i = 0; i < N_PHASES; i++)
        CUDA_CHECK(cudaEventCreate(&mark[i]));
    struct phase_times *times = malloc_or_exit((size_t)reps * sizeof *times);
    /* One untimed round first: it pays for lazy module loading and first-touch page faults. */
    one_repetition(&v, mark, true);
    for (int rep = 0; rep < reps; rep++)
        times[rep] = one_repetition(&v, mark, true);
    print_phases(&v, times, reps, csv);
    if (and_kernel_alone)
        kernel_alone(&v, mark, reps, gpu, csv);
    for (int i = 0; i < N_PHASES; i++)
        CUDA_CHECK(cudaEventDestroy(mark[i]));
    vectors_free(&v);
    return times;
}

/* ------------------------------------------------------------------------------------------ *
 * Part 2: how fast is a blocking copy from pageable memory?
 * ------------------------------------------------------------------------------------------ */

/* Each size `reps` times each way (one untimed copy first), timed by time_copy(): from an idle
 * GPU until the copy is done, since an H2D call may return before its DMA ends. */
static void pageable_sweep(const char *title, size_t from, size_t below, size_t max_bytes,
                           int reps, bool early, struct csv *csv)
{
    float *h_src = malloc_or_exit(max_bytes), *h_dst = malloc_or_exit(max_bytes);
    double *samples = samples_or_exit((size_t)reps);
    fill_random(h_src, max_bytes / sizeof(float), 3);
    void *d_buf;
    CUDA_CHECK(cudaMalloc(&d_buf, max_bytes));
    void *const dst[2] = {d_buf, h_dst}, *const src[2] = {h_src, d_buf};
    const enum cudaMemcpyKind kind[2] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost};

    struct sweep_table table = {.early = early};
    sweep_header(title, reps, early);
    for (size_t bytes = from; bytes <= max_bytes && bytes < below;
         bytes = sweep_next_size(bytes, max_bytes)) {
        memset(h_dst, 0xff, bytes);
        struct stats ms[2];
        int returned_early[2] = {0, 0};
        for (int way = 0; way < 2; way++) {
            CUDA_CHECK(cudaMemcpy(dst[way], src[way], bytes, kind[way]));
            for (int rep = 0; rep < reps; rep++)
                samples[rep] = time_copy(dst[way], src[way], bytes, kind[way]);
            ms[way] = stats_summarize(samples, (size_t)reps);
            if (early)
                returned_early[way] = count_early(dst[way], src[way], bytes, kind[way], reps);
        }
        if (memcmp(h_src, h_dst, bytes) != 0) {
            fprintf(stderr, "%s: %zu bytes copied to the GPU and back differ\n", program_name,
                    bytes);
            exit(EXIT_ERROR);
        }
        sweep_row(&table, bytes, reps, ms, returned_early, csv);
    }
    sweep_footer(&table);
    CUDA_CHECK(cudaFree(d_buf));
    free(samples);
    free(h_src);
    free(h_dst);
}

/* ------------------------------------------------------------------------------------------ */
static int run_exercise(int n, struct common_args *args, size_t sweep_max)
{
    struct gpu_info gpu;
    struct csv csv;
    int rc = exercise_open(n, args, &sweep_max, &gpu, &csv);
    if (rc)
        return rc;
    if (n == 1) { /* part 1 at three sizes */
        size_t bytes[SHARE_SIZES];
        int reps[SHARE_SIZES];
        struct phase_times *times[SHARE_SIZES];
        share_sizes(args, bytes, reps);
        for (int i = 0; i < SHARE_SIZES; i++)
            times[i] = vector_add_sync(bytes[i], reps[i], true, &gpu, &csv);
        copy_shares(bytes, reps, times, &csv);
    } else if (n == 2) { /* with and without the synchronize, in turns, one untimed round */
        struct vectors v = vectors_alloc(args->size / sizeof(float));
        cudaEvent_t mark[N_PHASES];
        struct phase_times *times[N_WAYS];
        for (int i = 0; i < N_PHASES; i++)
            CUDA_CHECK(cudaEventCreate(&mark[i]));
        for (int w = 0; w < N_WAYS; w++)
            times[w] = malloc_or_exit((size_t)args->reps * sizeof(struct phase_times));
        for (int rep = -1; rep < args->reps; rep++)
            for (int turn = 0; turn < N_WAYS; turn++) {
                int way = (rep & 1) ? N_WAYS - 1 - turn : turn;
                struct phase_times t = one_repetition(&v, mark, way == WITH_SYNC);
                if (rep >= 0)
                    times[way][rep] = t;
            }
        for (int i = 0; i < N_PHASES; i++)
            CUDA_CHECK(cudaEventDestroy(mark[i]));
        vectors_free(&v);
        no_wait_for_kernel(args->size, args->reps, times, &csv);
    } else {
        copies_under_load(args->reps, sweep_max, &csv);
    }
    return exercise_close(n, &csv);
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 64u << 20, .size_help = "bytes per vector",
                               .size_multiple = sizeof(float), .reps = 20};
    size_t sweep_max = 256u << 20;
    int exercise = 0;
    const char *deep = NULL;
    const struct opt extra[] = {
        SWEEP_MAX_OPTION(&sweep_max, "largest size of the bandwidth sweep"),
        DEEP_OPTION(&deep, "kernel-alone,small-copies,early-return"),
        EXERCISE_OPTION(&exercise, EXERCISES),
    };
    struct gpu_info gpu;
    struct csv csv;
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc == CLI_CONTINUE)
        rc = deep_check(deep, deep_parts, sizeof deep_parts / sizeof deep_parts[0]);
    if (rc != CLI_CONTINUE || exercise) /* an exercise fits sizes of its own */
        return rc != CLI_CONTINUE ? rc : run_exercise(exercise, &args, sweep_max);
    /* Part 1 holds three vectors on each side, part 2 one buffer on the GPU and two on the host. */
    struct sized sizes[] = {{"--size", &args.size, cli_given("--size"), 3, 3},
                            {"--sweep-max", &sweep_max, cli_given("--sweep-max"), 1, 2}};
    if ((rc = lesson_open(LESSON, &args, sizes, 2, &gpu, &csv)))
        return rc;

    const bool early = deep_wants(deep, "early-return");
    free(vector_add_sync(args.size, args.reps, deep_wants(deep, "kernel-alone"), &gpu, &csv));
    size_t core_min = sweep_max < CORE_SWEEP_MIN ? sweep_max : CORE_SWEEP_MIN;
    pageable_sweep("Part 2", core_min, SIZE_MAX, sweep_max, args.reps, early, &csv);
    if (deep_wants(deep, "small-copies") && core_min > SWEEP_MIN_BYTES)
        pageable_sweep("Deep part small-copies", SWEEP_MIN_BYTES, core_min, sweep_max, args.reps,
                       early, &csv);
    if (lesson_close(&csv))
        return EXIT_ERROR;

    printf("\nverified: every element of c = a + b in every repetition, and every sweep size\n");
    return EXIT_VERIFIED;
}
