/*
 * 01_sync_copy - the baseline: blocking cudaMemcpy from pageable memory.
 *
 * Lecture sections 1-2 and table 1's left column: cudaMemcpy holds the CPU, and runs on the
 * legacy default stream, so nothing else happens on the GPU either. This program does the
 * lecture's vector addition that way and measures where the time goes, first on the GPU (CUDA
 * events) and then as the CPU saw it (the host clock). Then it measures how fast blocking copies
 * from ordinary malloc'ed ("pageable") memory are, from 4 KiB up, and checks how "blocking" they
 * are. The CUDA runtime's "API synchronization behavior" page is more precise than table 1's
 * "blocks until the copy is done": from pageable memory to the device, cudaMemcpy returns once
 * the data has been copied into the driver's staging buffer, and the DMA to the device may still
 * be running; from the device to the host it returns once the copy is done.
 *
 * Every later lesson is compared with the numbers this one prints. `--exercise N` runs exercise N
 * of the README instead (exercises.c), with these same functions.
 */
#include "common.h"
#include "kernels.h"
#include "sync_copy.h"

#include <math.h>
#include <string.h>

static const char summary[] =
    "The baseline of the course: a vector addition with blocking cudaMemcpy on pageable\n"
    "(malloc) memory, timed phase by phase on the GPU and on the CPU, then a bandwidth sweep of\n"
    "pageable cudaMemcpy in both directions from 4 KiB to --sweep-max.";

static const char *const phase_names[N_PHASES] = {"h2d", "kernel", "d2h", "total"};
static const char *const phase_directions[N_PHASES] = {"H2D", "none", "D2H", "none"};

/* ------------------------------------------------------------------------------------------ *
 * Part 1: c = a + b the synchronous way, as in lecture section 6's baseline.
 * ------------------------------------------------------------------------------------------ */

/* The three vectors on each side (struct vectors, sync_copy.h) live in pageable host memory: what
 * malloc gives, and what most programs have. */
struct vectors vectors_alloc(size_t n)
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

void vectors_free(struct vectors *v)
{
    CUDA_CHECK(cudaFree(v->d_a));
    CUDA_CHECK(cudaFree(v->d_b));
    CUDA_CHECK(cudaFree(v->d_c));
    free(v->h_a);
    free(v->h_b);
    free(v->h_c);
}

/* Copies a and b in, adds, copies c out, the blocking way, and checks c. Events mark points in a
 * stream, and the GPU stamps each when it gets there; all work here goes to the legacy default
 * stream (stream 0), so recording the events there brackets it exactly. */
