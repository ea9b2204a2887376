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
 *   2. the CPU's side: writing and reading pinned and write-combined memory;
 *   3. mapped ("zero-copy") memory, which kernels read and write directly over PCIe;
 *   4. what pinning costs, and after how many copies it pays for itself;
 *   5. the gotcha of lesson 02, measured: how long cudaMemcpyAsync holds the CPU.
 *
 * Copies are timed with events around back-to-back cudaMemcpyAsync calls in a non-blocking
 * stream, with enough copies per sample (at least 16 MiB) that the events' own overhead, which
 * lesson 03 measured, stays out of the small sizes' figures.
 */
#include "common.h"
#include "zero_copy.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static const char summary[] =
    "Host memory kinds measured: pageable, pinned, write-combined and registered memory by\n"
    "transfer size in both directions (and both at once), mapped zero-copy access, the cost of\n"
    "pinning, and how long cudaMemcpyAsync holds the CPU; figures against the PCIe peak.";

enum memory_kind { PAGEABLE, PINNED, WRITE_COMBINED, REGISTERED, N_KINDS };
static const char *const kind_names[N_KINDS] = {"pageable", "pinned", "write_combined",
                                                "registered"};
enum { UP, DOWN, N_DIRECTIONS }; /* host to device, device to host */
static const char *const direction_names[N_DIRECTIONS] = {"H2D", "D2H"};
enum { MAX_SIZES = 32, PIN_REPS = 5 };
static const size_t bytes_per_sample = 16u << 20;

static struct csv *csv_out;

static void record(const char *experiment, const char *variant, const char *direction,
                   size_t bytes, int reps, struct stats ms, double rate, const char *params)
{
    struct csv_row row = {experiment, variant, direction, bytes, reps, ms, rate, params};
    if (csv_write(csv_out, &row))
        exit(EXIT_ERROR);
}

/* Lessons 01-04 end the program when memory runs out, as on any other error. */
static double *new_samples(int reps)
{
    double *samples = samples_alloc((size_t)reps);
    if (!samples)
        exit(EXIT_ERROR);
    return samples;
}

/* ------------------------------------------------------------------------------------------ *
 * The four ways to get host memory for copies (section 4.2), and how to give each back.
 * ------------------------------------------------------------------------------------------ */

static void *host_alloc(enum memory_kind kind, size_t bytes)
{
    void *p = NULL;
    switch (kind) {
    case PAGEABLE: /* what malloc gives: the driver stages every copy through pinned memory */
        p = malloc(bytes);
        break;
    case PINNED: /* page-locked: the copy engines read and write it directly */
        CUDA_CHECK(cudaMallocHost(&p, bytes));
        break;
    case WRITE_COMBINED: /* pinned, and uncached by the CPU: made for the CPU to write and the
                            GPU to read; CPU reads of it are slow */
        CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocWriteCombined));
        break;
    case REGISTERED: /* memory you already have, pinned in place */
        p = malloc(bytes);
        if (p)
            CUDA_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
        break;
    case N_KINDS:
        break;
    }
    if (!p) {
        fprintf(stderr, "%s: malloc of %zu bytes failed\n", program_name, bytes);
        exit(EXIT_ERROR);
    }
    return p;
}

static void host_free(enum memory_kind kind, void *p)
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
 * The link: PCIe generation and width from sysfs, and the peak they allow.
 * ------------------------------------------------------------------------------------------ */

struct link {
    bool known;
    double gts; /* transfers per second per lane, in billions */
    int width;
    double peak_gbps; /* per direction */
};

static bool read_sysfs(const char *bus_id, const char *file, char *buf, size_t len)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/%s", bus_id, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    return ok;
}

/* Reads the link's maximum (an idle GPU drops to a slower link to save power). Optional: inside
 * containers and some VMs sysfs does not show it, and the figures then stand alone. */
