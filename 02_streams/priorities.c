/*
 * priorities.c - `--deep priorities` (lecture 7.5, stream priorities): a one-block kernel's
 * latency while a low-priority kernel with many waves of blocks fills every SM, from a stream of
 * the filler's priority and from one of the highest. Priority decides which waiting block gets
 * the next free SM slot; it does not stop a running one.
 */
#include "kernels.h"
#include "streams.h"

#include <stdio.h>

/* Filler blocks of 0.1 ms, in 10 waves: the filler outlasts a block many times over, so the two
 * latencies part clearly (exercise 3 makes the blocks 1 ms). */
static const unsigned long long filler_ns = 100 * 1000;
const unsigned long long urgent_ns = 10 * 1000;
enum { FILLER_WAVES = 10 };

/* The filler's blocks: as many threads each as lets whole blocks take every thread slot of an
 * SM (2 of 1024 where an SM holds 2048 threads, 2 of 768 where it holds 1536), so that the
 * urgent kernel cannot squeeze in beside them and must wait for a filler block to finish. */
static struct filler filler_for(const struct gpu_info *gpu, int waves, unsigned long long ns)
{
    int sm_threads, block_threads, per_sm;
    CUDA_CHECK(cudaDeviceGetAttribute(&sm_threads, cudaDevAttrMaxThreadsPerMultiProcessor,
                                      gpu->device));
    CUDA_CHECK(cudaDeviceGetAttribute(&block_threads, cudaDevAttrMaxThreadsPerBlock, gpu->device));
    int blocks_to_fill = (sm_threads + block_threads - 1) / block_threads;
    struct filler f = {.threads = (unsigned)(sm_threads / blocks_to_fill / 32 * 32),
                       .waves = (unsigned)waves, .ns = ns};
    CUDA_CHECK(spin_blocks_per_sm(f.threads, &per_sm));
    f.blocks_per_sm = (unsigned)per_sm;
    f.blocks = (unsigned)gpu->multiprocessors * f.blocks_per_sm * (unsigned)waves;
    if (f.blocks_per_sm * f.threads < (unsigned)sm_threads)
        printf("  (the filler's blocks take %u of an SM's %d thread slots: the urgent kernel may "
               "fit beside them)\n", f.blocks_per_sm * f.threads, sm_threads);
    return f;
}

void priority_rig_create(const struct gpu_info *gpu, unsigned long long block_ns,
                         struct priority_rig *rig)
{
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&rig->lowest, &rig->highest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&rig->background, cudaStreamNonBlocking,
                                            rig->lowest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&rig->same, cudaStreamNonBlocking, rig->lowest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&rig->high, cudaStreamNonBlocking, rig->highest));
    CUDA_CHECK(cudaEventCreate(&rig->start));
    CUDA_CHECK(cudaEventCreate(&rig->stop));
    rig->filler = filler_for(gpu, FILLER_WAVES, block_ns);
    CUDA_CHECK(cudaMalloc((void **)&rig->d_elapsed,
                          (rig->filler.blocks + 1) * sizeof *rig->d_elapsed));
}

void priority_rig_destroy(const struct priority_rig *rig)
{
    CUDA_CHECK(cudaFree(rig->d_elapsed));
    CUDA_CHECK(cudaEventDestroy(rig->start));
    CUDA_CHECK(cudaEventDestroy(rig->stop));
    CUDA_CHECK(cudaStreamDestroy(rig->background));
    CUDA_CHECK(cudaStreamDestroy(rig->same));
    CUDA_CHECK(cudaStreamDestroy(rig->high));
}

double urgent_latency(const struct priority_rig *rig, cudaStream_t urgent)
{
    const struct filler *filler = &rig->filler;
    unsigned long long *d_elapsed = rig->d_elapsed;
    CUDA_CHECK(cudaMemset(d_elapsed, 0, (filler->blocks + 1) * sizeof *d_elapsed));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(launch_spin(filler->ns, filler->blocks, filler->threads, d_elapsed + 1,
                           rig->background));
    double t0 = host_ms();
    while (host_ms() - t0 < 0.2) /* let the filler reach every SM first */
        ;
    CUDA_CHECK(cudaEventRecord(rig->start, urgent));
    CUDA_CHECK(launch_spin(urgent_ns, 1, 32, d_elapsed, urgent));
    CUDA_CHECK(cudaEventRecord(rig->stop, urgent));
    CUDA_CHECK(cudaDeviceSynchronize());
    verify_spins(d_elapsed, 1, urgent_ns, "urgent kernel");
    verify_spins(d_elapsed + 1, filler->blocks, filler->ns, "filler kernel");
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, rig->start, rig->stop));
    return ms;
}

void stream_priorities(const struct gpu_info *gpu, int reps, double *samples, struct csv *csv)
{
    struct priority_rig rig;
    priority_rig_create(gpu, filler_ns, &rig);
    const struct filler filler = rig.filler;

    printf("\n--deep priorities: latency of a %.2f ms kernel while %u blocks of %.1f ms fill the "
           "GPU:\n    %u waves of %d SMs x %u blocks of %u threads; events in the urgent stream, "
           "median of %d;\n    priorities here: %d (lowest) to %d\n", urgent_ns / 1e6,
           filler.blocks, filler.ns / 1e6, filler.waves, gpu->multiprocessors, filler.blocks_per_sm,
           filler.threads, reps, rig.lowest, rig.highest);
    const struct { const char *variant, *label; cudaStream_t urgent; } cases[] = {
        {"same_priority", "same priority as the filler", rig.same},
        {"high_priority", "highest priority", rig.high},
    };
    for (int c = 0; c < 2; c++) {
        urgent_latency(&rig, cases[c].urgent);
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = urgent_latency(&rig, cases[c].urgent);
        struct stats s = stats_summarize(samples, (size_t)reps);
        printf("  %-30s %8.3f ms (min %.3f, max %.3f)\n", cases[c].label, s.median, s.min,
               s.max);
        char params[96];
        snprintf(params, sizeof params, "priority=%d;filler_blocks=%u;filler_threads=%u;"
                 "clock=gpu_event", c == 0 ? rig.lowest : rig.highest, filler.blocks,
                 filler.threads);
        csv_record(csv, &(struct csv_row){.experiment = "priority", .variant = cases[c].variant,
                                          .reps = reps, .ms = s, .params = params});
    }
    printf("  the scheduler hands the next free SM slot to the highest-priority stream; the\n"
           "  urgent kernel still waits for a running filler block to end, up to one block:\n"
           "  priorities \"do not preempt already-running work\" (CUDA's stream reference),\n"
           "  and copies have no priority at all\n");
    priority_rig_destroy(&rig);
}
