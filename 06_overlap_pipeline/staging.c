/* staging.c - the staged pipeline; see staging.h. Part 5 around it is in staged.c. */
#include "staging.h"

#include "common.h"
#include "fault.h"
#include "timeline.h"

#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------------------------ *
 * The ring and the data set.
 * ------------------------------------------------------------------------------------------ */

const struct cpu_copies plain_copies = {PLAIN_COPY, PLAIN_COPY, false, "memcpy"};

int staging_create(struct staging *s, size_t slots, size_t slot_elems, const unsigned *in,
                   size_t n, bool write_combined)
{
    *s = (struct staging){.slots = slots, .slot_elems = slot_elems};
    const size_t slot_bytes = slot_elems * sizeof(unsigned);
    int rc = 0;
    for (size_t b = 0; rc == 0 && b < slots; b++) {
        void **buffers[2] = {(void **)&s->in[b], (void **)&s->out[b]};
        cudaEvent_t *events[2] = {&s->copied_in[b], &s->copied_out[b]};
        for (int i = 0; rc == 0 && i < 2; i++) {
            if (ACQUIRE("staging buffer", cudaMallocHost(buffers[i], slot_bytes)))
                *buffers[i] = NULL, rc = -1;
            else
                resource_acquired();
            if (rc == 0 && ACQUIRE("staging event", cudaEventCreateWithFlags(
                                                        events[i], cudaEventDisableTiming)))
                *events[i] = NULL, rc = -1;
            else if (rc == 0)
                resource_acquired();
        }
        if (rc == 0 && write_combined) {
            if (ACQUIRE("write-combined staging buffer",
                        cudaHostAlloc((void **)&s->in_write_combined[b], slot_bytes,
                                      cudaHostAllocWriteCombined)))
                s->in_write_combined[b] = NULL, rc = -1;
            else
                resource_acquired();
        }
    }
    s->data = malloc(n * sizeof(unsigned));
    s->results = malloc(n * sizeof(unsigned));
    if (rc == 0 && (!s->data || !s->results)) {
        fprintf(stderr, "%s: out of host memory for the pageable data set and results (2 x %zu "
                "bytes)\n", program_name, n * sizeof(unsigned));
        rc = -1;
    }
    if (rc == 0) { /* every page touched: first-touch faults stay out of the timed runs */
        memcpy(s->data, in, n * sizeof(unsigned));
        memset(s->results, 0xff, n * sizeof(unsigned));
    } else {
        staging_destroy(s);
    }
    return rc;
}

void staging_destroy(struct staging *s)
{
    CUDA_REPORT(cudaDeviceSynchronize()); /* after an error, a copy may still use the ring */
    for (size_t b = 0; b < MAX_BUFFERS; b++) {
        void *buffers[3] = {s->in[b], s->out[b], s->in_write_combined[b]};
        cudaEvent_t events[3] = {s->copied_in[b], s->copied_out[b], NULL};
        for (int i = 0; i < 3; i++) {
            if (buffers[i]) {
                CUDA_REPORT(cudaFreeHost(buffers[i]));
                resource_released();
            }
            if (events[i]) {
                CUDA_REPORT(cudaEventDestroy(events[i]));
                resource_released();
            }
        }
    }
    free(s->data);
    free(s->results);
    *s = (struct staging){0};
}

/* ------------------------------------------------------------------------------------------ *
 * The CPU's side: T worker threads copying pieces of chunks, first come first served.
 * ------------------------------------------------------------------------------------------ */

enum { PREPARE, PROCESS };

struct piece {
    void *dst;
    const void *src;
    size_t bytes, chunk;
    int kind; /* PREPARE or PROCESS */
};

/* Shared by the issuing thread and the workers, under `lock`. */
struct crew {
    pthread_mutex_t lock;
    pthread_cond_t work, progress; /* a piece is queued; a chunk's copy is complete */
    struct piece *queue;           /* a ring of `capacity` pieces */
    size_t capacity, head, tail;
    unsigned *left[2];             /* per chunk: pieces still to copy, PREPARE and PROCESS */
    enum copy_method method[2];    /* how PREPARE and PROCESS copy */
    bool stopping, tracing;        /* tracing: each piece's copy goes on the timeline */
};

struct worker_arg {
    struct crew *crew;
    unsigned index;
    double copying_ms; /* host clock: this thread's copies, summed */
};

