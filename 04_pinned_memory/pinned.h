/*
 * pinned.h - what lesson 04's main.c shares with its exercises (exercises.c): the kinds of host
 * memory, the timing kit, and the pieces of parts 1 to 3 that the exercises run again, changed as
 * the README's exercises ask. Each is defined, and explained, in main.c.
 */
#ifndef PINNED_H
#define PINNED_H

#include "common.h"

#include <stdint.h>

enum memory_kind { PAGEABLE, PINNED, WRITE_COMBINED, REGISTERED, N_KINDS };
extern const char *const kind_names[N_KINDS];
enum { UP, DOWN, N_DIRECTIONS }; /* host to device, device to host */
extern const char *const direction_names[N_DIRECTIONS];

void *host_alloc(enum memory_kind kind, size_t bytes);
void *pin_in_place(void *p, size_t bytes);
void host_free(enum memory_kind kind, void *p);

/* What every part times with, and where it writes what it measured. `stream` carries every
 * timed copy, but for the D2H copies of both directions at once, which go to `d2h_stream`. */
struct timing {
    cudaStream_t stream, d2h_stream;
    cudaEvent_t start, stop, d2h_stop;
    struct gate gate; /* holds `stream` while copies are issued: see time_copies() */
    bool gated;       /* --gated-timing: whether to use it */
    double *samples, *d2h_samples; /* d2h_samples: the D2H side of both at once */
    double *cpu_samples;           /* host clock per call, beside the GPU's samples */
    int reps;
    struct csv *csv;
    char link[96]; /* the link's peak, for the bandwidth rows' params: "peak_gbps=...;link=..." */
};
struct timing timing_create(int reps, bool gated, struct csv *csv);
void timing_destroy(struct timing *t);

/* Device buffers of the sweep: `data` receives H2D copies and sends D2H ones; `reference` holds
 * the expected bytes (random, or those of `expected`), `check` a copy to compare on the GPU. */
struct device_buffers {
    void *data, *reference, *check;
    unsigned long long *count;
};
struct device_buffers device_buffers_create(size_t bytes);
struct device_buffers device_buffers_holding(const void *expected, size_t bytes);
void device_buffers_destroy(struct device_buffers *d);

double sample_copies(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                     bool gated, const struct timing *t, double *cpu_ms);
void expect_reference(const void *d_buffer, const struct device_buffers *d, size_t bytes,
                      const char *what);
void expect_reference_on_host(const void *dst, const struct device_buffers *d, size_t bytes,
                              const char *what);
struct pcie_link usable_link(int device, size_t bytes, char *params, size_t len);

/* Part 2. */
void cpu_write_read(uint64_t *buffer, size_t bytes, int rep, enum memory_kind kind,
                    double *write_ms, double *read_ms);

/* Part 3: two buffers of mapped host memory, each with the address kernels use for it, and two
 * on the device; h_src holds random floats, and d_b a copy of them. */
struct mapped_buffers {
    float *h_src, *h_dst, *src_view, *dst_view, *d_a, *d_b;
};
enum { SPARSE_STRIDE = 32 }; /* part 3 uses 1 float in this many */
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
