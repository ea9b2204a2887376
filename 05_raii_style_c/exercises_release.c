/*
 * exercises_release.c - exercise 3 of README.md (--exercise 3): release_all()'s calls
 * (exercises.c) made one by one while c's copy down is still queued in s1, held back behind a
 * spinning kernel: with the synchronize that release_all() makes first, and without it, in
 * turns. Each call is timed on the host clock; after each, an event recorded after the copy says
 * whether the copy has finished, and before h_c goes, c is counted element by element.
 */
#include "exercises.h"

#include "kernels.h"

#include <string.h>

enum {
    EX3_REPS = 10,        /* runs of each kind, where --reps is not given */
    EX3_HOLD_MS = 20,     /* c's copy held back behind a spinning kernel this long */
    EX3_BYTES = 16 << 20, /* per buffer: pinned in a few ms; the copy's size is not the question */
};

/* When c's copy finished in a run, besides during call k (a RELEASE_* value). */
enum { FINISHED_BEFORE = -1, FINISHED_AFTER = RELEASE_CALLS };

struct ex3_run {
    double ms[RELEASE_CALLS]; /* host clock: how long each call held the host */
    bool done[RELEASE_CALLS]; /* c's copy had finished when the call returned */
    int finished;             /* the call during which it finished, or FINISHED_* */
    size_t missing;           /* elements of c not a + b when h_c's release began */
    double total_ms;          /* host clock: the calls together */
};

struct ex3_case {
    bool synchronize; /* release_all()'s first call made, or left out */
    struct ex3_run *runs;
};

/* What a case's runs found. */
struct ex3_summary {
    struct stats ms[RELEASE_CALLS], total;
    int done[RELEASE_CALLS]; /* runs in which the copy had finished when the call returned */
    int finished, finished_runs; /* when the copy finished in most runs, and in how many */
    int whole;                   /* runs in which c had all arrived before h_c's release */
};

/* The demo's work on the set, ending with c's copy down in s1 behind a spinning kernel and the
 * event recorded after it; the host waits for none of it. */
static int enqueue_held_back(struct async_resources *r, size_t n, const struct cuda_event *copied)
{
    fill_random(r->h_a.data, n, 1);
    fill_random(r->h_b.data, n, 2);
    memset(r->h_c.data, 0xff, n * sizeof(float));
    if (transfer_h2d(&r->tm, r->d_a.data, &r->h_a, &r->s1) ||
        transfer_h2d(&r->tm, r->d_b.data, &r->h_b, &r->s2) ||
        transfer_stream_wait_all(&r->tm, &r->s1) ||
        CUDA_REPORT(launch_vector_add(r->d_a.data, r->d_b.data, r->d_c.data, n,
                                      r->s1.handle)) ||
        CUDA_REPORT(launch_spin(EX3_HOLD_MS * 1000000ull, 1, 1, NULL, r->s1.handle)) ||
        transfer_d2h(&r->tm, &r->h_c, r->d_c.data, &r->s1) ||
        CUDA_REPORT(cudaEventRecord(copied->handle, r->s1.handle)))
        return EXIT_ERROR;
    return EXIT_VERIFIED;
}

/* Whether c's copy has finished. cudaErrorNotReady only says "not yet"; any other error is kept
 * in *err (the first one), for the run to fail on once everything is released. */
static bool copy_done(const struct cuda_event *copied, cudaError_t *err)
{
    cudaError_t state = cudaEventQuery(copied->handle);
    if (state != cudaSuccess && state != cudaErrorNotReady && *err == cudaSuccess)
        *err = CUDA_REPORT(state);
    return state == cudaSuccess;
}

/* release_all()'s calls in its order, its first (the synchronize) only if asked, each timed,
 * and c counted before h_c goes. Everything is released, whatever the calls return. */
static int release_call_by_call(struct async_resources *r, size_t n, bool synchronize,
                                const struct cuda_event *copied, struct ex3_run *run)
{
    cudaError_t err = cudaSuccess;
    *run = (struct ex3_run){.finished = FINISHED_AFTER};
    if (copy_done(copied, &err))
        run->finished = FINISHED_BEFORE;
    for (int call = 0; call < RELEASE_CALLS; call++) {
        if (call == RELEASE_SYNCHRONIZE && !synchronize)
            continue;
        if (call == RELEASE_H_C) /* h_a and h_b are released after it: still there */
            run->missing = vector_add_wrong(r->h_a.data, r->h_b.data, r->h_c.data, n);
        const double t0 = host_ms();
        release_one(r, (enum release_call)call);
        run->ms[call] = host_ms() - t0;
        run->total_ms += run->ms[call];
        run->done[call] = copy_done(copied, &err);
        if (run->done[call] && run->finished == FINISHED_AFTER)
            run->finished = call;
    }
    /* The next run records the event again: this run's copy must be over first. */
    if (CUDA_REPORT(cudaEventSynchronize(copied->handle)) || err != cudaSuccess)
        return EXIT_ERROR;
    return EXIT_VERIFIED;
}

