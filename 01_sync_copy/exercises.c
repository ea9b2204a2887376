/*
 * exercises.c - README.md's exercises, run by `--exercise N` in place of the lesson. Each runs the
 * lesson's own functions (main.c), with the change it asks for, and ends with the figures its
 * answer quotes, each beside the shipped reference's (exercise_answer(), common/exercise.c).
 *
 *   1  part 1 at --size / 16, --size and --size x 16: the copies' share of the time
 *   2  part 1 without the cudaDeviceSynchronize after the launch, beside the lesson's part 1
 *   3  part 2's sweep twice on idle CPUs, then once while threads keep every CPU busy
 */
#define _GNU_SOURCE /* sched_getaffinity(): the CPUs this process may run on */

#include "common.h"
#include "sync_copy.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

enum { SIZE_FACTOR = 16 }; /* exercise 1: --size divided and multiplied by it */
/* Exercise 3's sweep where --sweep-max is not given: sizes past a time slice, in a few seconds. */
#define EXERCISE_SWEEP_MAX ((size_t)64 << 20)

/* An answer's figure; the end of the program when the CSV cannot be written (csv_record's rule). */
static void answer(struct csv *csv, int n, const char *key, const char *what, double value,
                   const char *unit, struct csv_row measured)
{
    if (exercise_answer(csv, n, key, what, value, unit, measured))
        exit(EXIT_ERROR);
}

/* The lesson's functions print their tables as usual but write their rows here, where they go
 * nowhere: the plots read every CSV in a results folder, the exercises' too, and would take an
 * exercise's changed runs for the lesson's measurements. Only the answers reach the CSV. */
static struct csv tables_only(const struct csv *csv)
{
    return (struct csv){.lesson = csv->lesson, .gpu = csv->gpu};
}

/* The median, min and max over the repetitions of one figure of each. */
static struct stats over_reps(const struct phase_times *times, int reps,
                              double (*figure)(const struct phase_times *))
{
    double *samples = samples_or_exit((size_t)reps);
    for (int rep = 0; rep < reps; rep++)
        samples[rep] = figure(&times[rep]);
    struct stats each = stats_summarize(samples, (size_t)reps);
    free(samples);
    return each;
}

/* ------------------------------------------------------------------------------------------ *
 * Exercise 1: does the copies' share of the time change with the size?
 * ------------------------------------------------------------------------------------------ */

static double gpu_total(const struct phase_times *t) { return t->gpu_ms[PHASE_TOTAL]; }
static double host_total(const struct phase_times *t) { return t->host_ms[PHASE_TOTAL]; }

static double gpu_copy_share(const struct phase_times *t)
{
    return 100 * (t->gpu_ms[PHASE_H2D] + t->gpu_ms[PHASE_D2H]) / t->gpu_ms[PHASE_TOTAL];
}

static double host_copy_share(const struct phase_times *t)
{
    return 100 * (t->host_ms[PHASE_H2D] + t->host_ms[PHASE_D2H]) / t->host_ms[PHASE_TOTAL];
}

static void copy_shares(const struct common_args *args, const struct gpu_info *gpu,
                        struct csv *csv)
{
    enum { SIZES = 3 };
    static const char *const names[SIZES] = {"small", "medium", "large"};
    size_t smallest = args->size / SIZE_FACTOR / sizeof(float) * sizeof(float);
    const size_t bytes[SIZES] = {smallest ? smallest : sizeof(float), args->size,
                                 args->size * SIZE_FACTOR};
    /* A repetition of the largest size takes SIZE_FACTOR times as long: a fifth of them there. */
    const int reps[SIZES] = {args->reps, args->reps, (args->reps + 4) / 5};
    struct csv tables = tables_only(csv);
    struct stats share[SIZES][2], total[SIZES][2];
    for (int i = 0; i < SIZES; i++) {
        struct phase_times *times = vector_add_sync(bytes[i], reps[i], true, gpu, &tables);
        share[i][0] = over_reps(times, reps[i], gpu_copy_share);
        share[i][1] = over_reps(times, reps[i], host_copy_share);
        total[i][0] = over_reps(times, reps[i], gpu_total);
        total[i][1] = over_reps(times, reps[i], host_total);
        free(times);
    }

