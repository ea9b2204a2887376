/*
 * exercises_one_label.c - exercise 2 of README.md (--exercise 2): demo_goto.c's acquisitions
 * released under one label instead of the ladder, with every acquisition made to fail in turn;
 * again with copies of the destroy functions that do not check for a zeroed handle, measuring
 * what that does: the count of live resources, the calls CUDA refuses, and the next kernel
 * launch's check blamed for their error.
 */
#include "exercises.h"

#include "fault.h"
#include "kernels.h"

enum {
    EX2_BYTES = 4 << 10, /* per buffer: the walk is about acquisitions, whatever their size */
    EX2_MAX_RUNS = 64,   /* more than acquire_all() makes acquisitions */
};

/* The CUDA calls the destroy functions without their check make with a zeroed handle. The
 * manager's destroy has no such check to take out: it destroys the events it counts, and a
 * zeroed manager counts none. */
enum { FREE_HOST, FREE_DEVICE, DESTROY_STREAM, ZEROED_CALLS };
static const char *const zeroed_call[ZEROED_CALLS] = {
    "cudaFreeHost(NULL)", "cudaFree(NULL)", "cudaStreamDestroy(NULL)",
};

struct walk {
    bool checked; /* the lesson's destroy functions, or copies of them without the check */
    int fault_points, runs;
    int handles_left; /* the lesson's destroy functions: handles still set after the label */
    /* Without the check: what the count of live resources (fault.c) did, from before the walk
     * (acquisitions counted minus resource_released() calls), and its largest fall in one run. */
    long live, worst_run;
    int calls[ZEROED_CALLS], refused[ZEROED_CALLS];
    cudaError_t refusal[ZEROED_CALLS];
    int blamed_launches; /* runs whose valid launch after the label reported an error */
    cudaError_t blame;
    double ms[EX2_MAX_RUNS]; /* host clock, each run */
};

/* resources.c's destroy functions without their check for a zeroed handle, the rest unchanged:
 * CUDA gets the handle whatever it is, and a release is counted whatever CUDA says. */
static cudaError_t pinned_buffer_destroy_unchecked(struct pinned_buffer *buffer)
{
    cudaError_t err = CUDA_REPORT(cudaFreeHost(buffer->data));
    *buffer = (struct pinned_buffer){NULL, 0};
    resource_released();
    return err;
}

static cudaError_t device_buffer_destroy_unchecked(struct device_buffer *buffer)
{
    cudaError_t err = CUDA_REPORT(cudaFree(buffer->data));
    *buffer = (struct device_buffer){NULL, 0};
    resource_released();
    return err;
}

static cudaError_t cuda_stream_destroy_unchecked(struct cuda_stream *stream)
{
    cudaError_t err = CUDA_REPORT(cudaStreamDestroy(stream->handle));
    stream->handle = NULL;
    resource_released();
    return err;
}

/* One unchecked destroy done: one release counted; a zeroed handle, one call CUDA should not
 * have had. */
static void tally(struct walk *w, int call, bool zeroed, cudaError_t err)
{
    w->live--;
    if (!zeroed)
        return;
    w->calls[call]++;
    if (err != cudaSuccess) {
        w->refused[call]++;
        w->refusal[call] = err;
    }
}

/* release_all() with the unchecked copies, in the same order. */
static void release_all_unchecked(struct async_resources *r, struct walk *w)
{
    CUDA_REPORT(cudaDeviceSynchronize());
    w->live -= r->tm.capacity; /* the manager's destroy counts one release per event */
    transfer_manager_destroy(&r->tm);
    struct cuda_stream *const streams[] = {&r->s2, &r->s1};
    struct device_buffer *const device[] = {&r->d_c, &r->d_b, &r->d_a};
    struct pinned_buffer *const host[] = {&r->h_c, &r->h_b, &r->h_a};
    for (int i = 0; i < 2; i++) {
        bool zeroed = !streams[i]->handle;
        tally(w, DESTROY_STREAM, zeroed, cuda_stream_destroy_unchecked(streams[i]));
    }
    for (int i = 0; i < 3; i++) {
        bool zeroed = !device[i]->data;
        tally(w, FREE_DEVICE, zeroed, device_buffer_destroy_unchecked(device[i]));
    }
    for (int i = 0; i < 3; i++) {
        bool zeroed = !host[i]->data;
        tally(w, FREE_HOST, zeroed, pinned_buffer_destroy_unchecked(host[i]));
    }
}

