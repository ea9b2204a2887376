/*
 * task_check.c - make task-01: checks task.c's task_phases() against the lesson's own part 1,
 * one_repetition() of main.c, compiled here from that very file.
 *
 * The two run in turns (the order swapped every repetition), one untimed round first, on the
 * same vectors, poisoned before every run. Each run of task.c is checked at once: its error, the
 * GPU's, its four events, every element of c, every time. Then each phase's median must lie in
 * the lesson's spread, min to max, widened to its median +-10% where narrower. The last line is
 * the verdict: PASS (exit 0), or FAIL and the likeliest mistake (exit 1); 77 without a GPU.
 */
#pragma GCC diagnostic ignored "-Wunused-function"
#define main lesson_main
#include "main.c"
#undef main

#include "task.h"

#include <math.h>
#include <signal.h>
#include <unistd.h>

static const char task_summary[] =
    "Checks task.c's task_phases() against the lesson's own part 1, in turns, c verified\n"
    "every time: PASS when every phase takes what the lesson's does (its spread, or 10%).";

enum { LESSON_CODE, TASK_CODE, N_CODES };
#define TASK_TOLERANCE 0.10 /* the window is at least the lesson's median +-10% */
enum { VERDICT_LEN = 1024 };
static const char *const task_phase_names[N_PHASES] = {"h2d", "kernel", "d2h", "total"};

static volatile sig_atomic_t in_task, verdict_given;

/* A CUDA_CHECK that failed ends the program, in task.c or here; say so as the verdict. */
static void verdict_at_exit(void)
{
    if (verdict_given)
        return;
    printf("FAIL: %s ended the program before the verdict: a CUDA call failed (the message "
           "above names it), or it called exit()\n", in_task ? "task_phases" : "the checker");
    fflush(stdout);
    _exit(EXIT_ERROR);
}

/* The two ends that leave no time to print: a run that never returns, and a crash. Only
 * write() and _exit() are safe in a signal handler. */
static void verdict_at_signal(int sig)
{
    static const char timeout[] = "FAIL: task_phases did not return in time: it waits for "
                                  "something that never comes\n";
    static const char crash[] = "FAIL: task_phases crashed: a pointer or a size it used is "
                                "wrong (a host buffer given for a GPU one, or past the end?)\n";
    static const char checker[] = "FAIL: the checker crashed, after task_phases returned\n";
    const char *text = sig == SIGALRM ? timeout : in_task ? crash : checker;
    size_t len = sig == SIGALRM ? sizeof timeout : in_task ? sizeof crash : sizeof checker;
    if (write(STDOUT_FILENO, text, len - 1) < 0) { /* nothing more can be said */ }
    _exit(EXIT_ERROR);
}

/* Says the verdict at any end: exit() (a failed CUDA_CHECK), a time-out or a crash. */
static bool guard_the_verdict(void)
{
    const int signals[] = {SIGALRM, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    struct sigaction action = {.sa_handler = verdict_at_signal};
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        if (sigaction(signals[i], &action, NULL) != 0)
            return false;
    return atexit(verdict_at_exit) == 0;
}

/* Seconds one run may take: pageable copies at 0.2 GB/s, the slowest a link gives, and 10 s. */
static unsigned time_limit_s(const struct vectors *v)
{
    return 10u + (unsigned)(3.0 * (double)(v->n * sizeof(float)) / 2e8);
}

/* Both codes start from the same state: inputs and output poisoned on the GPU, c on the host,
 * the times NAN, the GPU idle. */
static void poison(const struct vectors *v, struct phase_times *t)
{
    const size_t bytes = v->n * sizeof(float);
    CUDA_CHECK(cudaMemset(v->d_a, 0xff, bytes));
    CUDA_CHECK(cudaMemset(v->d_b, 0xff, bytes));
    CUDA_CHECK(cudaMemset(v->d_c, 0xff, bytes));
    memset(v->h_c, 0xff, bytes);
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int p = 0; p < N_PHASES; p++)
        t->gpu_ms[p] = t->host_ms[p] = NAN;
    t->launch_ms = NAN;
}

/* --solution 1: the lesson's own function in task.c's place. */
static cudaError_t lesson_as_task(const struct vectors *v, cudaEvent_t mark[N_PHASES],
                                  struct phase_times *t)
{
    *t = one_repetition(v, mark, true);
    return cudaSuccess;
}

static bool is_poison(const float *x)
{
    static const unsigned char poisoned[sizeof(float)] = {0xff, 0xff, 0xff, 0xff};
    return memcmp(x, poisoned, sizeof poisoned) == 0;
}

/* "the untimed round", "repetition 3": where a run went wrong. */
static const char *when(int rep, char *buf, size_t len)
{
    snprintf(buf, len, rep < 0 ? "the untimed round" : "repetition %d", rep + 1);
    return buf;
}

