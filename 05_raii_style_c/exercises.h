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

/* release_all()'s calls, in its order: release_all() makes each in turn with release_one(). */
enum release_call {
    RELEASE_SYNCHRONIZE, RELEASE_MANAGER, RELEASE_S2, RELEASE_S1, RELEASE_D_C, RELEASE_D_B,
    RELEASE_D_A, RELEASE_H_C, RELEASE_H_B, RELEASE_H_A, RELEASE_CALLS
};
extern const char *const release_call_name[RELEASE_CALLS];
void release_one(struct async_resources *r, enum release_call call);

/* How many of c's n elements are not a + b: a stale c counted as a finding, not reported. */
size_t vector_add_wrong(const float *a, const float *b, const float *c, size_t n);

/* Exercises 1 (exercises_stale_read.c), 2 (exercises_one_label.c), 3 (exercises_release.c). */
int exercise_1(const struct demo_config *cfg, struct csv *csv);
int exercise_2(const struct demo_config *cfg, struct csv *csv);
int exercise_3(const struct demo_config *cfg, struct csv *csv);

#endif /* EXERCISES_H */
