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

enum row { ROW_H2D, ROW_KERNEL, ROW_D2H, N_ROWS, ROW_PREPARE = N_ROWS, ROW_PROCESS, ALL_ROWS };
static const char *const row_names[ALL_ROWS] = {"H2D copies", "kernels", "D2H copies",
                                                "CPU prepare", "CPU process"};
enum { CPU_TID = 10 }; /* the trace's thread ids of CPU threads: 10, 11, ... */

struct cpu_span { /* CPU work, on CUPTI's clock */
    enum row row;
    unsigned run, thread, chunk;
    uint64_t start, end, bytes;
};

struct operation {
    enum row row;
    uint64_t start, end, bytes;
    uint32_t correlation, stream;
};

struct issued { /* one copy or kernel, in the order the program issued it */
    unsigned run, chunk;
    uint64_t at; /* on CUPTI's clock, when the program issued it; 0: not stamped */
};

enum { MAX_RUNS = TIMELINE_MAX_RUNS, RECORD_BUFFER_BYTES = 4u << 20, POOLED_BUFFERS = 4 };
static struct timeline {
    bool recording;
    struct operation *ops;
    size_t n_ops, cap_ops;
    struct issued *log;
    size_t n_log, cap_log;
    const char *runs[MAX_RUNS];
    unsigned n_runs;
    struct cpu_span *cpu;
    size_t n_cpu, cap_cpu;
    pthread_mutex_t cpu_lock; /* CPU spans come from the worker threads */
    bool lost; /* a record or a note that could not be kept */
} tl = {.cpu_lock = PTHREAD_MUTEX_INITIALIZER};

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

static void keep_operation(enum row row, uint64_t start, uint64_t end, uint64_t bytes,
                           uint32_t correlation, uint32_t stream)
{
    if (!reserve((void **)&tl.ops, &tl.cap_ops, tl.n_ops, sizeof *tl.ops)) {
        tl.lost = true;
        return;
    }
    tl.ops[tl.n_ops++] = (struct operation){row, start, end, bytes, correlation, stream};
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
        tl.lost = true;
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
    tl.n_ops = tl.n_log = tl.n_cpu = 0;
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
    pthread_mutex_lock(&tl.cpu_lock);
    if (!tl.recording || tl.n_runs == 0 ||
        !reserve((void **)&tl.cpu, &tl.cap_cpu, tl.n_cpu, sizeof *tl.cpu))
        tl.lost = true;
    else
        tl.cpu[tl.n_cpu++] = (struct cpu_span){prepare ? ROW_PREPARE : ROW_PROCESS,
                                               tl.n_runs - 1, thread, chunk, start, end, bytes};
    pthread_mutex_unlock(&tl.cpu_lock);
}

/* CUPTI numbers every CUDA call in the order it is made (its correlation id), and each copy and
 * kernel record carries the number of the call that issued it. So the records, sorted by that
 * number, come in the order of this log: the i-th record is the i-th operation noted here. */
static void note(unsigned chunk, uint64_t at)
{
    if (!tl.recording || tl.n_runs == 0 ||
        !reserve((void **)&tl.log, &tl.cap_log, tl.n_log, sizeof *tl.log)) {
        tl.lost = true;
        return;
    }
    tl.log[tl.n_log++] = (struct issued){tl.n_runs - 1, chunk, at};
}

void timeline_chunk(unsigned chunk)
{
    note(chunk, 0);
}

void timeline_chunk_stamped(unsigned chunk)
{
    note(chunk, timeline_now());
}

static int compare_correlation(const void *a, const void *b)
{
    uint32_t x = ((const struct operation *)a)->correlation;
    uint32_t y = ((const struct operation *)b)->correlation;
    return (x > y) - (x < y);
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
    tl = (struct timeline){.cpu_lock = PTHREAD_MUTEX_INITIALIZER};
}

/* Pairs the records with the log: false after saying why they cannot be paired. */
static bool records_match_log(void)
{
    if (tl.lost) {
        fprintf(stderr, "%s: timeline: records or notes were lost (out of memory)\n",
                program_name);
        return false;
    }
    if (tl.n_ops != tl.n_log) {
        fprintf(stderr, "%s: timeline: CUPTI recorded %zu copies and kernels, the program issued "
                        "%zu\n", program_name, tl.n_ops, tl.n_log);
        return false;
    }
    qsort(tl.ops, tl.n_ops, sizeof *tl.ops, compare_correlation);
    return true;
}

static void write_run_names(FILE *json)
{
    for (unsigned r = 0; r < tl.n_runs; r++) {
        fprintf(json, "%s{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %u, "
                      "\"args\": {\"name\": \"%s\"}}", r ? ",\n" : "", r + 1, tl.runs[r]);
        for (int row = 0; row < N_ROWS; row++)
            fprintf(json, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %u, "
                          "\"tid\": %d, \"args\": {\"name\": \"%s\"}}", r + 1, row + 1,
                    row_names[row]);
        unsigned threads = 0;
        for (size_t i = 0; i < tl.n_cpu; i++)
            if (tl.cpu[i].run == r && tl.cpu[i].thread + 1 > threads)
                threads = tl.cpu[i].thread + 1;
        for (unsigned t = 0; t < threads; t++)
            fprintf(json, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %u, "
                          "\"tid\": %u, \"args\": {\"name\": \"CPU thread %u\"}}", r + 1,
                    CPU_TID + t, t);
    }
}

