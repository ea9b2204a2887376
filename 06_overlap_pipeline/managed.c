/*
 * managed.c - `--deep managed`: lecture 7.6's managed memory, left to fault, advised, or
 * prefetched, against the pipeline's explicit copies from pinned memory.
 */
#include "parts.h"

#include "fault.h"

#include <string.h>

/* Lecture 7.6: managed memory moves itself, page by page, and "implicit migration can bring
 * unpredictable latency". Four ways to get the same chunks through the same kernel, in the same
 * streams: explicit copies from pinned memory (the pipeline), and managed memory left to fault,
 * advised, or prefetched there and back. Managed memory's last step, bringing the results to the
 * host, happens when the CPU reads them, after the GPU's last event: so every way is timed on
 * the host clock, from the first call until the CPU has read every page of the results. */
enum managed_way { EXPLICIT, FAULTS, ADVISED, PREFETCHED, N_MANAGED_WAYS };
static const char *const managed_names[N_MANAGED_WAYS] = {
    "explicit_pinned", "managed_no_prefetch", "managed_advise", "managed_prefetch"};
static const char *const managed_labels[N_MANAGED_WAYS] = {
    "explicit copies, pinned memory (the pipeline)", "managed, pages fault their way over",
    "managed, advised: stays in host memory, GPU maps it", "managed, prefetched there and back"};

/* device -1 is the host. CUDA 13 takes a location where CUDA 12 took a device number. */
#if CUDART_VERSION >= 13000
static struct cudaMemLocation where(int device)
{
    return (struct cudaMemLocation){device >= 0 ? cudaMemLocationTypeDevice
                                                : cudaMemLocationTypeHost, device};
}
#endif

static cudaError_t prefetch(const void *p, size_t bytes, int device, cudaStream_t stream)
{
#if CUDART_VERSION >= 13000
    return cudaMemPrefetchAsync(p, bytes, where(device), 0, stream);
#else
    return cudaMemPrefetchAsync(p, bytes, device >= 0 ? device : cudaCpuDeviceId, stream);
#endif
}

static cudaError_t advise(const void *p, size_t bytes, enum cudaMemoryAdvise advice, int device)
{
#if CUDART_VERSION >= 13000
    return cudaMemAdvise(p, bytes, advice, where(device));
#else
    return cudaMemAdvise(p, bytes, advice, device >= 0 ? device : cudaCpuDeviceId);
#endif
}

/* The pipeline's loop over chunks on managed memory, in place; only PREFETCHED moves the data
 * itself, each chunk to the GPU before its kernel and back after it. */
static cudaError_t managed_enqueue(const struct rig *r, const struct shape *p, unsigned *data,
                                   int device, enum managed_way way)
{
    struct chunk_plan plan = chunk_plan_make(p->n, p->chunks, p->streams);
    CUDA_TRY(fan_out(r, p->streams));
    for (size_t k = 0; k < plan.chunks; k++) {
        size_t first, count;
        chunk_bounds(p->n, plan.chunks, k, &first, &count);
        cudaStream_t s = r->stream[k % p->streams];
        if (way == PREFETCHED)
            CUDA_TRY(prefetch(data + first, count * sizeof(unsigned), device, s));
        CUDA_TRY(launch_work(data + first, count, p->iters, r->map, s));
        if (way == PREFETCHED)
            CUDA_TRY(prefetch(data + first, count * sizeof(unsigned), -1, s));
    }
    return fan_in(r, p->streams);
}

/* What the CPU does first with results: read them. One word per 4 KiB page is enough to bring
 * every page of managed memory home. */
static void read_every_page(const unsigned *data, size_t n)
{
    const volatile unsigned *words = data;
    for (size_t i = 0; i < n; i += 4096 / sizeof(unsigned))
        (void)words[i];
}

/* One run of one way, on the host clock until the CPU has read every page of the results.
 * `data` is the way's managed data set, or NULL for the explicit pipeline. */
static int run_managed_way(const struct rig *r, const struct shape *p, unsigned *data,
                           int device, enum managed_way way, double *ms)
{
    if (data)
        memcpy(data, r->h_in, p->n * sizeof(unsigned)); /* fresh input, on the host */
    else
        memset(r->h_out, 0xff, p->n * sizeof(unsigned));
    if (CUDA_REPORT(cudaDeviceSynchronize()))
        return -1;
    double t0 = host_ms();
    cudaError_t err = data ? managed_enqueue(r, p, data, device, way)
                           : pipeline_enqueue(r, p, NOTHING_LEFT_OUT);
    if (err || CUDA_REPORT(cudaStreamSynchronize(r->stream[0])))
        return -1;
    read_every_page(data ? data : r->h_out, p->n);
    *ms = host_ms() - t0;
    return 0;
}

/* The first `ways` ways in turns, repetition by repetition, each repetition starting one way
 * later, so that neither the link's wandering nor the order favours one. b->samples gets way w's
 * repetition k at [w * reps + k]. The last repetition of each way is verified. */
