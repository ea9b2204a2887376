/*
 * 01_sync_copy - the baseline: blocking cudaMemcpy from pageable memory.
 *
 * Lecture sections 1-2 and table 1's left column: cudaMemcpy blocks the CPU until the copy is done,
 * and runs on the legacy default stream, so nothing else happens on the GPU either. This program
 * does the lecture's vector addition that way and measures where the time goes, first on the GPU
 * (CUDA events) and then as the CPU saw it (the host clock). Then it measures how fast blocking
 * copies from ordinary malloc'ed ("pageable") memory are, from 4 KiB up.
 *
 * Every later lesson is compared with the numbers this one prints.
 */
#include "common.h"
#include "kernels.h"

#include <math.h>
#include <string.h>

static const char summary[] =
    "The baseline of the course: a vector addition with blocking cudaMemcpy on pageable\n"
    "(malloc) memory, timed phase by phase on the GPU and on the CPU, then a bandwidth sweep of\n"
    "pageable cudaMemcpy in both directions from 4 KiB to --sweep-max.";

enum { PHASE_H2D, PHASE_KERNEL, PHASE_D2H, PHASE_TOTAL, N_PHASES };
static const char *const phase_names[N_PHASES] = {"h2d", "kernel", "d2h", "total"};
static const char *const phase_directions[N_PHASES] = {"H2D", "none", "D2H", "none"};

/* ------------------------------------------------------------------------------------------ *
 * Part 1: c = a + b the synchronous way, as in lecture section 6's baseline.
 * ------------------------------------------------------------------------------------------ */

struct phase_samples {
    double *gpu_ms[N_PHASES];  /* CUDA events: what the GPU spent */
    double *host_ms[N_PHASES]; /* host clock: how long the CPU was held up */
    double *launch_ms;         /* host clock: how long the kernel launch itself took to return */
};

