/*
 * task_check.c - `make task-06`: the student's task_pipeline() (task.c) against the lesson's own
 * pipeline(), which comes from main.c itself, included below with its main() renamed: the
 * reference is the very source the lesson runs.
 *
 * One rig, one shape: 64 chunks, 4 buffers, 8 streams, at the balanced regime's iterations
 * (measured as the lesson measures them), where overlap pays the most. Chunks k and k + 4 share
 * a buffer but not a stream, so nothing but the wait for the buffer's event orders chunk k + 4's
 * copy in after chunk k's copy out.
 * A warm-up of each, then rep by rep: the lesson's loop, the student's, and the serial version
 * (the lesson's loop on one stream and one buffer), the first two in alternating order. Every run
 * starts from poisoned results and ends with the checks that make its figure mean something:
 * nothing left running in a default stream once the joined streams are done, and every element
 * right.
 *
 * PASS: every run of task_pipeline() verified, and its speed, the lesson's time over its time rep
 * by rep, has a median of MIN_SPEED or more. Otherwise FAIL, naming the likely mistake. Exit 0 on
 * PASS, 1 on FAIL, 2 on a bad command line, 77 without a GPU.
 */
#pragma GCC diagnostic ignored "-Wunused-function"
#define main lesson_main
#include "main.c"
#undef main

#include "task.h"

#include <stdarg.h>
#include <time.h>

enum { CHUNKS = 64, BUFFERS = 4, STREAMS = 8, SCAN_PER_CHUNK = 64, MAX_PASSES = CHUNKS / BUFFERS };
enum { LESSON, STUDENT, SERIAL, TURNS }; /* the runs of each rep */
#define MIN_SPEED 0.9
#define WAIT_LIMIT_MS 20000.0 /* one run takes milliseconds: past this, fail rather than hang */
#define POISON 0xffffffffu

static const char *const turn_name[TURNS] = {"the lesson's pipeline()", "task_pipeline()",
                                             "the lesson's serial run"};

struct check {
    struct bench b;
    struct shape shape, serial;
    chunk_loop *student;
    double *ms;    /* TURNS x reps of GPU times, TURNS x reps of host issue times, scratch */
    int runs;      /* the student's runs, every one verified */
    char line[768]; /* the verdict */
};

/* Writes "FAIL: <why>" as the verdict; returns -1. */
static int fail(struct check *c, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int used = snprintf(c->line, sizeof c->line, "FAIL: ");
    vsnprintf(c->line + used, sizeof c->line - (size_t)used, format, args);
    va_end(args);
    return -1;
}

static int cuda_fail(struct check *c, int turn, const char *when, cudaError_t err)
{
    bool ran = turn == STUDENT && strcmp(when, "before") != 0;
    return fail(c, "a CUDA call failed %s %s: %s (%s)%s", when, turn_name[turn],
                cudaGetErrorName(err), cudaGetErrorString(err),
                ran ? ": a copy or kernel on a bad address (a buffer index past r->buffers, a "
                      "count past the buffer?)" : "");
}

/* Waits for `event` on the host, polling, at most WAIT_LIMIT_MS. */
static int wait_for(struct check *c, int turn, cudaEvent_t event)
{
    const struct timespec pause = {0, 50000}; /* 50 us */
    double begin = host_ms();
    for (;;) {
        cudaError_t err = cudaEventQuery(event);
        if (err == cudaSuccess)
            return 0;
        if (err != cudaErrorNotReady)
            return cuda_fail(c, turn, "while the GPU ran", err);
        if (host_ms() - begin > WAIT_LIMIT_MS)
            return fail(c, "a run of %s did not end within %.0f s", turn_name[turn],
                        WAIT_LIMIT_MS / 1000);
        nanosleep(&pause, NULL);
    }
}

/* Work still running in a default stream when the joined streams are done: the rig's streams
 * are non-blocking, so the legacy default stream (0) neither waits for them nor they for it. */
static int left_running(struct check *c, int turn)
{
    const cudaStream_t defaults[2] = {0, cudaStreamPerThread};
    for (int i = 0; i < 2; i++) {
        cudaError_t err = cudaStreamQuery(defaults[i]);
        if (err == cudaErrorNotReady)
            return fail(c, "%s left copies or kernels running in the default stream after the "
                        "rig's streams were done: the events in stream 0 do not time them and "
                        "the join does not wait for them; issue each chunk's work into its "
                        "stream, r->stream[k %% p->streams], not stream 0 (the default stream)",
                        turn_name[turn]);
        if (err)
            return cuda_fail(c, turn, "after", err);
    }
    return 0;
}

