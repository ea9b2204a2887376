/*
 * parts.h - what runs after part 1: the timeline (part 2, with --trace) and the deep layer's
 * parts that --deep names (DEEP.md), each in the file named for what it measures.
 *
 * Every function returns 0, or -1 after saying why.
 */
#ifndef PARTS_H
#define PARTS_H

#include "bench.h"
#include "staging.h"

/* Part 2 and the deep parts asked for, on the main shape at the balanced regime. */
int later_parts(struct bench *b, const struct settings *s, const struct shape *base);
/* The run's `verified:` line: what the parts that ran checked. */
void print_verified(const struct settings *s);

/* The deep parts. */
int orders_part(struct bench *b, const struct shape *base);                   /* orders.c */
/* shapes.c; *fastest_copies gets the fastest copies alone of any shape, for intensity_part(). */
int shapes_part(struct bench *b, const struct shape *base, struct stats *fastest_copies);
/* intensity.c; fastest_copies: shapes_part()'s, or NULL where the shapes did not run. */
int intensity_part(struct bench *b, const struct shape *base, unsigned balanced,
                   const struct stats *fastest_copies);
int graph_part(struct bench *b, const struct shape *p);                       /* graph.c */
int managed_part(struct bench *b, const struct shape *p, int device);         /* managed.c */
int by_role_part(struct bench *b, const struct shape *base);                  /* by_role.c */
/* staged.c: part 5 on the ring `st`, T = 1, 2, 4, ... and the most. */
int staged_threads_part(struct bench *b, const struct shape *base, const struct staging *st,
                        int max_threads);

#endif /* PARTS_H */
