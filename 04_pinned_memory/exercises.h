/*
 * exercises.h - what lesson 04's exercises share (exercises.c), and the two that live in files of
 * their own: exercise 2 (exercise_strides.c) and exercise 3 (exercise_both_directions.c).
 */
#ifndef EXERCISES_H
#define EXERCISES_H

#include "pinned.h"

void print_ratio(struct stats r);
void *host_holding_reference(enum memory_kind kind, size_t bytes, const struct device_buffers *d);

void exercise_strides(size_t bytes, const struct timing *t);

/* Exercise 3 copies --size, and BOTH_LARGER times it. */
enum { BOTH_LARGER = 4 };
void exercise_both_directions(size_t bytes, int device, int copy_engines, const struct timing *t);

#endif /* EXERCISES_H */
