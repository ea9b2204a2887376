/*
 * exercises_cpu_load.c - exercise 3 of lesson 01's README: the sweep's copies, pageable and, as
 * the control, pinned, on idle CPUs and with every CPU busy, in turns repetition by repetition,
 * each timed as part 2 times it (time_copy(), copy_return.c).
 */
#include "common.h"
#include "sync_copy.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

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

void copies_under_load(int reps, size_t sweep_max, struct csv *csv)
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
        one_size_in_turns(&b, size, reps, &load, figures[n_sizes++]);
    }
    load_stop(&load);
    print_under_load(bytes, n_sizes, reps, figures);

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
                                         .reps = reps, .ms = f->loaded,
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

