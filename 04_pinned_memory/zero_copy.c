/*
 * zero_copy.c - `--deep zero-copy`: mapped ("zero-copy") host memory, which kernels read and
 * write directly over PCIe; and a strided gather, 1 float in SPARSE_STRIDE, read across PCIe
 * against copying everything first. The kernels are in zero_copy.cu.
 */
#include "pinned.h"
#include "zero_copy.h"

#include <string.h>

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

/* The zero-copy part's buffers (struct mapped_buffers, in pinned.h). Mapped: pinned, and visible
 * to kernels at the address cudaHostGetDevicePointer gives. */
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

/* The whole part, using 1 float in SPARSE_STRIDE in its second half. */
void zero_copy(size_t bytes, const struct timing *t)
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
