/*
 * pinned.h - what lesson 04's files share: the kinds of host memory, the timing kit, the sweep's
 * results, the link, and the deep parts that main.c runs after the lesson (--deep PARTS).
 */
#ifndef PINNED_H
#define PINNED_H

#include "common.h"

#include <stdint.h>

/* memory.c: the four kinds of host memory, for the deep parts and the exercises (main.c
 * allocates its own in plain sight). */
enum memory_kind { PAGEABLE, PINNED, WRITE_COMBINED, REGISTERED, N_KINDS };
extern const char *const kind_names[N_KINDS];
enum { UP, DOWN, N_DIRECTIONS }; /* host to device, device to host */
extern const char *const direction_names[N_DIRECTIONS];
void *host_alloc(enum memory_kind kind, size_t bytes);
void *pin_in_place(void *p, size_t bytes);
void host_free(enum memory_kind kind, void *p);

/* timing.c: what every part times with, and where it writes what it measured. `stream` carries
 * every timed copy, but for the D2H copies of both directions at once, which go to `d2h_stream`. */
struct timing {
    cudaStream_t stream, d2h_stream;
    cudaEvent_t start, stop, d2h_stop;
    struct gate gate; /* holds `stream` while copies are issued: see sample_copies() */
    bool gated;       /* --gated-timing: whether to use it */
    double *samples, *d2h_samples; /* d2h_samples: the D2H side of both at once */
    double *cpu_samples;           /* host clock per call, beside the GPU's samples */
    int reps;
    struct csv *csv;
    char link[96]; /* the link's peak, for the bandwidth rows' params: "peak_gbps=...;link=..." */
};
struct timing timing_create(int reps, bool gated, struct csv *csv);
void timing_destroy(struct timing *t);

/* Device buffers of a sweep: `data` receives H2D copies and sends D2H ones; `reference` holds
 * the expected bytes (random, or those of `expected`), `check` a copy to compare on the GPU. */
struct device_buffers {
    void *data, *reference, *check;
    unsigned long long *count;
};
struct device_buffers device_buffers_create(size_t bytes);
struct device_buffers device_buffers_holding(const void *expected, size_t bytes);
void device_buffers_destroy(struct device_buffers *d);

enum { BYTES_PER_SAMPLE = 16 << 20 }; /* each sample holds up to this much of copies */
int copies_per_sample(size_t bytes);
double stop_clock(const struct timing *t);
double stop_clock_waited(const struct timing *t);
double open_gate_and_time(const struct timing *t);
double sample_copies(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                     bool gated, const struct timing *t, double *cpu_ms);
struct stats time_copies(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                         bool gated, const struct timing *t, struct stats *cpu_ms_per_call);
void expect_reference(const void *d_buffer, const struct device_buffers *d, size_t bytes,
                      const char *what);
void expect_reference_on_host(const void *dst, const struct device_buffers *d, size_t bytes,
                              const char *what);

/* link.c: the PCIe link's peak, printed, and described in `params` for the bandwidth rows. */
struct pcie_link usable_link(int device, size_t bytes, char *params, size_t len);

/* sweep.c: the bandwidth sweep's sizes, measurements, rows and tables. */
enum { MAX_SIZES = 32 };
enum { ON_GPU, ON_CPU }; /* the two costs of one copy */
struct sweep {
    size_t sizes[MAX_SIZES];
    int n_sizes;
    double gbps[N_KINDS][N_DIRECTIONS][MAX_SIZES];
    double both_gbps[N_DIRECTIONS + 1][MAX_SIZES]; /* H2D, D2H, and their sum */
    struct stats pinned_copy_ms[2][N_DIRECTIONS][MAX_SIZES]; /* per copy: ON_GPU, ON_CPU */
};
void sweep_sizes(struct sweep *sw, size_t max_bytes);
void sweep_kind(enum memory_kind kind, void *host, struct sweep *sw,
                const struct device_buffers *d, const struct timing *t);
void record_both_directions(struct sweep *sw, int s, int copies, double *sum,
                            const struct timing *t);
void print_sweep(const struct sweep *sw, int reps);
void print_against_limits(const struct sweep *sw, const struct pcie_link *link);
void print_call_held(enum memory_kind kind, int dir, size_t bytes, const struct timing *t);

/* The deep parts, each in the file named for it (DEEP.md). */
void per_copy_cost(const struct sweep *sw, const struct timing *t);        /* per_copy.c */
void alignment(const struct sweep *sw, const struct timing *t);            /* alignment.c */
void batching(size_t total, const struct timing *t);                       /* batching.c */
void cpu_access(const struct timing *t);                                   /* cpu_access.c */
void zero_copy(size_t bytes, const struct timing *t);                      /* zero_copy.c */
void pinning_cost(size_t bytes, const struct sweep *sw, const struct timing *t); /* pinning.c */

/* zero_copy.c, for exercise 2 too: two buffers of mapped host memory, each with the address
 * kernels use for it, and two on the device; h_src holds random floats, and d_b a copy of them. */
struct mapped_buffers {
    float *h_src, *h_dst, *src_view, *dst_view, *d_a, *d_b;
};
enum { SPARSE_STRIDE = 32 }; /* the zero-copy part uses 1 float in this many */
struct mapped_buffers mapped_create(size_t bytes);
void mapped_destroy(struct mapped_buffers *m);
double gather_ms(const float *src, float *dst, size_t n_out, size_t stride,
                 const struct timing *t);
double copy_then_gather_ms(const float *h_src, float *d_src, size_t bytes, float *dst,
                           size_t n_out, size_t stride, const struct timing *t);
void expect_gathered(const float *h_result, const float *h_src, size_t n_out, size_t stride,
                     const char *what);

/* exercises.c: exercise n of README.md, in place of the lesson; returns main's exit code. */
enum { N_EXERCISES = 3 };
int run_exercise(int n, struct common_args *args, size_t sweep_max, bool gated);

#endif /* PINNED_H */
