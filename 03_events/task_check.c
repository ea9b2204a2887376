/*
 * task_check.c - checks your task.c (`make task-03`) against the lesson's own experiment 3.
 *
 * It holds the lesson by including main.c with its main() renamed, so the reference is main.c's
 * produce_consume() itself. Each repetition runs the lesson's experiment 3 (with the wait) and
 * then yours, on the same streams, event and buffers (one untimed warm-up first). Of your run it
 * checks, every time:
 *   - y, copied back into w->h_c, is (a + b) + a in every element;
 *   - the moment your function returns, the producer stream is still busy (its 2 ms of work: the
 *     host did not wait for it) and the consumer stream has work waiting (its work is there);
 *   - no stream still has work once stop is complete (stop is the last thing of the consumer,
 *     which waited for the producer: a join), and start..stop holds the producer's 2 ms.
 * The host clock around your call is compared with the lesson's figure for the same calls.
 * Every wait is bounded: the GPU's work must be done DRAIN_MS after it was issued, and a
 * repetition still running after WATCHDOG_S seconds ends the check with a FAIL line.
 */
#pragma GCC diagnostic ignored "-Wunused-function"
#define main lesson_main
#include "main.c"
#undef main

#include "task.h"

#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#define SPIN_MS 2.0       /* the producer's stand-in work, as experiment 3 issues it */
#define BLOCKED_MS 1.0    /* issuing that takes half of it or more waited for something */
#define DRAIN_MS 10000.0  /* a run's GPU work must be done this long after it was issued */
#define STOP_GRACE_MS 0.1 /* a stream busy this long after stop completed: stop was no join */
enum { WATCHDOG_S = 60 }; /* a repetition that takes longer has hung */

static const char task_summary[] =
    "The task of 03_events: your task_produce_consume() (task.c) issues experiment 3, a consumer\n"
    "stream waiting for a producer stream's event without the host waiting, timed by a pair of\n"
    "events; checked run by run in turns with the lesson's own produce_consume().";

/* ------------------------------------------------------------------ the verdict */

static bool verdict_due; /* from lesson_open() on: a verdict line must end the output */

static void verdict_v(bool pass, const char *fmt, va_list ap)
{
    fputs(pass ? "PASS: " : "FAIL: ", stdout);
    vprintf(fmt, ap);
    putchar('\n');
    verdict_due = false;
}

static void verdict(bool pass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verdict_v(pass, fmt, ap);
    va_end(ap);
}

/* A FAIL line, and the end of the check. */
static _Noreturn void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verdict_v(false, fmt, ap);
    va_end(ap);
    exit(EXIT_ERROR);
}

/* CUDA_CHECK (in the lesson's code or yours) ends the program: say so in the verdict line. */
static void verdict_at_exit(void)
{
    if (verdict_due)
        printf("FAIL: a CUDA call failed and ended the check (the line above names it)\n");
}

static void on_watchdog(int sig)
{
    static const char msg[] = "FAIL: the check did not end in its time: a wait in "
                              "task_produce_consume, or work on the GPU, never ended\n";
    (void)sig;
    if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0) {
        /* nothing else can be said: the exit code still says FAIL */
    }
    _exit(EXIT_ERROR);
}

/* ------------------------------------------------------------------- one run */

/* What one run of yours showed. */
struct run {
    double issue_ms;   /* host clock around your call */
    bool observed;     /* streams and events looked at (not for --solution 1) */
    bool producer_busy, consumer_busy; /* the moment your function returned */
    bool stop_early;   /* stop complete while a stream still had work */
    bool timed;        /* start..stop could be read */
    float span_ms;
    size_t wrong;      /* elements of y wrong in w->h_c */
    bool right_on_gpu; /* when wrong: y on the GPU was right */
};

/* Polls, bounded, until both streams are done; meanwhile notes whether either stream still had
 * work STOP_GRACE_MS after stop was seen complete, which a stop recorded last in the consumer
 * (after its wait for x) never has: stop is then the join of both streams. (The grace allows for
 * a stream's own bookkeeping finishing a moment after the event it ends with.) */