/* The CPU's spans of work, in both files, on the GPU operations' time axis. */
static void write_cpu_spans(FILE *json, FILE *csv, const uint64_t origin[MAX_RUNS])
{
    for (size_t i = 0; i < tl.n_cpu; i++) {
        const struct cpu_span *c = &tl.cpu[i];
        double start_us = ((double)c->start - (double)origin[c->run]) / 1e3;
        double duration_us = (double)(c->end - c->start) / 1e3;
        const char *what = c->row == ROW_PREPARE ? "prepare" : "process";
        fprintf(json, ",\n{\"name\": \"%s chunk %u\", \"cat\": \"cpu\", \"ph\": \"X\", "
                      "\"pid\": %u, \"tid\": %u, \"ts\": %.3f, \"dur\": %.3f, "
                      "\"args\": {\"chunk\": %u, \"thread\": %u, \"bytes\": %llu}}",
                what, c->chunk, c->run + 1, CPU_TID + c->thread, start_us, duration_us,
                c->chunk, c->thread, (unsigned long long)c->bytes);
        csv_field(csv, tl.runs[c->run]);
        fprintf(csv, ",%s,%u,%u,%.3f,%.3f,%llu\n", row_names[c->row], c->chunk, c->thread,
                start_us, duration_us, (unsigned long long)c->bytes);
    }
}

/* Every operation, in both files. Each run's times start at its own first operation, so runs
 * line up on one axis. */
static void write_operations(FILE *json, FILE *csv)
{
    uint64_t origin[MAX_RUNS];
    for (unsigned r = 0; r < MAX_RUNS; r++)
        origin[r] = UINT64_MAX;
    for (size_t i = 0; i < tl.n_ops; i++)
        if (tl.ops[i].start < origin[tl.log[i].run])
            origin[tl.log[i].run] = tl.ops[i].start;
    for (size_t i = 0; i < tl.n_cpu; i++) /* a staged run starts on the CPU */
        if (tl.cpu[i].start < origin[tl.cpu[i].run])
            origin[tl.cpu[i].run] = tl.cpu[i].start;
    fprintf(csv, "run,row,chunk,stream,start_us,duration_us,bytes\n");
    for (size_t i = 0; i < tl.n_ops; i++) {
        const struct operation *op = &tl.ops[i];
        unsigned run = tl.log[i].run, chunk = tl.log[i].chunk;
        double start_us = (double)(op->start - origin[run]) / 1e3;
        double duration_us = (double)(op->end - op->start) / 1e3;
        fprintf(json, ",\n{\"name\": \"%s chunk %u\", \"cat\": \"%s\", \"ph\": \"X\", "
                      "\"pid\": %u, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, "
                      "\"args\": {\"chunk\": %u, \"stream\": %u, \"bytes\": %llu}}",
                row_names[op->row], chunk, op->row == ROW_KERNEL ? "kernel" : "memcpy", run + 1,
                op->row + 1, start_us, duration_us, chunk, op->stream,
                (unsigned long long)op->bytes);
        csv_field(csv, tl.runs[run]); /* run names hold commas: quoted */
        fprintf(csv, ",%s,%u,%u,%.3f,%.3f,%llu\n", row_names[op->row], chunk, op->stream,
                start_us, duration_us, (unsigned long long)op->bytes);
    }
    write_cpu_spans(json, csv, origin);
}

struct edge { /* an operation's start (+1) or end (-1) */
    uint64_t at;
    enum row row;
    int step;
};

static int compare_edges(const void *a, const void *b)
{
    uint64_t x = ((const struct edge *)a)->at, y = ((const struct edge *)b)->at;
    return (x > y) - (x < y);
}