    printf("\nThe copies' share of part 1, (H2D + D2H) / total, repetition by repetition: "
           "median [min-max]\n  %10s %5s %28s %28s\n", "per vector", "reps",
           "of the GPU time (events)", "of the CPU blocked time");
    char size_text[SIZES][32];
    for (int i = 0; i < SIZES; i++) {
        format_bytes(bytes[i], size_text[i], sizeof size_text[i]);
        printf("  %10s %5d %9.2f%% [%6.2f-%6.2f%%] %9.2f%% [%6.2f-%6.2f%%]\n", size_text[i],
               reps[i], share[i][0].median, share[i][0].min, share[i][0].max, share[i][1].median,
               share[i][1].min, share[i][1].max);
    }
    printf("\n");
    static const char *const clocks[2][2] = {{"gpu", "GPU time (events)"},
                                             {"cpu", "CPU blocked time (host clock)"}};
    for (int clock = 0; clock < 2; clock++)
        for (int i = 0; i < SIZES; i++) {
            char key[64], what[128];
            snprintf(key, sizeof key, "copy_share_%s_%s", clocks[clock][0], names[i]);
            snprintf(what, sizeof what, "the copies' share of the %s at %s per vector",
                     clocks[clock][1], size_text[i]);
            answer(csv, 1, key, what, share[i][clock].median, "%",
                   (struct csv_row){.bytes = 3 * bytes[i], .reps = reps[i],
                                    .ms = total[i][clock]});
        }
}

/* ------------------------------------------------------------------------------------------ *
 * Exercise 2: no cudaDeviceSynchronize after the launch.
 * ------------------------------------------------------------------------------------------ */

static double kernel_blocked(const struct phase_times *t) { return t->host_ms[PHASE_KERNEL]; }
static double kernel_on_gpu(const struct phase_times *t) { return t->gpu_ms[PHASE_KERNEL]; }
static double d2h_blocked(const struct phase_times *t) { return t->host_ms[PHASE_D2H]; }

/* How long the D2H call held the CPU before its copy began: its time on the host clock less the
 * copy's on the GPU. */
static double d2h_wait(const struct phase_times *t)
{
    return t->host_ms[PHASE_D2H] - t->gpu_ms[PHASE_D2H];
}

static void no_wait_for_kernel(const struct common_args *args, const struct gpu_info *gpu,
                               struct csv *csv)
{
    const int reps = args->reps;
    const size_t bytes = args->size;
    struct csv tables = tables_only(csv);
    printf("First part 1 as the lesson runs it, with cudaDeviceSynchronize() after the launch:\n");
    struct phase_times *run[2] = {vector_add_sync(bytes, reps, true, gpu, &tables)};
    printf("\nThen part 1 with that cudaDeviceSynchronize() deleted; every repetition's c is "
           "still verified:\n");
    run[1] = vector_add_sync(bytes, reps, false, gpu, &tables);

    struct stats kernel[2], d2h[2], wait[2];
    for (int i = 0; i < 2; i++) {
        kernel[i] = over_reps(run[i], reps, kernel_blocked);
        d2h[i] = over_reps(run[i], reps, d2h_blocked);
        wait[i] = over_reps(run[i], reps, d2h_wait);
    }
    struct stats kernel_gpu = over_reps(run[1], reps, kernel_on_gpu);
    printf("\nCPU blocked, median of %d (ms)%*s %12s\n", reps, 30, "synchronize", "deleted");
    const struct {
        const char *key, *label, *what, *direction;
        const struct stats *figure, *measured; /* with the synchronize, without */
        size_t bytes;
    } rows[] = {
        {"kernel_blocked_ms", "kernel phase (the launch, and any wait)",
         "the kernel phase's CPU blocked time", NULL, kernel, kernel, 3 * bytes},
        {"d2h_blocked_ms", "d2h phase (the cudaMemcpy)", "the d2h phase's CPU blocked time", "D2H",
         d2h, d2h, bytes},
        {"d2h_wait_ms", "  of it, before its copy (- d2h GPU ms)",
         "the D2H call's wait before its copy (CPU blocked - GPU ms)", "D2H", wait, d2h, bytes},
    };
    enum { ROWS = sizeof rows / sizeof rows[0] };
    for (int r = 0; r < ROWS; r++)
        printf("  %-44s %12.4f %12.4f\n", rows[r].label, rows[r].figure[0].median,
               rows[r].figure[1].median);
    printf("the kernel phase on the GPU (events), synchronize deleted: %.4f ms\n\n",
           kernel_gpu.median);

