/*
 * sides.c - the staged run's two sides at once (staging.h) and, from them, the most a staged
 * pipeline can move on this host: part 5's ceiling (staged.h).
 *
 * Started together and neither waiting for the other, the CPU's copies and the GPU's work each
 * run as fast as they can while sharing host memory: the staged run does the same work, and
 * waits as well. Like the other bounds, a heuristic, checked: a staged run below the ceiling's
 * fastest repetition is flagged.
 */
#include "staged.h"

#include <math.h>
#include <pthread.h>

struct cpu_side {
    const struct rig *r;
    const struct staging *s;
    const struct shape *p;
    const struct cpu_copies *copies;
    int threads, rc;
    struct staged_time time;
};

static void *run_cpu_side(void *arg)
{
    struct cpu_side *side = arg;
    side->rc = staged_run(side->r, side->s, side->p, side->threads, side->copies, CPU_WORK,
                          &side->time);
    return NULL;
}

int staged_sides_at_once(const struct rig *r, const struct staging *s, const struct shape *p,
                         int threads, const struct cpu_copies *copies, struct sides_time *time)
{
    struct cpu_side cpu = {.r = r, .s = s, .p = p, .copies = copies, .threads = threads, .rc = -1};
    struct staged_time gpu;
    pthread_t thread;
    double t0 = host_ms();
    if (pthread_create(&thread, NULL, run_cpu_side, &cpu)) {
        fprintf(stderr, "%s: could not start a thread for the CPU's side\n", program_name);
        return -1;
    }
    int rc = staged_run(r, s, p, 1, copies, GPU_WORK, &gpu);
    pthread_join(thread, NULL);
    *time = (struct sides_time){host_ms() - t0, cpu.time.ms, gpu.ms};
    return rc || cpu.rc ? -1 : 0;
}

/* How many times a staged byte crosses host memory, on average over the two ways: in, the CPU
 * reads it, writes it to a staging buffer (a plain store reads the line first: twice) and the DMA
 * reads it; out, the DMA writes it, the CPU reads it and writes it to the results. */
static double host_crossings(const struct cpu_copies *copies)
{
    bool in_reads_first = copies->in == PLAIN_COPY && !copies->write_combined_in;
    bool out_reads_first = copies->out == PLAIN_COPY;
    if (!streaming_stores()) /* streaming copies are memcpy here */
        in_reads_first = !copies->write_combined_in, out_reads_first = true;
    return (3 + in_reads_first + 3 + out_reads_first) / 2.0;
}

/* The ceiling of rep k is the fastest run of both sides at once in rep k (any thread count, any
 * copies), paired with the fastest staged run's rep k. */
int host_ceiling(struct bench *b, const struct staged_plan *sp, const double *fastest)
{
    double *ceiling = b->samples + b->reps, *over = b->samples + 2 * b->reps;
    int at = 0, at_m = 0;
    for (int rep = 0; rep < b->reps; rep++) {
        ceiling[rep] = INFINITY;
        for (int c = 0; c < sp->counts; c++)
            for (int m = 0; m < sp->copy_ways; m++)
                ceiling[rep] = fmin(ceiling[rep], sp->ms[staged_way_index(sp, c, m, SIDES_AT_ONCE)
                                                         * b->reps + rep]);
        over[rep] = ceiling[rep] / fastest[rep];
    }
    for (int c = 0; c < sp->counts; c++)
        for (int m = 0; m < sp->copy_ways; m++)
            if (way_stats(b, sp, staged_way_index(sp, c, m, SIDES_AT_ONCE)).median <
                way_stats(b, sp, staged_way_index(sp, at, at_m, SIDES_AT_ONCE)).median)
                at = c, at_m = m;
    struct stats efficiency = stats_summarize(over, (size_t)b->reps);
    struct stats host = stats_summarize(ceiling, (size_t)b->reps);
    double rate = gbps(2 * sp->p->n * sizeof(unsigned), host.median);
    double crossings = host_crossings(sp->copies[at_m]);
    printf("  the host's ceiling, both sides at once at their fastest (%s, %d threads):\n"
           "  %.2f ms, %.1f GB/s; the best staged run is at %.3f (%.3f-%.3f) of it, rep by rep;\n"
           "  a byte staged that way crosses host memory %g times: %.0f GB/s of host memory "
           "traffic\n", sp->copies[at_m]->name, sp->threads[at], host.median, rate,
           efficiency.median, efficiency.min, efficiency.max, crossings, crossings * rate);
    for (int c = 0; c < sp->counts; c++)
        for (int m = 0; m < sp->copy_ways; m++) {
            double ms = way_stats(b, sp, staged_way_index(sp, c, m, STAGED_RUN)).median;
            if (ms < host.min)
                printf("  !! the staged run, %s on %d threads, took %.2f ms, below the ceiling's "
                       "fastest\n     repetition (%.2f ms): the ceiling is wrong\n",
                       sp->copies[m]->name, sp->threads[c], ms, host.min);
        }
    char params[192];
    snprintf(params, sizeof params, "copies=%s;threads=%d;crossings=%g;efficiency=%.4f;"
             "efficiency_min=%.4f;efficiency_max=%.4f;", sp->copies[at_m]->name, sp->threads[at],
             crossings, efficiency.median, efficiency.min, efficiency.max);
    return record_staged(b, sp, "ceiling", "both", host, params);
}
