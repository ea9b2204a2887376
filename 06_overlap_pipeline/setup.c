/* setup.c - the command line and the run's sizes; see setup.h. */
#include "setup.h"

#include "exercises.h"
#include "fault.h"

static const char summary[] =
    "The multi-buffer pipeline of lecture 7.1 and table 2: a data set in K chunks through a ring\n"
    "of B device buffers over S streams, against the synchronous and serial versions and the\n"
    "shape's bound (its copies alone, its kernels alone), in three regimes; with --trace, a\n"
    "CUPTI timeline; --deep for the rest.";

/* Sizes of the deep parts: the shapes sweep's fewest chunks and most streams meet in the ring's
 * buffers; the managed variant's explicit pipeline cuts the sweep's data set in 16 chunks. */
enum { SWEEP_FEWEST_CHUNKS = 4, SWEEP_MOST_STREAMS = 8, MANAGED_CHUNKS = 16 };

int settings_parse(int argc, char **argv, struct common_args *args, struct settings *s,
                   int *exercise)
{
    *args = (struct common_args){.size = 1u << 30, .size_help = "bytes in the data set",
                                 .size_multiple = sizeof(unsigned), .reps = 5};
    *s = (struct settings){.chunks = 64, .streams = 8, .buffers = 8, .sweeps = 1,
                           .staged_buffers = 8, .sweep_size = 256u << 20};
    int fail_at = 0;
    *exercise = 0;
    const struct opt extra[] = {
        {"--chunks", OPT_INT, &s->chunks, 1, 1 << 20, "K", "chunks the data set is cut into", 0},
        {"--streams", OPT_INT, &s->streams, 1, MAX_STREAMS, "S", "streams the chunks go round",
         0},
        {"--buffers", OPT_INT, &s->buffers, 1, MAX_BUFFERS, "B", "device buffers in the ring", 0},
        {"--kernel-iters", OPT_INT, &s->iters, 0, 1000000, "N",
         "the balanced regime's work per element (0: measure the balance point)", 0},
        {"--sweep-size", OPT_BYTES, &s->sweep_size, sizeof(unsigned), (size_t)1 << 40, "BYTES",
         "data set of the deep parts shapes, intensity, graph and managed", sizeof(unsigned)},
        {"--trace", OPT_PATH, &s->trace, 0, 0, "PREFIX",
         "write the timeline to PREFIX.json and PREFIX.csv", 0},
        {"--sweeps", OPT_INT, &s->sweeps, 0, 1, "0|1",
         "run the deep parts shapes and intensity when --deep asks for them", 0},
        {"--staged-threads", OPT_INT, &s->staged_threads, 0, 256, "T",
         "the staged part's most CPU threads (0: one per CPU this process may use)", 0},
        {"--staged-buffers", OPT_INT, &s->staged_buffers, 1, MAX_BUFFERS, "B",
         "the staged part's pinned staging buffers each way", 0},
        DEEP_OPTION(&s->deep, DEEP_PARTS),
        FAIL_AT_OPTION(&fail_at),
        EXERCISE_OPTION(exercise, EXERCISES),
    };
    int rc = cli_parse(argc, argv, summary, args, extra, sizeof extra / sizeof extra[0]);
    if (rc != CLI_CONTINUE)
        return rc;
    static const char *const parts[] = {"orders", "shapes", "intensity", "graph", "managed",
                                        "by-role", "staged"};
    rc = deep_check(s->deep, parts, sizeof parts / sizeof parts[0]);
    if (rc != CLI_CONTINUE)
        return rc;
    fault_inject_at((unsigned long)fail_at);
    s->device = args->device;
    if (s->staged_threads == 0) {
        int cpus = host_cpus();
        s->staged_threads = cpus > 256 ? 256 : cpus;
    }
    return CLI_CONTINUE;
}

void size_rig(struct settings *s, size_t most, size_t other_n, size_t fewest)
{
    size_t main_chunk = chunk_plan_make(s->n, (size_t)s->chunks, 1).max_chunk;
    size_t other_chunk = chunk_plan_make(other_n, fewest, 1).max_chunk;
    s->buffer_elems = main_chunk > other_chunk ? main_chunk : other_chunk;
    s->ring_buffers = (size_t)s->buffers > most ? (size_t)s->buffers : most;
    if ((size_t)s->staged_buffers > s->ring_buffers)
        s->ring_buffers = (size_t)s->staged_buffers;
    s->streams_made = (size_t)s->streams > most ? (size_t)s->streams : most;
    if (s->streams_made < 3) /* the by-role layout's one stream per role */
        s->streams_made = 3;
}

static bool sweeping(const struct settings *s)
{
    return s->sweeps && deep_wants(s->deep, "shapes");
}

/* The rig of the lesson, or of exercise `exercise`: besides the main shape's chunks, the shapes
 * sweep's fewest chunks, which meet its most buffers; or the managed part's 16 chunks of the
 * sweep's data set, larger than the graph part's 256. */
static size_t fewest_sweep_chunks(const struct settings *s)
{
    return sweeping(s) ? SWEEP_FEWEST_CHUNKS : MANAGED_CHUNKS;
}

static void size_for(struct settings *s, int exercise)
{
    if (exercise)
        exercise_size_rig(s);
    else
        size_rig(s, sweeping(s) ? SWEEP_MOST_STREAMS : 1, s->sweep_n, fewest_sweep_chunks(s));
}

/* On the GPU the ring, a buffer per chunk of either data set, and the managed part's three
 * managed copies of the sweep's data set. On the host the pinned data set and results, and the
 * synchronous baseline's pageable copies of both; the staged part adds its pageable data set
 * and results and its staging ring of a chunk per slot each way; the managed part its three
 * managed copies. */
size_t settings_sized(struct settings *s, struct common_args *args, int exercise,
                      struct sized sizes[2])
{
    s->n = args->size / sizeof(unsigned);
    s->sweep_n = s->sweep_size / sizeof(unsigned);
    size_for(s, exercise); /* the ring's buffer count, which the sizes do not change */
    if (exercise) { /* an exercise holds its own data set and rig, in place of the lesson's */
        sizes[0] = exercise_sized(exercise, s, &args->size);
        return 1;
    }
    double ring = (double)s->ring_buffers;
    bool staged = deep_wants(s->deep, "staged"), managed = deep_wants(s->deep, "managed");
    sizes[0] = (struct sized){"--size", &args->size, cli_given("--size"), ring / s->chunks,
                              4 + (staged ? 2 + 2.0 * s->staged_buffers / s->chunks : 0)};
    sizes[1] = (struct sized){"--sweep-size", &s->sweep_size, cli_given("--sweep-size"),
                              (managed ? 3 : 0) + ring / (double)fewest_sweep_chunks(s),
                              managed ? 3 : 0};
    return 2;
}

void settings_fit(struct settings *s, const struct common_args *args, int exercise)
{
    s->n = args->size / sizeof(unsigned);
    s->sweep_n = s->sweep_size < args->size ? s->sweep_size / sizeof(unsigned) : s->n;
    size_for(s, exercise);
}
