/*
 * setup.h - the command line, and what the run holds: the sizes lesson_open() checks and the
 * rig's buffers and streams.
 */
#ifndef SETUP_H
#define SETUP_H

#include "bench.h"

/* The deep layer's parts (DEEP.md), in the order they run. */
#define DEEP_PARTS "orders,shapes,intensity,graph,managed,by-role,staged"

/* cli_parse() with the lesson's flags, then deep_check(): CLI_CONTINUE, or the exit code. */
int settings_parse(int argc, char **argv, struct common_args *args, struct settings *s,
                   int *exercise);
/* The sizes the run holds per byte of --size and --sweep-size, for lesson_open(); returns how
 * many of sizes[2] it filled. */
size_t settings_sized(struct settings *s, struct common_args *args, int exercise,
                      struct sized sizes[2]);
/* Takes the sizes lesson_open() chose, and sizes the rig for them. */
void settings_fit(struct settings *s, const struct common_args *args, int exercise);

/* The rig: at least `most` buffers and streams, as many as the settings ask for (three streams
 * for the by-role layout), each buffer as large as the largest chunk of any part: the main
 * shape's, or one of `fewest` chunks of a data set of `other_n` elements. */
void size_rig(struct settings *s, size_t most, size_t other_n, size_t fewest);

#endif /* SETUP_H */
