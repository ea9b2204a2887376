/*
 * exercises.h - what lesson 04's exercises share (exercises.c), and the two that live in files of
 * their own: exercise 2 (exercise_strides.c) and exercise 3 (exercise_cache.c).
 */
#ifndef EXERCISES_H
#define EXERCISES_H

#include "pinned.h"

extern const char *const direction_keys[N_DIRECTIONS]; /* "h2d", "d2h": in answer keys */
void print_ratio(struct stats r);

void exercise_strides(size_t bytes, const struct timing *t);

/* Exercise 3: the host CPU's last-level cache, and where its size came from. hot_cold_sizes()
 * sets the pieces (--size) and the ring (--sweep-max) the command line left open, and what the
 * run holds of each; it returns CLI_CONTINUE, or EXIT_USAGE after saying why. */
struct host_cache {
    size_t bytes;
    char source[96];
};
struct host_cache host_last_level_cache(void);
int hot_cold_sizes(const struct host_cache *llc, size_t *piece, size_t *ring,
                   struct sized sized[2]);
void exercise_hot_cold(size_t piece, size_t ring, const struct host_cache *llc,
                       const struct timing *t);

#endif /* EXERCISES_H */
