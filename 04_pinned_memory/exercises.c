/*
 * exercises.c - lesson 04's exercises (README.md, "Exercises"), each run by `--exercise N` in
 * place of the lesson, with the lesson's own functions (pinned.h):
 *
 *   1. the bandwidth sweep's last two sizes with --sweep-max 4G, 1 GiB and 4 GiB, for every kind
 *      of memory in both directions, against the link's peak;
 *   2. part 3's sparse read with a stride of 8, 32 and 256 in place of 32 alone;
 *   3. part 2 on a buffer of --size, well above a CPU's last-level cache, pinned against
 *      write-combined memory, and their copies over the link: what to run again outside a
 *      virtual machine, where write-combining is the CPU's own.
 *
 * The two sides of every ratio are measured in turns, repetition by repetition, and the ratio is
 * taken rep by rep (CONTRIBUTING.md, "Measuring"). Each answer figure is printed beside the
 * shipped reference's.
 */
#include "pinned.h"

#include <string.h>
#include <unistd.h>

static const char *const asks[N_EXERCISES] = {
    "run --sweep-max 4G: does any kind of memory get closer to the link's peak at 4 GiB than at "
    "1 GiB?",
    "part 3's stride at 8, 32 and 256: where does reading mapped memory directly stop beating "
    "\"copy everything, then pick\"?",
    "part 2, outside any virtual machine: is write-combined memory slow to read, and does it copy "
    "any faster than pinned memory?",
};

static const char *const verified[N_EXERCISES] = {
    "the last repetition of every copy, each kind, size and direction",
    "the last repetition of both ways at every stride",
    "every CPU read, and the last repetition of every copy",
};

/* A ratio's repetitions: median (range), and "~" where the range is over 5% of the median. */
static void print_ratio(struct stats r)
{
    printf("%7.3f (%.3f-%.3f)%s\n", r.median, r.min, r.max, stats_unsteady(r) ? "~" : "");
}

/* A host buffer of `kind` holding the first `bytes` of d->reference, which the checks expect. */
static void *host_holding_reference(enum memory_kind kind, size_t bytes,
                                    const struct device_buffers *d)
{
    void *host = host_alloc(kind, bytes);
    CUDA_CHECK(cudaMemcpy(host, d->reference, bytes, cudaMemcpyDeviceToHost));
    return host;
}

/* Copies to and from each of n host buffers (bytes[v] of kinds[v], holding d->reference's bytes)
 * in turns, repetition by repetition, each repetition starting one buffer later, so that neither
 * the link's wander nor the order favours one; ms[(v * N_DIRECTIONS + dir) * reps + rep] gets
 * each sample, milliseconds per copy (events, as part 1 times them). The last repetition copies
 * into poisoned buffers and is verified on the GPU; its D2H copy puts the host's bytes back. */
