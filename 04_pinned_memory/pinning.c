/*
 * pinning.c - `--deep pinning`: what pinning costs, on the host clock (malloc and first touch,
 * cudaHostRegister, cudaMallocHost, cudaFreeHost, ...), like with like, and after how many
 * copies pinning memory you already have pays for itself.
 */
#include "pinned.h"

#include <string.h>

enum { PIN_REPS = 5 };

/* Each operation, timed on its own; the first four pin memory malloc gave, in place. */
enum {
    MALLOC_TOUCH, HOST_REGISTER, HOST_UNREGISTER, FREE, REGISTER_UNTOUCHED, MALLOC_HOST,
    WRITE_PINNED, FREE_HOST, N_PIN_OPS
};
static const struct { const char *variant, *name; } pin_ops[N_PIN_OPS] = {
    [MALLOC_TOUCH] = {"malloc_touch", "malloc + first touch"},
    [HOST_REGISTER] = {"host_register", "cudaHostRegister"},
    [HOST_UNREGISTER] = {"host_unregister", "cudaHostUnregister"},
    [FREE] = {"free", "free"},
    [REGISTER_UNTOUCHED] = {"host_register_untouched", "cudaHostRegister, untouched"},
    [MALLOC_HOST] = {"malloc_host", "cudaMallocHost"},
    [WRITE_PINNED] = {"malloc_host_write", "first write of that memory"},
    [FREE_HOST] = {"free_host", "cudaFreeHost"},
};

/* One repetition of every operation, into times[]. */
static void pin_once(size_t bytes, double times[N_PIN_OPS])
{
    double t0 = host_ms();
    char *p = malloc_or_exit(bytes);
    memset(p, 1, bytes); /* the operating system maps the pages only when first touched */
    double t1 = host_ms();
    CUDA_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    double t2 = host_ms();
    CUDA_CHECK(cudaHostUnregister(p));
    double t3 = host_ms();
    free(p);
    double t4 = host_ms();
    p = malloc_or_exit(bytes); /* pages not mapped yet: registering must map them */
    double t5 = host_ms();
    CUDA_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    double t6 = host_ms();
    CUDA_CHECK(cudaHostUnregister(p));
    free(p);
    void *q;
    double t7 = host_ms();
    CUDA_CHECK(cudaMallocHost(&q, bytes));
    double t8 = host_ms();
    memset(q, 1, bytes); /* written once, as the malloc path's first touch writes it */
    double t9 = host_ms();
    CUDA_CHECK(cudaFreeHost(q));
    double t10 = host_ms();
    const double each[N_PIN_OPS] = {t1 - t0, t2 - t1, t3 - t2,  t4 - t3,
                                    t6 - t5, t8 - t7, t9 - t8, t10 - t9};
    memcpy(times, each, sizeof each);
}

void pinning_cost(size_t bytes, const struct sweep *sw, const struct timing *t)
{
    double samples[N_PIN_OPS][PIN_REPS], in_place[PIN_REPS], allocated[PIN_REPS];
    for (int rep = 0; rep < PIN_REPS; rep++) {
        double times[N_PIN_OPS];
        pin_once(bytes, times);
        for (int op = 0; op < N_PIN_OPS; op++)
            samples[op][rep] = times[op];
        in_place[rep] = times[MALLOC_TOUCH] + times[HOST_REGISTER];
        allocated[rep] = times[MALLOC_HOST] + times[WRITE_PINNED];
    }
    char size_text[32];
    double gib = (double)bytes / (1u << 30);
    printf("\n4. the cost of %s of host memory, host clock, median of %d\n",
           format_bytes(bytes, size_text, sizeof size_text), PIN_REPS);
    struct stats cost[N_PIN_OPS];
    for (int op = 0; op < N_PIN_OPS; op++) {
        cost[op] = stats_summarize(samples[op], PIN_REPS);
        printf("  %-30s %9.2f ms  %9.2f ms per GiB\n", pin_ops[op].name, cost[op].median,
               cost[op].median / gib);
        csv_record(t->csv, &(struct csv_row){.experiment = "pin_cost",
                                             .variant = pin_ops[op].variant, .bytes = bytes,
                                             .reps = PIN_REPS, .ms = cost[op],
                                             .params = "clock=host"});
    }
    /* Like with like: memory that ends up pinned and written once, either way. */
    struct stats yours = stats_summarize(in_place, PIN_REPS);
    struct stats theirs = stats_summarize(allocated, PIN_REPS);
    csv_record(t->csv, &(struct csv_row){.experiment = "pin_cost",
                                         .variant = "malloc_touch_register", .bytes = bytes,
                                         .reps = PIN_REPS, .ms = yours, .params = "clock=host"});
    printf("  like with like, pinned memory written once: malloc + first touch + cudaHostRegister\n"
           "  %.2f ms, cudaMallocHost + first write %.2f ms (this machine's figures: a VM's first\n"
           "  touch and pinning go through its hypervisor, and bare metal differs)\n",
           yours.median, theirs.median);
    /* Pinning in place pays once the copies it speeds up have saved what it cost. */
    int last = sw->n_sizes - 1;
    double pageable_ms = bytes / (sw->gbps[PAGEABLE][UP][last] * 1e6);
    double pinned_ms = bytes / (sw->gbps[REGISTERED][UP][last] * 1e6);
    double pin_ms = cost[HOST_REGISTER].median + cost[HOST_UNREGISTER].median;
    printf("  registering memory you already have and unregistering it cost %.2f ms; each H2D\n"
           "  copy of it then takes %.2f ms instead of %.2f: pinning pays back after %.1f copies\n",
           pin_ms, pinned_ms, pageable_ms, pin_ms / (pageable_ms - pinned_ms));
}