static size_t chunk_of(size_t n, size_t chunks, size_t i)
{
    size_t k = 0, first, count;
    for (; k + 1 < chunks; k++) {
        chunk_bounds(n, chunks, k, &first, &count);
        if (i < first + count)
            break;
    }
    return k;
}

/* Whether v is x after 0 to MAX_PASSES passes of the map `once`: a buffer that several chunks
 * overwrote may have gone through several of their kernels. */
static bool passes_of(struct affine once, unsigned x, unsigned v)
{
    for (int m = 0; m <= MAX_PASSES; m++, x = once.a * x + once.c)
        if (v == x)
            return true;
    return false;
}

/* Whether a wrong element (the first SCAN_PER_CHUNK of each chunk) holds another chunk's
 * element at the same offset, as it went in or after passes of the kernel: the mark of a buffer
 * overwritten by its next chunk while its last one still used it. The poison is no data. */
static bool holds_other_chunk(const struct rig *r, const struct shape *p, size_t chunks,
                              size_t *chunk, size_t *other)
{
    struct affine once = work_compose(r->map, p->iters);
    for (size_t k = 0; k < chunks; k++) {
        size_t first, count, seen = 0;
        chunk_bounds(p->n, chunks, k, &first, &count);
        for (size_t i = first; i < first + count && seen < SCAN_PER_CHUNK; i++) {
            if (r->h_out[i] == once.a * r->h_in[i] + once.c || r->h_out[i] == POISON)
                continue;
            seen++;
            for (size_t k2 = 0; k2 < chunks; k2++) {
                size_t first2, count2;
                chunk_bounds(p->n, chunks, k2, &first2, &count2);
                if (k2 != k && i - first < count2 &&
                    passes_of(once, r->h_in[first2 + i - first], r->h_out[i])) {
                    *chunk = k;
                    *other = k2;
                    return true;
                }
            }
        }
    }
    return false;
}

/* The student's results are wrong: which mistake the wrong elements point to. */
static int diagnose(struct check *c, const struct shape *p, size_t wrong, size_t i)
{
    const struct rig *r = &c->b.rig;
    size_t chunks = chunk_plan_make(p->n, p->chunks, p->buffers).chunks;
    size_t k = chunk_of(p->n, chunks, i), other;
    struct affine total = work_compose(r->map, p->iters);
    unsigned got = r->h_out[i], want = total.a * r->h_in[i] + total.c;
    char what[160];
    snprintf(what, sizeof what, "in run %d of task_pipeline(), %zu of %zu elements are wrong; "
             "element %zu (chunk %zu) is %u, want %u", c->runs + 1, wrong, p->n, i, k, got, want);
    if (holds_other_chunk(r, p, chunks, &k, &other))
        return fail(c, "%s: chunk %zu came back holding chunk %zu's data, so a buffer was "
                    "overwritten while a chunk still used it: no wait for the buffer's event "
                    "before the next chunk's copy in?", what, k, other);
    if (got == POISON)
        return fail(c, "%s: it still holds the poison, so chunk %zu never came back to h_out "
                    "(no copy out, or one to the wrong place?)", what, k);
    if (got == r->h_in[i])
        return fail(c, "%s: it came back as it went in, so no kernel ran on chunk %zu before its "
                    "copy out (no kernel, or one in another stream than the chunk's copies?)",
                    what, k);
    return fail(c, "%s (does each chunk's kernel get the chunk's buffer, its count and "
                "p->iters?)", what);
}

static int verified(struct check *c, int turn, const struct shape *p)
{
    const struct rig *r = &c->b.rig;
    size_t first = 0, wrong = work_errors(r, r->h_in, r->h_out, p->n, p->iters, &first);
    if (wrong == 0)
        return 0;
    if (turn == STUDENT)
        return diagnose(c, p, wrong, first);
    return fail(c, "%s gave %zu wrong elements: the GPU or the checker is at fault, not task.c",
                turn_name[turn], wrong);
}

/* One run, as loop_time() runs one (events in stream 0 around a fork, the loop and a join), from
 * poisoned results, then checked. *ms: the GPU's time; *issue: the host's time in the loop. */
