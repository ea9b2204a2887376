/*
 * cpu_access.c - `--deep cpu-access`: the CPU's side of host memory. Write-combined memory is
 * meant for the CPU to write and the GPU to read; the CPU writing and reading it, against pinned
 * memory.
 */
#include "pinned.h"

#include <string.h>

/* One repetition: the CPU writes `bytes` of `buffer` (memset), then reads them (a sum of 64-bit
 * words), each on the host clock; the sum is checked. */
static void cpu_write_read(uint64_t *buffer, size_t bytes, int rep, enum memory_kind kind,
                           double *write_ms, double *read_ms)
{
    const size_t n = bytes / sizeof(uint64_t);
    /* A byte pattern that changes with rep, so the compiler cannot know what the sum will read,
     * and every repetition's sum can be checked. */
    unsigned char pattern = (unsigned char)(0x3c + (rep & 1));
    uint64_t word;
    memset(&word, pattern, sizeof word);
    double t0 = host_ms();
    memset(buffer, pattern, bytes);
    double t1 = host_ms();
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += buffer[i];
    double t2 = host_ms();
    if (sum != n * word) { /* both sides wrap around modulo 2^64 alike */
        fprintf(stderr, "%s: %s memory read back wrong: sum %#llx, want %#llx\n", program_name,
                kind_names[kind], (unsigned long long)sum, (unsigned long long)(n * word));
        exit(EXIT_ERROR);
    }
    *write_ms = t1 - t0;
    *read_ms = t2 - t1;
}

enum { CPU_ACCESS_BYTES = 4 << 20 };

void cpu_access(const struct timing *t)
{
    const size_t bytes = CPU_ACCESS_BYTES;
    const enum memory_kind kinds[] = {PINNED, WRITE_COMBINED};
    printf("\n2. the CPU writing (memset) and reading (a sum of 64-bit words) 4 MiB of host "
           "memory,\n   host clock, median of %d\n", t->reps);
    for (int k = 0; k < 2; k++) {
        uint64_t *buffer = host_alloc(kinds[k], bytes);
        double *read_ms = samples_or_exit((size_t)t->reps);
        for (int rep = -1; rep < t->reps; rep++) {
            double write_ms_once, read_ms_once;
            cpu_write_read(buffer, bytes, rep, kinds[k], &write_ms_once, &read_ms_once);
            if (rep >= 0) {
                t->samples[rep] = write_ms_once;
                read_ms[rep] = read_ms_once;
            }
        }
        struct stats write = stats_summarize(t->samples, (size_t)t->reps);
        struct stats read = stats_summarize(read_ms, (size_t)t->reps);
        printf("  %-15s write %8.3f ms (%6.2f GB/s)   read %8.3f ms (%6.2f GB/s)\n",
               kind_names[kinds[k]], write.median, gbps(bytes, write.median), read.median,
               gbps(bytes, read.median));
        csv_record(t->csv, &(struct csv_row){.experiment = "cpu_access",
                                             .variant = kind_names[kinds[k]], .bytes = bytes,
                                             .reps = t->reps, .ms = write,
                                             .gbps = gbps(bytes, write.median),
                                             .params = "clock=host;measure=cpu_write"});
        csv_record(t->csv, &(struct csv_row){.experiment = "cpu_access",
                                             .variant = kind_names[kinds[k]], .bytes = bytes,
                                             .reps = t->reps, .ms = read,
                                             .gbps = gbps(bytes, read.median),
                                             .params = "clock=host;measure=cpu_read"});
        free(read_ms);
        host_free(kinds[k], buffer);
    }
}
