/*
 * batching.c - `--deep batching`: lecture 7.2 says "the more data each transfer moves, the more
 * efficient it is". The same bytes of pinned memory in pieces, issued one call per piece, as one
 * copy, and as one cudaMemcpyBatchAsync (CUDA 12.8 and later), its pieces in address order and
 * shuffled: a driver free to run a batch in any order may merge adjacent pieces into one copy.
 */
#include "pinned.h"

#include <string.h>

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

enum { ONE_CALL_EACH, ONE_COPY, BATCH_CALL, BATCH_SHUFFLED, N_BATCH_WAYS };
static const char *const batch_ways[N_BATCH_WAYS] = {"one_call_each", "one_copy", "batch_call",
                                                     "batch_shuffled"};

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

/* The same `count` pieces of `piece` bytes, one way; the shuffled batch's lists are the second
 * half of dsts and srcs. */
static void issue_pieces(int way, void **dsts, void **srcs, size_t *sizes, size_t count,
                         enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (way == ONE_COPY)
        CUDA_CHECK(cudaMemcpyAsync(dsts[0], srcs[0], count * sizes[0], kind, stream));
    for (size_t i = 0; way == ONE_CALL_EACH && i < count; i++)
        CUDA_CHECK(cudaMemcpyAsync(dsts[i], srcs[i], sizes[i], kind, stream));
#if HAVE_BATCH_COPY
    if (way == BATCH_CALL || way == BATCH_SHUFFLED) {
        size_t list = way == BATCH_SHUFFLED ? count : 0;
        CUDA_CHECK(copy_batched(dsts + list, srcs + list, sizes, count, stream));
    }
#endif
}

/* The ways in turns, repetition by repetition, each timed on the host clock from the first call
 * until cudaStreamSynchronize returns: the CPU's issuing is part of what batching saves, so it is
 * part of the figure. The last repetition of each way is verified. ms[way] gets its statistics. */
static void time_pieces(int ways, void *dst, void *src, size_t piece, size_t count,
                        enum cudaMemcpyKind kind, const struct device_buffers *d,
                        const struct timing *t, struct stats ms[N_BATCH_WAYS])
{
    void **dsts = malloc_or_exit(2 * count * sizeof *dsts);
    void **srcs = malloc_or_exit(2 * count * sizeof *srcs);
    size_t *sizes = malloc_or_exit(count * sizeof *sizes);
    double *samples = samples_or_exit((size_t)N_BATCH_WAYS * (size_t)t->reps);
    /* The shuffle: piece i at place (i * step) mod count, step odd and near count / 2 + 1, so
     * that no two pieces next to each other in the list are next to each other in memory. */
    size_t step = (count / 2 + 1) | 1;
    while (count > 2 && gcd(step, count) != 1)
        step += 2;
    for (size_t i = 0; i < count; i++) {
        size_t shuffled = i * step % count;
        dsts[i] = (char *)dst + i * piece;
        srcs[i] = (char *)src + i * piece;
        dsts[count + i] = (char *)dst + shuffled * piece;
        srcs[count + i] = (char *)src + shuffled * piece;
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

void batching(size_t total, const struct timing *t)
{
    const size_t pieces[] = {4096, 64 << 10};
    void *src = host_alloc(PINNED, total), *dst = host_alloc(PINNED, total);
    fill_random(src, total / sizeof(float), 7); /* the bytes d.reference holds */
    struct device_buffers d = device_buffers_create(total);
    char size_text[32];
    printf("\n1d. lecture 7.2, batching: %s of pinned memory in pieces; host clock from the first "
           "call\n    until cudaStreamSynchronize returns, the ways in turns, median of %d (~: "
           "range over 5%%)\n", format_bytes(total, size_text, sizeof size_text), t->reps);
    int ways = batch_copy_available() ? N_BATCH_WAYS : BATCH_CALL;
    printf("  %9s %7s %4s %18s %18s %18s %18s\n", "piece", "pieces", "dir", "one call each",
           "one copy", "one batched call", "batched, shuffled");
    for (size_t p = 0; p < sizeof pieces / sizeof pieces[0] && pieces[p] <= total; p++) {
        size_t count = total / pieces[p];
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            bool up = dir == UP;
            struct stats ms[N_BATCH_WAYS];
            time_pieces(ways, up ? d.data : dst, up ? src : d.reference, pieces[p], count,
                        up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, &d, t, ms);
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
            printf("%s\n", ways < N_BATCH_WAYS ? "                  -                  -" : "");
        }
    }
    printf("  the last repetition of every way verified on the GPU\n");
    device_buffers_destroy(&d);
    host_free(PINNED, src);
    host_free(PINNED, dst);
}