/* c is wrong: where, and the likeliest reason, from what the host and the GPU hold there. */
static void why_c_is_wrong(const struct vectors *v, int rep, char *verdict)
{
    size_t i = 0;
    while (i < v->n && v->h_c[i] == v->h_a[i] + v->h_b[i])
        i++;
    float on_gpu;
    CUDA_CHECK(cudaMemcpy(&on_gpu, v->d_c + i, sizeof on_gpu, cudaMemcpyDeviceToHost));
    const bool host_poisoned = is_poison(&v->h_c[i]);
    const char *why =
        !host_poisoned || !is_poison(&on_gpu)
            ? (on_gpu == v->h_a[i] + v->h_b[i]
                   ? "it is right on the GPU, so c was not copied back after the kernel, whole"
                   : "a and b did not both reach the GPU, whole, before the kernel")
            : "the kernel never wrote it: was it launched, over all n elements?";
    char at[32];
    snprintf(verdict, VERDICT_LEN, "c = a + b is wrong in %s, from element %zu on (%s): %s",
             when(rep, at, sizeof at), i, host_poisoned ? "still the poison" : "a wrong value",
             why);
}

/* What a run of task.c left: its error, the GPU's, the events it was given. False, with the
 * verdict written, when something is wrong. */
static bool task_run_is_clean(cudaError_t err, cudaEvent_t mark[N_PHASES], char *verdict)
{
    const char *hint = err == cudaErrorNotReady ? ": it read a time before the GPU had passed "
                                                  "the mark; wait for the last one first"
                       : err == cudaErrorNotYetImplemented ? ": write its steps in task.c" : "";
    if (err != cudaSuccess) {
        snprintf(verdict, VERDICT_LEN, "task_phases %s (it returned %s, %s)%s",
                 err == cudaErrorNotYetImplemented ? "is not written yet" : "failed",
                 cudaGetErrorName(err), cudaGetErrorString(err), hint);
        return false;
    }
    /* The GPU's own errors, then one a call returned that nobody checked (not "not ready",
     * which a call that polls an event gets, and which is no error). */
    if ((err = cudaDeviceSynchronize()) != cudaSuccess ||
        ((err = cudaGetLastError()) != cudaSuccess && err != cudaErrorNotReady)) {
        snprintf(verdict, VERDICT_LEN, "task_phases returned success, but a CUDA call in it "
                 "failed unchecked: %s (%s)", cudaGetErrorName(err), cudaGetErrorString(err));
        return false;
    }
    int recorded = 0;
    for (int i = 0; i < N_PHASES; i++) {
        float ms; /* an event never recorded has no time: "invalid resource handle" */
        recorded += cudaEventElapsedTime(&ms, mark[i], mark[i]) == cudaSuccess;
    }
    (void)cudaGetLastError(); /* the probes' own errors are no one's */
    if (recorded < N_PHASES) {
        snprintf(verdict, VERDICT_LEN, "only %d of the 4 events task_phases was given were "
                 "recorded: mark the start, each boundary between phases and the end with them "
                 "(the host clock times the CPU, not the GPU)", recorded);
        return false;
    }
    return true;
}

/* Every phase's time is a number, and not below zero. */
static bool task_times_are_sane(const struct phase_times *t, int rep, char *verdict)
{
    char at[32];
    for (int p = 0; p < N_PHASES; p++) {
        if (isnan(t->gpu_ms[p])) {
            snprintf(verdict, VERDICT_LEN, "the %s phase's time was not written in %s (t->gpu_ms"
                     "[%d] is still NAN)", task_phase_names[p], when(rep, at, sizeof at), p);
            return false;
        }
        if (t->gpu_ms[p] < 0) {
            snprintf(verdict, VERDICT_LEN, "the %s phase took %.3g ms in %s: its two events were "
                     "read the wrong way round (the start comes first, then the end)",
                     task_phase_names[p], t->gpu_ms[p], when(rep, at, sizeof at));
            return false;
        }
    }
    return true;
}

/* One run of task.c (or, with --solution 1, of the lesson), on events made for it alone, under
 * a time limit. False, with the verdict written, when anything about it is wrong. */
static bool task_turn(const struct vectors *v, bool solution, int rep, struct phase_times *t,
                      char *verdict)
{
    cudaEvent_t mark[N_PHASES];
    for (int i = 0; i < N_PHASES; i++)
        CUDA_CHECK(cudaEventCreate(&mark[i]));
    poison(v, t);
    fflush(stdout); /* a time-out's verdict comes after all of it */
    alarm(time_limit_s(v));
    (void)cudaGetLastError(); /* so that an error found after the run is the run's */
    in_task = 1;
    cudaError_t err = solution ? lesson_as_task(v, mark, t) : task_phases(v, mark, t);
    bool ok = task_run_is_clean(err, mark, verdict);
    in_task = 0;
    alarm(0);
    if (ok && !vector_add_verified(v->h_a, v->h_b, v->h_c, v->n, "task_phases")) {
        why_c_is_wrong(v, rep, verdict);
        ok = false;
    }
    ok = ok && task_times_are_sane(t, rep, verdict);
    for (int i = 0; i < N_PHASES; i++)
        CUDA_CHECK(cudaEventDestroy(mark[i]));
    return ok;
}