static struct link read_link(int device)
{
    struct link link = {false, 0, 0, 0};
    char bus_id[32], speed[64], width[16];
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess)
        return link;
    for (char *c = bus_id; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    if (!read_sysfs(bus_id, "max_link_speed", speed, sizeof speed) ||
        !read_sysfs(bus_id, "max_link_width", width, sizeof width) ||
        sscanf(speed, "%lf", &link.gts) != 1 || sscanf(width, "%d", &link.width) != 1 ||
        link.gts <= 0 || link.width <= 0)
        return link;
    /* Generations 1-2 send 10 bits for every 8 of data; 3-5 send 130 for every 128. */
    double efficiency = link.gts < 8 ? 8.0 / 10 : 128.0 / 130;
    link.peak_gbps = link.gts * link.width * efficiency / 8;
    link.known = link.gts <= 32; /* PCIe 6's FLIT encoding is not modelled here */
    return link;
}

static const char *pcie_generation(double gts)
{
    static const struct { double gts; const char *name; } gens[] = {
        {2.5, "1"}, {5, "2"}, {8, "3"}, {16, "4"}, {32, "5"}};
    for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++)
        if (fabs(gts - gens[i].gts) < 0.1)
            return gens[i].name;
    return "?";
}

/* ------------------------------------------------------------------------------------------ *
 * 1. Bandwidth by size.
 * ------------------------------------------------------------------------------------------ */

struct timing {
    cudaStream_t stream, other;
    cudaEvent_t start, stop, other_stop;
    double *samples, *other_samples;
    int reps;
};

/* Device buffers of the sweep: `data` receives H2D copies and sends D2H ones; `reference` holds
 * the expected bytes (copied once, from pageable memory), `check` a copy to compare on the GPU. */
struct device_buffers {
    void *data, *reference, *check;
    unsigned long long *count;
};

static int copies_per_sample(size_t bytes)
{
    return bytes >= bytes_per_sample ? 1 : (int)(bytes_per_sample / bytes);
}

/* Milliseconds per copy: median, min and max of the samples. */
static struct stats time_copies(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                                const struct timing *t)
{
    int copies = copies_per_sample(bytes);
    for (int rep = -1; rep < t->reps; rep++) { /* rep -1 warms up */
        CUDA_CHECK(cudaEventRecord(t->start, t->stream));
        for (int c = 0; c < copies; c++)
            CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, t->stream));
        CUDA_CHECK(cudaEventRecord(t->stop, t->stream));
        CUDA_CHECK(cudaEventSynchronize(t->stop));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
        if (rep >= 0)
            t->samples[rep] = ms / copies;
    }
    return stats_summarize(t->samples, (size_t)t->reps);
}

/* Fails unless the first `bytes` of a device buffer equal the reference. Compared on the GPU, so
 * that write-combined memory is never read by the CPU. */
