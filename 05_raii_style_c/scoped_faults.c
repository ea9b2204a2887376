/*
 * scoped_faults.c - --deep scoped: the synchronous half of the demo (demo_scoped.c), whose
 * handles release themselves by __attribute__((cleanup)), made to fail at its first acquisition,
 * then its second, and so on until a run fails none. Each failed run returns early from the
 * middle of a chain of creates, with some handles set and some zeroed; the cleanups must release
 * exactly the set ones. The count of live resources at exit, which main() prints, covers every
 * run of the walk: 0 there means no early return leaked.
 */
#include "demo.h"
#include "fault.h"

enum {
    SCOPED_N = 1024,      /* floats per vector: the walk is about acquisitions, not sizes */
    SCOPED_MAX_RUNS = 32, /* more than run_sync_baseline() makes acquisitions */
};

struct scoped_walk {
    int runs, fault_points, failed_runs;
    unsigned long whole_run; /* acquisitions of the run that failed none */
    double ms[SCOPED_MAX_RUNS];
};

/* The walk sets the fault point itself, run by run; `outer`, the --fail-at point (0: none), is
 * kept where it falls inside a run, so that --fail-at N fails the Nth acquisition here too. */
static int walk(struct scoped_walk *w, unsigned long outer)
{
    /* reps 0: only run_sync_baseline's untimed warm-up run, verified; no samples written. */
    const struct demo_config small = {SCOPED_N, 0, {0, 0}};
    struct demo_samples none = {0};
    for (int k = 1; k <= SCOPED_MAX_RUNS; k++) {
        const unsigned long before = fault_acquisitions(), mine = before + (unsigned long)k;
        const bool outer_here = outer > before && outer <= mine;
        fault_inject_at(outer_here ? outer : mine);
        const double t0 = host_ms();
        const int rc = run_sync_baseline(&small, &none);
        w->ms[k - 1] = host_ms() - t0;
        w->runs = k;
        if (outer_here && rc != EXIT_VERIFIED)
            return EXIT_ERROR; /* the failure --fail-at asked for */
        if (rc != EXIT_VERIFIED) {
            w->failed_runs++;
            continue;
        }
        fault_inject_at(outer);
        w->fault_points = k - 1;
        w->whole_run = fault_acquisitions() - before;
        if (w->whole_run == (unsigned long)w->fault_points && w->failed_runs == w->fault_points)
            return EXIT_VERIFIED;
        fprintf(stderr, "%s: --deep scoped: a whole run made %lu acquisitions, but the walk took "
                "%d runs to get through: an error other than the injected ones\n", program_name,
                w->whole_run, k);
        return EXIT_ERROR;
    }
    fault_inject_at(outer);
    fprintf(stderr, "%s: --deep scoped: no run succeeded in %d\n", program_name, SCOPED_MAX_RUNS);
    return EXIT_ERROR;
}

int scoped_faults(struct csv *csv, unsigned long outer_fail_at)
{
    printf("\nscoped handles (--deep scoped): the synchronous half, %d KiB per vector, made to "
           "fail at each\nacquisition in turn, then at none (stderr names each failure)\n",
           (int)(SCOPED_N * sizeof(float)) >> 10);
    struct scoped_walk w = {0};
    if (walk(&w, outer_fail_at))
        return EXIT_ERROR;
    const struct stats st = stats_summarize(w.ms, (size_t)w.runs);
    printf("  fault points %d, runs %d; each failed run returned an error: %d of %d\n",
           w.fault_points, w.runs, w.failed_runs, w.fault_points);
    printf("  a run took %.3f ms (median, host clock); what the cleanups released is in the count "
           "at exit\n", st.median);
    char params[64];
    snprintf(params, sizeof params, "clock=host;fault_points=%d", w.fault_points);
    const struct csv_row row = {.experiment = "scoped", .variant = "fault_walk",
                                .bytes = 3 * SCOPED_N * sizeof(float), .reps = w.runs, .ms = st,
                                .params = params};
    return csv_write(csv, &row) ? EXIT_ERROR : EXIT_VERIFIED;
}
