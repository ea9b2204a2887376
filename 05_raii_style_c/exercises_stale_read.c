/*
 * exercises_stale_read.c - exercise 1 of README.md (--exercise 1): the lecture's transfer manager
 * (ONE_SHARED_EVENT): c's copy in s1, a copy up in s2, then transfer_wait_all and c read,
 * counting the runs in which verification finds c not there.
 */
#include "exercises.h"

#include "kernels.h"

#include <string.h>

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
    *wrong = vector_add_wrong(r->h_a.data, r->h_b.data, r->h_c.data, n);
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

int exercise_1(const struct demo_config *cfg, struct csv *csv)
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
