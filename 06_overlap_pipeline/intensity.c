/*
 * intensity.c - `--deep intensity`: the pipeline's speed-up over the serial version by the
 * kernel's arithmetic intensity (iterations per element), beside the most it could gain, serial
 * time over the bound.
 */
#include "parts.h"

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

int intensity_part(struct bench *b, const struct shape *base, unsigned balanced)
{
    printf("\nintensity: speed-up over serial by kernel intensity, %zu chunks, %zu streams, ms on "
           "the GPU\n", base->chunks, base->streams);
    printf("  %8s %10s %10s %10s %10s %8s %8s  %s\n", "iters", "serial", "pipeline", "kernels",
           "copies", "speed-up", "bound x", "efficiency (range)");
    unsigned iters[MAX_INTENSITIES];
    size_t n = intensities(balanced, iters);
    for (size_t i = 0; i < n; i++) {
        struct shape p = *base;
        p.iters = iters[i];
        struct outcome o;
        if (evaluate(b, &p, &o))
            return -1;
        printf("  %8u", iters[i]);
        const struct stats times[] = {o.serial, o.pipeline, o.kernels, o.copies};
        for (size_t t = 0; t < sizeof times / sizeof times[0]; t++)
            print_ms(times[t]);
        printf(" %7.2fx %7.2fx  %.3f (%.3f-%.3f)%s\n", o.serial.median / o.pipeline.median,
               o.serial.median / o.bound, o.efficiency.median, o.efficiency.min,
               o.efficiency.max, iters[i] == balanced ? "  balanced" : "");
        flag_beaten_bound("intensity sweep", o.efficiency);
        if (record_outcome(b, "sweep_intensity", &p, &o, ""))
            return -1;
    }
    /* The most a pipeline can gain over the serial version is serial time over the bound: a
     * speed-up above it would be an efficiency above 1. */
    printf("  speed-up = serial / pipeline and bound x = serial / bound, ratios of the medians;\n"
           "  efficiency = max(kernels, copies) / pipeline, rep by rep\n");
    return 0;
}
