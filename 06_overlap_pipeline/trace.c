/* trace.c - part 2, the timeline of recorded runs; see trace.h. */
#include "trace.h"

int record_runs(struct bench *b, const struct traced *runs, int count, const char *prefix,
                struct busy_time busy[TIMELINE_MAX_RUNS], unsigned long *operations,
                bool *recorded)
{
    *recorded = false;
    if (timeline_start())
        return 0; /* no CUPTI here: it said so, and the rest goes on */
    double ms;
    struct staged_time staged;
    b->rig.tracing = true;
    int rc = timeline_run("warm-up") || pipeline_time(&b->rig, runs[0].p, NOTHING_LEFT_OUT, &ms) ||
             timeline_discard();
    for (int t = 0; rc == 0 && t < count; t++) {
        rc = timeline_run(runs[t].name);
        if (rc == 0 && runs[t].staging)
            rc = staged_run(&b->rig, runs[t].staging, runs[t].p, runs[t].threads,
                            &plain_copies, ALL_WORK, &staged);
        else if (rc == 0)
            rc = pipeline_time(&b->rig, runs[t].p, NOTHING_LEFT_OUT, &ms) ? -1 : 0;
    }
    b->rig.tracing = false;
    if (rc) {
        timeline_stop();
        return -1;
    }
    if (timeline_write(prefix, operations, busy))
        return -1;
    *recorded = true;
    return 0;
}

/* Prints and records how busy each kind of work kept the GPU, and the CPU, in one recorded run. */
int report_busy(struct bench *b, const char *key, const char *name,
                const struct busy_time *busy)
{
    const struct { const char *variant; double ms; } rows[] = {
        {"h2d_busy", busy->h2d_ms},     {"kernels_busy", busy->kernels_ms},
        {"d2h_busy", busy->d2h_ms},     {"all_three_busy", busy->all_three_ms},
        {"span", busy->span_ms},        {"cpu_busy", busy->cpu_ms},
        {"all_four_busy", busy->all_four_ms},
    };
    double span = busy->span_ms;
    printf("  %-38s %6.2f ms, busy: H2D %3.0f%%, kernels %3.0f%%, D2H %3.0f%%, all three at once "
           "%3.0f%%\n", name, span, 100 * busy->h2d_ms / span, 100 * busy->kernels_ms / span,
           100 * busy->d2h_ms / span, 100 * busy->all_three_ms / span);
    if (busy->cpu_ms > 0)
        printf("  %38s %9s  CPU copying %3.0f%%, all four columns of table 2 at once %3.0f%%\n",
               "", "", 100 * busy->cpu_ms / span, 100 * busy->all_four_ms / span);
    size_t n_rows = sizeof rows / sizeof rows[0] - (busy->cpu_ms > 0 ? 0 : 2);
    for (size_t i = 0; i < n_rows; i++) {
        char params[96];
        snprintf(params, sizeof params, "run=%s;share=%.4f;clock=gpu_cupti", key,
                 rows[i].ms / span);
        struct csv_row row = {.experiment = "timeline", .variant = rows[i].variant, .reps = 1,
                              .ms = {rows[i].ms, rows[i].ms, rows[i].ms}, .params = params};
        if (csv_write(b->csv, &row))
            return -1;
    }
    return 0;
}

/* Part 2's runs, in order: a serial one and the pipeline round robin, then those the deep parts
 * by-role and staged add. The engine issues them as main.c's loop does (--deep orders), noting
 * each operation's chunk for the timeline. */
struct plan {
    struct shape shapes[4];
    char names[4][64];
    const char *keys[4];
    struct traced runs[4];
    int count;
};

static void add_run(struct plan *t, const struct shape *p, const char *key, const char *name,
                    const struct staging *staging, int threads)
{
    int i = t->count++;
    t->shapes[i] = *p;
    snprintf(t->names[i], sizeof t->names[i], "%s", name);
    t->keys[i] = key;
    t->runs[i] = (struct traced){t->names[i], &t->shapes[i], staging, threads};
}

static void plan_runs(struct plan *t, const struct shape *p, bool by_role,
                      const struct staging *staging, int threads)
{
    char name[64];
    struct shape q = *p;
    q.streams = q.buffers = 1;
    add_run(t, &q, "serial", "serial: 1 stream, 1 buffer", NULL, 0);
    snprintf(name, sizeof name, "pipelined: %zu streams, %zu buffers", p->streams, p->buffers);
    add_run(t, p, "pipelined", name, NULL, 0);
    if (by_role) {
        q = *p;
        q.streams = 3;
        q.by_role = true;
        snprintf(name, sizeof name, "by role: 3 streams, %zu buffers", p->buffers);
        add_run(t, &q, "by_role", name, NULL, 0);
    }
    if (staging) {
        snprintf(name, sizeof name, "staged: pageable data, %d CPU threads", threads);
        add_run(t, p, "staged", name, staging, threads);
    }
}

int timeline_part(struct bench *b, const struct shape *p, bool by_role,
                  const struct staging *staging, int threads, const char *prefix)
{
    struct plan t = {.count = 0};
    plan_runs(&t, p, by_role, staging, threads);
    printf("\n2. timeline (CUPTI) of a serial and a pipelined run%s%s, balanced regime\n",
           by_role ? ", a by-role run" : "", staging ? ", a staged run" : "");
    unsigned long operations = 0;
    struct busy_time busy[TIMELINE_MAX_RUNS];
    bool recorded;
    if (record_runs(b, t.runs, t.count, prefix, busy, &operations, &recorded))
        return -1;
    if (!recorded)
        return 0;
    printf("  %lu copies and kernels written to %s.json (open it in https://ui.perfetto.dev or\n"
           "  chrome://tracing) and %s.csv%s\n", operations, prefix, prefix,
           staging ? ", with the staged run's CPU copies" : "");
    for (int i = 0; i < t.count; i++)
        if (report_busy(b, t.keys[i], t.names[i], &busy[i]))
            return -1;
    return 0;
}
