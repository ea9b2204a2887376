/* timeline_report.c - the recorded runs paired, measured and written; see timeline_records.h.
 * Only a build with CUPTI calls it; every build compiles it, as the Makefile gives CUPTI's flags
 * to timeline.c alone. */
#include "timeline_records.h"

#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const row_names[ALL_ROWS] = {"H2D copies", "kernels", "D2H copies", "CPU prepare",
                                         "CPU process"};
struct timeline tl = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int compare_correlation(const void *a, const void *b)
{
    uint32_t x = ((const struct operation *)a)->correlation;
    uint32_t y = ((const struct operation *)b)->correlation;
    return (x > y) - (x < y);
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

int timeline_report(const char *prefix, unsigned long *operations,
                    struct busy_time busy[TIMELINE_MAX_RUNS])
{
    if (!records_match_log()) {
        timeline_stop();
        return -1;
    }
    for (unsigned r = 0; r < tl.n_runs; r++) {
        if (measure_busy(r, &busy[r])) {
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
