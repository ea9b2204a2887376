/*
 * exercises.c - the exercises of README.md, each run by `--exercise N` in place of the lesson:
 *
 *   1  the lecture's transfer manager (ONE_SHARED_EVENT): c's copy in s1, a copy up in s2, then
 *      transfer_wait_all and c read, counting the runs in which verification finds c not there
 *   2  demo_goto.c's acquisitions released under one label instead of the ladder, with every
 *      acquisition made to fail in turn; again with destroy functions that do not check for a
 *      zeroed handle, counting the calls CUDA refuses
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

/* What goes up in s2 after c's copy: a small input of a next round. */
struct next_input {
    struct pinned_buffer host;
    struct device_buffer device;
};

/* One run: the demo's copies and kernel; then c's copy down in s1, held back behind a spinning
 * kernel when c->hold_ms > 0, followed by the small copy up in s2; then transfer_wait_all, and c
 * is read. *stale: verification found c not (all) there. *ms: host clock, from the first copy
 * issued to transfer_wait_all's return. */
static int stale_read(struct async_resources *r, const struct next_input *next, size_t n,
                      const struct ex1_case *c, bool *stale, double *ms)
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
    char what[128];
    snprintf(what, sizeof what, "exercise 1, %s: c read after transfer_wait_all", c->manager);
    *stale = !vector_add_verified(r->h_a.data, r->h_b.data, r->h_c.data, n, what);
    /* c's copy may still be running: let it end before c is poisoned for the next run. */
    return CUDA_REPORT(cudaDeviceSynchronize()) ? EXIT_ERROR : EXIT_VERIFIED;
}

/* reps runs with one kind of manager, after an uncounted one: *caught of them read stale c. */
static int count_stale_reads(const struct ex1_case *c, size_t n, int reps, int *caught,
                             double *ms)
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
    *caught = 0;
    for (int rep = -1; rep < reps; rep++) {
        bool stale;
        double t;
        if (stale_read(&r, &next, n, c, &stale, &t))
            goto out;
        if (rep >= 0) {
            *caught += stale;
            ms[rep] = t;
        }
    }
    rc = EXIT_VERIFIED;