static void expect_reference(const void *d_buffer, const struct device_buffers *d, size_t bytes,
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
static void expect_reference_on_host(const void *dst, const struct device_buffers *d,
                                     size_t bytes, const char *what)
{
    CUDA_CHECK(cudaMemcpy(d->check, dst, bytes, cudaMemcpyHostToDevice));
    expect_reference(d->check, d, bytes, what);
}

struct sweep {
    size_t sizes[MAX_SIZES];
    int n_sizes;
    double gbps[N_KINDS][N_DIRECTIONS][MAX_SIZES];
    double both_gbps[N_DIRECTIONS + 1][MAX_SIZES]; /* H2D, D2H, and their sum */
};

static void sweep_kind(enum memory_kind kind, struct sweep *sw, const struct device_buffers *d,
                       const struct timing *t)
{
    size_t max_bytes = sw->sizes[sw->n_sizes - 1];
    float *src = host_alloc(kind, max_bytes), *dst = host_alloc(kind, max_bytes);
    fill_random(src, max_bytes / sizeof(float), 7); /* the data d->reference holds */
    for (int s = 0; s < sw->n_sizes; s++) {
        size_t bytes = sw->sizes[s];
        char params[96];
        snprintf(params, sizeof params, "clock=gpu_event;call=cudaMemcpyAsync;copies=%d",
                 copies_per_sample(bytes));

        /* In the timed stream: it is non-blocking, so it would not wait for a cudaMemset in the
         * default stream, which could then land on top of the copies. */
        CUDA_CHECK(cudaMemsetAsync(d->data, 0xff, bytes, t->stream));
        struct stats up = time_copies(d->data, src, bytes, cudaMemcpyHostToDevice, t);
        expect_reference(d->data, d, bytes, "H2D copy");
        memset(dst, 0xff, bytes);
        struct stats down = time_copies(dst, d->data, bytes, cudaMemcpyDeviceToHost, t);
        expect_reference_on_host(dst, d, bytes, "D2H copy");

        sw->gbps[kind][UP][s] = gbps(bytes, up.median);
        sw->gbps[kind][DOWN][s] = gbps(bytes, down.median);
        record("bandwidth", kind_names[kind], "H2D", bytes, t->reps, up, sw->gbps[kind][UP][s],
               params);
        record("bandwidth", kind_names[kind], "D2H", bytes, t->reps, down,
               sw->gbps[kind][DOWN][s], params);
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
    double *sum = new_samples(t->reps);
    for (int s = 0; s < sw->n_sizes; s++) {
        size_t bytes = sw->sizes[s];
        int copies = copies_per_sample(bytes);
        CUDA_CHECK(cudaMemsetAsync(d->data, 0xff, bytes, t->stream)); /* else it holds the
                                                                           reference already */
        memset(dst, 0xff, bytes);
        for (int rep = -1; rep < t->reps; rep++) {
            CUDA_CHECK(cudaEventRecord(t->start, t->stream));
            CUDA_CHECK(cudaStreamWaitEvent(t->other, t->start, 0));
            for (int c = 0; c < copies; c++) {
                CUDA_CHECK(cudaMemcpyAsync(d->data, src, bytes, cudaMemcpyHostToDevice,
                                           t->stream));
                CUDA_CHECK(cudaMemcpyAsync(dst, d->reference, bytes, cudaMemcpyDeviceToHost,
                                           t->other));
            }
            CUDA_CHECK(cudaEventRecord(t->stop, t->stream));
            CUDA_CHECK(cudaEventRecord(t->other_stop, t->other));
            CUDA_CHECK(cudaEventSynchronize(t->stop));
            CUDA_CHECK(cudaEventSynchronize(t->other_stop));
            float up_ms, down_ms;
            CUDA_CHECK(cudaEventElapsedTime(&up_ms, t->start, t->stop));
            CUDA_CHECK(cudaEventElapsedTime(&down_ms, t->start, t->other_stop));
            if (rep >= 0) {
                t->samples[rep] = up_ms / copies;
                t->other_samples[rep] = down_ms / copies;
                sum[rep] = fmax(up_ms, down_ms) / copies;
            }
        }
        expect_reference(d->data, d, bytes, "H2D copy (both directions at once)");
        expect_reference_on_host(dst, d, bytes, "D2H copy (both directions at once)");

        struct stats up = stats_summarize(t->samples, (size_t)t->reps);
        struct stats down = stats_summarize(t->other_samples, (size_t)t->reps);
        struct stats both = stats_summarize(sum, (size_t)t->reps);
        sw->both_gbps[UP][s] = gbps(bytes, up.median);
        sw->both_gbps[DOWN][s] = gbps(bytes, down.median);
        sw->both_gbps[N_DIRECTIONS][s] = gbps(2 * bytes, both.median);
        char params[96];
        snprintf(params, sizeof params, "clock=gpu_event;call=cudaMemcpyAsync;copies=%d;streams=2",
                 copies);
        record("bandwidth_bidirectional", "pinned", "H2D", bytes, t->reps, up,
               sw->both_gbps[UP][s], params);
        record("bandwidth_bidirectional", "pinned", "D2H", bytes, t->reps, down,
               sw->both_gbps[DOWN][s], params);
        record("bandwidth_bidirectional", "pinned", "both", 2 * bytes, t->reps, both,
               sw->both_gbps[N_DIRECTIONS][s], params);
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
static void print_against_limits(const struct sweep *sw, const struct link *link)
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

/* ------------------------------------------------------------------------------------------ *
 * 2. The CPU's side: write-combined memory is meant for the CPU to write and the GPU to read.
 * ------------------------------------------------------------------------------------------ */

static void cpu_access(const struct timing *t)
{
    const size_t bytes = 4u << 20, n = bytes / sizeof(uint64_t);
    const enum memory_kind kinds[] = {PINNED, WRITE_COMBINED};
    printf("\n2. the CPU writing (memset) and reading (a sum of 64-bit words) 4 MiB of host memory,\n"
           "   host clock, median of %d\n", t->reps);
    for (int k = 0; k < 2; k++) {
        uint64_t *buffer = host_alloc(kinds[k], bytes);
        double *read_ms = new_samples(t->reps);
        for (int rep = -1; rep < t->reps; rep++) {
            /* A byte pattern that changes with rep, so the compiler cannot know what the sum
             * will read, and every repetition's sum can be checked. */
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
                fprintf(stderr, "%s: %s memory read back wrong: sum %#llx, want %#llx\n",
                        program_name, kind_names[kinds[k]], (unsigned long long)sum,
                        (unsigned long long)(n * word));
                exit(EXIT_ERROR);
            }
            if (rep >= 0) {
                t->samples[rep] = t1 - t0;
                read_ms[rep] = t2 - t1;
            }
        }
        struct stats write = stats_summarize(t->samples, (size_t)t->reps);
        struct stats read = stats_summarize(read_ms, (size_t)t->reps);
        printf("  %-15s write %8.3f ms (%6.2f GB/s)   read %8.3f ms (%6.2f GB/s)\n",
               kind_names[kinds[k]], write.median, gbps(bytes, write.median), read.median,
               gbps(bytes, read.median));
        record("cpu_access", kind_names[kinds[k]], "none", bytes, t->reps, write,
               gbps(bytes, write.median), "clock=host;measure=cpu_write");
        record("cpu_access", kind_names[kinds[k]], "none", bytes, t->reps, read,
               gbps(bytes, read.median), "clock=host;measure=cpu_read");
        free(read_ms);
        host_free(kinds[k], buffer);
    }
}

/* ------------------------------------------------------------------------------------------ *
 * 3. Mapped (zero-copy) memory: kernels that reach across PCIe themselves.
 * ------------------------------------------------------------------------------------------ */

static struct stats time_kernel_or_copy(const float *src, float *dst, size_t n_out, size_t stride,
                                        const float *copy_from, float *copy_to, size_t copy_bytes,
                                        const struct timing *t)
{
    for (int rep = -1; rep < t->reps; rep++) {
        CUDA_CHECK(cudaEventRecord(t->start, t->stream));
        if (copy_bytes)
            CUDA_CHECK(cudaMemcpyAsync(copy_to, copy_from, copy_bytes, cudaMemcpyHostToDevice,
                                       t->stream));
        CUDA_CHECK(launch_gather(src, dst, n_out, stride, t->stream));
        CUDA_CHECK(cudaEventRecord(t->stop, t->stream));
        CUDA_CHECK(cudaEventSynchronize(t->stop));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
        if (rep >= 0)
            t->samples[rep] = ms;
    }
    return stats_summarize(t->samples, (size_t)t->reps);
}

static void expect_gathered(const float *h_result, const float *h_src, size_t n_out,
                            size_t stride, const char *what)
{
    for (size_t i = 0; i < n_out; i++) {
        if (h_result[i] != h_src[i * stride]) {
            fprintf(stderr, "%s: %s: element %zu is %.9g, want %.9g\n", program_name, what, i,
                    h_result[i], h_src[i * stride]);
            exit(EXIT_ERROR);
        }
    }
}

static void zero_copy(size_t bytes, const struct timing *t)
{
    const size_t n = bytes / sizeof(float), stride = 32, n_sparse = n / stride;
    float *h_src, *h_dst, *src_view, *dst_view, *d_a, *d_b;
    /* Mapped: pinned, and visible to kernels at the address cudaHostGetDevicePointer gives. */
    CUDA_CHECK(cudaHostAlloc((void **)&h_src, bytes, cudaHostAllocMapped));
    CUDA_CHECK(cudaHostAlloc((void **)&h_dst, bytes, cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&src_view, h_src, 0));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&dst_view, h_dst, 0));
    CUDA_CHECK(cudaMalloc((void **)&d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_b, bytes));
    fill_random(h_src, n, 8);
    CUDA_CHECK(cudaMemcpy(d_b, h_src, bytes, cudaMemcpyHostToDevice));

    /* A kernel reads host memory into device memory, then writes device memory to the host. */
    struct stats read = time_kernel_or_copy(src_view, d_a, n, 1, NULL, NULL, 0, t);
    CUDA_CHECK(cudaMemcpy(h_dst, d_a, bytes, cudaMemcpyDeviceToHost));
    expect_gathered(h_dst, h_src, n, 1, "kernel read of mapped memory");
    memset(h_dst, 0xff, bytes);
    struct stats write = time_kernel_or_copy(d_b, dst_view, n, 1, NULL, NULL, 0, t);
    expect_gathered(h_dst, h_src, n, 1, "kernel write to mapped memory");

    /* Using 1 float in 32: read just those across PCIe, or copy everything and pick on the GPU. */
    struct stats sparse = time_kernel_or_copy(src_view, d_a, n_sparse, stride, NULL, NULL, 0, t);
    CUDA_CHECK(cudaMemcpy(h_dst, d_a, n_sparse * sizeof(float), cudaMemcpyDeviceToHost));
    expect_gathered(h_dst, h_src, n_sparse, stride, "sparse read of mapped memory");
    CUDA_CHECK(cudaMemsetAsync(d_a, 0xff, bytes, t->stream)); /* the stream the gather runs in */
    struct stats copy_all = time_kernel_or_copy(d_b, d_a, n_sparse, stride, h_src, d_b, bytes, t);
    CUDA_CHECK(cudaMemcpy(h_dst, d_a, n_sparse * sizeof(float), cudaMemcpyDeviceToHost));
    expect_gathered(h_dst, h_src, n_sparse, stride, "copy, then gather");

    char size_text[32];
    printf("\n3. mapped (zero-copy) memory, %s, events, median of %d\n",
           format_bytes(bytes, size_text, sizeof size_text), t->reps);
    printf("  a kernel reads host memory directly     %8.3f ms  %8.2f GB/s\n", read.median,
           gbps(bytes, read.median));
    printf("  a kernel writes host memory directly    %8.3f ms  %8.2f GB/s\n", write.median,
           gbps(bytes, write.median));
    printf("  using 1 float in %zu: read those across PCIe  %8.3f ms\n", stride, sparse.median);
    printf("  using 1 float in %zu: copy all, then pick     %8.3f ms\n", stride,
           copy_all.median);
    record("zero_copy", "mapped_read", "H2D", bytes, t->reps, read, gbps(bytes, read.median),
           "clock=gpu_event;kernel=gather");
    record("zero_copy", "mapped_write", "D2H", bytes, t->reps, write, gbps(bytes, write.median),
           "clock=gpu_event;kernel=gather");
    record("zero_copy", "sparse_mapped_read", "H2D", bytes, t->reps, sparse, NAN,
           "clock=gpu_event;stride=32");
    record("zero_copy", "sparse_copy_then_gather", "H2D", bytes, t->reps, copy_all, NAN,
           "clock=gpu_event;stride=32");

    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFreeHost(h_src));
    CUDA_CHECK(cudaFreeHost(h_dst));
}

