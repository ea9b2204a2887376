/*
 * exercises_cpu_load.c - exercise 3 of lesson 01's README: the sweep's copies, pageable and, as
 * the control, pinned, on idle CPUs and while every CPU is busy. The load lasts a whole pass of
 * the sweep (every size, all four copies); idle and busy passes take turns, each copy timed as
 * part 2 times it (time_copy(), copy_return.c).
 */
#define _GNU_SOURCE /* Linux's CPU affinity calls, which pin the load's threads (below) */
#include "common.h"
#include "sync_copy.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------------------------ *
 * Exercise 3: the sweep's copies while every CPU is busy.
 * ------------------------------------------------------------------------------------------ */

/* Other work on every CPU, in this program: one thread per CPU this process may run on
 * (host_cpus()), never more, spinning without touching memory, so that all it takes from a copy
 * is CPU time. Each is pinned to a CPU of its own: left to the scheduler, two of them may share
 * one CPU and leave the copy's thread another to itself, for a pass or for the whole run. Where
 * host_cpus() counts fewer CPUs than the affinity mask allows (a cgroup CPU quota), they cannot
 * cover every CPU and are left unpinned. The threads start once and sleep until asked to spin, so
 * that idle and busy passes can take turns. */
struct cpu_load {
    pthread_t *threads;
    int count;
    bool pinned;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_bool spin;    /* what the threads are asked to do: spin, or sleep on `wake` */
    atomic_int spinning; /* how many of them spin now */
    bool quit;           /* under `lock` */
};

/* A thread that has just woken may run ahead of one that kept running for a while (how long
 * depends on the kernel's scheduler); the load spins this long before a busy pass starts, so
 * that the pass sees the share of a CPU a lasting load leaves the copy's thread, not the load's
 * start. */
enum { LOAD_SETTLE_MS = 20 };

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

/* Sets the threads spinning or asleep, and returns once every one of them does, and when they
 * spin, once they have spun LOAD_SETTLE_MS. The calling thread waits busy, not asleep: a thread
 * that wakes from sleeping gets ahead of the spinning ones for a while, and the copies timed next
 * would not pay their share. */
static void load_set(struct cpu_load *load, bool spin)
{
    pthread_mutex_lock(&load->lock);
    atomic_store(&load->spin, spin);
    pthread_cond_broadcast(&load->wake);
    pthread_mutex_unlock(&load->lock);
    const int want = spin ? load->count : 0;
    while (atomic_load(&load->spinning) != want)
        ;
    const double settled = host_ms() + (spin ? LOAD_SETTLE_MS : 0);
    while (host_ms() < settled)
        ;
}

