/*
 * exercises.c - the exercises of README.md, each run by `--exercise N` in place of the lesson:
 *
 *   1  the lecture's transfer manager (ONE_SHARED_EVENT): c's copy in s1, a copy up in s2, then
 *      transfer_wait_all and c read, counting the runs in which verification finds c not there
 *   2  demo_goto.c's acquisitions released under one label instead of the ladder, with every
 *      acquisition made to fail in turn; again with copies of the destroy functions that do not
 *      check for a zeroed handle, measuring what that does: the count of live resources, the
 *      calls CUDA refuses, and the next kernel launch's check blamed for their error
 *   3  the demo with its asynchronous half timed by events (cuda_event, resources.c), and the
 *      acquisitions --fail-at now walks through
 */
#include "exercises.h"

#include "fault.h"
#include "kernels.h"

#include <string.h>

/* demo_goto.c's acquisitions, in its order, undoing nothing on failure: what was acquired stays
 * in *r (zeroed at first) for release_all(), which takes a half-built set as it takes a whole
 * one. Returns whether everything was acquired. */
static bool acquire_all(struct async_resources *r, size_t bytes, enum transfer_events events)
{
    return !pinned_buffer_create(&r->h_a, bytes) && !pinned_buffer_create(&r->h_b, bytes) &&
           !pinned_buffer_create(&r->h_c, bytes) && !device_buffer_create(&r->d_a, bytes) &&
           !device_buffer_create(&r->d_b, bytes) && !device_buffer_create(&r->d_c, bytes) &&
           !cuda_stream_create(&r->s1, cudaStreamNonBlocking) &&
           !cuda_stream_create(&r->s2, cudaStreamNonBlocking) &&
           !transfer_manager_create(&r->tm, 2, events);
}

/* The one cleanup label's work: every destroy function accepts a zeroed handle, so this can
 * destroy everything, whatever was acquired. */
static void release_all(struct async_resources *r)
{
    /* After an error, copies may still be in flight: let them finish before their buffers go. */
    CUDA_REPORT(cudaDeviceSynchronize());
    transfer_manager_destroy(&r->tm);
    cuda_stream_destroy(&r->s2);
    cuda_stream_destroy(&r->s1);
    device_buffer_destroy(&r->d_c);
    device_buffer_destroy(&r->d_b);
    device_buffer_destroy(&r->d_a);
    pinned_buffer_destroy(&r->h_c);
    pinned_buffer_destroy(&r->h_b);
    pinned_buffer_destroy(&r->h_a);
}

/* ---------------------------------------------------------------- exercise 1 */

enum {
    EX1_REPS = 10,              /* runs per manager, where --reps is not given */
    EX1_HOLD_MS = 20,           /* c's copy held back: far longer than the small copy takes */
    EX1_NEXT_BYTES = 64 << 10,  /* the copy up in s2 after c's */
};

struct ex1_case {
    const char *key, *manager;
    enum transfer_events events;
    double hold_ms; /* 0: c's copy follows the kernel at once */
};

/* What the runs with one kind of manager found. */
struct ex1_count {
    int caught;                   /* runs that read stale c */
    size_t wrong_min, wrong_max;  /* elements of c not yet there, over those runs */
};

/* What goes up in s2 after c's copy: a small input of a next round. */
struct next_input {
    struct pinned_buffer host;
    struct device_buffer device;
};

/* vector_add_verified() without its message: a stale c is this exercise's finding, counted run
 * by run, not an error to report each time. */
static size_t wrong_elements(const float *a, const float *b, const float *c, size_t n)
{
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += !(c[i] == a[i] + b[i]);
    return wrong;
}

/* One run: the demo's copies and kernel; then c's copy down in s1, held back behind a spinning
 * kernel when c->hold_ms > 0, followed by the small copy up in s2; then transfer_wait_all, and c
 * is read. *wrong: the elements of c not (yet) a + b. *ms: host clock, from the first copy
 * issued to transfer_wait_all's return. */
static int stale_read(struct async_resources *r, const struct next_input *next, size_t n,
                      const struct ex1_case *c, size_t *wrong, double *ms)
{
    memset(r->h_c.data, 0xff, n * sizeof(float));
    double t0 = host_ms();
    if (transfer_h2d(&r->tm, r->d_a.data, &r->h_a, &r->s1) ||
        transfer_h2d(&r->tm, r->d_b.data, &r->h_b, &r->s2) ||
        transfer_stream_wait_all(&r->tm, &r->s1) ||
        CUDA_REPORT(launch_vector_add(r->d_a.data, r->d_b.data, r->d_c.data, n,
                                      r->s1.handle)) ||
        (c->hold_ms > 0 && CUDA_REPORT(launch_spin((unsigned long long)(c->hold_ms * 1e6), 1, 1,
                                                   NULL, r->s1.handle))) ||
        transfer_d2h(&r->tm, &r->h_c, r->d_c.data, &r->s1) ||
        transfer_h2d(&r->tm, next->device.data, &next->host, &r->s2) ||
        transfer_wait_all(&r->tm))
        return EXIT_ERROR;
    *ms = host_ms() - t0;
    *wrong = wrong_elements(r->h_a.data, r->h_b.data, r->h_c.data, n);
    /* c's copy may still be running: let it end before c is poisoned for the next run. */
    return CUDA_REPORT(cudaDeviceSynchronize()) ? EXIT_ERROR : EXIT_VERIFIED;
}

