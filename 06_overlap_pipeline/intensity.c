/*
 * intensity.c - `--deep intensity`: the pipeline's speed-up over the serial version by the
 * kernel's arithmetic intensity (iterations per element), beside the most it could gain, serial
 * time over its floor: the slower of its kernels alone and the fastest copies alone of any shape
 * (shapes.c).
 */
#include "parts.h"

#include <math.h>

/* Powers of 4 up to 8 times the balance point, and the balance point and twice it, where the
 * speed-up peaks: ascending, each once. Returns how many. */
enum { MAX_INTENSITIES = 24 };
static size_t intensities(unsigned balanced, unsigned out[MAX_INTENSITIES])
{
    size_t n = 0;
    const unsigned extra[] = {balanced, 2 * balanced};
    size_t next_extra = 0;
    for (unsigned iters = 1; iters <= 8 * balanced && n + 2 < MAX_INTENSITIES; iters *= 4) {
        for (; next_extra < 2 && extra[next_extra] <= iters; next_extra++)
            if (extra[next_extra] < iters && (n == 0 || out[n - 1] != extra[next_extra]))
                out[n++] = extra[next_extra];
        out[n++] = iters;
    }
    for (; next_extra < 2; next_extra++)
        if (out[n - 1] != extra[next_extra])
            out[n++] = extra[next_extra];
    return n;
}

int intensity_part(struct bench *b, const struct shape *base, unsigned balanced,
                   const struct stats *fastest_copies)
{
    unsigned iters[MAX_INTENSITIES];
    struct outcome o[MAX_INTENSITIES];
    size_t n = intensities(balanced, iters);
    struct stats copies = fastest_copies ? *fastest_copies : (struct stats){.median = INFINITY};
    for (size_t i = 0; i < n; i++) {
        struct shape p = *base;
        p.iters = iters[i];
        if (evaluate(b, &p, &o[i]))
            return -1;
        if (o[i].copies.median < copies.median) /* the copies do not depend on the iterations */
            copies = o[i].copies;
    }
    printf("\nintensity: speed-up over serial by kernel intensity, %zu chunks, %zu streams, ms on "
           "the GPU\n", base->chunks, base->streams);
    printf("  %8s %10s %10s %10s %10s %8s %8s  %s\n", "iters", "serial", "pipeline", "kernels",
           "copies", "speed-up", "floor x", "against its own halves (range)");
    for (size_t i = 0; i < n; i++) {
        struct stats floor = o[i].kernels.median > copies.median ? o[i].kernels : copies;
        printf("  %8u", iters[i]);
        const struct stats times[] = {o[i].serial, o[i].pipeline, o[i].kernels, o[i].copies};
        for (size_t t = 0; t < sizeof times / sizeof times[0]; t++)
            print_ms(times[t]);
        printf(" %7.2fx %7.2fx  %.3f (%.3f-%.3f)%s\n", o[i].serial.median / o[i].pipeline.median,
               o[i].serial.median / floor.median, o[i].efficiency.median, o[i].efficiency.min,
               o[i].efficiency.max, iters[i] == balanced ? "  balanced" : "");
        flag_beaten_bound("intensity sweep", o[i].efficiency);
        if (o[i].pipeline.median < floor.min)
            printf("  !! at %u iterations the pipeline took %.2f ms, below its floor's fastest "
                   "repetition\n     (%.2f ms): the floor is wrong\n", iters[i],
                   o[i].pipeline.median, floor.min);
        char extra[96];
        snprintf(extra, sizeof extra, "floor_ms=%.4f;floor_min_ms=%.4f;", floor.median, floor.min);
        struct shape p = *base;
        p.iters = iters[i];
        if (record_outcome(b, "sweep_intensity", &p, &o[i], extra))
            return -1;
    }
    /* A speed-up above "floor x" would be a pipeline faster than its floor. */
    printf("  speed-up = serial / pipeline and floor x = serial / floor, ratios of the medians, "
           "where\n  the floor is the slower of these kernels alone and the fastest copies alone "
           "of %s\n  (%.2f ms); against its own halves = max(kernels, copies) / pipeline, rep by "
           "rep\n", fastest_copies ? "any shape" : "this shape at any intensity", copies.median);
    return 0;
}