/* ------------------------------------------------------------------------------------------ *
 * 4. What pinning costs (host clock), and when it pays back.
 * ------------------------------------------------------------------------------------------ */

enum { MALLOC_TOUCH, FREE, HOST_REGISTER, HOST_UNREGISTER, MALLOC_HOST, FREE_HOST, N_PIN_OPS };
static const char *const pin_op_names[N_PIN_OPS] = {
    "malloc + first touch", "free", "cudaHostRegister", "cudaHostUnregister", "cudaMallocHost",
    "cudaFreeHost"};
static const char *const pin_op_variants[N_PIN_OPS] = {
    "malloc_touch", "free", "host_register", "host_unregister", "malloc_host", "free_host"};

static void pinning_cost(size_t bytes, const struct sweep *sw)
{
    double samples[N_PIN_OPS][PIN_REPS];
    for (int rep = 0; rep < PIN_REPS; rep++) {
        double t0 = host_ms();
        char *p = malloc(bytes);
        if (!p) {
            fprintf(stderr, "%s: malloc of %zu bytes failed\n", program_name, bytes);
            exit(EXIT_ERROR);
        }
        memset(p, 1, bytes); /* the operating system maps the pages only when first touched */
        double t1 = host_ms();
        CUDA_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
        double t2 = host_ms();
        CUDA_CHECK(cudaHostUnregister(p));
        double t3 = host_ms();
        free(p);
        double t4 = host_ms();
        void *q;
        CUDA_CHECK(cudaMallocHost(&q, bytes));
        double t5 = host_ms();
        CUDA_CHECK(cudaFreeHost(q));
        double t6 = host_ms();
        const double times[N_PIN_OPS] = {t1 - t0, t4 - t3, t2 - t1, t3 - t2, t5 - t4, t6 - t5};
        for (int op = 0; op < N_PIN_OPS; op++)
            samples[op][rep] = times[op];
    }
    char size_text[32];
    double gib = (double)bytes / (1u << 30);
    printf("\n4. the cost of %s of host memory, host clock, median of %d\n",
           format_bytes(bytes, size_text, sizeof size_text), PIN_REPS);
    struct stats cost[N_PIN_OPS];
    for (int op = 0; op < N_PIN_OPS; op++) {
        cost[op] = stats_summarize(samples[op], PIN_REPS);
        printf("  %-22s %9.2f ms  %9.2f ms per GiB\n", pin_op_names[op], cost[op].median,
               cost[op].median / gib);
        record("pin_cost", pin_op_variants[op], "none", bytes, PIN_REPS, cost[op], NAN,
               "clock=host");
    }
    /* Pinning in place pays once the copies it speeds up have saved what it cost. */
    int last = sw->n_sizes - 1;
    double pageable_ms = bytes / (sw->gbps[PAGEABLE][UP][last] * 1e6);
    double pinned_ms = bytes / (sw->gbps[REGISTERED][UP][last] * 1e6);
    double pin_ms = cost[HOST_REGISTER].median + cost[HOST_UNREGISTER].median;
    printf("  registering and unregistering cost %.1f ms; each H2D copy of the buffer then takes\n"
           "  %.1f ms instead of %.1f: pinning pays back after %.1f copies\n", pin_ms, pinned_ms,
           pageable_ms, pin_ms / (pageable_ms - pinned_ms));
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
            record("async_blocking", kind_names[kinds[k]], direction_names[dir], bytes, t->reps,
                   s, NAN, "clock=host;measure=call_returned");
        }
    }
    CUDA_CHECK(cudaFree(d_buffer));
    host_free(PAGEABLE, host[0]);
    host_free(PINNED, host[1]);
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 64u << 20, .size_multiple = sizeof(float), .reps = 10};
    size_t sweep_max = 1u << 30;
    const struct opt extra[] = {
        {"--sweep-max", OPT_BYTES, &sweep_max, SWEEP_MIN_BYTES, (size_t)1 << 40, "BYTES",
         "largest size of the bandwidth sweep, and the size pinned in part 3", sizeof(float)},
    };
    int rc = cli_parse(argc, argv, summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc != CLI_CONTINUE)
        return rc;

    struct gpu_info gpu;
    struct csv csv;
    /* The sweep holds three buffers on the GPU and two on the host at a time; parts 2 and 4 two
     * of --size on each side. */
    if ((rc = lesson_open("04_pinned_memory", &args, 3 * sweep_max + 2 * args.size,
                          2 * sweep_max + 2 * args.size, &gpu, &csv)) != EXIT_VERIFIED)
        return rc;
    csv_out = &csv;

    struct link link = read_link(args.device);
    if (link.known)
        printf("link: PCIe gen %s x%d (%.1f GT/s per lane): %.1f GB/s per direction at most\n",
               pcie_generation(link.gts), link.width, link.gts, link.peak_gbps);
    else
        printf("link: PCIe generation and width not visible here; figures stand alone\n");

    struct timing t = {.reps = args.reps, .samples = new_samples(args.reps),
                       .other_samples = new_samples(args.reps)};
    CUDA_CHECK(cudaStreamCreateWithFlags(&t.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&t.other, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&t.start));
    CUDA_CHECK(cudaEventCreate(&t.stop));
    CUDA_CHECK(cudaEventCreate(&t.other_stop));

    struct sweep sw = {.n_sizes = 0};
    for (size_t b = SWEEP_MIN_BYTES; b <= sweep_max && sw.n_sizes < MAX_SIZES;
         b = sweep_next_size(b, sweep_max))
        sw.sizes[sw.n_sizes++] = b;
    struct device_buffers d;
    CUDA_CHECK(cudaMalloc(&d.data, sweep_max));
    CUDA_CHECK(cudaMalloc(&d.reference, sweep_max));
    CUDA_CHECK(cudaMalloc(&d.check, sweep_max));
    CUDA_CHECK(cudaMalloc((void **)&d.count, sizeof *d.count));
    float *expected = host_alloc(PAGEABLE, sweep_max);
    fill_random(expected, sweep_max / sizeof(float), 7);
    CUDA_CHECK(cudaMemcpy(d.reference, expected, sweep_max, cudaMemcpyHostToDevice));
    host_free(PAGEABLE, expected);

    for (int k = 0; k < N_KINDS; k++)
        sweep_kind((enum memory_kind)k, &sw, &d, &t);
    sweep_both_directions(&sw, &d, &t);
    print_sweep(&sw, args.reps);
    print_against_limits(&sw, &link);
    CUDA_CHECK(cudaFree(d.data));
    CUDA_CHECK(cudaFree(d.reference));
    CUDA_CHECK(cudaFree(d.check));
    CUDA_CHECK(cudaFree(d.count));

    cpu_access(&t);
    zero_copy(args.size, &t);
    pinning_cost(sweep_max, &sw);
    async_gotcha(args.size, &t);

    CUDA_CHECK(cudaEventDestroy(t.start));
    CUDA_CHECK(cudaEventDestroy(t.stop));
    CUDA_CHECK(cudaEventDestroy(t.other_stop));
    CUDA_CHECK(cudaStreamDestroy(t.stream));
    CUDA_CHECK(cudaStreamDestroy(t.other));
    free(t.samples);
    free(t.other_samples);
    if (csv_close(&csv))
        return EXIT_ERROR;
    printf("\nverified: every copy of every size and kind, and every zero-copy result\n");
    return EXIT_VERIFIED;
}