/* One run of the lesson's part 1, from the same state; it checks c itself. */
static void lesson_turn(const struct vectors *v, cudaEvent_t mark[N_PHASES],
                        struct phase_times *t)
{
    poison(v, t);
    *t = one_repetition(v, mark, true);
}

/* ------------------------------------------------------------------------------ the verdict */

/* A figure of the lesson's and the window a figure of task.c's must fall in. */
struct window { struct stats s; double lo, hi; };

/* The lesson's phases `first` to `last` together, repetition by repetition, and their window. */
static struct window window_of(struct phase_times *const lesson, int reps, int first, int last,
                               double *samples)
{
    for (int rep = 0; rep < reps; rep++) {
        samples[rep] = 0;
        for (int p = first; p <= last; p++)
            samples[rep] += lesson[rep].gpu_ms[p];
        if (first == PHASE_H2D && last == PHASE_D2H) /* the total, as its own two marks say */
            samples[rep] = lesson[rep].gpu_ms[PHASE_TOTAL];
    }
    struct window w = {.s = stats_summarize(samples, (size_t)reps)};
    w.lo = fmin(w.s.min, (1 - TASK_TOLERANCE) * w.s.median);
    w.hi = fmax(w.s.max, (1 + TASK_TOLERANCE) * w.s.median);
    return w;
}

static bool inside(double ms, const struct window *w)
{
    return ms >= w->lo && ms <= w->hi;
}

/* Phase p's median `ms` lies outside its window `own`: the likeliest reason. A phase that takes
 * what the lesson's phases p and its neighbours take together was timed across them. */
static const char *why_off(struct phase_times *const lesson, int reps, int p, double ms,
                           const struct window *own, double *samples, char *buf, size_t len)
{
    for (int first = PHASE_H2D; first <= p && p != PHASE_TOTAL; first++)
        for (int last = p; last <= PHASE_D2H; last++) {
            struct window w = window_of(lesson, reps, first, last, samples);
            if ((first == p && last == p) || !inside(ms, &w))
                continue;
            snprintf(buf, len, "it was timed %s%s%s, so it holds the %s%s%s phase%s too: each "
                     "phase runs from the mark just before it to the mark just after it",
                     first < p ? "from an earlier phase's start (the first mark?)" : "",
                     first < p && last > p ? " and " : "",
                     last > p ? "to a later phase's end (the last mark?)" : "",
                     first < p ? task_phase_names[first] : "",
                     first < p && last > p ? " and " : "",
                     last > p ? task_phase_names[last] : "", first < p && last > p ? "s" : "");
            return buf;
        }
    if (ms < 0.1 * own->s.median)
        return "it took almost nothing: its two marks do not bracket its work (both recorded "
               "before it, or both after it, or in another stream than the work's)";
    if (ms > own->hi)
        return "its marks hold more than its work (the CPU's waiting between them, or part of "
               "another phase?)";
    return "its marks miss part of its work: the start goes before it, the end after it";
}

/* Each phase's median of task.c's runs against the lesson's window: the table, the CSV rows,
 * and the verdict. */
