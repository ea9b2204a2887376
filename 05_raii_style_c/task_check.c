/*
 * task_check.c - checks your task.c (`make task-05`) against the lesson's own release path,
 * release_all() (exercises.c, linked in as it is: main.c is not needed). A warm-up acquires the
 * whole set once, counting its acquisitions; then each rep makes acquisition 1 fail, then 2, ...
 * then none, as --deep scoped walks its fault points, and at each the lesson's release and yours
 * run in turns, each on a set of its own (the whole set first does c = a + b, poisoned and
 * verified). After every release the check reads fault.c's count of live resources, the set's
 * handles and CUDA's last error; when all are clean it releases again, which must change
 * nothing. Every wait is bounded: the whole check ends itself in time (WATCHDOG_S).
 */
#include "exercises.h"
#include "fault.h"
#include "kernels.h"
#include "task.h"

#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

/* A rep takes about a second at 32 MiB on an H200, mostly pinning and unpinning: past this many
 * seconds for each rep and 32 MiB, on top of a minute, something hangs. */
enum { WATCHDOG_S = 10 };

static const char task_summary[] =
    "The task of 05_raii_style_c: your task_release_all() (task.c), the release path of the\n"
    "asynchronous half's resources, checked with each acquisition made to fail in turn, then\n"
    "none, in turns with the lesson's own release_all() (exercises.c).";

typedef void release_fn(struct async_resources *r);

struct check {
    size_t n;          /* floats per vector */
    int acquisitions;  /* a whole set's, counted by the warm-up */
    release_fn *yours; /* task_release_all, or with --solution 1 the lesson's own */
    char why[512];     /* the verdict line's reason */
};

static int set_why(struct check *ck, const char *fmt, ...)
{
    char why[sizeof ck->why];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap); /* an argument may be ck->why itself */
    va_end(ap);
    memcpy(ck->why, why, sizeof why);
    return EXIT_ERROR;
}

/* ------------------------------------------------------------- crashes and hangs */

static volatile sig_atomic_t in_yours; /* while your function runs */

static void on_signal(int sig)
{
    const char *msg = sig == SIGALRM ? "FAIL: the check did not end in its time: a release "
                                       "that never returned, or GPU work that never ended\n"
                      : in_yours ? "FAIL: the check crashed inside task_release_all: a resource "
                                   "released twice, or a handle used after its release\n"
                                 : "FAIL: the check crashed outside task_release_all, on a set "
                                   "an earlier release had left broken\n";
    if (write(STDOUT_FILENO, msg, strlen(msg)) < 0) {
    }
    _exit(EXIT_ERROR);
}

/* ---------------------------------------------------- the count of live resources */

/* stdout and stderr go into a temporary file from capture_begin() to capture_end(), which puts
 * them back, copies what was written into text (len > 0) or onto the real stderr (echo), and
 * closes the file. Without a temporary file nothing is captured. out, err: the real ones. */
struct capture {
    FILE *file;
    int out, err;
};

static bool capture_begin(struct capture *c)
{
    fflush(stdout);
    fflush(stderr);
    *c = (struct capture){tmpfile(), -1, -1};
    if (c->file) {
        c->out = dup(STDOUT_FILENO);
        c->err = dup(STDERR_FILENO);
    }
    return c->out >= 0 && c->err >= 0 && dup2(fileno(c->file), STDOUT_FILENO) >= 0 &&
           dup2(fileno(c->file), STDERR_FILENO) >= 0;
}

static void capture_end(struct capture *c, bool echo, char *text, size_t len)
{
    fflush(stdout);
    fflush(stderr);
    if (c->out >= 0 && dup2(c->out, STDOUT_FILENO) >= 0)
        close(c->out);
    if (c->err >= 0 && dup2(c->err, STDERR_FILENO) >= 0)
        close(c->err);
    if (!c->file)
        return;
    rewind(c->file);
    if (len)
        text[fread(text, 1, len - 1, c->file)] = '\0';
    for (int ch; echo && (ch = getc(c->file)) != EOF;)
        putc(ch, stderr);
    fclose(c->file);
}

/* fault.c keeps its count of live resources to itself and says it only in the line that
 * resources_report() prints: the check reads it back from there. */