struct phase_times one_repetition(const struct vectors *v, cudaEvent_t mark[N_PHASES],
                                  bool wait_for_kernel)
{
    const size_t bytes = v->n * sizeof(float);
    /* Poison the result on both sides, so that verification proves this repetition wrote it. */
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
    /* Even in this "synchronous" program the launch returns at once: kernels are always
     * asynchronous. It is this call that makes the CPU wait for the kernel; without it (exercise
     * 2), the next cudaMemcpy waits, since the legacy default stream runs its work in order. */
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

static void print_phases(const struct vectors *v, const struct phase_times *times, int reps,
                         struct csv *csv)
{
    const size_t bytes = v->n * sizeof(float);
    /* Bytes each phase moves: two inputs in, one output out; the kernel touches all three. */
    const size_t phase_bytes[N_PHASES] = {2 * bytes, 3 * bytes, bytes, 3 * bytes};
    double *samples = samples_or_exit((size_t)reps);
    char size_text[32];
    printf("\nPart 1: c = a + b with blocking cudaMemcpy, %zu floats (%s per vector), "
           "median of %d\n", v->n, format_bytes(bytes, size_text, sizeof size_text), reps);
    printf("  %-8s %14s %12s %18s\n", "phase", "GPU ms", "GB/s", "CPU blocked ms");
    struct stats host[N_PHASES];
    for (int p = 0; p < N_PHASES; p++) {
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = times[rep].gpu_ms[p];
        struct stats gpu = stats_summarize(samples, (size_t)reps);
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = times[rep].host_ms[p];
        host[p] = stats_summarize(samples, (size_t)reps);
        double rate = p == PHASE_TOTAL ? NAN : gbps(phase_bytes[p], gpu.median);
        char rate_text[16] = "-";
        if (!isnan(rate))
            snprintf(rate_text, sizeof rate_text, "%.1f", rate);
        printf("  %-8s %14.3f %12s %18.3f\n", phase_names[p], gpu.median, rate_text,
               host[p].median);
        csv_record(csv, &(struct csv_row){"phases", phase_names[p], phase_directions[p],
                                          phase_bytes[p], reps, gpu, rate, "clock=gpu_event"});
        csv_record(csv, &(struct csv_row){"phases", phase_names[p], phase_directions[p],
                                          phase_bytes[p], reps, host[p], NAN, "clock=host"});
    }
    for (int rep = 0; rep < reps; rep++)
        samples[rep] = times[rep].launch_ms;
    struct stats launch = stats_summarize(samples, (size_t)reps);
    csv_record(csv, &(struct csv_row){.experiment = "phases", .variant = "launch", .reps = reps,
                                      .ms = launch, .params = "clock=host"});
    free(samples);

    printf("  (GB/s: H2D and D2H over PCIe; kernel: bytes read + written in device memory)\n");
    printf("  The CPU spent the whole %.3f ms inside blocking CUDA calls, and the copy engines "
           "and\n  the SMs took turns. Only the kernel launch returned at once (after %.4f ms):\n"
           "  cudaDeviceSynchronize did the waiting for it.\n",
           host[PHASE_TOTAL].median, launch.median);
}

/* The kernel on its own. In the table above, its events bracket the launch too: the host
 * launches it only after the copies return. Here the launches queue behind a gate (common.h),
 * so the events time only the GPU's work, beside the device memory's peak. */
static void kernel_alone(const struct vectors *v, cudaEvent_t mark[N_PHASES], int reps,
                         const struct gpu_info *gpu, struct csv *csv)
{
    enum { LAUNCHES = 10 };
    struct gate gate;
    CUDA_CHECK(gate_create(&gate));
    double *samples = samples_or_exit((size_t)reps);
    for (int rep = -1; rep < reps; rep++) {
        if (rep == reps - 1) /* poisoned, so that the check below sees this rep's result */
            CUDA_CHECK(cudaMemset(v->d_c, 0xff, v->n * sizeof(float)));
        CUDA_CHECK(gate_close(&gate, 0));
        CUDA_CHECK(cudaEventRecord(mark[0], 0));
        for (int i = 0; i < LAUNCHES; i++)
            CUDA_CHECK(launch_vector_add(v->d_a, v->d_b, v->d_c, v->n, 0));
        CUDA_CHECK(cudaEventRecord(mark[1], 0));
        gate_open(&gate);
        CUDA_CHECK(cudaEventSynchronize(mark[1]));
        if (!gate_held(&gate))
            exit(EXIT_ERROR);
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, mark[0], mark[1]));
        if (rep >= 0)
            samples[rep] = ms / LAUNCHES;
    }
    memset(v->h_c, 0xff, v->n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(v->h_c, v->d_c, v->n * sizeof(float), cudaMemcpyDeviceToHost));
    if (!vector_add_verified(v->h_a, v->h_b, v->h_c, v->n, "kernel alone"))
        exit(EXIT_ERROR);
    struct stats each = stats_summarize(samples, (size_t)reps);
    size_t bytes = 3 * v->n * sizeof(float); /* a and b read, c written */
    double rate = gbps(bytes, each.median);
    printf("  the kernel alone (%d launches queued behind a gate, events around them): %.3f ms,\n"
           "  %.1f GB/s", LAUNCHES, each.median, rate);
    if (gpu->memory_peak_gbps > 0)
        printf(", %.0f%% of the device memory's %.0f GB/s (memory clock x bus width)",
               100 * rate / gpu->memory_peak_gbps, gpu->memory_peak_gbps);
    printf("\n");
    char params[96];
    snprintf(params, sizeof params, "clock=gpu_event;gated=1;launches=%d;peak_gbps=%.0f", LAUNCHES,
             gpu->memory_peak_gbps);
    csv_record(csv, &(struct csv_row){.experiment = "phases", .variant = "kernel_alone",
                                      .bytes = bytes, .reps = reps, .ms = each, .gbps = rate,
                                      .params = params});
    free(samples);
    gate_destroy(&gate);
}

