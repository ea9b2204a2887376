/*
 * exercises.h - `--exercise N`: the exercises of README.md, run as they ask, in place of the
 * lesson's parts, on the lesson's own measurements (exercises.c: sizes, the dispatch and
 * exercise 1; exercises_ring.c: 2 and 3; exercises_staged.c: 4 and 5).
 *
 * Every function returns 0, or -1 after saying why.
 */
#ifndef EXERCISES_H
#define EXERCISES_H

#include "bench.h"

enum { EXERCISES = 5 };

/* exercise_sized() sets the exercise's data set where --size left it open, and returns what the
 * run holds per byte of it; exercise_size_rig() sizes the rig for the exercises (size_rig()). */
struct sized exercise_sized(int n, struct settings *s, size_t *size);
void exercise_size_rig(struct settings *s);
int run_exercise(struct bench *b, const struct settings *s, int n);

/* What the exercises share. */
enum {
    EXERCISE_STREAMS = 8, /* exercises 1 and 2 ask for 8 streams */
    FEWEST_CHUNKS = 16,   /* exercise 3's fewest chunks size the ring's buffers */
};
/* A shape's line of evaluate()'s figures, ms on the GPU, and its header. */
void print_outcome(const char *label, const struct outcome *o);
void print_outcome_header(const char *first);

int exercise_2(struct bench *b, const struct settings *s); /* exercises_ring.c */
int exercise_3(struct bench *b, const struct settings *s);
int exercise_4(struct bench *b, const struct settings *s); /* exercises_staged.c */
int exercise_5(struct bench *b, const struct settings *s);
/* Exercise 5's staging ring: 2 slots, and the staged part's. */
size_t exercise_staging_slots(const struct settings *s);

#endif /* EXERCISES_H */
