/*
 * event_cost.c - `--deep event-cost`: what handing work from one stream to another through events
 * costs, with events that take timestamps (cudaEventDefault) and with events that only order
 * (cudaEventDisableTiming). Two streams pass an empty kernel back and forth 1000 times, each
 * waiting for the other's event; the host clock times the whole exchange.
 */
#include "events.h"
#include "kernels.h"

/* Two streams hand work back and forth through events, `rounds` times; returns ms per round. */
static double ping_pong(cudaStream_t s1, cudaStream_t s2, cudaEvent_t e1, cudaEvent_t e2,
                        int rounds)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = host_ms();
    for (int r = 0; r < rounds; r++) {
        CUDA_CHECK(launch_spin(0, 1, 32, NULL, s1));
        CUDA_CHECK(cudaEventRecord(e1, s1));
        CUDA_CHECK(cudaStreamWaitEvent(s2, e1, 0));
        CUDA_CHECK(launch_spin(0, 1, 32, NULL, s2));
        CUDA_CHECK(cudaEventRecord(e2, s2));
        CUDA_CHECK(cudaStreamWaitEvent(s1, e2, 0));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    return (host_ms() - t0) / rounds;
}

void deep_event_cost(int reps, struct csv *csv)
{
    enum { ROUNDS = 1000 };
    cudaStream_t s1, s2;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    const struct { const char *variant, *label; unsigned flags; } kinds[] = {
        {"timing", "cudaEventDefault (timestamps)", cudaEventDefault},
        {"disable_timing", "cudaEventDisableTiming", cudaEventDisableTiming},
    };
    double *samples = samples_or_exit((size_t)reps);
    printf("\nevent-cost: two streams passing work back and forth through events, %d rounds,\n"
           "   host clock, median of %d\n", ROUNDS, reps);
    for (int k = 0; k < 2; k++) {
        cudaEvent_t e1, e2;
        CUDA_CHECK(cudaEventCreateWithFlags(&e1, kinds[k].flags));
        CUDA_CHECK(cudaEventCreateWithFlags(&e2, kinds[k].flags));
        ping_pong(s1, s2, e1, e2, ROUNDS);
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = ping_pong(s1, s2, e1, e2, ROUNDS);
        struct stats round = stats_summarize(samples, (size_t)reps);
        printf("  %-32s %8.2f us per round\n", kinds[k].label, round.median * 1e3);
        csv_record(csv, &(struct csv_row){.experiment = "event_cost", .variant = kinds[k].variant,
                                          .reps = reps, .ms = round,
                                          .params = "clock=host;rounds=1000"});
        CUDA_CHECK(cudaEventDestroy(e1));
        CUDA_CHECK(cudaEventDestroy(e2));
    }
    free(samples);
    CUDA_CHECK(cudaStreamDestroy(s1));
    CUDA_CHECK(cudaStreamDestroy(s2));
}