    static const char *const how[2] = {"sync", "nosync"},
                             *const how_text[2] = {"with the synchronize", "without it"};
    for (int r = 0; r < ROWS; r++)
        for (int i = 0; i < 2; i++) {
            char key[64], what[128];
            snprintf(key, sizeof key, "%s_%s", rows[r].key, how[i]);
            snprintf(what, sizeof what, "%s, %s", rows[r].what, how_text[i]);
            answer(csv, 2, key, what, rows[r].figure[i].median, "ms",
                   (struct csv_row){.direction = rows[r].direction, .bytes = rows[r].bytes,
                                    .reps = reps, .ms = rows[r].measured[i]});
        }
    answer(csv, 2, "kernel_gpu_ms_nosync", "the kernel phase on the GPU (events), without it",
           kernel_gpu.median, "ms",
           (struct csv_row){.bytes = 3 * bytes, .reps = reps, .ms = kernel_gpu});
    /* vector_add_sync() ends the program at the first wrong element: reaching here, all held. */
    char what[96];
    snprintf(what, sizeof what, "c verified without the synchronize, of %d repetitions", reps);
    answer(csv, 2, "verified_nosync", what, reps, "repetitions",
           (struct csv_row){.bytes = 3 * bytes, .reps = reps,
                            .ms = over_reps(run[1], reps, host_total)});
    free(run[0]);
    free(run[1]);
}

/* ------------------------------------------------------------------------------------------ *
 * Exercise 3: the sweep while every CPU is busy.
 * ------------------------------------------------------------------------------------------ */

/* Another program's `make -j` of a large project, in this one: it runs more jobs than there are
 * CPUs, here LOAD_PER_CPU spinning threads per CPU. They touch no memory, so all they take from a
 * copy is CPU time. (With one per CPU, the scheduler shares the CPUs out among all the busy
 * threads, this program's one included, and a copy loses little.) */
enum { LOAD_PER_CPU = 4 };
struct cpu_load {
    pthread_t *threads;
    int count;
    atomic_bool stop;
};

static void *spin(void *stop)
{
    while (!atomic_load_explicit((atomic_bool *)stop, memory_order_relaxed))
        ;
    return NULL;
}

/* The CPUs this process may run on: a container or taskset may allow fewer than are online. */
static int usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

static void load_start(struct cpu_load *load, int count)
{
    load->threads = malloc_or_exit((size_t)count * sizeof *load->threads);
    load->count = 0;
    atomic_init(&load->stop, false);
    for (; load->count < count; load->count++) {
        int err = pthread_create(&load->threads[load->count], NULL, spin, &load->stop);
        if (err) {
            fprintf(stderr, "%s: starting spinning thread %d of %d failed (error %d)\n",
                    program_name, load->count + 1, count, err);
            exit(EXIT_ERROR);
        }
    }
}

static void load_stop(struct cpu_load *load)
{
    atomic_store(&load->stop, true);
    for (int i = 0; i < load->count; i++)
        pthread_join(load->threads[i], NULL);
    free(load->threads);
}

enum { SWEEPS = 3, LOADED = SWEEPS - 1 }; /* two on idle CPUs, then the loaded one */

/* One figure of the three sweeps in one direction: the loaded sweep's over the mean of the idle
 * two's, and with each_sweep, each sweep's too. */
