/*
 * exercises.h - `--exercise N` runs exercise N of README.md in place of the lesson (exercises*.c).
 */
#ifndef EXERCISES_H
#define EXERCISES_H

#include "demo.h"

enum { EXERCISE_COUNT = 3 };

/* Whether exercise n can run with the flags given; if not, says why on stderr (main() then ends
 * with EXIT_USAGE before it opens the GPU). */
bool exercise_flags_usable(int n);

/* Runs exercise n (1 to EXERCISE_COUNT) with the demo's configuration, and returns EXIT_VERIFIED
 * or EXIT_ERROR, having released everything it acquired. */
int run_exercise(int n, const struct demo_config *cfg, struct csv *csv);

/* Shared by the exercises (exercises.c): demo_goto.c's acquisitions in its order, undoing
 * nothing on failure (returns whether all were made), and their release under one label, which
 * takes a half-built set as it takes a whole one. */
bool acquire_all(struct async_resources *r, size_t bytes, enum transfer_events events);
void release_all(struct async_resources *r);

/* Exercises 1 (exercises_stale_read.c) and 2 (exercises_one_label.c). */
int exercise_1(const struct demo_config *cfg, struct csv *csv);
int exercise_2(const struct demo_config *cfg, struct csv *csv);

#endif /* EXERCISES_H */