static bool live_now(struct check *ck, long *live)
{
    struct capture c;
    char text[1024] = "", *at;
    unsigned long acquired;
    const bool captured = capture_begin(&c);
    if (captured)
        resources_report(EXIT_VERIFIED);
    capture_end(&c, false, text, sizeof text);
    if (captured && (at = strstr(text, "resources: ")) &&
        sscanf(at, "resources: %lu acquired, %ld still live", &acquired, live) == 2)
        return true;
    set_why(ck, "the check could not read the count of live resources (resources_report's line, "
            "through a temporary file): not your release's doing");
    return false;
}

/* ------------------------------------------------------------------------- the set */

/* The set with acquisition `point` made to fail (0: none). acquire_all() stops at the first
 * failure, so what it made must be exactly `point` acquisitions, or the whole set. The fault's
 * messages are kept off the screen; anything else that goes wrong is shown, and ends the check. */
static int acquire(struct check *ck, int point, struct async_resources *r)
{
    *r = (struct async_resources){.h_a = {NULL, 0}};
    struct capture c;
    capture_begin(&c);
    const unsigned long first = fault_acquisitions();
    fault_inject_at(point ? first + (unsigned long)point : 0);
    const bool whole = acquire_all(r, ck->n * sizeof(float), EVENT_PER_STREAM);
    fault_inject_at(0);
    const unsigned long made = fault_acquisitions() - first;
    const unsigned long due = point ? (unsigned long)point : (unsigned long)ck->acquisitions;
    const bool expected = whole == !point && (made == due || !due); /* due 0: the warm-up */
    capture_end(&c, !expected, NULL, 0);
    if (!point)
        ck->acquisitions = (int)made;
    if (expected)
        return EXIT_VERIFIED;
    release_all(r);
    return set_why(ck, "the set could not be acquired%s (stderr says why): not your release's "
                   "doing; a smaller --size may fit", point ? " up to its fault point" : "");
}

/* The whole set at work, as the demo uses it: a and b go up in two streams, c = a + b runs in s1
 * once both are there, c comes down; the host waits (the watchdog bounds it) and verifies c,
 * poisoned first. */
static int use_set(struct check *ck, struct async_resources *r)
{
    fill_random(r->h_a.data, ck->n, 1);
    fill_random(r->h_b.data, ck->n, 2);
    memset(r->h_c.data, 0xff, ck->n * sizeof(float));
    if (transfer_h2d(&r->tm, r->d_a.data, &r->h_a, &r->s1) ||
        transfer_h2d(&r->tm, r->d_b.data, &r->h_b, &r->s2) ||
        transfer_stream_wait_all(&r->tm, &r->s1) ||
        CUDA_REPORT(launch_vector_add(r->d_a.data, r->d_b.data, r->d_c.data, ck->n,
                                      r->s1.handle)) ||
        transfer_d2h(&r->tm, &r->h_c, r->d_c.data, &r->s1) || transfer_wait_all(&r->tm))
        return set_why(ck, "a CUDA call failed while c = a + b ran on the set (stderr names it)");
    if (!vector_add_verified(r->h_a.data, r->h_b.data, r->h_c.data, ck->n, "c = a + b"))
        return set_why(ck, "c = a + b came out wrong on the set (stderr names the element)");
    return EXIT_VERIFIED;
}

/* The handles *r still holds, by name, into buf. */
static void name_held(const struct async_resources *r, char *buf, size_t len)
{
    static const char *const names[] = {"h_a", "h_b", "h_c", "d_a", "d_b", "d_c", "s1", "s2"};
    const bool set[] = {r->h_a.data, r->h_b.data, r->h_c.data, r->d_a.data, r->d_b.data,
                        r->d_c.data, r->s1.handle, r->s2.handle};
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof set / sizeof set[0] && at < len; i++)
        if (set[i])
            at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", names[i]);
    if (r->tm.capacity && at < len)
        snprintf(buf + at, len - at, "%stm (%d event%s)", at ? ", " : "", r->tm.capacity,
                 r->tm.capacity == 1 ? "" : "s");
}

/* --------------------------------------------------------------------- one release */

struct trial {
    int point;             /* the acquisition made to fail; 0: none, the whole set */
    int held;              /* resources the set held when the release began */
    long live;             /* fault.c's count after the release, less the count before */
    int left;              /* resources whose handles the release left set */
    char left_names[160];
    cudaError_t err;       /* CUDA's last error after the release (cleared before it) */
    long live_again;       /* a second release, when the first left all clean: the count's */
    cudaError_t err_again; /* change over it, and CUDA's last error after it */
    double ms;             /* host clock around the first release */
};

