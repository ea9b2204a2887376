/*
 * exercises.c - README.md's exercises, run by `--exercise N` in place of the lesson. Each runs the
 * lesson's own functions (main.c), with the change it asks for, and ends with the figures its
 * answer quotes, each beside the shipped reference's (exercise_record(), common/exercise.c).
 *
 *   1  part 1 at --size / 16, --size and --size x 16: the copies' share of the time
 *   2  part 1 with and without the cudaDeviceSynchronize after the launch, in turns
 *   3  the sweep's copies, pageable and pinned, on idle CPUs and with every CPU busy, in turns
 */
#include "common.h"
#include "sync_copy.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

enum { SIZE_FACTOR = 16 }; /* exercise 1: --size divided and multiplied by it */
/* Exercise 3's sweep where --sweep-max is not given: sizes past a time slice, in a few seconds. */
#define EXERCISE_SWEEP_MAX ((size_t)64 << 20)

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
    enum { SIZES = 3, LEAST_REPS = 3 };
    static const char *const names[SIZES] = {"small", "medium", "large"};
    size_t smallest = args->size / SIZE_FACTOR / sizeof(float) * sizeof(float);
    const size_t bytes[SIZES] = {smallest ? smallest : sizeof(float), args->size,
                                 args->size * SIZE_FACTOR};
    /* A repetition of the largest size copies SIZE_FACTOR times --size's bytes, and its copies
     * last long enough (hundreds of ms at 1 GiB) to average the link's wander out within each:
     * --reps / SIZE_FACTOR repetitions there copy as many bytes as --reps do at --size, and at
     * least LEAST_REPS (where --reps allows) still give a median and a spread. */
    int large_reps = (args->reps + SIZE_FACTOR - 1) / SIZE_FACTOR;
    if (large_reps < LEAST_REPS)
        large_reps = args->reps < LEAST_REPS ? args->reps : LEAST_REPS;
    const int reps[SIZES] = {args->reps, args->reps, large_reps};
    struct stats share[SIZES][2], total[SIZES][2];
    for (int i = 0; i < SIZES; i++) {
        struct phase_times *times = vector_add_sync(bytes[i], reps[i], gpu, csv);
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
    static const char *const clocks[2][3] = {
        {"gpu", "GPU time (events)", "clock=gpu_event"},
        {"cpu", "CPU blocked time (host clock)", "clock=host"},
    };
    for (int clock = 0; clock < 2; clock++)
        for (int i = 0; i < SIZES; i++) {
            char key[64], what[128];
            snprintf(key, sizeof key, "copy_share_%s_%s", clocks[clock][0], names[i]);
            snprintf(what, sizeof what, "the copies' share of the %s at %s per vector",
                     clocks[clock][1], size_text[i]);
            exercise_record(csv, 1, key, what, share[i][clock].median, "%",
                            (struct csv_row){.bytes = 3 * bytes[i], .reps = reps[i],
                                             .ms = total[i][clock], .params = clocks[clock][2]});
        }
}

/* ------------------------------------------------------------------------------------------ *
 * Exercise 2: no cudaDeviceSynchronize after the launch.
 * ------------------------------------------------------------------------------------------ */

enum { WITH_SYNC, WITHOUT_SYNC, N_WAYS };

/* Part 1's repetitions with the synchronize and without it, in turns (which goes first alternates),
 * one untimed round of each first: the link's rate wanders over seconds, and each repetition's
 * pair sees the same. c is verified in every one (one_repetition()). */
static void repetitions_in_turns(size_t bytes, int reps, struct phase_times *times[N_WAYS])
{
    struct vectors v = vectors_alloc(bytes / sizeof(float));
    cudaEvent_t mark[N_PHASES];
    for (int i = 0; i < N_PHASES; i++)
        CUDA_CHECK(cudaEventCreate(&mark[i]));
    for (int rep = -1; rep < reps; rep++)
        for (int turn = 0; turn < N_WAYS; turn++) {
            int way = (rep & 1) ? N_WAYS - 1 - turn : turn;
            struct phase_times t = one_repetition(&v, mark, way == WITH_SYNC);
            if (rep >= 0)
                times[way][rep] = t;
        }
    for (int i = 0; i < N_PHASES; i++)
        CUDA_CHECK(cudaEventDestroy(mark[i]));
    vectors_free(&v);
}

/* One phase's CPU blocked time each way, and taken repetition by repetition, without less with. */
struct phase_change {
    struct stats way[N_WAYS], change;
};

