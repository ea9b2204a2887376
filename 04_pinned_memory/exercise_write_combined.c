/*
 * exercise_write_combined.c - lesson 04's exercise 3 (README.md): the CPU writing and reading
 * a buffer of --size, pinned against write-combined memory, and their copies over the link; and
 * whether this machine is a virtual machine, whose host decides how memory is cached.
 */
#include "exercises.h"

#include <string.h>
#include <unistd.h>

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

/* The cpu-access part's repetitions on `bytes`, the two kinds in turns. Its own 4 MiB can sit
 * in a server CPU's last-level cache, where pinned memory reads at the cache's speed and
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

/* The sweep's copies of `bytes`, both kinds in turns. */
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
    printf("\n3. --deep cpu-access on %s (--size; its own 4 MiB can sit in a CPU's last-level "
           "cache),\n   the CPU writing and reading it (host clock), and copies of %s over the "
           "link (events),\n   pinned and write-combined memory in turns, median of %d. Last "
           "column: write-combined's\n   speed over pinned's, rep by rep: median (range), ~ "
           "where the range is over 5%% of it;\n   below 1, write-combined is slower\n",
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

void exercise_write_combined(size_t bytes, const struct timing *t)
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