static void *worker(void *arg)
{
    struct worker_arg *self = arg;
    struct crew *c = self->crew;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (c->head == c->tail && !c->stopping)
            pthread_cond_wait(&c->work, &c->lock);
        if (c->head == c->tail)
            break;
        struct piece p = c->queue[c->head++ % c->capacity];
        pthread_mutex_unlock(&c->lock);
        unsigned long long start = c->tracing ? timeline_now() : 0;
        double t0 = host_ms();
        nvtxRangePushA(p.kind == PREPARE ? "prepare" : "process"); /* for Nsight Systems users */
        copy_bytes(c->method[p.kind], p.dst, p.src, p.bytes);
        nvtxRangePop();
        self->copying_ms += host_ms() - t0;
        if (c->tracing)
            timeline_cpu(p.kind == PREPARE, self->index, (unsigned)p.chunk, start,
                         timeline_now(), p.bytes);
        pthread_mutex_lock(&c->lock);
        if (--c->left[p.kind][p.chunk] == 0)
            pthread_cond_signal(&c->progress);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Queues one chunk's copy as `pieces` pieces, under the lock. */
static void hand_out(struct crew *c, int kind, size_t chunk, void *dst, const void *src,
                     size_t bytes, size_t pieces)
{
    c->left[kind][chunk] = (unsigned)pieces;
    for (size_t i = 0; i < pieces; i++) {
        size_t from = bytes / pieces * i, to = i + 1 == pieces ? bytes : bytes / pieces * (i + 1);
        c->queue[c->tail++ % c->capacity] = (struct piece){
            (char *)dst + from, (const char *)src + from, to - from, chunk, kind};
    }
    pthread_cond_broadcast(&c->work);
}

/* ------------------------------------------------------------------------------------------ *
 * One run: the issuing thread's loop.
 * ------------------------------------------------------------------------------------------ */

struct run {
    const struct rig *r;
    const struct staging *s;
    const struct shape *p;
    unsigned *const *in; /* the input buffers the copies in fill: cached or write-combined */
    struct chunk_plan plan;
    struct crew *crew;
    size_t pieces; /* per chunk copy: the threads */
    enum staged_work work;
    size_t prepared, issued, processed; /* chunks handed to each step so far */
};

/* Whether the event marks completed work: work not done (only the CPU's side runs) counts as
 * complete. cudaErrorNotReady is the only answer that is not an error. */
static int event_done(const struct run *run, cudaEvent_t event, bool *done)
{
    if (run->work == CPU_WORK)
        return *done = true, 0;
    cudaError_t err = cudaEventQuery(event);
    *done = err == cudaSuccess;
    return err == cudaSuccess || err == cudaErrorNotReady ? 0 : (CUDA_REPORT(err), -1);
}

/* Hands out chunk k's copy into its slot, or with the CPU's side left out marks it done. */
static void start_copy(struct run *run, int kind, size_t k)
{
    size_t first, count, b = k % run->s->slots;
    chunk_bounds(run->p->n, run->plan.chunks, k, &first, &count);
    if (run->work == GPU_WORK) {
        run->crew->left[kind][k] = 0;
        return;
    }
    if (kind == PREPARE)
        hand_out(run->crew, kind, k, run->in[b], run->s->data + first,
                 count * sizeof(unsigned), run->pieces);
    else
        hand_out(run->crew, kind, k, run->s->results + first, run->s->out[b],
                 count * sizeof(unsigned), run->pieces);
}

/* Chunk k's GPU work, from its slot, in its stream; or, with the GPU's side left out, nothing. */
static int issue_gpu(const struct run *run, size_t k)
{
    if (run->work == CPU_WORK)
        return 0;
    size_t first, count, b = k % run->s->slots;
    chunk_bounds(run->p->n, run->plan.chunks, k, &first, &count);
    cudaStream_t stream = run->r->stream[k % run->p->streams];
    unsigned *d = run->r->d_ring[b];
    size_t bytes = count * sizeof(unsigned);
    bool trace = run->r->tracing;
    if (trace)
        timeline_chunk((unsigned)k);
    CUDA_TRY(cudaMemcpyAsync(d, run->in[b], bytes, cudaMemcpyHostToDevice, stream));
    CUDA_TRY(cudaEventRecord(run->s->copied_in[b], stream));
    if (trace)
        timeline_chunk((unsigned)k);
    CUDA_TRY(launch_work(d, count, run->p->iters, run->r->map, stream));
    if (trace)
        timeline_chunk((unsigned)k);
    CUDA_TRY(cudaMemcpyAsync(run->s->out[b], d, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_TRY(cudaEventRecord(run->s->copied_out[b], stream));
    return 0;
}

/* One pass over the three steps, each as far as it can go; *moved says whether any did. Called
 * and returns with the crew's lock held, released around CUDA calls. */
static int step(struct run *run, bool *moved)
{
    struct crew *c = run->crew;
    const size_t slots = run->s->slots, chunks = run->plan.chunks;
    bool done;
    /* Prepare: the slot's input buffer is free once its previous chunk was copied in. */
    while (run->prepared < chunks) {
        size_t k = run->prepared;
        if (k >= slots) {
            if (k - slots >= run->issued)
                break;
            if (event_done(run, run->s->copied_in[k % slots], &done))
                return -1;
            if (!done)
                break;
        }
        start_copy(run, PREPARE, k);
        run->prepared++, *moved = true;
    }
    /* The GPU: once prepared, and once the slot's previous result has been processed, which
     * frees its output buffer and, that result's D2H being done, its device buffer. */
    while (run->issued < run->prepared && c->left[PREPARE][run->issued] == 0) {
        size_t k = run->issued;
        if (k >= slots && (k - slots >= run->processed || c->left[PROCESS][k - slots] != 0))
            break;
        pthread_mutex_unlock(&c->lock);
        int rc = issue_gpu(run, k);
        pthread_mutex_lock(&c->lock);
        if (rc)
            return -1;
        run->issued++, *moved = true;
    }
    /* Process: once the result is in the output buffer. */
    while (run->processed < run->issued) {
        if (event_done(run, run->s->copied_out[run->processed % slots], &done))
            return -1;
        if (!done)
            break;
        start_copy(run, PROCESS, run->processed);
        run->processed++, *moved = true;
    }
    return 0;
}

/* Waits for a worker to finish a chunk's copy, or 50 us, whichever is first: GPU work is
 * noticed by polling its events. */
static void wait_a_little(struct crew *c)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until); /* the clock `progress` was created with */
    until.tv_nsec += 50 * 1000;
    if (until.tv_nsec >= 1000000000L)
        until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&c->progress, &c->lock, &until);
}