static int vector_add_sync(size_t bytes, int reps, struct csv *csv)
{
    const size_t n = bytes / sizeof(float);

    /* Pageable host memory: what malloc gives, and what most programs have. */
    float *h_a = malloc(bytes), *h_b = malloc(bytes), *h_c = malloc(bytes);
    if (!h_a || !h_b || !h_c) {
        fprintf(stderr, "%s: malloc of 3 x %zu bytes failed\n", program_name, bytes);
        return EXIT_ERROR;
    }
    fill_random(h_a, n, 1);
    fill_random(h_b, n, 2);

    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc((void **)&d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_c, bytes));

    /* Events mark points in a stream; the GPU stamps each when it gets there. All work here goes
     * to the legacy default stream (stream 0), so recording the events there brackets it exactly. */
    cudaEvent_t mark[N_PHASES];
    for (int i = 0; i < N_PHASES; i++)
        CUDA_CHECK(cudaEventCreate(&mark[i]));

    /* One allocation holds every sample; each phase and clock gets its own slice of reps. */
    struct phase_samples s;
    double *storage = calloc((size_t)(2 * N_PHASES + 1) * (size_t)reps, sizeof(double));
    if (!storage) {
        fprintf(stderr, "%s: out of host memory for %d samples\n", program_name, reps);
        return EXIT_ERROR;
    }
    for (int p = 0; p < N_PHASES; p++) {
        s.gpu_ms[p] = storage + (size_t)p * (size_t)reps;
        s.host_ms[p] = storage + (size_t)(N_PHASES + p) * (size_t)reps;
    }
    s.launch_ms = storage + (size_t)(2 * N_PHASES) * (size_t)reps;

    /* One untimed round first: the first copy and the first launch pay for lazy module loading
     * and first-touch page faults, which are not what we want to measure. */
    for (int rep = -1; rep < reps; rep++) {
        /* Poison the result on both sides, so that verification proves this repetition wrote it. */
        CUDA_CHECK(cudaMemset(d_c, 0xff, bytes));
        memset(h_c, 0xff, bytes);
        CUDA_CHECK(cudaDeviceSynchronize());

        double t0 = host_ms();
        CUDA_CHECK(cudaEventRecord(mark[0], 0));
        CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaEventRecord(mark[1], 0));
        double t1 = host_ms();

        CUDA_CHECK(launch_vector_add(d_a, d_b, d_c, n, 0));
        double t_launched = host_ms();
        CUDA_CHECK(cudaEventRecord(mark[2], 0));
        /* Even in this "synchronous" program the launch returns at once: kernels are always
         * asynchronous. It is this call that makes the CPU wait for the kernel. */
        CUDA_CHECK(cudaDeviceSynchronize());
        double t2 = host_ms();

        CUDA_CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaEventRecord(mark[3], 0));
        double t3 = host_ms();
        CUDA_CHECK(cudaEventSynchronize(mark[3]));

        size_t bad = vector_add_mismatch(h_a, h_b, h_c, n);
        if (bad != n) {
            fprintf(stderr, "%s: verification failed at element %zu: %.9g + %.9g gave %.9g\n",
                    program_name, bad, h_a[bad], h_b[bad], h_c[bad]);
            return EXIT_ERROR;
        }
        if (rep < 0)
            continue;

        float ms[N_PHASES];
        CUDA_CHECK(cudaEventElapsedTime(&ms[PHASE_H2D], mark[0], mark[1]));
        CUDA_CHECK(cudaEventElapsedTime(&ms[PHASE_KERNEL], mark[1], mark[2]));
        CUDA_CHECK(cudaEventElapsedTime(&ms[PHASE_D2H], mark[2], mark[3]));
        CUDA_CHECK(cudaEventElapsedTime(&ms[PHASE_TOTAL], mark[0], mark[3]));
        double host[N_PHASES] = {t1 - t0, t2 - t1, t3 - t2, t3 - t0};
        for (int p = 0; p < N_PHASES; p++) {
            s.gpu_ms[p][rep] = ms[p];
            s.host_ms[p][rep] = host[p];
        }
        s.launch_ms[rep] = t_launched - t1;
    }

    /* Bytes each phase moves: two inputs in, one output out; the kernel touches all three. */
    const size_t phase_bytes[N_PHASES] = {2 * bytes, 3 * bytes, bytes, 3 * bytes};
    char size_text[32];
    printf("\nPart 1: c = a + b with blocking cudaMemcpy, %zu floats (%s per vector), "
           "median of %d\n", n, format_bytes(bytes, size_text, sizeof size_text), reps);
    printf("  %-8s %14s %12s %18s\n", "phase", "GPU ms", "GB/s", "CPU blocked ms");
    struct stats gpu[N_PHASES], host[N_PHASES];
    for (int p = 0; p < N_PHASES; p++) {
        gpu[p] = stats_summarize(s.gpu_ms[p], (size_t)reps);
        host[p] = stats_summarize(s.host_ms[p], (size_t)reps);
        double rate = p == PHASE_TOTAL ? NAN : gbps(phase_bytes[p], gpu[p].median);
        char rate_text[16] = "-";
        if (!isnan(rate))
            snprintf(rate_text, sizeof rate_text, "%.1f", rate);
        printf("  %-8s %14.3f %12s %18.3f\n", phase_names[p], gpu[p].median, rate_text,
               host[p].median);

        struct csv_row row = {"phases", phase_names[p], phase_directions[p], phase_bytes[p], reps,
                              gpu[p], rate, "clock=gpu_event"};
        struct csv_row host_row = {"phases", phase_names[p], phase_directions[p], phase_bytes[p],
                                   reps, host[p], NAN, "clock=host"};
        if (csv_write(csv, &row) || csv_write(csv, &host_row))
            return EXIT_ERROR;
    }
    struct stats launch = stats_summarize(s.launch_ms, (size_t)reps);
    struct csv_row launch_row = {"phases", "launch", "none", 0, reps, launch, NAN, "clock=host"};
    if (csv_write(csv, &launch_row))
        return EXIT_ERROR;

    printf("  (GB/s: H2D and D2H over PCIe; kernel: bytes read + written in device memory)\n");
    printf("  The CPU spent the whole %.3f ms inside blocking CUDA calls, and the copy engines and\n"
           "  the SMs took turns. Only the kernel launch returned at once (after %.4f ms):\n"
           "  cudaDeviceSynchronize did the waiting for it.\n",
           host[PHASE_TOTAL].median, launch.median);

    free(storage);
    for (int i = 0; i < N_PHASES; i++)
        CUDA_CHECK(cudaEventDestroy(mark[i]));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    free(h_a);
    free(h_b);
    free(h_c);
    return EXIT_VERIFIED;
}

/* ------------------------------------------------------------------------------------------ *
 * Part 2: how fast is a blocking copy from pageable memory, by size?
 * ------------------------------------------------------------------------------------------ */

/* Times `reps` blocking copies with the host clock: for a blocking call, the time the program is
 * held up is the cost that matters. One untimed copy first. */