/* Pins `thread` to the i-th CPU of `allowed`; returns pthread_setaffinity_np's error. */
static int load_pin(pthread_t thread, int i, const cpu_set_t *allowed)
{
    int cpu = 0;
    for (int seen = 0;; cpu++)
        if (CPU_ISSET(cpu, allowed) && seen++ == i)
            break;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return pthread_setaffinity_np(thread, sizeof one, &one);
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
    cpu_set_t allowed;
    load->pinned = sched_getaffinity(0, sizeof allowed, &allowed) == 0 &&
                   CPU_COUNT(&allowed) == count;
    for (; load->count < count; load->count++) {
        pthread_t *thread = &load->threads[load->count];
        int err = pthread_create(thread, NULL, spinner, load);
        if (!err && load->pinned)
            err = load_pin(*thread, load->count, &allowed);
        if (err) {
            fprintf(stderr, "%s: starting spinning thread %d of %d%s failed (error %d)\n",
                    program_name, load->count + 1, count, load->pinned ? " on its CPU" : "", err);
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

/* The copies a pass times: part 2's pageable ones and, as the control, the same from pinned
 * memory. */
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

/* One size's figures of one copy: its time on idle CPUs, with every CPU busy, and taken pair of
 * passes by pair, the busy time over the idle. */
struct under_load {
    struct stats idle, loaded, ratio;
};

/* A pass's length (host clock), and the share of it the copy's thread spent on a CPU. */
struct pass_time {
    double wall_ms, cpu_percent;
};

/* One pass of the sweep: at each size, both destinations poisoned, each copy timed (H2D then D2H,
 * pageable then pinned) into ms[size * N_COPIES + copy], then each memory's round trip checked. */
static struct pass_time one_pass(const struct copy_buffers *b, const size_t *bytes, int n_sizes,
                                 double *ms)
{
    const double start = host_ms(), cpu_start = thread_cpu_ms();
    for (int s = 0; s < n_sizes; s++) {
        for (int m = 0; m < N_MEMORIES; m++)
            memset(b->dst[m], 0xff, bytes[s]);
        for (int m = 0; m < N_MEMORIES; m++) {
            ms[s * N_COPIES + m * N_DIRECTIONS + TO_DEVICE] =
                time_copy(b->device, b->src[m], bytes[s], cudaMemcpyHostToDevice);
            ms[s * N_COPIES + m * N_DIRECTIONS + TO_HOST] =
                time_copy(b->dst[m], b->device, bytes[s], cudaMemcpyDeviceToHost);
        }
        for (int m = 0; m < N_MEMORIES; m++)
            if (memcmp(b->src[m], b->dst[m], bytes[s]) != 0) {
                fprintf(stderr, "%s: the %zu bytes copied to the GPU and back from %s memory "
                        "differ\n", program_name, bytes[s], memory_names[m]);
                exit(EXIT_ERROR);
            }
    }
    const double wall = host_ms() - start;
    return (struct pass_time){wall, 100 * (thread_cpu_ms() - cpu_start) / wall};
}

/* Idle and busy passes in turns, a pair per repetition, which goes first alternating pair by
 * pair, after one untimed pair. ms[((state * reps + rep) * n_sizes + size) * N_COPIES + copy],
 * wall[state * reps + rep] and cpu[state * reps + rep] each pass's pass_time. */
static void passes_in_turns(const struct copy_buffers *b, const size_t *bytes, int n_sizes,
                            int reps, struct cpu_load *load, double *ms, double *wall,
                            double *cpu)
{
    const size_t per_pass = (size_t)n_sizes * N_COPIES;
    double *untimed = samples_or_exit(per_pass);
    for (int rep = -1; rep < reps; rep++)
        for (int turn = 0; turn < N_STATES; turn++) {
            const int state = (rep & 1) ? N_STATES - 1 - turn : turn;
            load_set(load, state == LOADED);
            if (rep < 0) {
                one_pass(b, bytes, n_sizes, untimed);
                continue;
            }
            const size_t at = (size_t)state * (size_t)reps + (size_t)rep;
            const struct pass_time t = one_pass(b, bytes, n_sizes, ms + at * per_pass);
            wall[at] = t.wall_ms;
            cpu[at] = t.cpu_percent;
        }
    load_set(load, false);
    free(untimed);
}

/* Each size's and copy's figures from the passes' samples. */
static void summarize_passes(const double *ms, int n_sizes, int reps,
                             struct under_load (*figures)[N_COPIES])
{
    const size_t n = (size_t)reps;
    double *idle = samples_or_exit(n), *loaded = samples_or_exit(n), *ratio = samples_or_exit(n);
    for (int s = 0; s < n_sizes; s++)
        for (int c = 0; c < N_COPIES; c++) {
            for (size_t rep = 0; rep < n; rep++) {
                size_t idle_pass = (size_t)IDLE * n + rep, busy_pass = (size_t)LOADED * n + rep;
                idle[rep] = ms[(idle_pass * (size_t)n_sizes + (size_t)s) * N_COPIES + (size_t)c];
                loaded[rep] = ms[(busy_pass * (size_t)n_sizes + (size_t)s) * N_COPIES + (size_t)c];
                ratio[rep] = loaded[rep] / idle[rep];
            }
            figures[s][c] = (struct under_load){.ratio = stats_summarize(ratio, n),
                                                .idle = stats_summarize(idle, n),
                                                .loaded = stats_summarize(loaded, n)};
        }
    free(idle);
    free(loaded);
    free(ratio);
}

/* The passes' lengths and the copy's thread's share of them on a CPU, idle and busy. */
struct pass_stats {
    struct stats wall[N_STATES], cpu[N_STATES];
};

static void print_copies(const size_t *bytes, int n_sizes, int reps,
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
    printf("\nEach copy's time with every CPU busy over its time on idle CPUs, pair of passes by "
           "pair:\nmedian [min-max] of %d\n  %10s", reps, "size");
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
}

static void print_passes(const struct pass_stats *p, int reps)
{
    static const char *const states[N_STATES] = {"on idle CPUs", "every CPU busy"};
    printf("\nA pass, median [min-max] of %d: its length on the host clock, from its first copy to "
           "its\nlast check, and the copy's thread's CPU time over that length\n", reps);
    for (int state = 0; state < N_STATES; state++)
        printf("  %-16s %8.1f ms [%8.1f-%8.1f]  %5.1f%% [%5.1f-%5.1f%%]\n", states[state],
               p->wall[state].median, p->wall[state].min, p->wall[state].max,
               p->cpu[state].median, p->cpu[state].min, p->cpu[state].max);
    printf("  (the load spun from %d ms before each busy pass to its end)\n\n", LOAD_SETTLE_MS);
}

/* The answers: each copy's busy-over-idle ratio at the smallest and the largest size, how long a
 * busy pass lasted, and how much of it the copy's thread spent on a CPU. */
static void record_under_load(const size_t *bytes, int n_sizes, int reps,
                              struct under_load (*figures)[N_COPIES], const struct pass_stats *p,
                              struct csv *csv)
{
    const int ends[2] = {0, n_sizes - 1};
    for (int e = 0; e < 2; e++) {
        const int s = ends[e];
        char size_text[32];
        format_bytes(bytes[s], size_text, sizeof size_text);
        for (int c = 0; c < N_COPIES; c++) {
            const char *memory = memory_names[c / N_DIRECTIONS];
            const char *direction = direction_names[c % N_DIRECTIONS];
            const struct under_load *f = &figures[s][c];
            char key[64], what[160];
            snprintf(key, sizeof key, "%s_%s_loaded_over_idle%s", memory,
                     c % N_DIRECTIONS ? "d2h" : "h2d", e == 0 ? "_smallest" : "");
            snprintf(what, sizeof what, "%s %s at %s (%s), the time with every CPU busy over "
                     "the time on idle CPUs", memory, direction, size_text,
                     e == 0 ? "smallest" : "largest");
            exercise_record(csv, 3, key, what, f->ratio.median, "x",
                            (struct csv_row){.direction = direction, .bytes = bytes[s],
                                             .reps = reps, .ms = f->loaded,
                                             .gbps = gbps(bytes[s], f->loaded.median),
                                             .params = "clock=host"});
        }
    }
    size_t pass_bytes = 0;
    for (int s = 0; s < n_sizes; s++)
        pass_bytes += N_COPIES * bytes[s];
    const struct csv_row busy_pass = {.direction = "both", .bytes = pass_bytes, .reps = reps,
                                      .ms = p->wall[LOADED], .params = "clock=host"};
    exercise_record(csv, 3, "busy_pass_ms", "how long a pass with every CPU busy lasted",
                    p->wall[LOADED].median, "ms", busy_pass);
    struct csv_row on_cpu = busy_pass;
    on_cpu.params = "clock=thread_cpu";
    exercise_record(csv, 3, "busy_pass_cpu_percent", "the copy's thread's CPU time over a busy "
                    "pass's length", p->cpu[LOADED].median, "%", on_cpu);
}

static void buffers_alloc(struct copy_buffers *b, size_t bytes)
{
    for (int m = 0; m < N_MEMORIES; m++) {
        if (m == PINNED) {
            CUDA_CHECK(cudaMallocHost(&b->src[m], bytes));
            CUDA_CHECK(cudaMallocHost(&b->dst[m], bytes));
        } else {
            b->src[m] = malloc_or_exit(bytes);
            b->dst[m] = malloc_or_exit(bytes);
        }
        fill_random(b->src[m], bytes / sizeof(float), 3 + (unsigned long long)m);
    }
    CUDA_CHECK(cudaMalloc(&b->device, bytes));
}

static void buffers_free(struct copy_buffers *b)
{
    CUDA_CHECK(cudaFree(b->device));
    for (int m = 0; m < N_MEMORIES; m++) {
        if (m == PINNED) {
            CUDA_CHECK(cudaFreeHost(b->src[m]));
            CUDA_CHECK(cudaFreeHost(b->dst[m]));
        } else {
            free(b->src[m]);
            free(b->dst[m]);
        }
    }
}

void copies_under_load(int reps, size_t sweep_max, struct csv *csv)
{
    size_t bytes[MAX_SIZES];
    int n_sizes = 0;
    for (size_t size = SWEEP_MIN_BYTES; size <= sweep_max && n_sizes < MAX_SIZES;
         size = sweep_next_size(size, sweep_max))
        bytes[n_sizes++] = size;
    struct copy_buffers b;
    buffers_alloc(&b, sweep_max);
    struct cpu_load load;
    load_start(&load, host_cpus());
    if (load.pinned)
        printf("Busy: %d threads spin, one pinned to each of the %d CPUs this process may run "
               "on.\n", load.count, load.count);
    else
        printf("Busy: %d threads spin, one for each CPU of this process's CPU quota, unpinned: "
               "its\naffinity allows it more CPUs than that.\n", load.count);
    printf("Idle and busy passes of the sweep in turns, %d pairs; a pass is every size's four "
           "copies\nand their checks.\n", reps);

    const size_t n = (size_t)reps, per_state = n * (size_t)n_sizes * N_COPIES;
    double *ms = samples_or_exit(N_STATES * per_state);
    double *wall = samples_or_exit(N_STATES * n), *cpu = samples_or_exit(N_STATES * n);
    passes_in_turns(&b, bytes, n_sizes, reps, &load, ms, wall, cpu);
    load_stop(&load);
    struct under_load figures[MAX_SIZES][N_COPIES];
    summarize_passes(ms, n_sizes, reps, figures);
    struct pass_stats passes;
    for (int state = 0; state < N_STATES; state++) {
        passes.wall[state] = stats_summarize(wall + (size_t)state * n, n);
        passes.cpu[state] = stats_summarize(cpu + (size_t)state * n, n);
    }
    print_copies(bytes, n_sizes, reps, figures);
    print_passes(&passes, reps);
    record_under_load(bytes, n_sizes, reps, figures, &passes, csv);
    free(ms);
    free(wall);
    free(cpu);
    buffers_free(&b);
}
