/*
 * copy_return.c - when a blocking copy of lesson 01 returns, and part 2's tables.
 *
 * time_copy() times a copy from an idle GPU until it is done: for a blocking call, the time the
 * program is held up is the cost that matters, and an H2D call from pageable memory may return
 * before its DMA is done. `--deep early-return` counts how often it does (count_early()): the
 * CUDA runtime's "API synchronization behavior" page says an H2D cudaMemcpy from pageable memory
 * returns once the data is staged, a D2H one once the copy is complete.
 */
#include "common.h"
#include "sync_copy.h"

#include <math.h>

double time_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = host_ms();
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
    CUDA_CHECK(cudaStreamSynchronize(0));
    return host_ms() - t0;
}

/* Right after each call, cudaStreamQuery asks whether the stream still has work. */
int count_early(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, int reps)
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

void sweep_header(const char *title, int reps, bool early)
{
    printf("\n%s: pageable cudaMemcpy bandwidth, host clock from the call until the copy is "
           "done,\n  median of %d (GB/s = 1e9 bytes/s)", title, reps);
    if (early)
        printf("; \"early\": of %d more calls, those that returned while\n  the GPU was still "
               "copying (cudaStreamQuery)", reps);
    if (early)
        printf("\n  %10s %11s %9s %6s %11s %9s %6s\n", "size", "H2D ms", "H2D GB/s", "early",
               "D2H ms", "D2H GB/s", "early");
    else
        printf("\n  %10s %11s %9s %11s %9s\n", "size", "H2D ms", "H2D GB/s", "D2H ms",
               "D2H GB/s");
}

void sweep_row(struct sweep_table *t, size_t bytes, int reps, const struct stats ms[2],
               const int early[2], struct csv *csv)
{
    static const char *const directions[2] = {"H2D", "D2H"};
    char size_text[32];
    printf("  %10s", format_bytes(bytes, size_text, sizeof size_text));
    for (int way = 0; way < 2; way++) {
        double rate = gbps(bytes, ms[way].median);
        printf(" %11.4f %9.2f", ms[way].median, rate);
        if (t->early)
            printf(" %3d/%-2d", early[way], reps);
        char params[64];
        if (t->early)
            snprintf(params, sizeof params, "clock=host;call=cudaMemcpy;returned_early=%d",
                     early[way]);
        else
            snprintf(params, sizeof params, "clock=host;call=cudaMemcpy");
        csv_record(csv, &(struct csv_row){"bandwidth", "pageable", directions[way], bytes, reps,
                                          ms[way], rate, params});
        if (way == 0)
            t->best_h2d = fmax(t->best_h2d, rate);
        else
            t->best_d2h = fmax(t->best_d2h, rate);
    }
    printf("\n");
    t->early_h2d += early[0];
    t->early_d2h += early[1];
}

void sweep_footer(const struct sweep_table *t)
{
    printf("  best: H2D %.1f GB/s, D2H %.1f GB/s; every size verified by a round trip\n",
           t->best_h2d, t->best_d2h);
    if (t->early)
        printf("  returned before the GPU was done: %d H2D calls, %d D2H calls (the CUDA "
               "runtime's\n  \"API synchronization behavior\": H2D from pageable memory returns "
               "once the data is\n  staged, D2H once the copy is complete)\n", t->early_h2d,
               t->early_d2h);
}