/* reps runs with one kind of manager, after an uncounted one. */
static int count_stale_reads(const struct ex1_case *c, size_t n, int reps,
                             struct ex1_count *count, double *ms)
{
    struct async_resources r = {.h_a = {NULL, 0}};
    struct next_input next = {{NULL, 0}, {NULL, 0}};
    int rc = EXIT_ERROR;
    if (!acquire_all(&r, n * sizeof(float), c->events) ||
        pinned_buffer_create(&next.host, EX1_NEXT_BYTES) ||
        device_buffer_create(&next.device, EX1_NEXT_BYTES))
        goto out;
    fill_random(r.h_a.data, n, 1);
    fill_random(r.h_b.data, n, 2);
    fill_random(next.host.data, EX1_NEXT_BYTES / sizeof(float), 3);
    *count = (struct ex1_count){0, n, 0};
    for (int rep = -1; rep < reps; rep++) {
        size_t wrong;
        double t;
        if (stale_read(&r, &next, n, c, &wrong, &t))
            goto out;
        if (rep < 0)
            continue;
        ms[rep] = t;
        if (wrong) {
            count->caught++;
            count->wrong_min = wrong < count->wrong_min ? wrong : count->wrong_min;
            count->wrong_max = wrong > count->wrong_max ? wrong : count->wrong_max;
        }
    }
    rc = EXIT_VERIFIED;
out:
    release_all(&r); /* first: it waits for the copies still in flight, the small one's too */
    device_buffer_destroy(&next.device);
    pinned_buffer_destroy(&next.host);
    return rc;
}

/* One line for every stale run: how much of c verification found missing in them. */
static void print_wrong_elements(const struct ex1_count *count, int cases, size_t n)
{
    size_t lo = n, hi = 0;
    for (int i = 0; i < cases; i++) {
        if (count[i].caught) {
            lo = count[i].wrong_min < lo ? count[i].wrong_min : lo;
            hi = count[i].wrong_max > hi ? count[i].wrong_max : hi;
        }
    }
    char lacked[64];
    if (hi == 0) {
        printf("  verification found every element of c in place in every run\n");
        return;
    }
    if (lo == hi)
        snprintf(lacked, sizeof lacked, "%zu", lo);
    else
        snprintf(lacked, sizeof lacked, "%zu to %zu", lo, hi);
    printf("  verification (counting, not printing): a stale run's c lacked %s of %zu elements\n",
           lacked, n);
}

static int exercise_1(const struct demo_config *cfg, struct csv *csv)
{
    const struct ex1_case cases[] = {
        {"caught_shared_held", "one shared event", ONE_SHARED_EVENT, EX1_HOLD_MS},
        {"caught_shared", "one shared event", ONE_SHARED_EVENT, 0},
        {"caught_per_stream_held", "one event per stream", EVENT_PER_STREAM, EX1_HOLD_MS},
    };
    enum { CASES = sizeof cases / sizeof cases[0] };
    const int reps = cli_given("--reps") ? cfg->reps : EX1_REPS;
    double *ms = samples_alloc((size_t)reps * CASES);
    if (!ms)
        return EXIT_ERROR;
    struct ex1_count count[CASES];
    for (int i = 0; i < CASES; i++) {
        if (count_stale_reads(&cases[i], cfg->n, reps, &count[i], ms + i * reps)) {
            free(ms);
            return EXIT_ERROR;
        }
    }

    char size_text[32], hold[32], unit[32];
    printf("c = a + b, %s per vector; c copied down in s1, then %d KiB up in s2; "
           "transfer_wait_all; c read\n", format_bytes(cfg->n * sizeof(float), size_text,
                                                       sizeof size_text), EX1_NEXT_BYTES >> 10);
    printf("  %-22s %-20s %-18s %s\n", "the manager", "c's copy held back", "read stale c in",
           "transfer_wait_all returned (median)");
    struct stats st[CASES];
    for (int i = 0; i < CASES; i++) {
        st[i] = stats_summarize(ms + i * reps, (size_t)reps);
        snprintf(hold, sizeof hold, "%.0f ms", cases[i].hold_ms);
        snprintf(unit, sizeof unit, "%d of %d runs", count[i].caught, reps);
        printf("  %-22s %-20s %-18s %.3f ms after the first copy\n", cases[i].manager, hold,
               unit, st[i].median);
    }
    free(ms);
    print_wrong_elements(count, CASES, cfg->n);
    printf("\n");
    snprintf(unit, sizeof unit, "of %d", reps);
    const size_t bytes = 3 * cfg->n * sizeof(float) + EX1_NEXT_BYTES;
    for (int i = 0; i < CASES; i++) {
        char what[128];
        snprintf(hold, sizeof hold, "%.0f ms", cases[i].hold_ms);
        snprintf(what, sizeof what, "runs that read stale c, %s, c's copy held back %s",
                 cases[i].manager, hold);
        if (exercise_answer(csv, 1, cases[i].key, what, count[i].caught, unit,
                            (struct csv_row){.direction = "both", .bytes = bytes, .reps = reps,
                                             .ms = st[i], .params = "clock=none"}))
            return EXIT_ERROR;
    }
    if (count[CASES - 1].caught != 0) {
        fprintf(stderr, "%s: this lesson's manager, one event per stream, let c be read before "
                "its copy arrived\n", program_name);
        return EXIT_ERROR;
    }
    printf("verified: with one event per stream, c = a + b in every run; with one shared event, "
           "the runs counted\nabove read c before its copy had arrived (the point of the "
           "exercise)\n");
    return EXIT_VERIFIED;
}

