/*
 * resolution.c - `--deep resolution`: how fine and how costly an event's timestamp is. An event
 * pair around nothing, 1000 times, shows the smallest step between the times it reports and what
 * a pair costs with nothing between; a 5 us kernel timed alone 1000 times, against 1000 launches
 * between one pair, shows why short work is timed many times over between one pair of events.
 */
#include "events.h"
#include "kernels.h"

#include <math.h>

/* Waits for the stop event, then returns the milliseconds between the two. */
static double elapsed_ms(cudaEvent_t start, cudaEvent_t stop)
{
    float ms;
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
}

/* Time nothing, many times, and look at the values. */
static void empty_pair(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop, struct csv *csv)
{
    enum { PAIRS = 1000 };
    static double empty[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        CUDA_CHECK(cudaEventRecord(start, stream));
        CUDA_CHECK(cudaEventRecord(stop, stream));
        empty[i] = elapsed_ms(start, stop);
    }
    struct stats nothing = stats_summarize(empty, PAIRS); /* sorted now */
    double tick = INFINITY;
    for (int i = 1; i < PAIRS; i++)
        if (empty[i] > empty[i - 1])
            tick = fmin(tick, empty[i] - empty[i - 1]);
    printf("\nresolution: an event pair around nothing, %d times: median %.4f ms, max %.4f ms;\n",
           PAIRS, nothing.median, nothing.max);
    if (isinf(tick))
        printf("    every value was the same, so the timestamps' step is not visible here\n");
    else
        printf("    the smallest step between values is %.3f us: the timestamps' granularity\n",
               tick * 1e3);
    char params[64];
    snprintf(params, sizeof params, "clock=gpu_event;tick_us=%.3f", tick * 1e3);
    csv_record(csv, &(struct csv_row){.experiment = "timing", .variant = "empty_pair",
                                      .reps = PAIRS, .ms = nothing, .params = params});
}

/* A short kernel, timed alone many times, and timed as many launches between one pair. */
static void short_kernel(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop,
                         struct csv *csv)
{
    enum { LAUNCHES = 1000 };
    const unsigned long long short_ns = 5000;
    static double single[LAUNCHES];
    for (int i = 0; i < LAUNCHES; i++) {
        CUDA_CHECK(cudaEventRecord(start, stream));
        CUDA_CHECK(launch_spin(short_ns, 1, 32, NULL, stream));
        CUDA_CHECK(cudaEventRecord(stop, stream));
        single[i] = elapsed_ms(start, stop);
    }
    struct stats one = stats_summarize(single, LAUNCHES);
    CUDA_CHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < LAUNCHES; i++)
        CUDA_CHECK(launch_spin(short_ns, 1, 32, NULL, stream));
    CUDA_CHECK(cudaEventRecord(stop, stream));
    double batch_ms = elapsed_ms(start, stop);
    struct stats each = {batch_ms / LAUNCHES, batch_ms / LAUNCHES, batch_ms / LAUNCHES};
    printf("resolution: a %.3f ms kernel: timed alone %d times, %.4f ms (min %.4f, max %.4f);\n"
           "    %d back to back between one pair, %.4f ms each\n", short_ns / 1e6, LAUNCHES,
           one.median, one.min, one.max, LAUNCHES, each.median);
    char params[64];
    snprintf(params, sizeof params, "clock=gpu_event;kernel_us=%.0f", short_ns / 1e3);
    csv_record(csv, &(struct csv_row){.experiment = "timing", .variant = "short_kernel_alone",
                                      .reps = LAUNCHES, .ms = one, .params = params});
    snprintf(params, sizeof params, "clock=gpu_event;kernel_us=%.0f;launches=%d", short_ns / 1e3,
             LAUNCHES);
    csv_record(csv, &(struct csv_row){.experiment = "timing", .variant = "short_kernel_batched",
                                      .reps = 1, .ms = each, .params = params});
}

void deep_resolution(const struct work *w, struct csv *csv)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    empty_pair(w->stream, start, stop, csv);
    short_kernel(w->stream, start, stop, csv);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
}
