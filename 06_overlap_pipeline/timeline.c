/* timeline.c - see timeline.h. */
#include "timeline.h"

#include "common.h"

#if HAVE_CUPTI

#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* The newest record layouts of this toolkit's CUPTI (13.x: Kernel10 and Memcpy6; 12.x: Kernel9
 * and Memcpy5). The fields read here are the same in both. */
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 kernel_record;
typedef CUpti_ActivityMemcpy6 memcpy_record;
#else
typedef CUpti_ActivityKernel9 kernel_record;
typedef CUpti_ActivityMemcpy5 memcpy_record;
#endif

#include "timeline_records.h"


static int cupti_failed(CUptiResult result, const char *expr)
{
    const char *text = "unknown";
    cuptiGetResultString(result, &text);
    fprintf(stderr, "%s: timeline: %s failed: %s\n", program_name, expr, text);
    return -1;
}
#define CUPTI_TRY(call)                                                                          \
    do {                                                                                         \
        CUptiResult cupti_result_ = (call);                                                      \
        if (cupti_result_ != CUPTI_SUCCESS)                                                      \
            return cupti_failed(cupti_result_, #call);                                           \
    } while (0)

/* Grows *items (of *cap) to hold one more; false when out of memory. */
static bool reserve(void **items, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t new_cap = *cap ? 2 * *cap : 1024;
    void *grown = realloc(*items, new_cap * size);
    if (!grown)
        return false;
    *items = grown;
    *cap = new_cap;
    return true;
}

static void mark_lost(void)
{
    pthread_mutex_lock(&tl.lock);
    tl.lost = true;
    pthread_mutex_unlock(&tl.lock);
}

/* On CUPTI's thread. */
static void keep_operation(enum row row, uint64_t start, uint64_t end, uint64_t bytes,
                           uint32_t correlation, uint32_t stream)
{
    pthread_mutex_lock(&tl.lock);
    if (!reserve((void **)&tl.ops, &tl.cap_ops, tl.n_ops, sizeof *tl.ops))
        tl.lost = true;
    else
        tl.ops[tl.n_ops++] = (struct operation){row, start, end, bytes, correlation, stream};
    pthread_mutex_unlock(&tl.lock);
}

/* The buffers CUPTI writes its records into. A fresh buffer's pages are touched for the first
 * time by CUPTI, inside the CUDA call that needed it (0.5 to 0.7 ms per MiB on the H200's host,
 * lesson 04), which delays that call and shows up on the timeline as a gap that is not there
 * untraced. So every buffer is allocated and touched before recording starts, and handed back to
 * the pool when CUPTI is done with it. CUPTI asks from the thread making CUDA calls and returns
 * buffers from its own thread, hence the lock. */
static struct {
    pthread_mutex_t lock;
    uint8_t *free[POOLED_BUFFERS];
    unsigned n_free;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint8_t *touched_buffer(void)
{
    uint8_t *buffer = aligned_alloc(8, RECORD_BUFFER_BYTES);
    if (buffer)
        memset(buffer, 0, RECORD_BUFFER_BYTES);
    return buffer;
}

static int pool_fill(void)
{
    while (pool.n_free < POOLED_BUFFERS) {
        uint8_t *buffer = touched_buffer();
        if (!buffer) {
            fprintf(stderr, "%s: timeline: out of memory for record buffers\n", program_name);
            return -1;
        }
        pool.free[pool.n_free++] = buffer;
    }
    return 0;
}

static void pool_empty(void)
{
    pthread_mutex_lock(&pool.lock);
    while (pool.n_free)
        free(pool.free[--pool.n_free]);
    pthread_mutex_unlock(&pool.lock);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    pthread_mutex_lock(&pool.lock);
    *buffer = pool.n_free ? pool.free[--pool.n_free] : NULL;
    pthread_mutex_unlock(&pool.lock);
    if (!*buffer) /* more in flight than the pool holds: slower, still correct */
        *buffer = touched_buffer();
    *size = *buffer ? RECORD_BUFFER_BYTES : 0;
    *max_records = 0; /* as many as fit */
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t *buffer,
                                      size_t size, size_t valid_size)
{
    (void)context, (void)stream_id, (void)size;
    CUpti_Activity *record = NULL;
    while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            const kernel_record *k = (const kernel_record *)record;
            keep_operation(ROW_KERNEL, k->start, k->end, 0, k->correlationId, k->streamId);
        } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const memcpy_record *m = (const memcpy_record *)record;
            if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD)
                keep_operation(ROW_H2D, m->start, m->end, m->bytes, m->correlationId,
                               m->streamId);
            else if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH)
                keep_operation(ROW_D2H, m->start, m->end, m->bytes, m->correlationId,
                               m->streamId);
        }
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS &&
        dropped)
        mark_lost();
    pthread_mutex_lock(&pool.lock);
    if (pool.n_free < POOLED_BUFFERS)
        pool.free[pool.n_free++] = buffer;
    else
        free(buffer);
    pthread_mutex_unlock(&pool.lock);
}