out:
    release_all(&r); /* first: it waits for the copies still in flight, the small one's too */
    device_buffer_destroy(&next.device);
    pinned_buffer_destroy(&next.host);
    return rc;
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
    int caught[CASES];
    for (int i = 0; i < CASES; i++) {
        if (count_stale_reads(&cases[i], cfg->n, reps, &caught[i], ms + i * reps)) {
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
        snprintf(unit, sizeof unit, "%d of %d runs", caught[i], reps);
        printf("  %-22s %-20s %-18s %.3f ms after the first copy\n", cases[i].manager, hold,
               unit, st[i].median);
    }
    free(ms);
    printf("\n");
    snprintf(unit, sizeof unit, "of %d", reps);
    const size_t bytes = 3 * cfg->n * sizeof(float) + EX1_NEXT_BYTES;
    for (int i = 0; i < CASES; i++) {
        char what[128];
        snprintf(hold, sizeof hold, "%.0f ms", cases[i].hold_ms);
        snprintf(what, sizeof what, "runs that read stale c, %s, c's copy held back %s",
                 cases[i].manager, hold);
        if (exercise_answer(csv, 1, cases[i].key, what, caught[i], unit,
                            (struct csv_row){.direction = "both", .bytes = bytes, .reps = reps,
                                             .ms = st[i]}))
            return EXIT_ERROR;
    }
    if (caught[CASES - 1] != 0) {
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

enum { EX2_MAX_RUNS = 64 }; /* more than acquire_all() makes acquisitions */

/* The CUDA calls a destroy function without its check would make with a zeroed handle. */
enum { FREE_HOST, FREE_DEVICE, DESTROY_STREAM, DESTROY_EVENT, UNCHECKED_CALLS };
static const char *const unchecked_call[UNCHECKED_CALLS] = {
    "cudaFreeHost(NULL)", "cudaFree(NULL)", "cudaStreamDestroy(NULL)", "cudaEventDestroy(NULL)",
};

struct walk {
    int fault_points, runs, left_held;
    int calls[UNCHECKED_CALLS], refused[UNCHECKED_CALLS];
    cudaError_t refusal[UNCHECKED_CALLS];
    double ms; /* host clock, the whole walk */
};

static void tally(struct walk *w, int call, cudaError_t err)
{
    w->calls[call]++;
    if (err == cudaSuccess)
        return;
    w->refused[call]++;
    w->refusal[call] = err;
    /* CUDA also records the error, and the next kernel launcher's cudaGetLastError() would
     * report it as the launch's own: read it here, which clears it. */
    (void)cudaGetLastError();
}

/* What destroy functions without their check for a zeroed handle would do at the one label: hand
 * CUDA the zeroed handles too (the present ones are released as always). */
static void pass_zeroed_handles(const struct async_resources *r, struct walk *w)
{
    void *const host[] = {r->h_a.data, r->h_b.data, r->h_c.data};
    void *const device[] = {r->d_a.data, r->d_b.data, r->d_c.data};
    const cudaStream_t streams[] = {r->s1.handle, r->s2.handle};
    for (int i = 0; i < 3; i++) {
        if (!host[i])
            tally(w, FREE_HOST, cudaFreeHost(host[i]));
        if (!device[i])
            tally(w, FREE_DEVICE, cudaFree(device[i]));
    }
    for (int i = 0; i < 2; i++) {
        if (!streams[i])
            tally(w, DESTROY_STREAM, cudaStreamDestroy(streams[i]));
        /* acquire_all() asks the manager for 2 events; a zeroed one holds none */
        if (i >= r->tm.capacity)
            tally(w, DESTROY_EVENT, cudaEventDestroy(r->tm.last_copy[i]));
    }
}

/* The asynchronous half's acquisitions with one cleanup label in place of demo_goto.c's ladder:
 * any failure goes to `out`, which releases everything. *held: what a whole run held. */
static int one_label(size_t bytes, bool destroy_checks_handle, struct walk *w, int *held)
{
    struct async_resources r = {.h_a = {NULL, 0}};
    int rc = EXIT_ERROR;
    if (!acquire_all(&r, bytes, EVENT_PER_STREAM))
        goto out;
    *held = async_resources_held(&r);
    rc = EXIT_VERIFIED;
out:
    if (!destroy_checks_handle)
        pass_zeroed_handles(&r, w);
    release_all(&r);
    w->left_held += async_resources_held(&r);
    return rc;
}

/* Makes acquisition 1 of one_label() fail, then 2, and so on until a run fails none. --fail-at
 * counts acquisitions from the program's start: *base says how many there were before. */
static int walk_fault_points(size_t bytes, bool destroy_checks_handle, unsigned long *base,
                             struct walk *w)
{
    const double t0 = host_ms();
    for (int k = 1; k <= EX2_MAX_RUNS; k++) {
        int held = 0;
        fault_inject_at(*base + (unsigned long)k);
        int rc = one_label(bytes, destroy_checks_handle, w, &held);
        w->ms = host_ms() - t0;
        w->runs = k;
        if (rc != EXIT_VERIFIED) {
            *base += (unsigned long)k; /* k - 1 acquired, and the kth refused */
            continue;
        }
        fault_inject_at(0);
        *base += (unsigned long)held;
        w->fault_points = k - 1;
        if (held == k - 1)
            return EXIT_VERIFIED;
        fprintf(stderr, "%s: exercise 2: a whole run made %d acquisitions, but the walk took %d "
                "runs to get through: an error other than the injected ones\n", program_name,
                held, k);
        return EXIT_ERROR;
    }
    fault_inject_at(0);
    fprintf(stderr, "%s: exercise 2: no run succeeded in %d\n", program_name, EX2_MAX_RUNS);
    return EXIT_ERROR;
}

static void print_unchecked_calls(const struct walk *w)
{
    printf("\n  without the check, the zeroed handles went to CUDA as well:\n");
    for (int i = 0; i < UNCHECKED_CALLS; i++) {
        printf("    %-24s %3d calls, %3d refused", unchecked_call[i], w->calls[i],
               w->refused[i]);
        if (w->refused[i])
            printf(": %s", cudaGetErrorName(w->refusal[i]));
        printf("\n");
    }
}

static int exercise_2(const struct demo_config *cfg, struct csv *csv)
{
    if (cli_given("--fail-at")) {
        fprintf(stderr, "%s: --exercise 2 makes every acquisition fail in turn itself: leave "
                "--fail-at out\n", program_name);
        return EXIT_USAGE;
    }
    const size_t bytes = cfg->n * sizeof(float);
    struct walk checked = {0}, unchecked = {0};
    unsigned long base = 0; /* the exercise is the program's first acquirer */
    printf("demo_goto.c's acquisitions (3 pinned and 3 device buffers, 2 streams, the manager's "
           "2 events),\neach made to fail in turn, then none, and released under one label "
           "(stderr names each failure)\n");
    if (walk_fault_points(bytes, true, &base, &checked) ||
        walk_fault_points(bytes, false, &base, &unchecked))
        return EXIT_ERROR;

    int refused = 0;
    for (int i = 0; i < UNCHECKED_CALLS; i++)
        refused += unchecked.refused[i];
    printf("\n  %-40s %-14s %-6s %s\n", "destroy functions", "fault points", "runs",
           "resources still held after the label");
    printf("  %-40s %-14d %-6d %d\n", "check for a zeroed handle (the lesson)",
           checked.fault_points, checked.runs, checked.left_held);
    printf("  %-40s %-14d %-6d %d\n", "do not check", unchecked.fault_points, unchecked.runs,
           unchecked.left_held);
    print_unchecked_calls(&unchecked);
    printf("\n");

    /* Each figure comes from one walk, timed whole. */
    const struct csv_row walk = {.bytes = 6 * bytes, .reps = 1,
                                 .ms = {checked.ms, checked.ms, checked.ms}};
    const struct csv_row bare = {.bytes = 6 * bytes, .reps = 1,
                                 .ms = {unchecked.ms, unchecked.ms, unchecked.ms}};
    const int leaks = checked.left_held + unchecked.left_held;
    if (exercise_answer(csv, 2, "fault_points", "fault points walked, one label releasing "
                        "everything", checked.fault_points, "acquisitions", walk) ||
        exercise_answer(csv, 2, "leaks", "resources still held after the label, every fault "
                        "point, both walks", leaks, "resources", walk) ||
        exercise_answer(csv, 2, "unchecked_refusals", "CUDA calls refusing a zeroed handle, "
                        "destroy functions without the check", refused, "calls", bare))
        return EXIT_ERROR;
    if (leaks != 0 || checked.fault_points != unchecked.fault_points) {
        fprintf(stderr, "%s: exercise 2: %d resources left held, %d and %d fault points\n",
                program_name, leaks, checked.fault_points, unchecked.fault_points);
        return EXIT_ERROR;
    }
    printf("verified: at every fault point the one label released everything, with either kind "
           "of destroy function\n");
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

    struct csv_row row = {.direction = "both", .bytes = 3 * cfg.n * sizeof(float),
                          .reps = cfg.reps, .ms = span};
    if (exercise_answer(csv, 3, "async_event_ms", "the asynchronous half on the GPU's clock "
                        "(events), first copy to c's arrival", span.median, "ms", row) ||
        exercise_answer(csv, 3, "acquisitions", "acquisitions of the whole run, which "
                        "--fail-at walks", (double)fault_acquisitions(), "acquisitions", row))
        return EXIT_ERROR;
    printf("verified: c = a + b in every run, synchronous and asynchronous\n");
    return EXIT_VERIFIED;
}

int run_exercise(int n, const struct demo_config *cfg, struct csv *csv)
{
    static const char *const asks[EXERCISE_COUNT] = {
        "give the transfer manager one shared event, as the lecture does; copy c down in s1, "
        "then something up in s2; transfer_wait_all, read c: does verification catch it? every "
        "time?",
        "one out: label in place of the goto ladder, every acquisition made to fail in turn; "
        "what if a destroy function did not accept a zeroed handle?",
        "a cuda_event module, timing the asynchronous half with events: how many acquisitions "
        "does --fail-at walk through now?",
    };
    static int (*const exercises[EXERCISE_COUNT])(const struct demo_config *, struct csv *) = {
        exercise_1, exercise_2, exercise_3,
    };
    exercise_begin(n, EXERCISE_COUNT, asks[n - 1]);
    return exercises[n - 1](cfg, csv);
}