static struct stats time_copies(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                                int reps, double *samples)
{
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
    for (int rep = 0; rep < reps; rep++) {
        double t0 = host_ms();
        CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
        samples[rep] = host_ms() - t0;
    }
    return stats_summarize(samples, (size_t)reps);
}

static int pageable_sweep(size_t max_bytes, int reps, struct csv *csv)
{
    float *h_src = malloc(max_bytes), *h_dst = malloc(max_bytes);
    double *samples = malloc((size_t)reps * sizeof *samples);
    if (!h_src || !h_dst || !samples) {
        fprintf(stderr, "%s: malloc of 2 x %zu bytes failed\n", program_name, max_bytes);
        return EXIT_ERROR;
    }
    fill_random(h_src, max_bytes / sizeof(float), 3);
    void *d_buf;
    CUDA_CHECK(cudaMalloc(&d_buf, max_bytes));

    printf("\nPart 2: pageable cudaMemcpy bandwidth, host clock, median of %d "
           "(GB/s = 1e9 bytes/s)\n", reps);
    printf("  %10s %12s %10s %12s %10s\n", "size", "H2D ms", "H2D GB/s", "D2H ms", "D2H GB/s");
    double best_h2d = 0, best_d2h = 0;
    for (size_t bytes = SWEEP_MIN_BYTES; bytes <= max_bytes;
         bytes = sweep_next_size(bytes, max_bytes)) {
        struct stats h2d = time_copies(d_buf, h_src, bytes, cudaMemcpyHostToDevice, reps, samples);
        memset(h_dst, 0xff, bytes);
        struct stats d2h = time_copies(h_dst, d_buf, bytes, cudaMemcpyDeviceToHost, reps, samples);
        if (memcmp(h_src, h_dst, bytes) != 0) {
            fprintf(stderr, "%s: the %zu bytes copied to the GPU and back differ\n", program_name,
                    bytes);
            return EXIT_ERROR;
        }

        char size_text[32];
        double h2d_rate = gbps(bytes, h2d.median), d2h_rate = gbps(bytes, d2h.median);
        printf("  %10s %12.4f %10.2f %12.4f %10.2f\n",
               format_bytes(bytes, size_text, sizeof size_text), h2d.median, h2d_rate,
               d2h.median, d2h_rate);
        best_h2d = fmax(best_h2d, h2d_rate);
        best_d2h = fmax(best_d2h, d2h_rate);

        struct csv_row up = {"bandwidth", "pageable", "H2D", bytes, reps, h2d, h2d_rate,
                             "clock=host;call=cudaMemcpy"};
        struct csv_row down = {"bandwidth", "pageable", "D2H", bytes, reps, d2h, d2h_rate,
                               "clock=host;call=cudaMemcpy"};
        if (csv_write(csv, &up) || csv_write(csv, &down))
            return EXIT_ERROR;
    }
    printf("  best: H2D %.1f GB/s, D2H %.1f GB/s; every size verified by a round trip\n",
           best_h2d, best_d2h);

    CUDA_CHECK(cudaFree(d_buf));
    free(samples);
    free(h_src);
    free(h_dst);
    return EXIT_VERIFIED;
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 64u << 20, .size_multiple = sizeof(float), .reps = 20};
    size_t sweep_max = 256u << 20;
    const struct opt extra[] = {
        {"--sweep-max", OPT_BYTES, &sweep_max, SWEEP_MIN_BYTES, (size_t)1 << 40, "BYTES",
         "largest size of the bandwidth sweep", sizeof(float)},
    };
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc != CLI_CONTINUE)
        return rc;

    struct gpu_info gpu;
    struct csv csv;
    /* Part 1 holds three vectors on each side, part 2 one sweep buffer on the GPU, two on the host. */
    if ((rc = lesson_open("01_sync_copy", &args, 3 * args.size + sweep_max,
                          3 * args.size + 2 * sweep_max, &gpu, &csv)) != EXIT_VERIFIED)
        return rc;
    if ((rc = vector_add_sync(args.size, args.reps, &csv)) != EXIT_VERIFIED ||
        (rc = pageable_sweep(sweep_max, args.reps, &csv)) != EXIT_VERIFIED) {
        csv_close(&csv);
        return rc;
    }
    if (csv_close(&csv))
        return EXIT_ERROR;

    printf("\nverified: every element of c = a + b in every repetition, and every sweep size\n");
    return EXIT_VERIFIED;
}