struct phase_times *vector_add_sync(size_t bytes, int reps, const struct gpu_info *gpu,
                                    struct csv *csv)
{
    struct vectors v = vectors_alloc(bytes / sizeof(float));
    cudaEvent_t mark[N_PHASES];
    for (int i = 0; i < N_PHASES; i++)
        CUDA_CHECK(cudaEventCreate(&mark[i]));
    struct phase_times *times = malloc_or_exit((size_t)reps * sizeof *times);
    /* One untimed round first: the first copy and the first launch pay for lazy module loading
     * and first-touch page faults, which are not what we want to measure. */
    one_repetition(&v, mark, true);
    for (int rep = 0; rep < reps; rep++)
        times[rep] = one_repetition(&v, mark, true);
    print_phases(&v, times, reps, csv);
    kernel_alone(&v, mark, reps, gpu, csv);
    for (int i = 0; i < N_PHASES; i++)
        CUDA_CHECK(cudaEventDestroy(mark[i]));
    vectors_free(&v);
    return times;
}

/* ------------------------------------------------------------------------------------------ *
 * Part 2: how fast is a blocking copy from pageable memory, by size?
 * ------------------------------------------------------------------------------------------ */

/* Times a blocking copy with the host clock, from an idle GPU until the copy is done: for a
 * blocking call the time the program is held up is the cost that matters, and an H2D call may
 * return before its DMA is done (count_early below), so the stream's end is waited for too. */
double time_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = host_ms();
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
    CUDA_CHECK(cudaStreamSynchronize(0));
    return host_ms() - t0;
}

/* `reps` of them, one untimed copy first. */
static struct stats time_copies(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                                int reps, double *samples)
{
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
    for (int rep = 0; rep < reps; rep++)
        samples[rep] = time_copy(dst, src, bytes, kind);
    return stats_summarize(samples, (size_t)reps);
}

/* How many of `reps` blocking copies return before the GPU is done with them: right after the
 * call, cudaStreamQuery asks whether the stream still has work. */