/* Walks run `run`'s starts and ends in time order, counting what is running in each row. */
static int measure_busy(unsigned run, struct busy_time *busy)
{
    struct edge *edges = malloc(2 * (tl.n_ops + tl.n_cpu) * sizeof *edges);
    if (!edges)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < tl.n_ops; i++) {
        if (tl.log[i].run != run)
            continue;
        edges[n++] = (struct edge){tl.ops[i].start, tl.ops[i].row, +1};
        edges[n++] = (struct edge){tl.ops[i].end, tl.ops[i].row, -1};
    }
    for (size_t i = 0; i < tl.n_cpu; i++) {
        if (tl.cpu[i].run != run)
            continue;
        edges[n++] = (struct edge){tl.cpu[i].start, tl.cpu[i].row, +1};
        edges[n++] = (struct edge){tl.cpu[i].end, tl.cpu[i].row, -1};
    }
    qsort(edges, n, sizeof *edges, compare_edges);
    double row_ns[N_ROWS] = {0}, all_ns = 0, cpu_ns = 0, four_ns = 0;
    int running[ALL_ROWS] = {0};
    for (size_t e = 0; e + 1 < n; e++) {
        running[edges[e].row] += edges[e].step;
        double ns = (double)(edges[e + 1].at - edges[e].at);
        for (int r = 0; r < N_ROWS; r++)
            row_ns[r] += running[r] > 0 ? ns : 0;
        bool gpu = running[ROW_H2D] > 0 && running[ROW_KERNEL] > 0 && running[ROW_D2H] > 0;
        bool cpu = running[ROW_PREPARE] + running[ROW_PROCESS] > 0;
        all_ns += gpu ? ns : 0;
        cpu_ns += cpu ? ns : 0;
        four_ns += gpu && cpu ? ns : 0;
    }
    *busy = (struct busy_time){.span_ms = n ? (double)(edges[n - 1].at - edges[0].at) / 1e6 : 0,
                               .h2d_ms = row_ns[ROW_H2D] / 1e6,
                               .kernels_ms = row_ns[ROW_KERNEL] / 1e6,
                               .d2h_ms = row_ns[ROW_D2H] / 1e6, .all_three_ms = all_ns / 1e6,
                               .cpu_ms = cpu_ns / 1e6, .all_four_ms = four_ns / 1e6};
    free(edges);
    return 0;
}

/* The waits of run `run`'s copies in, from their chunks' preparation to their issue (struct
 * issue_wait). */
static int measure_issue_waits(unsigned run, struct issue_wait *wait)
{
    *wait = (struct issue_wait){0};
    unsigned chunks = 0;
    uint64_t first_process = UINT64_MAX;
    for (size_t i = 0; i < tl.n_cpu; i++) {
        const struct cpu_span *c = &tl.cpu[i];
        if (c->run == run && c->chunk + 1 > chunks)
            chunks = c->chunk + 1;
        if (c->run == run && c->row == ROW_PROCESS && c->start < first_process)
            first_process = c->start;
    }
    if (chunks == 0)
        return 0;
    uint64_t *prepared = calloc(chunks, sizeof *prepared);
    double *all = malloc(2 * (size_t)chunks * sizeof *all);
    if (!prepared || !all) {
        free(prepared);
        free(all);
        return -1;
    }
    double *first = all + chunks;
    for (size_t i = 0; i < tl.n_cpu; i++) {
        const struct cpu_span *c = &tl.cpu[i];
        if (c->run == run && c->row == ROW_PREPARE && c->end > prepared[c->chunk])
            prepared[c->chunk] = c->end;
    }
    size_t n_all = 0, n_first = 0;
    for (size_t i = 0; i < tl.n_log && n_all < chunks; i++) {
        const struct issued *op = &tl.log[i];
        if (op->run != run || !op->at || op->chunk >= chunks || !prepared[op->chunk])
            continue;
        double wait_ms = ((double)op->at - (double)prepared[op->chunk]) / 1e6;
        all[n_all++] = wait_ms;
        if (op->at < first_process)
            first[n_first++] = wait_ms;
    }
    wait->all_ms = n_all ? stats_summarize(all, n_all).median : 0;
    wait->first_ms = n_first ? stats_summarize(first, n_first).median : 0;
    wait->first_chunks = (unsigned)n_first;
    free(prepared);
    free(all);
    return 0;
}

int timeline_write(const char *prefix, unsigned long *operations,
                   struct busy_time busy[TIMELINE_MAX_RUNS],
                   struct issue_wait waits[TIMELINE_MAX_RUNS])
{
    if (stop_recording() || !records_match_log()) {
        timeline_stop();
        return -1;
    }
    for (unsigned r = 0; r < tl.n_runs; r++) {
        if (measure_busy(r, &busy[r]) || (waits && measure_issue_waits(r, &waits[r]))) {
            fprintf(stderr, "%s: timeline: out of memory\n", program_name);
            timeline_stop();
            return -1;
        }
    }
    *operations = tl.n_ops;
    if (!prefix) {
        timeline_stop();
        return 0;
    }
    char path[512];
    snprintf(path, sizeof path, "%s.json", prefix);
    FILE *json = fopen(path, "w");
    snprintf(path, sizeof path, "%s.csv", prefix);
    FILE *csv = fopen(path, "w");
    int rc = json && csv ? 0 : -1;
    if (rc == 0) {
        fprintf(json, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
        write_run_names(json);
        write_operations(json, csv);
        fprintf(json, "\n]}\n");
    }
    if ((json && fclose(json)) | (csv && fclose(csv)))
        rc = -1;
    if (rc)
        fprintf(stderr, "%s: timeline: cannot write %s.json and %s.csv\n", program_name, prefix,
                prefix);
    timeline_stop();
    return rc;
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

void timeline_chunk_stamped(unsigned chunk)
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
                   struct busy_time busy[TIMELINE_MAX_RUNS],
                   struct issue_wait waits[TIMELINE_MAX_RUNS])
{
    (void)prefix, (void)busy, (void)waits;
    *operations = 0;
    return -1;
}

void timeline_stop(void)
{
}

#endif