static bool judge(struct phase_times *times[N_CODES], int reps, const struct vectors *v,
                  struct csv *csv, char *verdict)
{
    const size_t bytes = v->n * sizeof(float);
    const size_t phase_bytes[N_PHASES] = {2 * bytes, 3 * bytes, bytes, 3 * bytes};
    static const char *const directions[N_PHASES] = {"H2D", "none", "D2H", "none"};
    double *samples = samples_or_exit((size_t)reps);
    struct window w[N_PHASES];
    struct stats task[N_PHASES];
    printf("\nTask 01: each phase on the GPU's clock (CUDA events), median of %d\n", reps);
    printf("  %-8s %12s %12s   %s\n", "phase", "task.c ms", "lesson ms", "lesson's window ms");
    for (int p = 0; p < N_PHASES; p++) {
        int first = p == PHASE_TOTAL ? PHASE_H2D : p, last = p == PHASE_TOTAL ? PHASE_D2H : p;
        w[p] = window_of(times[LESSON_CODE], reps, first, last, samples);
        for (int rep = 0; rep < reps; rep++)
            samples[rep] = times[TASK_CODE][rep].gpu_ms[p];
        task[p] = stats_summarize(samples, (size_t)reps);
        printf("  %-8s %12.4g %12.4g   %.4g-%.4g\n", task_phase_names[p], task[p].median,
               w[p].s.median, w[p].lo, w[p].hi);
        const char *params[N_CODES] = {"clock=gpu_event;code=lesson", "clock=gpu_event;code=task"};
        const struct stats *s[N_CODES] = {&w[p].s, &task[p]};
        for (int code = 0; code < N_CODES; code++)
            csv_record(csv, &(struct csv_row){"task", task_phase_names[p], directions[p],
                                              phase_bytes[p], reps, *s[code], NAN, params[code]});
    }
    char why[320];
    for (int p = 0; p < N_PHASES; p++)
        if (!inside(task[p].median, &w[p])) {
            snprintf(verdict, VERDICT_LEN, "the %s phase took %.3g ms against the lesson's %.3g "
                     "ms (%.3g-%.3g): %s", task_phase_names[p], task[p].median, w[p].s.median,
                     w[p].lo, w[p].hi, why_off(times[LESSON_CODE], reps, p, task[p].median,
                                               &w[p], samples, why, sizeof why));
            free(samples);
            return false;
        }
    int n = snprintf(verdict, VERDICT_LEN, "c verified in all %d runs, every phase within the "
                  "lesson's spread:", reps + 1);
    for (int p = 0; p < N_PHASES; p++)
        n += snprintf(verdict + n, VERDICT_LEN - (size_t)n, "%s %s %.3g ms against the lesson's "
                      "%.3g ms (%.3g-%.3g)", p ? "," : "", task_phase_names[p], task[p].median,
                      w[p].s.median, w[p].lo, w[p].hi);
    free(samples);
    return true;
}

/* ------------------------------------------------------------------------------------ run */

/* The lesson and task.c in turns, one untimed round first, then the verdict. */
static bool check(const struct common_args *args, bool solution, struct csv *csv,
                  char *verdict)
{
    struct vectors v = vectors_alloc(args->size / sizeof(float));
    cudaEvent_t mark[N_PHASES];
    for (int i = 0; i < N_PHASES; i++)
        CUDA_CHECK(cudaEventCreate(&mark[i]));
    struct phase_times *times[N_CODES];
    for (int code = 0; code < N_CODES; code++)
        times[code] = malloc_or_exit((size_t)args->reps * sizeof(struct phase_times));
    char size_text[32];
    printf("task_phases (%s) against the lesson's part 1, in turns: %zu floats (%s per "
           "vector), 1 untimed round and %d repetitions each\n",
           solution ? "--solution 1: the lesson's own function" : "task.c", v.n,
           format_bytes(args->size, size_text, sizeof size_text), args->reps);
    bool ok = true;
    for (int rep = -1; rep < args->reps && ok; rep++)
        for (int turn = 0; turn < N_CODES && ok; turn++) {
            int code = (rep & 1) ? N_CODES - 1 - turn : turn;
            struct phase_times t;
            if (code == LESSON_CODE)
                lesson_turn(&v, mark, &t);
            else
                ok = task_turn(&v, solution, rep, &t, verdict);
            if (ok && rep >= 0)
                times[code][rep] = t;
        }
    if (ok)
        ok = judge(times, args->reps, &v, csv, verdict);
    for (int code = 0; code < N_CODES; code++)
        free(times[code]);
    for (int i = 0; i < N_PHASES; i++)
        CUDA_CHECK(cudaEventDestroy(mark[i]));
    vectors_free(&v);
    return ok;
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 64u << 20, .size_help = "bytes per vector",
                               .size_multiple = sizeof(float), .reps = 20};
    int solution = 0;
    const struct opt extra[] = {
        SOLUTION_OPTION(&solution),
    };
    struct gpu_info gpu;
    struct csv csv;
    int rc = cli_parse(argc, argv, task_summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc != CLI_CONTINUE)
        return rc;
    struct sized sizes[] = {{"--size", &args.size, cli_given("--size"), 3, 3}}; /* part 1's */
    if ((rc = lesson_open(LESSON, &args, sizes, 1, &gpu, &csv)))
        return rc;
    if (!guard_the_verdict()) {
        printf("FAIL: the checker could not set up its own guards\n");
        return EXIT_ERROR;
    }
    char verdict[VERDICT_LEN] = "";
    bool passed = check(&args, solution != 0, &csv, verdict);
    if (lesson_close(&csv) && passed) {
        snprintf(verdict, sizeof verdict, "the checker could not write --csv %s", args.csv);
        passed = false;
    }
    printf("%s: %s\n", passed ? "PASS" : "FAIL", verdict);
    fflush(stdout);
    verdict_given = 1;
    return passed ? EXIT_VERIFIED : EXIT_ERROR;
}