static int managed_in_turns(struct bench *b, const struct shape *p,
                            unsigned *const data[N_MANAGED_WAYS], int ways, int device)
{
    for (int rep = -1; rep < b->reps; rep++) { /* rep -1 warms up */
        for (int k = 0; k < ways; k++) {
            int way = (k + rep + 1) % ways;
            double ms;
            if (run_managed_way(&b->rig, p, data[way], device, (enum managed_way)way, &ms))
                return -1;
            if (rep >= 0)
                b->samples[way * b->reps + rep] = ms;
            if (rep == b->reps - 1 &&
                !work_verified(&b->rig, b->rig.h_in, data[way] ? data[way] : b->rig.h_out, p->n,
                               p->iters, managed_names[way]))
                return -1;
        }
    }
    return 0;
}

/* Each way's time, and its ratio to the explicit copies' rep by rep, printed and recorded. */
static int managed_report(struct bench *b, const struct shape *p, int ways)
{
    struct stats ms[N_MANAGED_WAYS], ratio[N_MANAGED_WAYS];
    double *explicit_ms = b->samples, *scratch = b->samples + MAX_TURNS * b->reps;
    for (int way = ways - 1; way >= 0; way--) { /* the explicit way's samples last: all need them */
        double *way_ms = b->samples + way * b->reps;
        for (int rep = 0; rep < b->reps; rep++)
            scratch[rep] = way_ms[rep] / explicit_ms[rep];
        ratio[way] = stats_summarize(scratch, (size_t)b->reps);
        ms[way] = stats_summarize(way_ms, (size_t)b->reps);
    }
    for (int way = 0; way < ways; way++) {
        printf("  %-52s %8.3f%s ms  %5.2fx (%.2f-%.2f)\n", managed_labels[way], ms[way].median,
               stats_unsteady(ms[way]) ? "~" : " ", ratio[way].median, ratio[way].min,
               ratio[way].max);
        char params[192];
        snprintf(params, sizeof params, "chunks=%zu;streams=%zu;iters=%u;ratio=%.4f;"
                 "ratio_min=%.4f;ratio_max=%.4f;clock=host;measure=until_host_read", p->chunks,
                 p->streams, p->iters, ratio[way].median, ratio[way].min, ratio[way].max);
        if (record(b, "managed", managed_names[way], "both", 2 * p->n * sizeof(unsigned),
                   ms[way], params))
            return -1;
    }
    printf("  (x: against the explicit copies, rep by rep, median (range); ~: times spread over "
           "5%% of\n  their median; every way's last repetition verified, element by element)\n");
    return 0;
}

int managed_part(struct bench *b, const struct shape *p, int device)
{
    int concurrent = 0, pageable = 0;
    if (CUDA_REPORT(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess,
                                           device)) ||
        CUDA_REPORT(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device)))
        return -1;
    char size_text[32];
    printf("\nmanaged: lecture 7.6, managed memory: %s in %zu chunks over %zu streams, %u "
           "iterations;"
           "\n    host clock from the first call until the CPU has read every page of the "
           "results,\n    the ways in turns, median of %d\n",
           format_bytes(p->n * sizeof(unsigned), size_text, sizeof size_text), p->chunks,
           p->streams, p->iters, b->reps);
    printf("  this GPU: concurrent managed access %s; pageable memory access (HMM or ATS) %s\n",
           concurrent ? "yes" : "no (no prefetching or advice; pages move at each launch)",
           pageable ? "yes: kernels could also use malloc'ed memory directly, with faults alike"
                    : "no");
    /* A data set per managed way, as advice stays with the memory it was given for. */
    int ways = concurrent ? N_MANAGED_WAYS : ADVISED;
    size_t bytes = p->n * sizeof(unsigned);
    unsigned *data[N_MANAGED_WAYS] = {NULL};
    int rc = 0;
    for (int way = FAULTS; rc == 0 && way < ways; way++) {
        if (ACQUIRE("managed data set",
                    cudaMallocManaged((void **)&data[way], bytes, cudaMemAttachGlobal))) {
            data[way] = NULL;
            rc = -1;
        } else {
            resource_acquired();
        }
    }
    if (rc == 0 && ways > ADVISED &&
        (CUDA_REPORT(advise(data[ADVISED], bytes, cudaMemAdviseSetPreferredLocation, -1)) ||
         CUDA_REPORT(advise(data[ADVISED], bytes, cudaMemAdviseSetAccessedBy, device))))
        rc = -1;
    if (rc == 0)
        rc = managed_in_turns(b, p, data, ways, device) || managed_report(b, p, ways) ? -1 : 0;
    for (int way = FAULTS; way < ways; way++) {
        if (data[way]) {
            CUDA_REPORT(cudaFree(data[way]));
            resource_released();
        }
    }
    return rc;
}