static struct phase_change phase_change(struct phase_times *times[N_WAYS], int reps, int phase)
{
    struct phase_change c;
    double *samples = samples_or_exit((size_t)reps);
    for (int w = 0; w < N_WAYS; w++) {
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = times[w][rep].host_ms[phase];
        c.way[w] = stats_summarize(samples, (size_t)reps);
    }
    for (int rep = 0; rep < reps; rep++)
        samples[rep] = times[WITHOUT_SYNC][rep].host_ms[phase] -
                       times[WITH_SYNC][rep].host_ms[phase];
    c.change = stats_summarize(samples, (size_t)reps);
    free(samples);
    return c;
}

/* Without the synchronize, the event that ends the kernel phase is recorded just before the D2H
 * call, so the GPU's D2H interval runs from the kernel's end to the copy's, and the call's
 * interval on the host from the call to its return: the call held the CPU this much longer, the
 * time it waited for the kernel. (With the synchronize, that event is stamped before the
 * synchronize returns, before the call: there the two intervals do not start together.) */
static double d2h_wait_for_kernel(const struct phase_times *t)
{
    return t->host_ms[PHASE_D2H] - t->gpu_ms[PHASE_D2H];
}

static double kernel_on_gpu(const struct phase_times *t) { return t->gpu_ms[PHASE_KERNEL]; }

static void no_wait_for_kernel(const struct common_args *args, struct csv *csv)
{
    const int reps = args->reps;
    const size_t bytes = args->size;
    struct phase_times *times[N_WAYS] = {malloc_or_exit((size_t)reps * sizeof(struct phase_times)),
                                         malloc_or_exit((size_t)reps * sizeof(struct phase_times))};
    repetitions_in_turns(bytes, reps, times);
    const struct phase_change kernel = phase_change(times, reps, PHASE_KERNEL),
                              d2h = phase_change(times, reps, PHASE_D2H),
                              total = phase_change(times, reps, PHASE_TOTAL);
    struct stats wait = over_reps(times[WITHOUT_SYNC], reps, d2h_wait_for_kernel),
                 kernel_gpu = over_reps(times[WITHOUT_SYNC], reps, kernel_on_gpu);

    char size_text[32];
    printf("\nPart 1 (%s per vector) with the cudaDeviceSynchronize() after the launch and without "
           "it,\nin turns, %d repetitions of each. CPU blocked (host clock), ms: median; and "
           "without less\nwith, repetition by repetition: median [min-max]\n",
           format_bytes(bytes, size_text, sizeof size_text), reps);
    printf("  %-30s %9s %9s %s\n", "phase", "with it", "without", "without - with");
    const struct {
        const char *label;
        const struct phase_change *c;
    } rows[] = {{"kernel (the launch, any wait)", &kernel}, {"d2h (the cudaMemcpy)", &d2h},
                {"total", &total}};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        printf("  %-30s %9.4f %9.4f %9.4f [%8.4f to %8.4f]\n", rows[r].label,
               rows[r].c->way[WITH_SYNC].median, rows[r].c->way[WITHOUT_SYNC].median,
               rows[r].c->change.median, rows[r].c->change.min, rows[r].c->change.max);
    printf("Without it: the kernel phase on the GPU (events) %.4f ms [%.4f-%.4f]; the D2H call's "
           "wait\nfor the kernel, its CPU blocked time less its GPU time from the kernel's end: "
           "%.4f ms [%.4f to %.4f]\n\n", kernel_gpu.median, kernel_gpu.min, kernel_gpu.max,
           wait.median, wait.min, wait.max);

    const struct csv_row kernel_run = {.bytes = 3 * bytes, .reps = reps,
                                       .ms = kernel.way[WITHOUT_SYNC], .params = "clock=host"};
    const struct csv_row d2h_run = {.direction = "D2H", .bytes = bytes, .reps = reps,
                                    .ms = d2h.way[WITHOUT_SYNC], .params = "clock=host"};
    exercise_record(csv, 2, "kernel_blocked_change_ms", "the kernel phase's CPU blocked time, "
                    "without the synchronize less with it", kernel.change.median, "ms",
                    kernel_run);
    exercise_record(csv, 2, "d2h_blocked_change_ms", "the D2H phase's CPU blocked time, without "
                    "the synchronize less with it", d2h.change.median, "ms", d2h_run);
    struct csv_row wait_run = d2h_run;
    wait_run.params = "clock=host;minus=gpu_event";
    exercise_record(csv, 2, "d2h_wait_for_kernel_ms", "without the synchronize, the D2H call's "
                    "wait for the kernel", wait.median, "ms", wait_run);
    exercise_record(csv, 2, "kernel_gpu_ms", "without the synchronize, the kernel phase on the GPU "
                    "(events)", kernel_gpu.median, "ms",
                    (struct csv_row){.bytes = 3 * bytes, .reps = reps, .ms = kernel_gpu,
                                     .params = "clock=gpu_event"});
    free(times[WITH_SYNC]);
    free(times[WITHOUT_SYNC]);
}