static void drain(const struct cross *c, cudaEvent_t stop, bool *stop_early)
{
    double t0 = host_ms(), stop_seen = -1;
    *stop_early = false;
    for (;;) {
        cudaError_t s = cudaEventQuery(stop);
        cudaError_t p = cudaStreamQuery(c->producer), q = cudaStreamQuery(c->consumer);
        double now = host_ms();
        cudaError_t bad = s != cudaErrorNotReady && s != cudaSuccess   ? s
                          : p != cudaErrorNotReady && p != cudaSuccess ? p
                          : q != cudaErrorNotReady && q != cudaSuccess ? q
                                                                       : cudaSuccess;
        if (bad != cudaSuccess)
            fail("the GPU reported %s (%s) while running your work: a kernel or a copy got a "
                 "wrong pointer or size", cudaGetErrorName(bad), cudaGetErrorString(bad));
        if (s == cudaSuccess && stop_seen < 0)
            stop_seen = now;
        bool busy = p == cudaErrorNotReady || q == cudaErrorNotReady;
        if (busy && stop_seen >= 0 && now - stop_seen > STOP_GRACE_MS)
            *stop_early = true;
        if (!busy)
            break;
        if (now - t0 > DRAIN_MS)
            fail("your work was still running %.0f s after task_produce_consume returned: the "
                 "producer's stand-in work is 2 ms (2000000 ns)", DRAIN_MS / 1000);
    }
    (void)cudaGetLastError(); /* "not ready" is no error for the calls that follow */
}

/* Your function, once: poisoned, issued, looked at the moment it returns, drained, checked. */
static void student_run(const struct work *w, const struct cross *c, struct run *r)
{
    cudaEvent_t start, stop;
    *r = (struct run){.observed = true};
    cross_reset(w, c);
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    fflush(stdout);
    double t0 = host_ms();
    cudaError_t err = task_produce_consume(w, c, start, stop);
    r->issue_ms = host_ms() - t0;
    r->producer_busy = cudaStreamQuery(c->producer) == cudaErrorNotReady;
    r->consumer_busy = cudaStreamQuery(c->consumer) == cudaErrorNotReady;
    if (err == cudaErrorNotYetImplemented)
        fail("task_produce_consume is not written yet (it returned %s): follow the steps in "
             "03_events/task.c", cudaGetErrorName(err));
    if (err != cudaSuccess)
        fail("task_produce_consume returned %s (%s): check each call it makes",
             cudaGetErrorName(err), cudaGetErrorString(err));
    drain(c, stop, &r->stop_early);
    r->timed = cudaEventElapsedTime(&r->span_ms, start, stop) == cudaSuccess;
    (void)cudaGetLastError(); /* an event never recorded: judged below, not by the next call */
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    r->wrong = cross_wrong(w);
    if (r->wrong) { /* was y right on the GPU, and only the copy back missing or too early? */
        CUDA_CHECK(cudaMemcpy(w->h_c, c->d_y, w->n * sizeof(float), cudaMemcpyDeviceToHost));
        r->right_on_gpu = cross_wrong(w) == 0;
    }
}

/* --solution 1: the lesson's own function as yours. It times its issue itself and waits for the
 * GPU before it returns, so only y and the issue time can be checked. */
static void solution_run(const struct work *w, const struct cross *c, struct run *r)
{
    *r = (struct run){.observed = false};
    r->wrong = produce_consume(w, c, true, &r->issue_ms);
}

/* ------------------------------------------------------------- the tally */

struct tally {
    int runs, wrong_runs, right_on_gpu, producer_idle, consumer_idle, stop_early, untimed,
        short_span;
    size_t worst;
    bool observed;
    double *issue, *lesson, *span; /* per run, ms */
};