static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                           CUPTI_ACTIVITY_KIND_MEMCPY};

static int start_recording(void)
{
    CUPTI_TRY(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        CUPTI_TRY(cuptiActivityEnable(kinds[i]));
    return 0;
}

int timeline_start(void)
{
    if (pool_fill() || start_recording()) {
        pool_empty();
        return -1;
    }
    tl.recording = true;
    return 0;
}

int timeline_run(const char *name)
{
    if (tl.n_runs == MAX_RUNS) {
        fprintf(stderr, "%s: timeline: more than %d runs\n", program_name, MAX_RUNS);
        return -1;
    }
    tl.runs[tl.n_runs++] = name;
    return 0;
}

int timeline_discard(void)
{
    CUPTI_TRY(cuptiActivityFlushAll(1));
    pthread_mutex_lock(&tl.lock);
    tl.n_ops = tl.n_cpu = 0;
    pthread_mutex_unlock(&tl.lock);
    tl.n_log = 0;
    tl.n_runs = 0;
    return 0;
}

unsigned long long timeline_now(void)
{
    uint64_t now = 0;
    cuptiGetTimestamp(&now);
    return now;
}

void timeline_cpu(bool prepare, unsigned thread, unsigned chunk, unsigned long long start,
                  unsigned long long end, unsigned long long bytes)
{
    pthread_mutex_lock(&tl.lock);
    if (!tl.recording || tl.n_runs == 0 ||
        !reserve((void **)&tl.cpu, &tl.cap_cpu, tl.n_cpu, sizeof *tl.cpu))
        tl.lost = true;
    else
        tl.cpu[tl.n_cpu++] = (struct cpu_span){prepare ? ROW_PREPARE : ROW_PROCESS,
                                               tl.n_runs - 1, thread, chunk, start, end, bytes};
    pthread_mutex_unlock(&tl.lock);
}

/* CUPTI numbers every CUDA call in the order it is made (its correlation id), and each copy and
 * kernel record carries the number of the call that issued it. So the records, sorted by that
 * number, come in the order of this log: the i-th record is the i-th operation noted here. */
void timeline_chunk(unsigned chunk)
{
    if (!tl.recording || tl.n_runs == 0 ||
        !reserve((void **)&tl.log, &tl.cap_log, tl.n_log, sizeof *tl.log)) {
        mark_lost();
        return;
    }
    tl.log[tl.n_log++] = (struct issued){tl.n_runs - 1, chunk};
}

/* Stops recording; CUPTI's last records arrive during the flush. */
static int stop_recording(void)
{
    if (!tl.recording)
        return 0;
    tl.recording = false;
    CUPTI_TRY(cuptiActivityFlushAll(1));
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        CUPTI_TRY(cuptiActivityDisable(kinds[i]));
    return 0;
}

void timeline_stop(void)
{
    stop_recording();
    pool_empty(); /* the flush handed every buffer back */
    free(tl.ops);
    free(tl.log);
    free(tl.cpu);
    tl = (struct timeline){.lock = PTHREAD_MUTEX_INITIALIZER};
}

int timeline_write(const char *prefix, unsigned long *operations,
                   struct busy_time busy[TIMELINE_MAX_RUNS])
{
    if (stop_recording()) {
        timeline_stop();
        return -1;
    }
    return timeline_report(prefix, operations, busy);
}

#else /* no CUPTI in this toolkit */

static int unavailable(void)
{
    fprintf(stderr, "%s: timeline: this build has no CUPTI (the Makefile found no libcupti in "
                    "the CUDA toolkit), so no timeline is recorded\n", program_name);
    return -1;
}

int timeline_start(void)
{
    return unavailable();
}

int timeline_run(const char *name)
{
    (void)name;
    return -1;
}

void timeline_chunk(unsigned chunk)
{
    (void)chunk;
}

unsigned long long timeline_now(void)
{
    return 0;
}

void timeline_cpu(bool prepare, unsigned thread, unsigned chunk, unsigned long long start,
                  unsigned long long end, unsigned long long bytes)
{
    (void)prepare, (void)thread, (void)chunk, (void)start, (void)end, (void)bytes;
}

int timeline_discard(void)
{
    return -1;
}

int timeline_write(const char *prefix, unsigned long *operations,
                   struct busy_time busy[TIMELINE_MAX_RUNS])
{
    (void)prefix, (void)busy;
    *operations = 0;
    return -1;
}

void timeline_stop(void)
{
}

#endif
