/*
 * intensity.c - `--deep intensity`: the pipeline's speed-up over the serial version by the
 * kernel's arithmetic intensity (iterations per element), beside the most it could gain, serial
 * time over the bound.
 */
#include "parts.h"

int intensity_part(struct bench *b, const struct shape *base, unsigned balanced)
{
    printf("\nintensity: speed-up over serial by kernel intensity, %zu chunks, %zu streams, ms on "
           "the "
           "GPU\n", base->chunks, base->streams);
    printf("  %8s %10s %10s %10s %10s %8s %8s  %s\n", "iters", "serial", "pipeline", "kernels",
           "copies", "speed-up", "bound x", "efficiency (range)");
    for (unsigned iters = 1; iters <= 8 * balanced; iters *= 4) {
        struct shape p = *base;
        p.iters = iters;
        struct outcome o;
        if (evaluate(b, &p, &o))
            return -1;
        /* The most a pipeline can gain over the serial version: serial time over the bound. A
         * speed-up above it is an efficiency above 1. */
        printf("  %8u", iters);
        const struct stats times[] = {o.serial, o.pipeline, o.kernels, o.copies};
        for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
            print_ms(times[i]);
        printf(" %7.2fx %7.2fx  %.3f (%.3f-%.3f)\n", o.serial.median / o.pipeline.median,
               o.serial.median / o.bound, o.efficiency.median, o.efficiency.min,
               o.efficiency.max);
        flag_beaten_bound("intensity sweep", o.efficiency);
        if (record_outcome(b, "sweep_intensity", &p, &o, ""))
            return -1;
    }
    return 0;
}