static void sweep_answers(struct csv *csv, const char *key, const char *what,
                          const char *direction, int reps, const struct sweep_point point[SWEEPS],
                          bool each_sweep)
{
    static const char *const runs[SWEEPS] = {"idle1", "idle2", "loaded"};
    char name[64], text[160];
    for (int i = 0; i < SWEEPS && each_sweep; i++) {
        snprintf(name, sizeof name, "%s_gbps_%s", key, runs[i]);
        snprintf(text, sizeof text, "%s, sweep %d (%s)", what, i + 1,
                 i == LOADED ? "every CPU busy" : "CPUs idle");
        answer(csv, 3, name, text, point[i].gbps, "GB/s",
               (struct csv_row){.direction = direction, .bytes = point[i].bytes, .reps = reps,
                                .ms = point[i].ms, .gbps = point[i].gbps});
    }
    snprintf(name, sizeof name, "%s_loaded_over_idle", key);
    snprintf(text, sizeof text, "%s, the loaded sweep's over the idle two's mean", what);
    answer(csv, 3, name, text, point[LOADED].gbps / ((point[0].gbps + point[1].gbps) / 2), "x",
           (struct csv_row){.direction = direction, .bytes = point[LOADED].bytes, .reps = reps,
                            .ms = point[LOADED].ms, .gbps = point[LOADED].gbps});
}

static void sweeps_under_load(const struct common_args *args, size_t sweep_max, struct csv *csv)
{
    struct csv tables = tables_only(csv);
    struct sweep_summary sweep[SWEEPS];
    for (int run = 0; run < LOADED; run++) {
        printf("%sSweep %d of %d, the CPUs otherwise idle:\n", run ? "\n" : "", run + 1, SWEEPS);
        sweep[run] = pageable_sweep(sweep_max, args->reps, &tables);
    }
    struct cpu_load load;
    int cpus = usable_cpus();
    load_start(&load, LOAD_PER_CPU * cpus);
    printf("\nSweep %d of %d, while %d threads spin, %d for each of the %d CPUs this process may "
           "run on:\n", SWEEPS, SWEEPS, load.count, LOAD_PER_CPU, cpus);
    sweep[LOADED] = pageable_sweep(sweep_max, args->reps, &tables);
    load_stop(&load);

    printf("\n");
    static const char *const way[2] = {"h2d", "d2h"}, *const way_text[2] = {"H2D", "D2H"};
    for (int w = 0; w < 2; w++) {
        struct sweep_point largest[SWEEPS], fastest[SWEEPS];
        for (int i = 0; i < SWEEPS; i++) {
            largest[i] = sweep[i].largest[w];
            fastest[i] = sweep[i].fastest[w];
        }
        char key[32], what[96], size_text[32];
        snprintf(key, sizeof key, "%s_largest", way[w]);
        snprintf(what, sizeof what, "%s at the largest size, %s", way_text[w],
                 format_bytes(largest[0].bytes, size_text, sizeof size_text));
        sweep_answers(csv, key, what, way_text[w], args->reps, largest, true);
        snprintf(key, sizeof key, "%s_best", way[w]);
        snprintf(what, sizeof what, "%s at each sweep's fastest size", way_text[w]);
        sweep_answers(csv, key, what, way_text[w], args->reps, fastest, false);
    }
}

/* ------------------------------------------------------------------------------------------ */

int run_exercise(int n, struct common_args *args, size_t sweep_max)
{
    static const char *const asks[EXERCISES] = {
        "part 1 at --size / 16, --size and --size x 16: does the copies' share of the time change?",
        "part 1 without the cudaDeviceSynchronize() after the launch: which phase waits instead?",
        "the sweep twice, then once while every CPU is busy: which numbers move?",
    };
    exercise_begin(n, EXERCISES, asks[n - 1]);
    /* What each holds at once: three vectors a side (exercise 1: of its largest size), or the
     * sweep's buffer on the GPU and two on the host. */
    struct sized part1 = {"--size", &args->size, cli_given("--size"), 3, 3};
    if (n == 1)
        part1.on_gpu = part1.on_host = 3 * SIZE_FACTOR;
    if (n == 3 && !cli_given("--sweep-max"))
        sweep_max = EXERCISE_SWEEP_MAX;
    struct sized sweep = {"--sweep-max", &sweep_max, cli_given("--sweep-max"), 1, 2};
    struct gpu_info gpu;
    struct csv csv;
    int rc = lesson_open(LESSON, args, n == 3 ? &sweep : &part1, 1, &gpu, &csv);
    if (rc)
        return rc;
    if (n == 1)
        copy_shares(args, &gpu, &csv);
    else if (n == 2)
        no_wait_for_kernel(args, &gpu, &csv);
    else
        sweeps_under_load(args, sweep_max, &csv);
    return lesson_close(&csv) ? EXIT_ERROR : EXIT_VERIFIED;
}
