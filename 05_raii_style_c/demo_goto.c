/*
 * demo_goto.c - the asynchronous half of the lecture's demo, with the goto ladder.
 *
 * Portable C11: every acquisition that succeeds adds a rung; a failure jumps to the label that
 * undoes everything acquired before it, and the code falls through the rest of the ladder in
 * reverse order of acquisition. Labels are named for what they undo (the Linux kernel's style).
 */
#include "demo.h"
#include "kernels.h"
#include "transfer_manager.h"

#include <string.h>
#include <time.h>

/* The lecture's simulateCpuWork: a sleep stands in for useful CPU work. */
static void simulate_cpu_work(double ms)
{
    struct timespec t = {(time_t)(ms / 1e3), (long)((ms - 1e3 * (time_t)(ms / 1e3)) * 1e6)};
    while (nanosleep(&t, &t) != 0)
        ; /* interrupted by a signal: sleep the rest */
}

int async_resources_held(const struct async_resources *r)
{
    return (r->h_a.data != NULL) + (r->h_b.data != NULL) + (r->h_c.data != NULL) +
           (r->d_a.data != NULL) + (r->d_b.data != NULL) + (r->d_c.data != NULL) +
           (r->s1.handle != NULL) + (r->s2.handle != NULL) + r->tm.capacity;
}

/* One run: a and b go up in two streams while the CPU works; the kernel waits for both copies;
 * the result comes down while the CPU works again; then the host waits for every copy.
 * times[] gets the total, the CPU work, and the final wait, all host clock. */
static int one_run(const struct demo_config *cfg, struct async_resources *r, double times[3])
{
    double t0 = host_ms();
    if (transfer_h2d(&r->tm, r->d_a.data, &r->h_a, &r->s1) ||
        transfer_h2d(&r->tm, r->d_b.data, &r->h_b, &r->s2))
        return EXIT_ERROR;
    double cpu0 = host_ms();
    simulate_cpu_work(cfg->cpu_work_ms[0]);
    double cpu_ms = host_ms() - cpu0;
    /* The kernel runs in s1, so it must also wait for b's copy in s2: the stream waits, not the
     * host. */
    if (transfer_stream_wait_all(&r->tm, &r->s1) ||
        CUDA_REPORT(launch_vector_add(r->d_a.data, r->d_b.data, r->d_c.data, cfg->n,
                                      r->s1.handle)) ||
        transfer_d2h(&r->tm, &r->h_c, r->d_c.data, &r->s1))
        return EXIT_ERROR;
    cpu0 = host_ms();
    simulate_cpu_work(cfg->cpu_work_ms[1]);
    cpu_ms += host_ms() - cpu0;
    double wait0 = host_ms();
    if (transfer_wait_all(&r->tm))
        return EXIT_ERROR;
    double t1 = host_ms();
    times[0] = t1 - t0;
    times[1] = cpu_ms;
    times[2] = t1 - wait0;
    return EXIT_VERIFIED;
}

/* The untimed warm-up, then cfg->reps timed runs, each verified. */
static int all_runs(const struct demo_config *cfg, struct async_resources *r,
                    struct demo_samples *out)
{
    fill_random(r->h_a.data, cfg->n, 1);
    fill_random(r->h_b.data, cfg->n, 2);
    for (int rep = -1; rep < cfg->reps; rep++) {
        memset(r->h_c.data, 0xff, cfg->n * sizeof(float));
        double times[3] = {0};
        if (one_run(cfg, r, times) ||
            !vector_add_verified(r->h_a.data, r->h_b.data, r->h_c.data, cfg->n,
                                 "asynchronous result"))
            return EXIT_ERROR;
        if (rep >= 0) {
            out->async_total[rep] = times[0];
            out->cpu_work[rep] = times[1];
            out->waiting[rep] = times[2];
        }
    }
    return EXIT_VERIFIED;
}

int run_async_demo(const struct demo_config *cfg, struct demo_samples *out)
{
    const size_t bytes = cfg->n * sizeof(float);
    int rc = EXIT_ERROR;
    struct async_resources r = {.h_a = {NULL, 0}};

    if (pinned_buffer_create(&r.h_a, bytes))
        goto out;
    if (pinned_buffer_create(&r.h_b, bytes))
        goto out_free_h_a;
    if (pinned_buffer_create(&r.h_c, bytes))
        goto out_free_h_b;
    if (device_buffer_create(&r.d_a, bytes))
        goto out_free_h_c;
    if (device_buffer_create(&r.d_b, bytes))
        goto out_free_d_a;
    if (device_buffer_create(&r.d_c, bytes))
        goto out_free_d_b;
    if (cuda_stream_create(&r.s1, cudaStreamNonBlocking))
        goto out_free_d_c;
    if (cuda_stream_create(&r.s2, cudaStreamNonBlocking))
        goto out_destroy_s1;
    if (transfer_manager_create(&r.tm, 2, EVENT_PER_STREAM))
        goto out_destroy_s2;
    rc = all_runs(cfg, &r, out);

    /* After an error, copies may still be in flight: let them finish before their buffers go. */
    CUDA_REPORT(cudaDeviceSynchronize());
    transfer_manager_destroy(&r.tm);
out_destroy_s2:
    cuda_stream_destroy(&r.s2);
out_destroy_s1:
    cuda_stream_destroy(&r.s1);
out_free_d_c:
    device_buffer_destroy(&r.d_c);
out_free_d_b:
    device_buffer_destroy(&r.d_b);
out_free_d_a:
    device_buffer_destroy(&r.d_a);
out_free_h_c:
    pinned_buffer_destroy(&r.h_c);
out_free_h_b:
    pinned_buffer_destroy(&r.h_b);
out_free_h_a:
    pinned_buffer_destroy(&r.h_a);
out:
    return rc;
}