/* ---------------------------------------------------------------- exercise 2 */

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

static int exercise_2(const struct demo_config *cfg, struct csv *csv)
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

/* ---------------------------------------------------------------- exercise 3 */

static int exercise_3(const struct demo_config *lesson, struct csv *csv)
{
    struct demo_config cfg = *lesson;
    cfg.time_with_events = true;
    const size_t reps = (size_t)cfg.reps;
    double *storage = samples_alloc(5 * reps);
    if (!storage)
        return EXIT_ERROR;
    struct demo_samples s = {.sync_total = storage, .async_total = storage + reps,
                             .cpu_work = storage + 2 * reps, .waiting = storage + 3 * reps,
                             .gpu_span = storage + 4 * reps};
    int rc = run_sync_baseline(&cfg, &s);
    if (rc == EXIT_VERIFIED)
        rc = run_async_demo(&cfg, &s);
    if (rc != EXIT_VERIFIED) {
        free(storage);
        return rc;
    }
    struct stats sync = stats_summarize(s.sync_total, reps);
    struct stats total = stats_summarize(s.async_total, reps);
    struct stats span = stats_summarize(s.gpu_span, reps);
    free(storage);

    char size_text[32];
    printf("c = a + b, %s per vector, median of %d\n",
           format_bytes(cfg.n * sizeof(float), size_text, sizeof size_text), cfg.reps);
    printf("  %-58s %9.3f ms\n", "synchronous, host clock", sync.median);
    printf("  %-58s %9.3f ms\n", "asynchronous, host clock, CPU work included", total.median);
    printf("  %-58s %9.3f ms\n", "asynchronous, GPU clock (events), first copy to c's arrival",
           span.median);
    printf("    (the host issues the kernel after its first %.0f ms of CPU work)\n",
           cfg.cpu_work_ms[0]);
    printf("  %-58s %9d\n", "acquisitions of the asynchronous half, its 2 events included",
           s.async_held);
    printf("  %-58s %9lu\n\n", "acquisitions of the whole run, which --fail-at walks",
           fault_acquisitions());

    struct csv_row timed = {.direction = "both", .bytes = 3 * cfg.n * sizeof(float),
                            .reps = cfg.reps, .ms = span, .params = "clock=gpu_event"};
    struct csv_row counted = timed;
    counted.params = "clock=none";
    if (exercise_answer(csv, 3, "async_event_ms", "the asynchronous half on the GPU's clock "
                        "(events), first copy to c's arrival", span.median, "ms", timed) ||
        exercise_answer(csv, 3, "acquisitions", "acquisitions of the whole run, which "
                        "--fail-at walks", (double)fault_acquisitions(), "acquisitions", counted))
        return EXIT_ERROR;
    printf("verified: c = a + b in every run, synchronous and asynchronous\n");
    return EXIT_VERIFIED;
}

bool exercise_flags_usable(int n)
{
    if (n == 2 && cli_given("--fail-at")) {
        fprintf(stderr, "%s: --exercise 2 makes every acquisition fail in turn itself: leave "
                "--fail-at out\n", program_name);
        return false;
    }
    return true;
}

int run_exercise(int n, const struct demo_config *cfg, struct csv *csv)
{
    static const char *const asks[EXERCISE_COUNT] = {
        "give the transfer manager one shared event, as the lecture does; copy c down in s1, "
        "then something up in s2; transfer_wait_all, read c: does verification catch it? every "
        "time?",
        "one label, out_release_all, in place of the goto ladder, every acquisition made to fail "
        "in turn; what if a destroy function did not accept a zeroed handle?",
        "a cuda_event module, timing the asynchronous half with events: how many acquisitions "
        "does --fail-at walk through now?",
    };
    static int (*const exercises[EXERCISE_COUNT])(const struct demo_config *, struct csv *) = {
        exercise_1, exercise_2, exercise_3,
    };
    exercise_begin(csv, n, EXERCISE_COUNT, asks[n - 1]);
    return exercises[n - 1](cfg, csv);
}