static void copies_in_turns(int n, void *const *host, const enum memory_kind *kinds,
                            const size_t *bytes, const struct device_buffers *d,
                            const struct timing *t, double *ms)
{
    size_t reps = (size_t)t->reps;
    for (int rep = -1; rep < t->reps; rep++) { /* rep -1 warms up */
        bool last = rep == t->reps - 1;
        for (int k = 0; k < n; k++) {
            int v = (k + rep + 1) % n;
            bool gated = t->gated && kinds[v] != PAGEABLE; /* as part 1 decides */
            double cpu_ms;
            if (last) /* in the timed stream, which does not wait for the default one */
                CUDA_CHECK(cudaMemsetAsync(d->data, 0xff, bytes[v], t->stream));
            double up = sample_copies(d->data, host[v], bytes[v], cudaMemcpyHostToDevice, gated,
                                      t, &cpu_ms);
            if (last) {
                expect_reference(d->data, d, bytes[v], kind_names[kinds[v]]);
                memset(host[v], 0xff, bytes[v]);
            }
            double down = sample_copies(host[v], d->data, bytes[v], cudaMemcpyDeviceToHost,
                                        gated, t, &cpu_ms);
            if (last)
                expect_reference_on_host(host[v], d, bytes[v], kind_names[kinds[v]]);
            if (rep >= 0) {
                ms[((size_t)v * N_DIRECTIONS + UP) * reps + (size_t)rep] = up;
                ms[((size_t)v * N_DIRECTIONS + DOWN) * reps + (size_t)rep] = down;
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------ *
 * 1. --sweep-max 4G: the sweep's last two sizes, a quarter of the largest and the largest.
 * ------------------------------------------------------------------------------------------ */

enum { SMALL, LARGE };

struct size_pair {
    struct stats ms[N_DIRECTIONS][2]; /* per copy, at each size */
    struct stats ratio[N_DIRECTIONS]; /* the large size's GB/s over the small one's, rep by rep */
};

/* Both sizes' copies from and to `host`, of `kind`, holding d->reference's bytes. */
static struct size_pair measure_size_pair(enum memory_kind kind, void *host, const size_t bytes[2],
                                          const struct device_buffers *d, const struct timing *t)
{
    size_t reps = (size_t)t->reps;
    double *ms = samples_or_exit(2 * N_DIRECTIONS * reps), *ratio = samples_or_exit(reps);
    copies_in_turns(2, (void *const[]){host, host}, (const enum memory_kind[]){kind, kind}, bytes,
                    d, t, ms);
    struct size_pair p;
    for (int dir = 0; dir < N_DIRECTIONS; dir++) {
        double *small = ms + (SMALL * N_DIRECTIONS + dir) * reps;
        double *large = ms + (LARGE * N_DIRECTIONS + dir) * reps;
        for (size_t rep = 0; rep < reps; rep++)
            ratio[rep] = gbps(bytes[LARGE], large[rep]) / gbps(bytes[SMALL], small[rep]);
        p.ratio[dir] = stats_summarize(ratio, reps);
        p.ms[dir][SMALL] = stats_summarize(small, reps);
        p.ms[dir][LARGE] = stats_summarize(large, reps);
    }
    free(ms);
    free(ratio);
    return p;
}

static void print_size_pairs(const struct size_pair p[N_KINDS], const size_t bytes[2],
                             const struct pcie_link *link, int reps)
{
    char text[2][32];
    for (int s = SMALL; s <= LARGE; s++)
        format_bytes(bytes[s], text[s], sizeof text[s]);
    printf("\n1. GB/s (1e9 bytes/s) at %s and %s, a quarter of --sweep-max and --sweep-max (with "
           "4G,\n   the bandwidth sweep's last two sizes), each kind's two sizes in turns, events, "
           "median of %d", text[SMALL], text[LARGE], reps);
    if (link->known)
        printf(";\n   and each figure's share of the link's peak, %.1f GB/s", link->peak_gbps);
    printf(". Last column: %s's speed\n   over %s's, rep by rep: median (range), ~ where the "
           "range is over 5%% of it\n", text[LARGE], text[SMALL]);
    printf("  %-15s %s%16s%16s   %s over %s\n", "kind", "dir", text[SMALL], text[LARGE],
           text[LARGE], text[SMALL]);
    for (int k = 0; k < N_KINDS; k++) {
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            printf("  %-15s %s", kind_names[k], direction_names[dir]);
            for (int s = SMALL; s <= LARGE; s++) {
                double rate = gbps(bytes[s], p[k].ms[dir][s].median);
                printf(" %8.2f", rate);
                if (link->known)
                    printf(" %5.1f%%", 100 * rate / link->peak_gbps);
                else
                    printf("       ");
            }
            printf("   ");
            print_ratio(p[k].ratio[dir]);
        }
    }
    printf("  the last repetition of every kind, size and direction verified on the GPU\n\n");
}

static void answer_size_pairs(const struct size_pair p[N_KINDS], const size_t bytes[2],
                              const struct timing *t)
{
    static const char *const dir_keys[N_DIRECTIONS] = {"h2d", "d2h"};
    static const char *const size_keys[2] = {"small", "large"};
    for (int k = 0; k < N_KINDS; k++) {
        for (int dir = 0; dir < N_DIRECTIONS; dir++) {
            char key[64], what[96], text[2][32];
            for (int s = SMALL; s <= LARGE; s++) {
                format_bytes(bytes[s], text[s], sizeof text[s]);
                double rate = gbps(bytes[s], p[k].ms[dir][s].median);
                struct csv_row row = {.direction = direction_names[dir], .bytes = bytes[s],
                                      .reps = t->reps, .ms = p[k].ms[dir][s], .gbps = rate,
                                      .params = "clock=gpu_event"};
                snprintf(key, sizeof key, "%s_%s_%s_gbps", kind_names[k], dir_keys[dir],
                         size_keys[s]);
                snprintf(what, sizeof what, "%s %s at %s", kind_names[k], direction_names[dir],
                         text[s]);
                exercise_record(t->csv, 1, key, what, rate, "GB/s", row);
            }
            struct csv_row row = {.direction = direction_names[dir], .bytes = bytes[LARGE],
                                  .reps = t->reps, .ms = p[k].ms[dir][LARGE],
                                  .gbps = gbps(bytes[LARGE], p[k].ms[dir][LARGE].median),
                                  .params = "clock=gpu_event"};
            snprintf(key, sizeof key, "%s_%s_large_over_small", kind_names[k], dir_keys[dir]);
            snprintf(what, sizeof what, "%s %s, %s's speed over %s's", kind_names[k],
                     direction_names[dir], text[LARGE], text[SMALL]);
            exercise_record(t->csv, 1, key, what, p[k].ratio[dir].median, "x", row);
        }
    }
}

static void exercise_sweep_max(size_t sweep_max, int device, const struct timing *t)
{
    /* With --sweep-max 4G, the sweep's last two sizes are 1 GiB and 4 GiB: it grows by factors
     * of 4 (sweep_next_size). Whatever --sweep-max is, the exercise sets it against a quarter. */
    const size_t bytes[2] = {sweep_max / 4 / sizeof(float) * sizeof(float), sweep_max};
    char link_params[96];
    struct pcie_link link = usable_link(device, sweep_max, link_params, sizeof link_params);
    /* One host buffer of each kind at a time, holding the reference's bytes. Allocating, first
     * touching and pinning 4 GiB takes seconds, so the pageable buffer is the one the reference
     * is copied from, and is then pinned in place as the registered one. */
    float *yours = host_alloc(PAGEABLE, sweep_max);
    fill_random(yours, sweep_max / sizeof(float), 7);
    struct device_buffers d = device_buffers_holding(yours, sweep_max);
    struct size_pair p[N_KINDS];
    p[PAGEABLE] = measure_size_pair(PAGEABLE, yours, bytes, &d, t);
    p[REGISTERED] = measure_size_pair(REGISTERED, pin_in_place(yours, sweep_max), bytes, &d, t);
    host_free(REGISTERED, yours);
    for (int k = PINNED; k <= WRITE_COMBINED; k++) {
        void *host = host_holding_reference((enum memory_kind)k, sweep_max, &d);
        p[k] = measure_size_pair((enum memory_kind)k, host, bytes, &d, t);
        host_free((enum memory_kind)k, host);
    }
    device_buffers_destroy(&d);
    print_size_pairs(p, bytes, &link, t->reps);
    answer_size_pairs(p, bytes, t);
}

/* ------------------------------------------------------------------------------------------ *
 * 2. Part 3's stride: 1 float in 8, 32 or 256, read across PCIe or copied with the rest.
 * ------------------------------------------------------------------------------------------ */

enum { DIRECT, COPY_FIRST, N_WAYS };
static const char *const way_names[N_WAYS] = {"sparse read of mapped memory",
                                              "copy, then gather"};

struct stride_result {
    struct stats ms[N_WAYS];
    struct stats ratio; /* reading directly over copying first, in time, rep by rep */
};

/* Both ways of part 3's second half in turns, repetition by repetition, into a poisoned d_a; the
 * last repetition of each is verified. */
static struct stride_result measure_stride(const struct mapped_buffers *m, size_t bytes,
                                           size_t stride, const struct timing *t)
{
    size_t reps = (size_t)t->reps, n_out = bytes / sizeof(float) / stride;
    double *ms = samples_or_exit(N_WAYS * reps), *ratio = samples_or_exit(reps);
    for (int rep = -1; rep < t->reps; rep++) { /* rep -1 warms up */
        for (int k = 0; k < N_WAYS; k++) {
            int way = (k + rep + 1) % N_WAYS;
            /* Before the start event, in the stream the gather runs in: not timed. */
            CUDA_CHECK(cudaMemsetAsync(m->d_a, 0xff, n_out * sizeof(float), t->stream));
            double once = way == DIRECT
                              ? gather_ms(m->src_view, m->d_a, n_out, stride, t)
                              : copy_then_gather_ms(m->h_src, m->d_b, bytes, m->d_a, n_out,
                                                    stride, t);
            if (rep == t->reps - 1) {
                CUDA_CHECK(cudaMemcpy(m->h_dst, m->d_a, n_out * sizeof(float),
                                      cudaMemcpyDeviceToHost));
                expect_gathered(m->h_dst, m->h_src, n_out, stride, way_names[way]);
            }
            if (rep >= 0)
                ms[(size_t)way * reps + (size_t)rep] = once;
        }
    }
    for (size_t rep = 0; rep < reps; rep++)
        ratio[rep] = ms[DIRECT * reps + rep] / ms[COPY_FIRST * reps + rep];
    struct stride_result r = {.ratio = stats_summarize(ratio, reps)};
    for (int way = 0; way < N_WAYS; way++)
        r.ms[way] = stats_summarize(ms + (size_t)way * reps, reps);
    free(ms);
    free(ratio);
    return r;
}

static void exercise_strides(size_t bytes, const struct timing *t)
{
    enum { N_STRIDES = 3 };
    static const size_t strides[N_STRIDES] = {8, SPARSE_STRIDE, 256};
    struct stride_result r[N_STRIDES];
    struct mapped_buffers m = mapped_create(bytes);
    for (int s = 0; s < N_STRIDES; s++)
        r[s] = measure_stride(&m, bytes, strides[s], t);
    mapped_destroy(&m);

    char size_text[32];
    printf("\n2. part 3 using 1 float in 8, %d (the lesson's) and 256 of %s of mapped memory: read "
           "those\n   across PCIe, or copy all, then pick; the two ways in turns, events, median "
           "of %d. Last\n   column: reading's time over copying's, rep by rep: median (range), "
           "~ where the range is\n   over 5%% of it; below 1, reading directly wins\n",
           SPARSE_STRIDE, format_bytes(bytes, size_text, sizeof size_text), t->reps);
    printf("  %6s %22s %22s   %s\n", "stride", "read those across PCIe", "copy all, then pick",
           "read over copy");
    for (int s = 0; s < N_STRIDES; s++) {
        printf("  %6zu %19.3f ms %19.3f ms   ", strides[s], r[s].ms[DIRECT].median,
               r[s].ms[COPY_FIRST].median);
        print_ratio(r[s].ratio);
    }
    printf("  the last repetition of both ways at every stride verified\n\n");
    for (int s = 0; s < N_STRIDES; s++) {
        char key[64], what[96];
        for (int way = 0; way < N_WAYS; way++) {
            snprintf(key, sizeof key, "stride_%zu_%s_ms", strides[s],
                     way == DIRECT ? "read" : "copy_then_pick");
            snprintf(what, sizeof what, "1 float in %zu, %s", strides[s],
                     way == DIRECT ? "read those across PCIe" : "copy all, then pick");
            exercise_record(t->csv, 2, key, what, r[s].ms[way].median, "ms",
                            (struct csv_row){.direction = "H2D", .bytes = bytes, .reps = t->reps,
                                             .ms = r[s].ms[way], .params = "clock=gpu_event"});
        }
        snprintf(key, sizeof key, "stride_%zu_read_over_copy", strides[s]);
        snprintf(what, sizeof what, "1 float in %zu, reading's time over copying's", strides[s]);
        exercise_record(t->csv, 2, key, what, r[s].ratio.median, "x",
                        (struct csv_row){.direction = "H2D", .bytes = bytes, .reps = t->reps,
                                         .ms = r[s].ms[DIRECT], .params = "clock=gpu_event"});
    }
}

/* ------------------------------------------------------------------------------------------ *
 * 3. Part 2 and the copies, pinned against write-combined memory.
 * ------------------------------------------------------------------------------------------ */

enum { CPU_WRITE, CPU_READ, COPY_H2D, COPY_D2H, N_USES };
static const char *const use_names[N_USES] = {"CPU write", "CPU read", "H2D copy", "D2H copy"};
static const char *const use_keys[N_USES] = {"cpu_write", "cpu_read", "h2d_copy", "d2h_copy"};
static const enum memory_kind wc_kinds[2] = {PINNED, WRITE_COMBINED};
static const char *const wc_names[2] = {"pinned", "write-combined"};

struct wc_result {
    size_t bytes[N_USES];
    struct stats ms[2][N_USES]; /* [pinned, write-combined] */
    struct stats ratio[N_USES]; /* write-combined's speed over pinned's, rep by rep */
};

/* ms[(k * 2 + use) * reps + rep] for the two kinds and two uses, in r->ratio[first + use]. */
static void summarize_pairs(double *ms, size_t reps, int first, struct wc_result *r)
{
    double *ratio = samples_or_exit(reps);
    for (int use = 0; use < 2; use++) {
        double *pinned = ms + (size_t)use * reps, *wc = ms + (size_t)(2 + use) * reps;
        for (size_t rep = 0; rep < reps; rep++)
            ratio[rep] = pinned[rep] / wc[rep];
        r->ratio[first + use] = stats_summarize(ratio, reps);
        r->ms[0][first + use] = stats_summarize(pinned, reps);
        r->ms[1][first + use] = stats_summarize(wc, reps);
    }
    free(ratio);
}

/* Part 2's repetitions on `bytes`, the two kinds in turns. Part 2's own 4 MiB can sit in a
 * server CPU's last-level cache, where pinned memory reads at the cache's speed and
 * write-combined memory, never cached, at the memory's: the exercise takes a buffer well above
 * it, so that both come from memory. */
static void measure_cpu_side(size_t bytes, const struct timing *t, struct wc_result *r)
{
    size_t reps = (size_t)t->reps;
    double *ms = samples_or_exit(2 * 2 * reps);
    uint64_t *buffer[2];
    for (int k = 0; k < 2; k++)
        buffer[k] = host_alloc(wc_kinds[k], bytes);
    for (int rep = -1; rep < t->reps; rep++) { /* rep -1 warms up */
        for (int i = 0; i < 2; i++) {
            int k = (i + rep + 1) % 2;
            double write_ms, read_ms;
            cpu_write_read(buffer[k], bytes, rep, wc_kinds[k], &write_ms, &read_ms);
            if (rep >= 0) {
                ms[((size_t)k * 2 + 0) * reps + (size_t)rep] = write_ms;
                ms[((size_t)k * 2 + 1) * reps + (size_t)rep] = read_ms;
            }
        }
    }
    for (int k = 0; k < 2; k++)
        host_free(wc_kinds[k], buffer[k]);
    r->bytes[CPU_WRITE] = r->bytes[CPU_READ] = bytes;
    summarize_pairs(ms, reps, CPU_WRITE, r);
    free(ms);
}

/* Part 1's copies of `bytes`, both kinds in turns. */
static void measure_copy_side(size_t bytes, const struct timing *t, struct wc_result *r)
{
    size_t reps = (size_t)t->reps;
    double *ms = samples_or_exit(2 * N_DIRECTIONS * reps);
    struct device_buffers d = device_buffers_create(bytes);
    void *host[2];
    for (int k = 0; k < 2; k++)
        host[k] = host_holding_reference(wc_kinds[k], bytes, &d);
    copies_in_turns(2, host, wc_kinds, (const size_t[]){bytes, bytes}, &d, t, ms);
    for (int k = 0; k < 2; k++)
        host_free(wc_kinds[k], host[k]);
    device_buffers_destroy(&d);
    r->bytes[COPY_H2D] = r->bytes[COPY_D2H] = bytes;
    summarize_pairs(ms, reps, COPY_H2D, r); /* UP, DOWN follow each other as the uses do */
    free(ms);
}

/* The first line of a file, without its line break; false when there is none. */
static bool first_line(const char *path, char *line, size_t len)
{
    FILE *file = fopen(path, "r");
    bool got = file && fgets(line, (int)len, file);
    if (file)
        fclose(file);
    line[got ? strcspn(line, "\n") : 0] = '\0';
    return *line != '\0';
}

/* Whether this machine says it is a virtual machine, where the host decides how memory is
 * cached and may ignore write-combining; `how` gets what says so. Xen and some other hypervisors
 * name themselves in /sys/hypervisor/type, a virtual machine described by a device tree (Arm)
 * has a hypervisor node, and x86 CPUs set the "hypervisor" flag in /proc/cpuinfo in a virtual
 * machine: only there does a missing sign say no. */
enum vm_verdict { NOT_A_VM, A_VM, CANNOT_TELL };
static enum vm_verdict virtual_machine(char *how, size_t len)
{
    char line[8192];
    if (first_line("/sys/hypervisor/type", line, sizeof line)) {
        snprintf(how, len, "/sys/hypervisor/type: %.64s", line);
        return A_VM;
    }
    if (access("/proc/device-tree/hypervisor", F_OK) == 0) {
        snprintf(how, len, "a hypervisor node in /proc/device-tree");
        return A_VM;
    }
    FILE *cpuinfo = fopen("/proc/cpuinfo", "r");
    bool x86_flags = false, flagged = false;
    while (cpuinfo && !flagged && fgets(line, sizeof line, cpuinfo)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        x86_flags = true;
        const char *flag = strstr(line, " hypervisor");
        flagged = flag && strchr(" \n", flag[11]); /* the whole flag; [11] may be the '\0' */
    }
    if (cpuinfo)
        fclose(cpuinfo);
    if (flagged) {
        snprintf(how, len, "the \"hypervisor\" flag in /proc/cpuinfo");
        return A_VM;
    }
    snprintf(how, len, x86_flags ? "no \"hypervisor\" flag in /proc/cpuinfo, which x86 CPUs set "
                                   "in a virtual machine"
                                 : "no /sys/hypervisor/type, no device-tree hypervisor node, "
                                   "no x86 flags in /proc/cpuinfo");
    return x86_flags ? NOT_A_VM : CANNOT_TELL;
}

static void print_write_combined(const struct wc_result *r, const struct timing *t)
{
    char cpu_text[32], copy_text[32];
    printf("\n3. part 2 on %s (--size; part 2's 4 MiB can sit in a CPU's last-level cache), the "
           "CPU\n   writing and reading it (host clock), and copies of %s over the link (events), "
           "pinned\n   and write-combined memory in turns, median of %d. Last column: "
           "write-combined's speed\n   over pinned's, rep by rep: median (range), ~ where the "
           "range is over 5%% of it; below 1,\n   write-combined is slower\n",
           format_bytes(r->bytes[CPU_READ], cpu_text, sizeof cpu_text),
           format_bytes(r->bytes[COPY_H2D], copy_text, sizeof copy_text), t->reps);
    printf("  %-9s %16s %16s   %s\n", "", wc_names[0], wc_names[1], "write-combined over pinned");
    for (int use = 0; use < N_USES; use++) {
        printf("  %-9s", use_names[use]);
        for (int k = 0; k < 2; k++)
            printf(" %11.2f GB/s", gbps(r->bytes[use], r->ms[k][use].median));
        printf("   ");
        print_ratio(r->ratio[use]);
    }
    printf("  every CPU read checked, and the last repetition of every copy verified on the GPU\n");
    char how[160];
    enum vm_verdict vm = virtual_machine(how, sizeof how);
    if (vm == A_VM)
        printf("  this machine reports a hypervisor (%s): a virtual machine,\n  whose host may "
               "cache write-combined memory like any other; run this outside one\n", how);
    else if (vm == NOT_A_VM)
        printf("  %s\n", how);
    else
        printf("  whether this is a virtual machine: cannot tell on this CPU\n  (%s)\n", how);
    printf("\n");
}

static void exercise_write_combined(size_t bytes, const struct timing *t)
{
    struct wc_result r;
    measure_cpu_side(bytes, t, &r);
    measure_copy_side(bytes, t, &r);
    print_write_combined(&r, t);
    for (int k = 0; k < 2; k++) {
        char key[64], what[96];
        snprintf(key, sizeof key, "%s_cpu_read_gbps", kind_names[wc_kinds[k]]);
        snprintf(what, sizeof what, "the CPU reading %s memory", wc_names[k]);
        double rate = gbps(r.bytes[CPU_READ], r.ms[k][CPU_READ].median);
        exercise_record(t->csv, 3, key, what, rate, "GB/s",
                        (struct csv_row){.bytes = r.bytes[CPU_READ], .reps = t->reps,
                                         .ms = r.ms[k][CPU_READ], .gbps = rate,
                                         .params = "clock=host"});
    }
    for (int use = 0; use < N_USES; use++) {
        char key[64], what[96];
        snprintf(key, sizeof key, "write_combined_over_pinned_%s", use_keys[use]);
        snprintf(what, sizeof what, "%s, write-combined's speed over pinned's", use_names[use]);
        bool copy = use == COPY_H2D || use == COPY_D2H; /* events; the CPU's side, host clock */
        const char *direction = use == COPY_H2D ? "H2D" : use == COPY_D2H ? "D2H" : NULL;
        exercise_record(t->csv, 3, key, what, r.ratio[use].median, "x",
                        (struct csv_row){.direction = direction, .bytes = r.bytes[use],
                                         .reps = t->reps, .ms = r.ms[1][use],
                                         .gbps = gbps(r.bytes[use], r.ms[1][use].median),
                                         .params = copy ? "clock=gpu_event" : "clock=host"});
    }
}

/* ------------------------------------------------------------------------------------------ */

int run_exercise(int n, struct common_args *args, size_t sweep_max, bool gated)
{
    /* Exercise 1 asks for --sweep-max 4G. Each of its samples is one copy of 1 or 4 GiB, long
     * enough to average the link's wander; 3 repetitions of each, in turns, take about as long
     * as allocating, filling and pinning its 4 GiB buffers (seconds), where 10 would triple it. */
    if (n == 1 && !cli_given("--sweep-max"))
        sweep_max = (size_t)4 << 30;
    if (n == 1 && !cli_given("--reps"))
        args->reps = 3;
    /* What each holds at once, per byte of its size: 1, the sweep's three device buffers and one
     * host buffer of a kind; 2, part 3's two mapped host buffers and two device buffers; 3, the
     * sweep's three device buffers and a pinned and a write-combined host buffer. */
    struct sized size = n == 1 ? (struct sized){"--sweep-max", &sweep_max,
                                                cli_given("--sweep-max"), 3, 1}
                               : (struct sized){"--size", &args->size, cli_given("--size"),
                                                n == 2 ? 2 : 3, 2};
    struct gpu_info gpu;
    struct csv csv;
    int rc = lesson_open("04_pinned_memory", args, &size, 1, &gpu, &csv);
    if (rc)
        return rc;
    exercise_begin(&csv, n, N_EXERCISES, asks[n - 1]);
    struct timing t = timing_create(args->reps, gated, &csv);
    if (n == 1)
        exercise_sweep_max(sweep_max, args->device, &t);
    else if (n == 2)
        exercise_strides(args->size, &t);
    else
        exercise_write_combined(args->size, &t);
    timing_destroy(&t);
    if (lesson_close(&csv))
        return EXIT_ERROR;
    printf("\nverified: %s\n", verified[n - 1]);
    return EXIT_VERIFIED;
}