static int one_run(bool synchronize, const struct cuda_event *copied, struct ex3_run *run)
{
    const size_t n = EX3_BYTES / sizeof(float);
    struct async_resources r = {.h_a = {NULL, 0}};
    if (!acquire_all(&r, EX3_BYTES, EVENT_PER_STREAM) || enqueue_held_back(&r, n, copied)) {
        release_all(&r);
        return EXIT_ERROR;
    }
    return release_call_by_call(&r, n, synchronize, copied, run);
}

/* reps runs of each case after an uncounted one of each, in turns, the order alternating. */
static int run_in_turns(struct ex3_case cases[2], int reps, const struct cuda_event *copied)
{
    for (int rep = -1; rep < reps; rep++) {
        for (int turn = 0; turn < 2; turn++) {
            struct ex3_case *c = &cases[(rep + 1 + turn) % 2];
            struct ex3_run uncounted;
            if (one_run(c->synchronize, copied, rep < 0 ? &uncounted : &c->runs[rep]))
                return EXIT_ERROR;
        }
    }
    return EXIT_VERIFIED;
}

/* scratch: room for reps samples (stats_summarize sorts what it is given). */
static struct ex3_summary summarize(const struct ex3_case *c, int reps, double *scratch)
{
    struct ex3_summary s = {.finished = FINISHED_AFTER};
    int count[RELEASE_CALLS + 2] = {0}; /* by finished + 1 */
    for (int i = 0; i < reps; i++) {
        count[c->runs[i].finished + 1]++;
        s.whole += c->runs[i].missing == 0;
        scratch[i] = c->runs[i].total_ms;
    }
    s.total = stats_summarize(scratch, (size_t)reps);
    for (int k = 0; k < RELEASE_CALLS + 2; k++) {
        if (count[k] > s.finished_runs) {
            s.finished_runs = count[k];
            s.finished = k - 1;
        }
    }
    for (int call = 0; call < RELEASE_CALLS; call++) {
        for (int i = 0; i < reps; i++) {
            scratch[i] = c->runs[i].ms[call];
            s.done[call] += c->runs[i].done[call];
        }
        s.ms[call] = stats_summarize(scratch, (size_t)reps);
    }
    return s;
}

static const char *finished_name(int finished)
{
    if (finished == FINISHED_BEFORE)
        return "before the first call";
    if (finished == FINISHED_AFTER)
        return "only after the last call had returned";
    return release_call_name[finished];
}

/* A table row: its name, then a cell per case, without trailing blanks. */
static void print_row(const char *name, const char *cells[2])
{
    char line[128];
    int at = snprintf(line, sizeof line, "  %-30s", name);
    for (int k = 0; k < 2 && at < (int)sizeof line; k++)
        at += snprintf(line + at, sizeof line - (size_t)at, "  %-22s", cells[k]);
    while (at > 0 && line[at - 1] == ' ')
        line[--at] = '\0';
    printf("%s\n", line);
}

static void print_table(const struct ex3_case cases[2], const struct ex3_summary s[2], int reps)
{
    char cell[2][32];
    const char *cells[2] = {cell[0], cell[1]};
    printf("\n");
    print_row("", (const char *[2]){"with the synchronize", "without it"});
    print_row("release call, in its order",
              (const char *[2]){"   host held copy done", "   host held copy done"});
    for (int call = 0; call < RELEASE_CALLS; call++) {
        for (int k = 0; k < 2; k++) {
            char done[16];
            snprintf(done, sizeof done, "%d of %d", s[k].done[call], reps);
            if (call == RELEASE_SYNCHRONIZE && !cases[k].synchronize)
                snprintf(cell[k], sizeof cell[k], "    not made");
            else
                snprintf(cell[k], sizeof cell[k], "%9.3f ms %9s", s[k].ms[call].median, done);
        }
        print_row(release_call_name[call], cells);
    }
    for (int k = 0; k < 2; k++)
        snprintf(cell[k], sizeof cell[k], "%9.3f ms", s[k].total.median);
    print_row("the calls together", cells);
    for (int k = 0; k < 2; k++) {
        char whole[16];
        snprintf(whole, sizeof whole, "%d of %d", s[k].whole, reps);
        snprintf(cell[k], sizeof cell[k], "%12s %9s", "", whole);
    }
    print_row("c whole before h_c's release", cells);
    printf("\n");
    for (int k = 0; k < 2; k++)
        printf("  %s, c's copy finished %s%s in %d of %d runs\n",
               cases[k].synchronize ? "with the synchronize" : "without it",
               s[k].finished >= 0 && s[k].finished < RELEASE_CALLS ? "during " : "",
               finished_name(s[k].finished), s[k].finished_runs, reps);
    printf("\n");
}