static int run_once(struct check *c, int turn, double *ms, double *issue)
{
    const struct rig *r = &c->b.rig;
    const struct shape *p = turn == SERIAL ? &c->serial : &c->shape;
    memset(r->h_out, 0xff, p->n * sizeof(unsigned));
    cudaError_t err = CUDA_REPORT(cudaEventRecord(r->start, r->stream[0]));
    if (err || (err = fan_out(r, p->streams)))
        return cuda_fail(c, turn, "before", err);
    double begin = host_ms();
    err = (turn == STUDENT ? c->student : pipeline)(r, p);
    *issue = host_ms() - begin;
    if (err == cudaErrorNotYetImplemented && turn == STUDENT)
        return fail(c, "task_pipeline() is not written yet: it returns cudaErrorNotYetImplemented "
                    "(write the loop in 06_overlap_pipeline/task.c)");
    if (err)
        return fail(c, "%s returned %s (%s): see the CUDA call it names above", turn_name[turn],
                    cudaGetErrorName(err), cudaGetErrorString(err));
    if ((err = fan_in(r, p->streams)) || (err = CUDA_REPORT(cudaEventRecord(r->stop,
                                                                             r->stream[0]))))
        return cuda_fail(c, turn, "after", err);
    float elapsed;
    if (wait_for(c, turn, r->stop) || left_running(c, turn))
        return -1;
    if ((err = CUDA_REPORT(cudaEventElapsedTime(&elapsed, r->start, r->stop))))
        return cuda_fail(c, turn, "after", err);
    *ms = elapsed;
    return verified(c, turn, p);
}

/* A warm-up of each, then rep by rep; the lesson's loop and the student's in alternating order
 * (the order of runs moves their times: CONTRIBUTING.md, History, Turns), the serial run last. */
static int measure(struct check *c)
{
    const int reps = c->b.reps;
    double ms, issue;
    for (int t = 0; t < TURNS; t++)
        if (run_once(c, t, &ms, &issue))
            return -1;
    c->runs = 1;
    for (int rep = 0; rep < reps; rep++)
        for (int i = 0; i < TURNS; i++) {
            int t = i == SERIAL ? SERIAL : rep % 2 ? 1 - i : i;
            if (run_once(c, t, &c->ms[t * reps + rep], &c->ms[(TURNS + t) * reps + rep]))
                return -1;
            c->runs += t == STUDENT;
        }
    return 0;
}

/* The rows of --csv: the three runs' times, the speed in params. */
static int record_rows(struct check *c, const struct stats ms[TURNS], struct stats speed)
{
    static const char *const variant[TURNS] = {"pipeline", "task_pipeline", "serial_pinned"};
    const struct shape *p = &c->shape;
    char params[192];
    snprintf(params, sizeof params, "task=1;chunks=%zu;streams=%zu;buffers=%zu;iters=%u;"
             "speed=%.4f;speed_min=%.4f;speed_max=%.4f;clock=gpu_event", p->chunks, p->streams,
             p->buffers, p->iters, speed.median, speed.min, speed.max);
    for (int t = 0; t < TURNS; t++)
        if (record(&c->b, "task", variant[t], "both", 2 * p->n * sizeof(unsigned), ms[t], params))
            return -1;
    return 0;
}

/* PASS on speed, or FAIL naming why the student's loop is slow. */
static int verdict(struct check *c)
{
    const int reps = c->b.reps;
    double *ms = c->ms, *issue = ms + TURNS * reps, *scratch = ms + 2 * TURNS * reps;
    struct stats speed = ratio_by_rep(ms + LESSON * reps, ms + STUDENT * reps, reps, scratch);
    struct stats of_serial = ratio_by_rep(ms + STUDENT * reps, ms + SERIAL * reps, reps, scratch);
    struct stats t[TURNS], host[TURNS];
    for (int i = 0; i < TURNS; i++) {
        t[i] = stats_summarize(ms + i * reps, (size_t)reps);
        host[i] = stats_summarize(issue + i * reps, (size_t)reps);
    }
    printf("  %-24s %9s %12s\n  ", "run", "ms (GPU)", "issue ms");
    for (int i = 0; i < TURNS; i++)
        printf("%-24s %9.2f %12.2f\n  ", turn_name[i], t[i].median, host[i].median);
    printf("speed of task_pipeline(): %.3f of the lesson's (%.3f-%.3f rep by rep)\n\n",
           speed.median, speed.min, speed.max);
    if (record_rows(c, t, speed))
        return fail(c, "the CSV could not be written");
    if (speed.median >= MIN_SPEED) {
        snprintf(c->line, sizeof c->line, "PASS: every chunk verified in all %d runs and the "
                 "speed is at least %.2f of the lesson's, %.2f ms against the lesson's %.2f ms "
                 "(speed %.3f, %.3f-%.3f rep by rep)", c->runs, MIN_SPEED, t[STUDENT].median,
                 t[LESSON].median, speed.median, speed.min, speed.max);
        return 0;
    }
    const char *likely =
        host[STUDENT].median > 0.5 * t[STUDENT].median && host[LESSON].median <
        0.5 * t[LESSON].median ? "the host waited inside the loop (a synchronize or a blocking "
        "cudaMemcpy in it?): the loop only issues, and returns"
        : of_serial.median > 0.85 ? "as slow as the serial run: copies and kernels do not overlap "
        "(every chunk in one stream?)"
        : "copies and kernels overlap less than in the lesson's loop (are the chunks spread over "
        "all p->streams streams, each waiting for its own buffer only?)";
    return fail(c, "task_pipeline() runs at %.3f of the lesson's speed (%.3f-%.3f rep by rep; "
                "PASS needs %.2f), %.2f ms against %.2f ms, %.2f of the serial run's time: %s",
                speed.median, speed.min, speed.max, MIN_SPEED, t[STUDENT].median,
                t[LESSON].median, of_serial.median, likely);
}