/* ------------------------------------------------------------------------------------------ *
 * Exercise 3: the sweep's copies while every CPU is busy.
 * ------------------------------------------------------------------------------------------ */

/* Another program's `make -j` of a large project, in this one: LOAD_PER_CPU threads per CPU that
 * spin, touching no memory, so all they take from a copy is CPU time. More than one per CPU, as
 * `make -j` runs more jobs than there are CPUs: the scheduler then gives the copy's thread about
 * 1 / (LOAD_PER_CPU + 1) of a CPU. With one per CPU it gets half, and a copy shorter than a time
 * slice (a few ms) finishes inside the one it starts in: the copies hardly slowed. The threads
 * start once and sleep until asked to spin, so that idle and busy can take turns. */
enum { LOAD_PER_CPU = 4 };
struct cpu_load {
    pthread_t *threads;
    int count;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_bool spin;    /* what the threads are asked to do: spin, or sleep on `wake` */
    atomic_int spinning; /* how many of them spin now */
    bool quit;           /* under `lock` */
};

static void *spinner(void *arg)
{
    struct cpu_load *load = arg;
    pthread_mutex_lock(&load->lock);
    while (!load->quit) {
        if (!atomic_load(&load->spin)) {
            pthread_cond_wait(&load->wake, &load->lock);
            continue;
        }
        pthread_mutex_unlock(&load->lock);
        atomic_fetch_add(&load->spinning, 1);
        while (atomic_load_explicit(&load->spin, memory_order_relaxed))
            ;
        atomic_fetch_sub(&load->spinning, 1);
        pthread_mutex_lock(&load->lock);
    }
    pthread_mutex_unlock(&load->lock);
    return NULL;
}

/* Sets the threads spinning or asleep, and returns once every one of them does. The calling
 * thread waits busy, not asleep: a thread that wakes from sleeping gets ahead of the spinning
 * ones for a while, and the copies timed next would not pay their share. */
static void load_set(struct cpu_load *load, bool spin)
{
    pthread_mutex_lock(&load->lock);
    atomic_store(&load->spin, spin);
    pthread_cond_broadcast(&load->wake);
    pthread_mutex_unlock(&load->lock);
    const int want = spin ? load->count : 0;
    while (atomic_load(&load->spinning) != want)
        ;
}

static void load_start(struct cpu_load *load, int count)
{
    load->threads = malloc_or_exit((size_t)count * sizeof *load->threads);
    load->count = 0;
    load->quit = false;
    atomic_init(&load->spin, false);
    atomic_init(&load->spinning, 0);
    pthread_mutex_init(&load->lock, NULL);
    pthread_cond_init(&load->wake, NULL);
    for (; load->count < count; load->count++) {
        int err = pthread_create(&load->threads[load->count], NULL, spinner, load);
        if (err) {
            fprintf(stderr, "%s: starting spinning thread %d of %d failed (error %d)\n",
                    program_name, load->count + 1, count, err);
            exit(EXIT_ERROR);
        }
    }
}

static void load_stop(struct cpu_load *load)
{
    pthread_mutex_lock(&load->lock);
    load->quit = true;
    atomic_store(&load->spin, false);
    pthread_cond_broadcast(&load->wake);
    pthread_mutex_unlock(&load->lock);
    for (int i = 0; i < load->count; i++)
        pthread_join(load->threads[i], NULL);
    pthread_cond_destroy(&load->wake);
    pthread_mutex_destroy(&load->lock);
    free(load->threads);
}

/* The copies each state times: part 2's pageable ones, and as the control, the same from pinned
 * memory, a DMA the CPU only starts and waits for. If those slow down as much, what a busy CPU
 * costs a copy is the timing thread's turn on a CPU, not the staging work it does. */
enum { PAGEABLE, PINNED, N_MEMORIES };
enum { TO_DEVICE, TO_HOST, N_DIRECTIONS };
enum { IDLE, LOADED, N_STATES };
enum { N_COPIES = N_MEMORIES * N_DIRECTIONS, MAX_SIZES = 32 };
static const char *const memory_names[N_MEMORIES] = {"pageable", "pinned"};
static const char *const direction_names[N_DIRECTIONS] = {"H2D", "D2H"};

struct copy_buffers {
    void *src[N_MEMORIES], *dst[N_MEMORIES]; /* on the host, of each memory */
    void *device;
};