/* The issuing thread's loop: steps until every result is stored. */
static int drive(struct run *run)
{
    struct crew *c = run->crew;
    size_t stored = 0; /* results stored, in chunk order */
    int rc = 0;
    pthread_mutex_lock(&c->lock);
    while (rc == 0 && stored < run->plan.chunks) {
        bool moved = false;
        rc = step(run, &moved);
        while (stored < run->processed && c->left[PROCESS][stored] == 0)
            stored++, moved = true;
        if (rc == 0 && !moved)
            wait_a_little(c);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* Stops the workers once the queue is empty, and waits for them. */
static void crew_stop(struct crew *c, pthread_t *workers, int started)
{
    pthread_mutex_lock(&c->lock);
    c->stopping = true;
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->lock);
    for (int t = 0; t < started; t++)
        pthread_join(workers[t], NULL);
}

int staged_run(const struct rig *r, const struct staging *s, const struct shape *p,
               int threads, const struct cpu_copies *copies, enum staged_work work,
               struct staged_time *time)
{
    struct run run = {.r = r, .s = s, .p = p, .plan = chunk_plan_make(p->n, p->chunks, s->slots),
                      .pieces = (size_t)threads, .work = work,
                      .in = copies->write_combined_in ? s->in_write_combined : s->in};
    struct crew c = {.capacity = 2 * s->slots * (size_t)threads, .tracing = r->tracing,
                     .method = {[PREPARE] = copies->in, [PROCESS] = copies->out}};
    c.queue = malloc(c.capacity * sizeof *c.queue);
    c.left[PREPARE] = calloc(run.plan.chunks + 1, sizeof *c.left[PREPARE]);
    c.left[PROCESS] = calloc(run.plan.chunks + 1, sizeof *c.left[PROCESS]);
    pthread_t *workers = malloc((size_t)threads * sizeof *workers);
    struct worker_arg *args = malloc((size_t)threads * sizeof *args);
    int rc = -1, started = 0;
    if (!c.queue || !c.left[PREPARE] || !c.left[PROCESS] || !workers || !args) {
        fprintf(stderr, "%s: out of host memory for a staged run\n", program_name);
        goto out_free;
    }
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.work, NULL);
    pthread_cond_init(&c.progress, &monotonic);
    pthread_condattr_destroy(&monotonic);
    run.crew = &c;
    for (int t = 0; t < threads; t++)
        args[t] = (struct worker_arg){&c, (unsigned)t, 0};
    while (work != GPU_WORK && started < threads &&
           pthread_create(&workers[started], NULL, worker, &args[started]) == 0)
        started++;
    if (work != GPU_WORK && started < threads) {
        fprintf(stderr, "%s: could not start %d CPU threads (started %d)\n", program_name,
                threads, started);
    } else {
        double t0 = host_ms();
        rc = drive(&run);
        time->ms = host_ms() - t0;
    }
    crew_stop(&c, workers, started);
    /* Each thread copied only between the two readings of the clock above, so this average can
     * never exceed the run's time. */
    time->copying_ms = 0;
    for (int t = 0; t < started; t++)
        time->copying_ms += args[t].copying_ms / started;
    pthread_cond_destroy(&c.progress);
    pthread_cond_destroy(&c.work);
    pthread_mutex_destroy(&c.lock);
out_free:
    free(args);
    free(workers);
    free(c.left[PROCESS]);
    free(c.left[PREPARE]);
    free(c.queue);
    return rc;
}