static void tally_add(struct tally *t, const struct run *r, double lesson_ms)
{
    int i = t->runs++;
    t->issue[i] = r->issue_ms;
    t->lesson[i] = lesson_ms;
    t->span[i] = r->timed ? r->span_ms : 0;
    t->wrong_runs += r->wrong > 0;
    t->right_on_gpu += r->wrong > 0 && r->right_on_gpu;
    t->worst = r->wrong > t->worst ? r->wrong : t->worst;
    t->observed = r->observed;
    if (!r->observed)
        return;
    t->producer_idle += !r->producer_busy;
    t->consumer_idle += !r->consumer_busy;
    t->stop_early += r->stop_early;
    t->untimed += !r->timed;
    t->short_span += r->timed && r->span_ms < 0.99 * SPIN_MS;
}

/* The first rule broken, most basic first: y, then the host's waiting, then the events. Returns
 * false after printing the FAIL line. */
static bool judge(const struct tally *t, size_t n, struct stats issue, struct stats lesson)
{
    int runs = t->runs;
    if (t->wrong_runs && t->right_on_gpu == t->wrong_runs)
        verdict(false, "y wrong in %d of %d runs, yet right on the GPU: copy y into w->h_c in the "
                "consumer stream, after computing it", t->wrong_runs, runs);
    else if (t->wrong_runs)
        verdict(false, "y wrong in %d of %d runs (up to %zu of %zu elements): the consumer read x "
                "before the producer wrote it; make the consumer stream wait for the producer's "
                "event, recorded after x", t->wrong_runs, runs, t->worst, n);
    else if (t->producer_idle && issue.median >= BLOCKED_MS)
        verdict(false, "the host waited for the producer while issuing (%.3f ms to issue, against "
                "the lesson's %.3f ms; its 2 ms of work was done at return in %d of %d runs): let "
                "the consumer stream wait for the event on the GPU, not the host", issue.median,
                lesson.median, t->producer_idle, runs);
    else if (t->producer_idle)
        verdict(false, "the producer stream was idle when task_produce_consume returned, in %d of "
                "%d runs: issue the 2 ms of work and x = a + b into c->producer",
                t->producer_idle, runs);
    else if (t->consumer_idle)
        verdict(false, "the consumer stream had no work left when task_produce_consume returned, "
                "in %d of %d runs: issue y = x + a and its copy into c->consumer, after the wait",
                t->consumer_idle, runs);
    else if (issue.median >= BLOCKED_MS)
        verdict(false, "issuing took %.3f ms (median), half the producer's 2 ms or more, against "
                "the lesson's %.3f ms: something in task_produce_consume waits", issue.median,
                lesson.median);
    else if (t->stop_early)
        verdict(false, "stop was complete while a stream still had work, in %d of %d runs: record "
                "stop in the consumer stream after the copy of y (it was recorded too early, in "
                "the producer, or not at all)", t->stop_early, runs);
    else if (t->untimed)
        verdict(false, "start..stop could not be timed in %d of %d runs: start was never "
                "recorded; record it in the producer stream before its work", t->untimed, runs);
    else if (t->short_span)
        verdict(false, "start..stop spanned less than the producer's 2 ms of work in %d of %d "
                "runs: record start in the producer stream before its work", t->short_span, runs);
    else
        return true;
    return false;
}

/* Runs the lesson's experiment 3 and yours in turns, rep by rep, and returns the tally. */
static void run_in_turns(const struct work *w, int reps, bool solution, struct tally *t)
{
    struct cross c;
    cross_create(&c, w);
    for (int rep = -1; rep < reps; rep++) { /* rep -1: an untimed warm-up of both */
        alarm(WATCHDOG_S);
        double lesson_ms;
        size_t wrong = produce_consume(w, &c, true, &lesson_ms);
        if (wrong)
            fail("the lesson's own run got %zu of %zu elements of y wrong: the GPU or the setup "
                 "is at fault here, not your code", wrong, w->n);
        struct run r;
        if (solution)
            solution_run(w, &c, &r);
        else
            student_run(w, &c, &r);
        if (rep >= 0)
            tally_add(t, &r, lesson_ms);
        alarm(0);
    }
    cross_destroy(&c);
}