static void release_once(release_fn *release, bool yours, struct async_resources *r,
                         cudaError_t *err)
{
    (void)cudaGetLastError();
    in_yours = yours;
    release(r);
    in_yours = false;
    *err = cudaGetLastError();
}

/* Acquire (acquisition `point` made to fail), put the whole set to work, release, look. */
static int trial(struct check *ck, release_fn *release, bool yours, int point, struct trial *t)
{
    *t = (struct trial){.point = point};
    struct async_resources r;
    long before, after, again;
    if (!live_now(ck, &before) || acquire(ck, point, &r))
        return EXIT_ERROR;
    if (!point && use_set(ck, &r)) {
        release_all(&r);
        return EXIT_ERROR;
    }
    t->held = async_resources_held(&r);
    const double t0 = host_ms();
    release_once(release, yours, &r, &t->err);
    t->ms = host_ms() - t0;
    if (!live_now(ck, &after))
        return EXIT_ERROR;
    t->live = after - before;
    t->left = async_resources_held(&r);
    name_held(&r, t->left_names, sizeof t->left_names);
    if (t->live != 0 || t->left != 0 || t->err != cudaSuccess) {
        /* Handles still set that are exactly the resources still live are released here; any
         * others may name resources gone already, and are left to the end of the program. */
        if (t->left > 0 && t->live == t->left)
            release_all(&r);
        return EXIT_VERIFIED;
    }
    release_once(release, yours, &r, &t->err_again);
    if (!live_now(ck, &again))
        return EXIT_ERROR;
    t->live_again = again - after;
    return EXIT_VERIFIED;
}

/* Whether the release passed; if not, why, in ck->why. */
static bool judge(struct check *ck, const struct trial *t)
{
    char at[64];
    if (t->point)
        snprintf(at, sizeof at, "acquisition %d of %d made to fail", t->point, ck->acquisitions);
    else
        snprintf(at, sizeof at, "the whole set of %d, after c = a + b", t->held);
    if (t->held > 0 && t->live == t->held && t->left == t->held)
        set_why(ck, "not written yet: the release released none of the %d resource%s the set "
                "held (%s)", t->held, t->held == 1 ? "" : "s", at);
    else if (t->live > 0)
        set_why(ck, "not released: %ld resource%s still live after the release (%s): %s%s",
                t->live, t->live == 1 ? "" : "s", at, t->left ? "still set: " : "",
                t->left ? t->left_names : "zeroed without being destroyed");
    else if (t->live < 0)
        set_why(ck, "released twice: the count of live resources fell %ld below where it was "
                "(%s): a resource released twice, or one released that the set never held",
                -t->live, at);
    else if (t->err != cudaSuccess)
        set_why(ck, "a CUDA call in the release failed with %s (%s): a resource released "
                "twice, or a zeroed handle handed to CUDA", cudaGetErrorName(t->err), at);
    else if (t->left > 0)
        set_why(ck, "released twice, by the next release: the release let the resources go "
                "but left their handles set in *r (%s; %s), so whatever releases the set next "
                "releases them again: zero each handle through r (a copy of *r is a second "
                "owner)", t->left_names, at);
    else if (t->live_again != 0 || t->err_again != cudaSuccess)
        set_why(ck, "released twice: a second call on the released set (%s) %s: zeroed "
                "handles own nothing", at, t->live_again ? "changed the count of live "
                "resources" : "made a CUDA call fail");
    else
        return true;
    return false;
}

/* ------------------------------------------------------------------------ the check */

static int lesson_at_fault(struct check *ck)
{
    return set_why(ck, "the lesson's own release_all() failed the check, so the checker or the "
                   "GPU is at fault, not your task.c: %s", ck->why);
}

/* One repetition: every fault point, then none; at each, the lesson's release and yours in
 * turns, who goes first alternating. ms[0] and ms[1] get the lesson's and your release of the
 * whole set. */
