/*
 * exercises.h - `--exercise N` runs exercise N of README.md in place of the lesson (exercises.c).
 */
#ifndef EXERCISES_H
#define EXERCISES_H

#include "demo.h"

enum { EXERCISE_COUNT = 3 };

/* Runs exercise n (1 to EXERCISE_COUNT) with the demo's configuration, and returns EXIT_VERIFIED
 * or EXIT_ERROR, having released everything it acquired (EXIT_USAGE: a flag it cannot take). */
int run_exercise(int n, const struct demo_config *cfg, struct csv *csv);

#endif /* EXERCISES_H */