/* The rig and the shape, the runs, the verdict; releases everything it made. */
static int check(struct check *c, size_t n, const struct gpu_info *gpu)
{
    int reps = c->b.reps;
    struct chunk_plan plan = chunk_plan_make(n, CHUNKS, BUFFERS);
    c->b.samples = samples_alloc((size_t)reps * (MAX_TURNS + 1));
    c->ms = samples_alloc((size_t)reps * (2 * TURNS + 1));
    c->b.copy_engines = gpu->copy_engines;
    int rc = -1;
    if (!c->b.samples || !c->ms) {
        fail(c, "out of host memory for the timing samples");
        goto out_free;
    }
    if (rig_create(&c->b.rig, n, plan.buffers, plan.max_chunk, STREAMS)) {
        fail(c, "the rig could not be made (see the message above)");
        goto out_free;
    }
    for (size_t i = 0; i < n; i++) /* as main.c's run() fills it */
        c->b.rig.h_in[i] = (unsigned)i * 2654435761u + 12345u;
    struct settings s = {.n = n, .chunks = CHUNKS, .buffers = BUFFERS, .streams = STREAMS};
    if (main_shape(&c->b, &s, &c->shape)) {
        fail(c, "the lesson's own runs that find the balance point failed (see above): the GPU "
             "or the checker is at fault, not task.c");
        goto out_destroy;
    }
    c->serial = c->shape;
    c->serial.streams = c->serial.buffers = 1;
    char size_text[32];
    printf("\ntask: %s in %zu chunks, %zu buffers, %zu streams, %u iterations (the balanced "
           "regime); a warm-up of\neach run, then %d in turns, each from poisoned results and "
           "checked element by element\n", format_bytes(n * sizeof(unsigned), size_text,
           sizeof size_text), c->shape.chunks, c->shape.buffers, c->shape.streams,
           c->shape.iters, reps);
    rc = measure(c) || verdict(c) ? -1 : 0;
out_destroy:
    rig_destroy(&c->b.rig);
out_free:
    free(c->b.samples);
    free(c->ms);
    return rc;
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = (size_t)256 << 20, .size_help = "bytes in the data set",
                               .size_multiple = sizeof(unsigned), .reps = 7};
    int solution = 0;
    const struct opt extra[] = {SOLUTION_OPTION(&solution)};
    int rc = cli_parse(argc, argv, "Checks task.c's task_pipeline(), the multi-buffer pipeline "
                       "loop, against the lesson's own\npipeline(), in turns, on the GPU: PASS "
                       "or FAIL, and why.", &args, extra, 1);
    if (rc != CLI_CONTINUE)
        return rc;
    struct sized sizes[1] = {{"--size", &args.size, cli_given("--size"),
                              (double)BUFFERS / CHUNKS, 2}};
    struct gpu_info gpu;
    struct csv csv;
    rc = lesson_open("06_overlap_pipeline", &args, sizes, 1, &gpu, &csv);
    if (rc != EXIT_VERIFIED)
        return rc;
    static struct check c; /* its verdict line is large */
    c = (struct check){.b = {.plain = pipeline, .reps = args.reps, .csv = &csv},
                       .student = solution ? pipeline : task_pipeline};
    if (solution)
        printf("--solution 1: the lesson's own pipeline() stands in for task_pipeline()\n");
    rc = check(&c, args.size / sizeof(unsigned), &gpu) ? EXIT_ERROR : EXIT_VERIFIED;
    if (lesson_close(&csv) && rc == EXIT_VERIFIED) {
        fail(&c, "the CSV could not be written");
        rc = EXIT_ERROR;
    }
    if (resources_report(rc) != rc) {
        fail(&c, "the checker left resources live (see above)");
        rc = EXIT_ERROR;
    }
    printf("%s\n", c.line);
    return rc;
}