/* One size's figures of one copy: its time on idle CPUs, with every CPU busy, and taken
 * repetition by repetition, the busy time over the idle. */
struct under_load {
    struct stats idle, loaded, ratio;
};

/* Each copy of `bytes` once, timed as part 2 times it: H2D then D2H of each memory. */
static void time_each_copy(const struct copy_buffers *b, size_t bytes, double ms[N_COPIES])
{
    for (int m = 0; m < N_MEMORIES; m++) {
        ms[m * N_DIRECTIONS + TO_DEVICE] =
            time_copy(b->device, b->src[m], bytes, cudaMemcpyHostToDevice);
        ms[m * N_DIRECTIONS + TO_HOST] =
            time_copy(b->dst[m], b->device, bytes, cudaMemcpyDeviceToHost);
    }
}

/* One size, idle and busy in turns (which goes first alternates), one untimed round first; then
 * each memory's round trip checked. */
static void one_size_in_turns(const struct copy_buffers *b, size_t bytes, int reps,
                              struct cpu_load *load, struct under_load out[N_COPIES])
{
    double *ms = samples_or_exit((size_t)N_STATES * N_COPIES * (size_t)reps), round[N_COPIES];
    for (int m = 0; m < N_MEMORIES; m++)
        memset(b->dst[m], 0xff, bytes);
    load_set(load, false);
    time_each_copy(b, bytes, round);
    for (int rep = 0; rep < reps; rep++)
        for (int turn = 0; turn < N_STATES; turn++) {
            int state = (rep & 1) ? N_STATES - 1 - turn : turn;
            load_set(load, state == LOADED);
            time_each_copy(b, bytes, round);
            for (int c = 0; c < N_COPIES; c++)
                ms[((size_t)state * N_COPIES + (size_t)c) * (size_t)reps + (size_t)rep] = round[c];
        }
    load_set(load, false);
    for (int m = 0; m < N_MEMORIES; m++)
        if (memcmp(b->src[m], b->dst[m], bytes) != 0) {
            fprintf(stderr, "%s: the %zu bytes copied to the GPU and back from %s memory differ\n",
                    program_name, bytes, memory_names[m]);
            exit(EXIT_ERROR);
        }
    double *ratio = samples_or_exit((size_t)reps);
    for (int c = 0; c < N_COPIES; c++) {
        double *idle = ms + (size_t)c * (size_t)reps;
        double *loaded = ms + ((size_t)N_COPIES + (size_t)c) * (size_t)reps;
        for (int rep = 0; rep < reps; rep++)
            ratio[rep] = loaded[rep] / idle[rep];
        out[c] = (struct under_load){.ratio = stats_summarize(ratio, (size_t)reps),
                                     .idle = stats_summarize(idle, (size_t)reps),
                                     .loaded = stats_summarize(loaded, (size_t)reps)};
    }
    free(ratio);
    free(ms);
}

static void print_under_load(const size_t *bytes, int n_sizes, int reps,
                             struct under_load (*figures)[N_COPIES])
{
    printf("\nEach copy on idle CPUs, host clock from the call until the copy is done, median of "
           "%d (ms)\n  %10s", reps, "size");
    for (int c = 0; c < N_COPIES; c++)
        printf(" %8s %3s", memory_names[c / N_DIRECTIONS], direction_names[c % N_DIRECTIONS]);
    printf("\n");
    char size_text[32];
    for (int s = 0; s < n_sizes; s++) {
        printf("  %10s", format_bytes(bytes[s], size_text, sizeof size_text));
        for (int c = 0; c < N_COPIES; c++)
            printf(" %12.4f", figures[s][c].idle.median);
        printf("\n");
    }
    printf("\nEach copy's time with every CPU busy over its time on idle CPUs, repetition by "
           "repetition:\nmedian [min-max] of %d\n  %10s", reps, "size");
    for (int c = 0; c < N_COPIES; c++)
        printf(" %15s %3s", memory_names[c / N_DIRECTIONS], direction_names[c % N_DIRECTIONS]);
    printf("\n");
    for (int s = 0; s < n_sizes; s++) {
        printf("  %10s", format_bytes(bytes[s], size_text, sizeof size_text));
        for (int c = 0; c < N_COPIES; c++)
            printf(" %5.2f [%5.2f-%5.2f]", figures[s][c].ratio.median, figures[s][c].ratio.min,
                   figures[s][c].ratio.max);
        printf("\n");
    }
    printf("\n");
}