static int one_rep(struct check *ck, int rep, double ms[2], int *releases)
{
    for (int i = 1; i <= ck->acquisitions + 1; i++) {
        const int point = i <= ck->acquisitions ? i : 0;
        for (int turn = 0; turn < 2; turn++) {
            const bool yours = (turn + rep + i) % 2;
            struct trial t;
            if (trial(ck, yours ? ck->yours : release_all, yours, point, &t))
                return EXIT_ERROR;
            if (!judge(ck, &t))
                return yours ? EXIT_ERROR : lesson_at_fault(ck);
            if (!point)
                ms[yours] = t.ms;
            *releases += yours;
        }
    }
    return EXIT_VERIFIED;
}

static int check_all(struct check *ck, int reps)
{
    double *ms = samples_alloc(2 * (size_t)reps); /* the lesson's, then yours */
    if (!ms)
        return set_why(ck, "host memory ran out for %d samples", 2 * reps);
    struct trial t; /* the untimed warm-up, which counts the acquisitions */
    int rc = trial(ck, release_all, false, 0, &t), releases = 0;
    rc = rc == EXIT_VERIFIED && !judge(ck, &t) ? lesson_at_fault(ck) : rc;
    if (rc == EXIT_VERIFIED)
        printf("%d acquisitions a set; each rep makes acquisition 1, 2, ... %d fail, then none "
               "(c = a + b on the set); at each, the lesson's release and yours\n",
               ck->acquisitions, ck->acquisitions);
    for (int rep = 0; rep < reps && rc == EXIT_VERIFIED; rep++) {
        double pair[2] = {0, 0};
        rc = one_rep(ck, rep, pair, &releases);
        ms[rep] = pair[0];
        ms[reps + rep] = pair[1];
        if (rc == EXIT_VERIFIED)
            printf("  rep %d of %d: 0 live after each release; the whole set released in "
                   "%.3f ms, the lesson's in %.3f ms\n", rep + 1, reps, pair[1], pair[0]);
    }
    if (rc == EXIT_VERIFIED) {
        const struct stats lesson = stats_summarize(ms, (size_t)reps);
        const struct stats yours = stats_summarize(ms + reps, (size_t)reps);
        set_why(ck, "no resource left live and none released twice, in %d releases (acquisition "
                "1 to %d made to fail in turn, then none, %d reps), a second release did "
                "nothing; the whole set released in %.3f ms against the lesson's %.3f ms "
                "(median, host clock; yours %.3f-%.3f ms)", releases, ck->acquisitions, reps,
                yours.median, lesson.median, yours.min, yours.max);
    }
    free(ms);
    return rc;
}

int main(int argc, char **argv)
{
    struct common_args args = {.size = 32u << 20, .size_help = "bytes per vector",
                               .size_multiple = sizeof(float), .reps = 3};
    int solution = 0;
    const struct opt extra[] = {
        SOLUTION_OPTION(&solution),
    };
    int rc = cli_parse(argc, argv, task_summary, &args, extra, sizeof extra / sizeof extra[0]);
    if (rc != CLI_CONTINUE)
        return rc;
    struct gpu_info gpu;
    struct csv csv;
    /* The set: three vectors on the GPU and three pinned on the host, one set at a time. */
    struct sized size = {"--size", &args.size, cli_given("--size"), 3, 3};
    if ((rc = lesson_open("05_raii_style_c", &args, &size, 1, &gpu, &csv)) != EXIT_VERIFIED)
        return rc;
    for (int i = 0; i < 4; i++)
        signal((const int[]){SIGALRM, SIGSEGV, SIGBUS, SIGABRT}[i], on_signal);
    const size_t units = args.size >> 25 ? args.size >> 25 : 1;
    alarm((unsigned)(60 + WATCHDOG_S * (size_t)args.reps * units));
    struct check ck = {.n = args.size / sizeof(float),
                       .yours = solution ? release_all : task_release_all};
    char size_text[32];
    printf("task 05: %s against the lesson's release_all(), %s per buffer, %d reps\n",
           solution ? "the lesson's own release_all() (--solution 1)" : "your task_release_all()",
           format_bytes(args.size, size_text, sizeof size_text), args.reps);
    rc = check_all(&ck, args.reps);
    if (lesson_close(&csv) && rc == EXIT_VERIFIED)
        rc = set_why(&ck, "the CSV could not be written");
    alarm(0);
    printf("%s: %s\n", rc == EXIT_VERIFIED ? "PASS" : "FAIL", ck.why);
    return rc;
}