/* The answer's figures: the without case's, and the synchronize's wait beside them. */
static int answer(struct csv *csv, const struct ex3_summary s[2], int reps)
{
    const struct ex3_summary *with = &s[0], *without = &s[1];
    const bool in_a_call = without->finished >= 0 && without->finished < RELEASE_CALLS;
    /* Without the synchronize, call k of release_all() is the kth made. */
    const int position = in_a_call ? without->finished : 0;
    const struct stats waited = in_a_call ? without->ms[without->finished] : without->total;
    char of_calls[32], of_runs[32];
    snprintf(of_calls, sizeof of_calls, "of %d calls", RELEASE_CALLS - 1);
    snprintf(of_runs, sizeof of_runs, "of %d runs", reps);
    const struct csv_row counted = {.direction = "both", .bytes = 3 * EX3_BYTES, .reps = reps,
                                    .ms = without->total, .params = "clock=none"};
    struct csv_row timed = counted, synced = counted;
    timed.ms = waited;
    timed.params = synced.params = "clock=host";
    synced.ms = with->ms[RELEASE_SYNCHRONIZE];
    return exercise_answer(csv, 3, "unsynced_copy_done_in", "without the synchronize, the "
                           "release call during which c's copy finished, in release_all's "
                           "order (0: in none)", position, of_calls, counted) ||
           exercise_answer(csv, 3, "unsynced_wait_ms", "without the synchronize, how long that "
                           "call held the host (median, host clock)",
                           in_a_call ? waited.median : 0, "ms", timed) ||
           exercise_answer(csv, 3, "unsynced_c_whole", "without the synchronize, runs in which "
                           "c had arrived whole before h_c's release", without->whole, of_runs,
                           counted) ||
           exercise_answer(csv, 3, "synced_wait_ms", "with the synchronize (the lesson's "
                           "release), how long cudaDeviceSynchronize() held the host (median, "
                           "host clock)", with->ms[RELEASE_SYNCHRONIZE].median, "ms", synced);
}

int exercise_3(const struct demo_config *cfg, struct csv *csv)
{
    const int reps = cli_given("--reps") ? cfg->reps : EX3_REPS;
    double *storage = samples_alloc((size_t)reps);
    struct ex3_run *runs = calloc(2 * (size_t)reps, sizeof *runs);
    struct cuda_event copied = {NULL};
    int rc = EXIT_ERROR;
    if (!storage)
        goto out;
    if (!runs) {
        fprintf(stderr, "%s: exercise 3: out of host memory\n", program_name);
        goto out;
    }
    if (cuda_event_create(&copied, cudaEventDisableTiming))
        goto out;
    struct ex3_case cases[2] = {{true, runs}, {false, runs + reps}};
    if (run_in_turns(cases, reps, &copied))
        goto out;
    char size_text[32];
    printf("c = a + b, %s per vector (--size plays no part), as in the demo; c's copy down in s1 "
           "held\nback %d ms behind a spinning kernel; then at once release_all()'s calls one by "
           "one, with its\nsynchronize first and without it, %d runs each in turns after one "
           "each uncounted.\n'host held': how long the call held the host (host clock, median); "
           "'copy done': runs in\nwhich c's copy had finished when the call returned (an event "
           "recorded after it)\n",
           format_bytes(EX3_BYTES, size_text, sizeof size_text), EX3_HOLD_MS, reps);
    const struct ex3_summary s[2] = {summarize(&cases[0], reps, storage),
                                     summarize(&cases[1], reps, storage)};
    print_table(cases, s, reps);
    if (answer(csv, s, reps))
        goto out;
    if (s[0].whole != reps) {
        fprintf(stderr, "%s: exercise 3: with the synchronize, c was not whole before h_c's "
                "release in %d of %d runs\n", program_name, reps - s[0].whole, reps);
        goto out;
    }
    printf("verified: with the synchronize, c = a + b had arrived whole before h_c's release in "
           "every run;\nwithout it, in the runs counted above\n");
    rc = EXIT_VERIFIED;
out:
    cuda_event_destroy(&copied);
    free(runs);
    free(storage);
    return rc;
}