static void copies_under_load(const struct common_args *args, size_t sweep_max, struct csv *csv)
{
    struct copy_buffers b;
    for (int m = 0; m < N_MEMORIES; m++) {
        if (m == PINNED) {
            CUDA_CHECK(cudaMallocHost(&b.src[m], sweep_max));
            CUDA_CHECK(cudaMallocHost(&b.dst[m], sweep_max));
        } else {
            b.src[m] = malloc_or_exit(sweep_max);
            b.dst[m] = malloc_or_exit(sweep_max);
        }
        fill_random(b.src[m], sweep_max / sizeof(float), 3 + (unsigned long long)m);
    }
    CUDA_CHECK(cudaMalloc(&b.device, sweep_max));
    struct cpu_load load;
    int cpus = host_cpus();
    load_start(&load, LOAD_PER_CPU * cpus);
    printf("Busy: %d threads spin, %d for each of the %d CPUs this process may run on.\n",
           load.count, LOAD_PER_CPU, cpus);

    size_t bytes[MAX_SIZES];
    struct under_load figures[MAX_SIZES][N_COPIES];
    int n_sizes = 0;
    for (size_t size = SWEEP_MIN_BYTES; size <= sweep_max && n_sizes < MAX_SIZES;
         size = sweep_next_size(size, sweep_max)) {
        bytes[n_sizes] = size;
        one_size_in_turns(&b, size, args->reps, &load, figures[n_sizes++]);
    }
    load_stop(&load);
    print_under_load(bytes, n_sizes, args->reps, figures);

    const size_t largest = bytes[n_sizes - 1];
    char size_text[32];
    format_bytes(largest, size_text, sizeof size_text);
    for (int c = 0; c < N_COPIES; c++) {
        const char *memory = memory_names[c / N_DIRECTIONS];
        const char *direction = direction_names[c % N_DIRECTIONS];
        const struct under_load *f = &figures[n_sizes - 1][c];
        char key[64], what[160];
        snprintf(key, sizeof key, "%s_%s_loaded_over_idle", memory, c % N_DIRECTIONS ? "d2h"
                                                                                    : "h2d");
        snprintf(what, sizeof what, "%s %s at %s, the time with every CPU busy over the time on "
                 "idle CPUs", memory, direction, size_text);
        exercise_record(csv, 3, key, what, f->ratio.median, "x",
                        (struct csv_row){.direction = direction, .bytes = largest,
                                         .reps = args->reps, .ms = f->loaded,
                                         .gbps = gbps(largest, f->loaded.median),
                                         .params = "clock=host"});
    }
    CUDA_CHECK(cudaFree(b.device));
    for (int m = 0; m < N_MEMORIES; m++) {
        if (m == PINNED) {
            CUDA_CHECK(cudaFreeHost(b.src[m]));
            CUDA_CHECK(cudaFreeHost(b.dst[m]));
        } else {
            free(b.src[m]);
            free(b.dst[m]);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */

int run_exercise(int n, struct common_args *args, size_t sweep_max)
{
    static const char *const asks[EXERCISES] = {
        "part 1 at --size / 16, --size and --size x 16: does the copies' share of the time change?",
        "part 1 without the cudaDeviceSynchronize() after the launch: which phase waits instead?",
        "the sweep's copies on idle CPUs and with every CPU busy: which numbers move?",
    };
    static const char *const verified[EXERCISES] = {
        "every element of c = a + b in every repetition, at each of the three sizes",
        "every element of c = a + b in every repetition, with the synchronize and without it",
        "every size's round trip, from pageable and from pinned memory",
    };
    /* What each holds at once: three vectors a side (exercise 1: of its largest size), or the
     * device buffer, and a source and a destination on the host, pageable and pinned. */
    struct sized part1 = {"--size", &args->size, cli_given("--size"), 3, 3};
    if (n == 1)
        part1.on_gpu = part1.on_host = 3 * SIZE_FACTOR;
    if (n == 3 && !cli_given("--sweep-max"))
        sweep_max = EXERCISE_SWEEP_MAX;
    struct sized sweep = {"--sweep-max", &sweep_max, cli_given("--sweep-max"), 1, 4};
    struct gpu_info gpu;
    struct csv csv;
    int rc = lesson_open(LESSON, args, n == 3 ? &sweep : &part1, 1, &gpu, &csv);
    if (rc)
        return rc;
    exercise_begin(&csv, n, EXERCISES, asks[n - 1]);
    if (n == 1)
        copy_shares(args, &gpu, &csv);
    else if (n == 2)
        no_wait_for_kernel(args, &csv);
    else
        copies_under_load(args, sweep_max, &csv);
    if (lesson_close(&csv))
        return EXIT_ERROR;
    printf("\nverified: %s\n", verified[n - 1]);
    return EXIT_VERIFIED;
}