/* A valid kernel launch, checked as the course checks every launch: its launcher returns
 * cudaGetLastError(), which also returns (and clears) an error that an earlier call left behind,
 * blaming the launch for it. */
static int launch_after_label(struct walk *w)
{
    cudaError_t err = launch_spin(0, 1, 1, NULL, NULL);
    if (err != cudaSuccess) {
        w->blamed_launches++;
        w->blame = err;
    }
    return CUDA_REPORT(cudaDeviceSynchronize()) ? EXIT_ERROR : EXIT_VERIFIED;
}

/* The asynchronous half's acquisitions with one cleanup label in place of demo_goto.c's ladder:
 * any failure goes to out_release_all, which releases everything, acquired or not; then a kernel
 * launch. *whole: every acquisition was made; *acquired: how many were. Returns EXIT_ERROR only
 * for a CUDA error at the launch. */
static int one_label(struct walk *w, bool *whole, int *acquired)
{
    struct async_resources r = {.h_a = {NULL, 0}};
    *whole = false;
    if (!acquire_all(&r, EX2_BYTES, EVENT_PER_STREAM))
        goto out_release_all;
    *whole = true; /* (the work with them would be here) */
out_release_all:
    *acquired = async_resources_held(&r);
    if (w->checked) {
        release_all(&r);
        w->handles_left += async_resources_held(&r);
    } else {
        const long before = w->live;
        w->live += *acquired;
        release_all_unchecked(&r, w);
        if (w->live - before < w->worst_run)
            w->worst_run = w->live - before;
    }
    return launch_after_label(w);
}

/* Makes acquisition 1 of one_label() fail, then 2, and so on until a run fails none. */
static int walk_fault_points(struct walk *w)
{
    for (int k = 1; k <= EX2_MAX_RUNS; k++) {
        bool whole;
        int acquired;
        fault_inject_at(fault_acquisitions() + (unsigned long)k);
        const double t0 = host_ms();
        if (one_label(w, &whole, &acquired)) {
            fault_inject_at(0);
            return EXIT_ERROR;
        }
        w->ms[k - 1] = host_ms() - t0;
        w->runs = k;
        if (!whole)
            continue;
        fault_inject_at(0);
        w->fault_points = k - 1;
        if (acquired == k - 1)
            return EXIT_VERIFIED;
        fprintf(stderr, "%s: exercise 2: a whole run made %d acquisitions, but the walk took %d "
                "runs to get through: an error other than the injected ones\n", program_name,
                acquired, k);
        return EXIT_ERROR;
    }
    fault_inject_at(0);
    fprintf(stderr, "%s: exercise 2: no run succeeded in %d\n", program_name, EX2_MAX_RUNS);
    return EXIT_ERROR;
}

/* The unchecked destroys' releases of nothing left fault.c's count of live resources w->live
 * below what is live: it is set back, so that main's count at exit checks the rest of the
 * program. Had w->live not followed that count exactly, it would not come out 0 at exit. */
static void set_back_live_count(const struct walk *w)
{
    for (long i = w->live; i < 0; i++)
        resource_acquired();
}