static int count_early(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                       int reps)
{
    int early = 0;
    for (int rep = 0; rep < reps; rep++) {
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
        cudaError_t busy = cudaStreamQuery(0);
        if (busy != cudaErrorNotReady)
            CUDA_CHECK(busy);
        early += busy == cudaErrorNotReady;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    return early;
}

static void pageable_sweep(size_t max_bytes, int reps, struct csv *csv)
{
    float *h_src = malloc_or_exit(max_bytes), *h_dst = malloc_or_exit(max_bytes);
    double *samples = samples_or_exit((size_t)reps);
    fill_random(h_src, max_bytes / sizeof(float), 3);
    void *d_buf;
    CUDA_CHECK(cudaMalloc(&d_buf, max_bytes));

    printf("\nPart 2: pageable cudaMemcpy bandwidth, host clock from the call until the copy is "
           "done,\n  median of %d (GB/s = 1e9 bytes/s); \"early\": of %d more calls, those that "
           "returned while\n  the GPU was still copying (cudaStreamQuery)\n", reps, reps);
    printf("  %10s %11s %9s %6s %11s %9s %6s\n", "size", "H2D ms", "H2D GB/s", "early", "D2H ms",
           "D2H GB/s", "early");
    double best_h2d = 0, best_d2h = 0;
    int early_h2d = 0, early_d2h = 0;
    for (size_t bytes = SWEEP_MIN_BYTES; bytes <= max_bytes;
         bytes = sweep_next_size(bytes, max_bytes)) {
        struct stats h2d = time_copies(d_buf, h_src, bytes, cudaMemcpyHostToDevice, reps, samples);
        int h2d_early = count_early(d_buf, h_src, bytes, cudaMemcpyHostToDevice, reps);
        memset(h_dst, 0xff, bytes);
        struct stats d2h = time_copies(h_dst, d_buf, bytes, cudaMemcpyDeviceToHost, reps, samples);
        int d2h_early = count_early(h_dst, d_buf, bytes, cudaMemcpyDeviceToHost, reps);
        if (memcmp(h_src, h_dst, bytes) != 0) {
            fprintf(stderr, "%s: the %zu bytes copied to the GPU and back differ\n", program_name,
                    bytes);
            exit(EXIT_ERROR);
        }

        char size_text[32];
        double h2d_rate = gbps(bytes, h2d.median), d2h_rate = gbps(bytes, d2h.median);
        printf("  %10s %11.4f %9.2f %3d/%-2d %11.4f %9.2f %3d/%-2d\n",
               format_bytes(bytes, size_text, sizeof size_text), h2d.median, h2d_rate, h2d_early,
               reps, d2h.median, d2h_rate, d2h_early, reps);
        best_h2d = fmax(best_h2d, h2d_rate);
        best_d2h = fmax(best_d2h, d2h_rate);
        early_h2d += h2d_early;
        early_d2h += d2h_early;

        char params[64];
        snprintf(params, sizeof params, "clock=host;call=cudaMemcpy;returned_early=%d", h2d_early);
        csv_record(csv, &(struct csv_row){"bandwidth", "pageable", "H2D", bytes, reps, h2d,
                                          h2d_rate, params});
        snprintf(params, sizeof params, "clock=host;call=cudaMemcpy;returned_early=%d", d2h_early);
        csv_record(csv, &(struct csv_row){"bandwidth", "pageable", "D2H", bytes, reps, d2h,
                                          d2h_rate, params});
    }
    printf("  best: H2D %.1f GB/s, D2H %.1f GB/s; every size verified by a round trip\n",
           best_h2d, best_d2h);
    printf("  returned before the GPU was done: %d H2D calls, %d D2H calls (the CUDA runtime's\n"
           "  \"API synchronization behavior\": H2D from pageable memory returns once the data "
           "is\n  staged, D2H once the copy is complete)\n", early_h2d, early_d2h);

    CUDA_CHECK(cudaFree(d_buf));
    free(samples);
    free(h_src);
    free(h_dst);
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 64u << 20, .size_help = "bytes per vector",
                               .size_multiple = sizeof(float), .reps = 20};
    size_t sweep_max = 256u << 20;
    int exercise = 0;
    const struct opt extra[] = {
        SWEEP_MAX_OPTION(&sweep_max, "largest size of the bandwidth sweep"),
        EXERCISE_OPTION(&exercise, EXERCISES),
    };
    struct gpu_info gpu;
    struct csv csv;
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc != CLI_CONTINUE)
        return rc;
    if (exercise) /* each exercise holds memory of its own, so it fits its own sizes */
        return run_exercise(exercise, &args, sweep_max);
    /* Part 1 holds three vectors on each side, part 2 one sweep buffer on the GPU and two on the
     * host. */
    struct sized sizes[] = {{"--size", &args.size, cli_given("--size"), 3, 3},
                            {"--sweep-max", &sweep_max, cli_given("--sweep-max"), 1, 2}};
    if ((rc = lesson_open(LESSON, &args, sizes, 2, &gpu, &csv)))
        return rc;
    free(vector_add_sync(args.size, args.reps, &gpu, &csv));
    pageable_sweep(sweep_max, args.reps, &csv);
    if (lesson_close(&csv))
        return EXIT_ERROR;

    printf("\nverified: every element of c = a + b in every repetition, and every sweep size\n");
    return EXIT_VERIFIED;
}
