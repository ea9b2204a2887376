/*
 * timeline_records.h - what timeline.c keeps while CUPTI records (its records of the GPU's work,
 * the program's notes of each operation's chunk, the CPU spans), shared with
 * timeline_report.c, which pairs them, measures the runs and writes the files.
 */
#ifndef TIMELINE_RECORDS_H
#define TIMELINE_RECORDS_H

#include "timeline.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

enum row { ROW_H2D, ROW_KERNEL, ROW_D2H, N_ROWS, ROW_PREPARE = N_ROWS, ROW_PROCESS, ALL_ROWS };
extern const char *const row_names[ALL_ROWS];
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
};

enum { MAX_RUNS = TIMELINE_MAX_RUNS, RECORD_BUFFER_BYTES = 4u << 20, POOLED_BUFFERS = 4 };
struct timeline {
    bool recording;
    struct operation *ops;
    size_t n_ops, cap_ops;
    struct issued *log;
    size_t n_log, cap_log;
    const char *runs[MAX_RUNS];
    unsigned n_runs;
    struct cpu_span *cpu;
    size_t n_cpu, cap_cpu;
    /* Guards what other threads write: ops and n_ops (CUPTI's thread, while the main thread
     * may discard them), cpu and n_cpu (the staged part's workers), and lost (all of them). */
    pthread_mutex_t lock;
    bool lost; /* a record or a note that could not be kept */
};
extern struct timeline tl; /* defined in timeline_report.c, which every build compiles */

/* After recording stopped: pairs the records with the notes, fills busy, writes PREFIX.json and
 * PREFIX.csv where prefix is not NULL, and releases what the recording held (timeline_stop()).
 * As timeline_write(). */
int timeline_report(const char *prefix, unsigned long *operations,
                    struct busy_time busy[TIMELINE_MAX_RUNS]);

#endif /* TIMELINE_RECORDS_H */