static void print_walks(const struct walk *checked, const struct walk *unchecked)
{
    printf("\n  %-40s %-13s %-5s %s\n", "destroy functions", "fault points", "runs",
           "the launch's check reported an error");
    const struct walk *const walks[] = {checked, unchecked};
    const char *const names[] = {"check for a zeroed handle (the lesson)", "do not check"};
    for (int i = 0; i < 2; i++) {
        const struct walk *w = walks[i];
        printf("  %-40s %-13d %-5d in %d of %d runs", names[i], w->fault_points, w->runs,
               w->blamed_launches, w->runs);
        if (w->blamed_launches)
            printf(": %s", cudaGetErrorName(w->blame));
        printf("\n");
    }
    printf("\n  without the check, the zeroed handles went to CUDA as well:\n");
    for (int i = 0; i < ZEROED_CALLS; i++) {
        printf("    %-24s %3d calls, %3d refused", zeroed_call[i], unchecked->calls[i],
               unchecked->refused[i]);
        if (unchecked->refused[i])
            printf(": %s", cudaGetErrorName(unchecked->refusal[i]));
        printf("\n");
    }
    printf("  and each call counted a release: the count of live resources changed by %ld over "
           "the walk\n  (%ld in a single run at most), and was set back after it\n\n",
           unchecked->live, unchecked->worst_run);
}

/* A figure of one walk: a count over its runs, each run timed on the host clock (sorts w->ms). */
static struct csv_row walk_row(struct walk *w)
{
    return (struct csv_row){.bytes = 6 * EX2_BYTES, .reps = w->runs, .params = "clock=none",
                            .ms = stats_summarize(w->ms, (size_t)w->runs)};
}

int exercise_2(const struct demo_config *cfg, struct csv *csv)
{
    (void)cfg; /* sizes play no part: EX2_BYTES */
    struct walk checked = {.checked = true}, unchecked = {.checked = false};
    printf("demo_goto.c's acquisitions (3 pinned and 3 device buffers of %d KiB, 2 streams, the "
           "manager's 2\nevents), each made to fail in turn, then none; released under one label, "
           "out_release_all;\nthen a valid kernel launch, checked (stderr names each failure)\n",
           EX2_BYTES >> 10);
    /* An error an earlier call left behind would be blamed on the first launch: cleared here,
     * and named if there was one. */
    CUDA_REPORT(cudaGetLastError());
    int rc = walk_fault_points(&checked);
    if (rc == EXIT_VERIFIED)
        rc = walk_fault_points(&unchecked);
    set_back_live_count(&unchecked);
    if (rc != EXIT_VERIFIED)
        return rc;
    print_walks(&checked, &unchecked);

    int refused = 0;
    for (int i = 0; i < ZEROED_CALLS; i++)
        refused += unchecked.refused[i];
    char runs[32];
    snprintf(runs, sizeof runs, "of %d runs", unchecked.runs);
    const struct csv_row with = walk_row(&checked), without = walk_row(&unchecked);
    if (exercise_answer(csv, 2, "fault_points", "fault points walked, one label releasing "
                        "everything", checked.fault_points, "acquisitions", with) ||
        exercise_answer(csv, 2, "leaks", "handles still held after the label, every fault "
                        "point, the lesson's destroy functions", checked.handles_left, "handles",
                        with) ||
        exercise_answer(csv, 2, "unchecked_live_change", "change in the count of live "
                        "resources over the walk, destroy functions without the check",
                        (double)unchecked.live, "resources", without) ||
        exercise_answer(csv, 2, "unchecked_refusals", "CUDA calls refusing a zeroed handle, "
                        "destroy functions without the check", refused, "calls", without) ||
        exercise_answer(csv, 2, "blamed_launches", "valid launches after the label whose check "
                        "reported an error, destroy functions without the check",
                        unchecked.blamed_launches, runs, without))
        return EXIT_ERROR;
    if (checked.handles_left || checked.blamed_launches ||
        checked.fault_points != unchecked.fault_points) {
        fprintf(stderr, "%s: exercise 2: with the lesson's destroy functions, %d handles left "
                "held and %d launches blamed for an error; %d and %d fault points\n",
                program_name, checked.handles_left, checked.blamed_launches,
                checked.fault_points, unchecked.fault_points);
        return EXIT_ERROR;
    }
    printf("verified: at every fault point the one label released everything, and with the "
           "lesson's destroy\nfunctions it left no error behind for the next launch\n");
    return EXIT_VERIFIED;
}