/* The figures, into the CSV, and the verdict. */
static bool report(const struct tally *t, size_t n, struct csv *csv)
{
    struct stats issue = stats_summarize(t->issue, (size_t)t->runs);
    struct stats lesson = stats_summarize(t->lesson, (size_t)t->runs);
    struct stats span = stats_summarize(t->span, (size_t)t->runs);
    size_t bytes = 3 * n * sizeof(float);
    record(csv, "task", "lesson_enqueue", bytes, t->runs, lesson, "clock=host;measure=enqueue");
    record(csv, "task", "yours_enqueue", bytes, t->runs, issue, "clock=host;measure=enqueue");
    if (t->observed && !t->untimed)
        record(csv, "task", "yours_span", bytes, t->runs, span, "clock=gpu_event");
    if (lesson_close(csv))
        fail("the CSV could not be written");
    if (!judge(t, n, issue, lesson))
        return false;
    char spanned[128] = "--solution 1: the lesson's function, whose streams and events are not "
                       "looked at";
    if (t->observed)
        snprintf(spanned, sizeof spanned, "the producer busy at every return, start..stop "
                 "%.3f ms", span.median);
    verdict(true, "y right in %d of %d runs and the host never waited (%s), issuing took %.3f ms "
            "against the lesson's %.3f ms (yours %.3f-%.3f ms)", t->runs, t->runs, spanned,
            issue.median, lesson.median, issue.min, issue.max);
    return true;
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 64u << 20, .size_help = "bytes per vector",
                               .size_multiple = sizeof(float), .reps = 10};
    int solution = 0;
    const struct opt extra[] = {SOLUTION_OPTION(&solution)};
    int rc = cli_parse(argc, argv, task_summary, &args, extra, 1);
    struct gpu_info gpu;
    struct csv csv;
    /* As the lesson: a, b, c, x, y on the GPU; a, b, c pinned on the host. */
    struct sized size = {"--size", &args.size, cli_given("--size"), 5, 3};
    if (rc != CLI_CONTINUE || (rc = lesson_open("03_events", &args, &size, 1, &gpu, &csv)))
        return rc;
    verdict_due = true;
    atexit(verdict_at_exit);
    signal(SIGALRM, on_watchdog);

    struct work w = {.n = args.size / sizeof(float)};
    CUDA_CHECK(cudaMallocHost((void **)&w.h_a, args.size));
    CUDA_CHECK(cudaMallocHost((void **)&w.h_b, args.size));
    CUDA_CHECK(cudaMallocHost((void **)&w.h_c, args.size));
    CUDA_CHECK(cudaMalloc((void **)&w.d_a, args.size));
    CUDA_CHECK(cudaMalloc((void **)&w.d_b, args.size));
    CUDA_CHECK(cudaMalloc((void **)&w.d_c, args.size));
    fill_random(w.h_a, w.n, 1);
    fill_random(w.h_b, w.n, 2);
    struct tally t = {.issue = samples_or_exit((size_t)args.reps),
                      .lesson = samples_or_exit((size_t)args.reps),
                      .span = samples_or_exit((size_t)args.reps)};
    char size_text[32];
    printf("task 03: experiment 3 (%s per vector) by %s, %d runs in turns with the lesson's\n",
           format_bytes(args.size, size_text, sizeof size_text),
           solution ? "the lesson's own function (--solution 1)" : "your task_produce_consume",
           args.reps);
    run_in_turns(&w, args.reps, solution != 0, &t);
    bool pass = report(&t, w.n, &csv);
    free(t.issue);
    free(t.lesson);
    free(t.span);
    CUDA_CHECK(cudaFree(w.d_a));
    CUDA_CHECK(cudaFree(w.d_b));
    CUDA_CHECK(cudaFree(w.d_c));
    CUDA_CHECK(cudaFreeHost(w.h_a));
    CUDA_CHECK(cudaFreeHost(w.h_b));
    CUDA_CHECK(cudaFreeHost(w.h_c));
    return pass ? EXIT_VERIFIED : EXIT_ERROR;
}
