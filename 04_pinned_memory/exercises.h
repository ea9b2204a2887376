/*
 * exercises.h - what lesson 04's exercises share (exercises.c), and the two that live in files of
 * their own: exercise 2 (exercise_strides.c) and exercise 3 (exercise_write_combined.c).
 */
#ifndef EXERCISES_H
#define EXERCISES_H

#include "pinned.h"

void print_ratio(struct stats r);
void *host_holding_reference(enum memory_kind kind, size_t bytes, const struct device_buffers *d);
void copies_in_turns(int n, void *const *host, const enum memory_kind *kinds, const size_t *bytes,
                     const struct device_buffers *d, const struct timing *t, double *ms);

void exercise_strides(size_t bytes, const struct timing *t);
void exercise_write_combined(size_t bytes, const struct timing *t);

#endif /* EXERCISES_H */
